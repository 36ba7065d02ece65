"""What ``import kanon_graph`` loads, and how the numba kernels compile (issue 17, item 8).

Behaviour, not timings: a plain import must not load the heavy optional
libraries, the algorithm registry must still be complete, and every numba
kernel is compiled lazily, cached on disk, and silent where it cannot cache.
"""

import importlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from kanon_graph import _jit

HEAVY = ("numba", "networkx", "igraph", "matplotlib", "duckdb", "dask", "scipy")

KERNEL_MODULES = ("kanon_graph.records.mst", "kanon_graph.records.merge",
                  "kanon_graph.records.adjacent", "kanon_graph.records.costs",
                  "kanon_graph.records._split", "kanon_graph.records.refine",
                  "kanon_graph.baselines._cost_kernels", "kanon_graph.baselines._kmember_kernels",
                  "kanon_graph.baselines._bottom_up_kernels",
                  "kanon_graph.clustering.sd._contingency",
                  "kanon_graph.clustering.sd._greedy_kernels", "kanon_graph.clustering.sd.graph")


def _fresh(code, cwd=None, env=None):
    """Run ``code`` in a new interpreter; return its stdout parsed as JSON."""
    out = subprocess.run([sys.executable, "-W", "error", "-c", textwrap.dedent(code)],
                         capture_output=True, text=True, cwd=cwd, env=env, check=True)
    return json.loads(out.stdout)


def test_import_loads_no_heavy_library_and_registers_every_algorithm():
    report = _fresh("""
        import json, sys
        import kanon_graph as kg
        heavy = [m for m in sys.modules if m.split(".")[0] in %r]
        print(json.dumps({"heavy": sorted(heavy), "algorithms": kg.algorithms()}))
    """ % (HEAVY,))
    assert report["heavy"] == []
    import kanon_graph as kg
    assert report["algorithms"] == kg.algorithms()
    assert {"optimal", "mst", "sd", "k-member", "bottom-up", "mondrian", "datafly"} \
        <= set(report["algorithms"])


def test_import_loads_neither_pandas_nor_numpy_until_a_name_is_used():
    report = _fresh("""
        import json, sys
        import kanon_graph as kg
        before = sorted(m for m in ("numpy", "pandas") if m in sys.modules)
        anonymize = kg.anonymize
        after = sorted(m for m in ("numpy", "pandas") if m in sys.modules)
        lattice = "kanon_graph.lattice" in sys.modules
        kg.registry.get_algorithm("optimal")
        print(json.dumps({"before": before, "after": after, "lattice": lattice,
                          "optimal": "kanon_graph.lattice.optimal" in sys.modules,
                          "records": "kanon_graph.records" in sys.modules}))
    """)
    assert report == {"before": [], "after": ["numpy", "pandas"], "lattice": False,
                      "optimal": True, "records": False}


def test_every_public_name_resolves():
    import kanon_graph as kg
    for name in kg.__all__:
        assert getattr(kg, name) is not None, name
    assert set(kg.__all__) <= set(dir(kg))


def test_builtin_table_names_the_module_that_registers_each_algorithm():
    from kanon_graph import registry
    assert set(registry.BUILTIN_ALGORITHMS) <= set(registry.algorithms())
    assert len(registry.BUILTIN_ALGORITHMS) == 19       # safepub and mdav (issue 34), flat (issue 41)
    for name, modules in registry.BUILTIN_ALGORITHMS.items():
        function = registry.get_algorithm(name).function
        assert any(function.__module__ == m or function.__module__.startswith(m + ".")
                   for m in modules), (name, function.__module__)


def test_a_plugin_registering_a_builtin_name_meets_the_builtin_first():
    report = _fresh("""
        import json
        import kanon_graph as kg
        def mine(data, model, *, rng, suppression=None):
            return kg.Partition(None)
        try:
            kg.register_algorithm("mondrian", mine, recoding="local")
            first = "registered"
        except ValueError as exc:
            first = str(exc)
        kg.register_algorithm("mondrian", mine, recoding="local", replace=True)
        kg.register_algorithm("my-own", mine, recoding="local")
        print(json.dumps({"first": first,
                          "replaced": kg.registry.get_algorithm("mondrian").function is mine,
                          "count": len(kg.algorithms())}))
    """)
    assert "already registered" in report["first"]
    assert report["replaced"] is True and report["count"] == 20


def test_record_distance_sd_is_found_without_loading_clustering_first():
    report = _fresh("""
        import json
        from kanon_graph.records import get_distance
        print(json.dumps(get_distance("sd").__name__))
    """)
    assert report == "sd_attribute_distance"


