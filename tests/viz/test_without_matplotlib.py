"""Figure functions without matplotlib: one clear line naming the ``[plot]`` extra.

With only ``pip install -e .`` (no matplotlib), ``kg.viz.hierarchy_figure`` and
``kg.viz.lattice_figure`` raised a raw ``ModuleNotFoundError: No module named
'matplotlib'`` from a module-level import (issue 16). The CLI's message names the
extra; the library's must too.
"""

import sys

import pytest

import kanon_graph as kg


@pytest.fixture
def no_matplotlib(monkeypatch):
    """``import matplotlib`` fails, as in an environment without it."""
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def _figures():
    location = kg.datasets.paper_002_location()
    data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
    lattice = kg.lattice.Lattice([1, 1, 1])
    return {
        "hierarchy_figure": lambda: kg.viz.hierarchy_figure(location),
        "lattice_figure": lambda: kg.viz.lattice_figure(lattice),
        "mst_figure": lambda: kg.viz.mst_figure(data, 3),
        "metric_curves_figure": lambda: kg.viz.metric_curves_figure(
            [{"algorithm": "a", "k": 2, "loss": 0.1}]),
        "distribution_figure": lambda: kg.viz.distribution_figure([1, 2], [1, 2]),
    }


@pytest.mark.parametrize("name", sorted(_figures()))
def test_figure_without_matplotlib_names_the_plot_extra(no_matplotlib, name):
    with pytest.raises(ImportError) as err:
        _figures()[name]()
    message = str(err.value)
    assert message == f"{name} needs matplotlib: pip install -e '.[plot]'"
    assert "\n" not in message
