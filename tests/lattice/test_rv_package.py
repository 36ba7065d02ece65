"""The RV searches live in the subpackage ``kanon_graph.lattice.rv`` (and nowhere else)."""

import importlib
import importlib.util
import subprocess
import sys

import pytest

import kanon_graph.lattice as lattice
from kanon_graph import registry

OLD_MODULES = ["rv", "rv_rules", "rv_weights", "prepruning", "search_common", "search_global",
               "search_local", "search_hybrid", "search_distributed"]


@pytest.mark.parametrize("old", [m for m in OLD_MODULES if m != "rv"])
def test_the_old_flat_modules_are_gone(old):
    assert importlib.util.find_spec(f"kanon_graph.lattice.{old}") is None


def test_rv_is_now_a_package():
    spec = importlib.util.find_spec("kanon_graph.lattice.rv")
    assert spec is not None and spec.submodule_search_locations


@pytest.mark.parametrize("name", ["rv-global", "rv-local", "rv-hybrid", "rv-distributed"])
def test_the_registry_paths_resolve_and_register_on_first_lookup(name):
    modules = registry.BUILTIN_ALGORITHMS[name]
    assert all(m.startswith("kanon_graph.lattice.rv.") for m in modules)
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module
    function = registry.get_algorithm(name).function
    assert function.__module__ in modules


def test_a_fresh_lookup_of_each_rv_search_registers_it():
    code = ("import sys, kanon_graph as kg\n"
            "names = ['rv-global', 'rv-local', 'rv-hybrid', 'rv-distributed']\n"
            "assert not any(m.startswith('kanon_graph.lattice.rv') for m in sys.modules)\n"
            "print(','.join(kg.registry.get_algorithm(n).function.__module__ for n in names))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out.split(",") == ["kanon_graph.lattice.rv.search_global",
                              "kanon_graph.lattice.rv.search_local",
                              "kanon_graph.lattice.rv.search_hybrid",
                              "kanon_graph.lattice.rv.search_distributed"]


def test_lattice_re_exports_the_same_objects():
    from kanon_graph.lattice import rv
    for name in ["PrePruning", "prepruning", "ResearchValues", "Rule", "correlation_weights",
                 "research_values", "rv_global", "rv_local", "rv_hybrid", "rv_distributed"]:
        assert name in lattice.__all__
        assert getattr(lattice, name) is getattr(rv, name), name
    # the function, not its submodule, whatever imported the submodule first
    importlib.import_module("kanon_graph.lattice.rv.prepruning")
    assert callable(lattice.prepruning) and callable(rv.prepruning)
    assert rv.prepruning.__module__ == "kanon_graph.lattice.rv.prepruning"