def test_cli_help_loads_no_heavy_library():
    report = _fresh("""
        import contextlib, io, json, sys
        from kanon_graph.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main(["--help"])
            except SystemExit:
                pass
        print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in %r
                                or m.startswith("kanon_graph.cli."))))
    """ % (HEAVY + ("numpy", "pandas"),))
    assert report == ["kanon_graph.cli._parser"]


def test_cli_help_without_commands_is_the_full_parsers_help():
    from kanon_graph.cli import COMMANDS, build_parser
    full = build_parser()
    assert build_parser("").format_help() == full.format_help()
    for name, _, _ in COMMANDS:
        # a command's own parser is the same however the rest of the line is built
        lazy = build_parser(name)
        assert lazy.format_help() == full.format_help()
        sub = {a.dest: a for a in full._subparsers._group_actions[0]._choices_actions}
        assert sub[name].help == [h for n, _, h in COMMANDS if n == name][0]
        assert (lazy._subparsers._group_actions[0].choices[name].format_help()
                == full._subparsers._group_actions[0].choices[name].format_help())


def test_a_kernel_loads_numba_on_its_first_call():
    report = _fresh("""
        import json, sys
        import numpy as np
        from kanon_graph.records import mst
        before = "numba" in sys.modules
        edges = mst._kruskal_scan
        print(json.dumps({"before": before, "compiled": edges.compiled}))
    """)
    assert report == {"before": False, "compiled": False}


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_every_kernel_is_lazy_and_cached(module):
    kernels = [obj for obj in vars(importlib.import_module(module)).values()
               if isinstance(obj, _jit.LazyKernel)]
    assert kernels, f"{module} holds no kernel"
    for kernel in kernels:
        assert kernel.options["cache"] is True, kernel


KERNEL = """
from kanon_graph._jit import njit


@njit(inline="always")
def _twice(x):
    return 2 * x


@njit
def total(values):
    s = 0
    for v in values:
        s += _twice(v)
    return s
"""

RUN = """
import json
import numpy as np
import kern
value = int(kern.total(np.arange(5)))
stats = kern.total.compile().stats
print(json.dumps({"value": value, "cached": stats.cache_path is not None,
                  "hits": len(stats.cache_hits),
                  "misses": len(stats.cache_misses)}))
"""


def test_second_process_loads_the_kernel_from_the_cache(tmp_path):
    (tmp_path / "kern.py").write_text(KERNEL)
    first = _fresh(RUN, cwd=tmp_path)
    second = _fresh(RUN, cwd=tmp_path)
    assert first == {"value": 20, "cached": True, "hits": 0, "misses": 1}
    assert second == {"value": 20, "cached": True, "hits": 1, "misses": 0}


def test_no_writable_cache_dir_compiles_uncached_without_a_warning(tmp_path):
    # numba.njit(cache=True) raises "no locator available" here; the kernel must still run,
    # and "-W error" turns any warning that reaches the user into a failure
    (tmp_path / "kern.py").write_text(KERNEL)
    (tmp_path / "__pycache__").write_text("a file where numba wants its cache directory")
    blocked = tmp_path / "blocker"
    blocked.write_text("")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(blocked / "cache"), "HOME": str(blocked),
           "XDG_CACHE_HOME": str(blocked)}
    report = _fresh(RUN, cwd=tmp_path, env=env)
    assert report["value"] == 20 and not report["cached"] and report["hits"] == 0


def test_lazy_kernel_runs_as_python_without_numba(monkeypatch):
    monkeypatch.setattr(_jit, "HAVE_NUMBA", False)
    kernel = _jit.njit(lambda x: x + 1)
    assert kernel(1) == 2 and kernel.compile() is kernel.py_func


def test_datasets_io_and_viz_load_on_first_use():
    report = _fresh("""
        import json, sys
        import kanon_graph as kg
        before = sorted(m for m in ("kanon_graph.datasets", "kanon_graph.io", "kanon_graph.viz")
                        if m in sys.modules)
        names = [kg.io.read_table.__name__, kg.datasets.make_census.__name__,
                 kg.viz.hierarchy_text.__name__]
        print(json.dumps({"before": before, "names": names,
                          "listed": all(n in dir(kg) for n in ("datasets", "io", "viz"))}))
    """)
    assert report == {"before": [], "names": ["read_table", "make_census", "hierarchy_text"],
                      "listed": True}
    import kanon_graph as kg
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        kg.nonexistent
