"""A first run compiles only what it must (issue 32, item 3).

Behaviour, not timings: small calls of a kernel that declares its work run
its plain-Python source and return what the compiled kernel returns; a call
past the budget compiles it; ``kanon-graph demo`` with an empty numba cache
compiles no kernel at all.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kanon_graph import _jit


def _fresh(code, env=None):
    """Run ``code`` in a new interpreter; return its stdout parsed as JSON."""
    out = subprocess.run([sys.executable, "-W", "error", "-c", textwrap.dedent(code)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_small_calls_run_as_python_until_the_budget_then_the_kernel_compiles(monkeypatch):
    monkeypatch.setattr(_jit, "PYTHON_WORK", 10)

    @_jit.njit(cache=False, work=lambda values: len(values))
    def total(values):
        s = 0
        for v in values:
            s += v
        return s

    assert total(np.arange(4)) == 6 and not total.compiled and total.python_work == 4
    assert total(np.arange(6)) == 15 and not total.compiled and total.python_work == 10
    assert total(np.arange(1)) == 0 and total.compiled       # 11 > 10: compiled
    assert total.python_work == 10


def test_a_kernel_without_declared_work_compiles_on_its_first_call():
    @_jit.njit(cache=False)
    def twice(x):
        return 2 * x

    assert twice(3) == 6 and twice.compiled and twice.python_work == 0


def test_budget_zero_compiles_on_the_first_call(monkeypatch):
    monkeypatch.setattr(_jit, "PYTHON_WORK", 0)
    kernel = _jit.njit(cache=False, work=lambda x: 1)(lambda x: x + 1)
    assert kernel(1) == 2 and kernel.compiled


def test_a_kernel_called_by_a_kernel_running_as_python_runs_as_python():
    inner = _jit.njit(cache=False)(lambda x: x * 3)   # no declared work: alone, it compiles
    namespace = {"inner": inner}
    exec("def outer(values):\n"
         "    s = 0\n"
         "    for v in values:\n"
         "        s += inner(v)\n"
         "    return s\n", namespace)
    outer = _jit.njit(cache=False, work=lambda values: len(values))(namespace["outer"])
    assert outer(np.arange(4)) == 18
    assert not outer.compiled and not inner.compiled


def test_njit_refuses_positional_options():
    with pytest.raises(TypeError, match="keyword options only"):
        _jit.njit(lambda x: x, lambda y: y)


# --- the kernels that declare their work: the same values run as Python or compiled ---

def _graph_case(seed, metric):
    """A random census table's record graph, its cost tables and a random labelling."""
    import kanon_graph as kg
    from kanon_graph.records import RecordGraph
    from kanon_graph.records.costs import ClassCost

    rng = np.random.default_rng(seed)
    schema = kg.datasets.census_schema()
    data = kg.encode(kg.datasets.make_census(int(rng.integers(40, 400)), seed=seed), schema)
    graph = RecordGraph(data)
    cost = ClassCost(data, graph.codes, metric)
    u = graph.n_nodes
    n_classes = int(rng.integers(1, max(2, u // 3)))
    labels = np.concatenate([np.arange(n_classes), rng.integers(0, n_classes, u - n_classes)])
    labels = rng.permutation(labels).astype(np.int64)
    return rng, cost, labels, graph.counts.astype(np.int64)


def _both_ways(kernel, make_args):
    """The kernel's result (and its in-place arrays) run as Python, then compiled."""
    py_args = make_args()
    py_out = kernel._run_python(py_args, {})
    jit_args = make_args()
    jit_out = kernel.compile()(*jit_args)
    return (py_out, py_args), (jit_out, jit_args)


def _assert_same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b or (a != a and b != b), (a, b)


METRICS = ("loss", "gcp", "discernibility")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", METRICS)
def test_set_cost_is_the_same_as_python_and_compiled(seed, metric):
    from kanon_graph.records.costs import _set_cost

    rng, cost, labels, counts = _graph_case(seed, metric)
    for _ in range(5):
        n = int(rng.integers(1, len(labels) + 1))
        nodes = rng.permutation(len(labels))[:n].astype(np.int64)

        def args():
            tables = tuple(t.copy() if isinstance(t, np.ndarray) else t for t in cost.tables)
            return (nodes.copy(), n, cost.codes, counts, tables)

        (py, _), (jit, _) = _both_ways(_set_cost, args)
        assert py == jit


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", METRICS)
def test_best_moves_and_apply_moves_are_the_same_as_python_and_compiled(seed, metric):
    from kanon_graph.records.apply import _apply_moves
    from kanon_graph.records._layout import code_major
    from kanon_graph.records.refine import _best_moves, node_neighbours

    rng, cost, labels, counts = _graph_case(seed, metric)
    u = len(labels)
    n_edges = 3 * u
    eu, ev = rng.integers(0, u, n_edges), rng.integers(0, u, n_edges)
    ptr, adj = node_neighbours(eu, ev, u)
    n_classes = int(labels.max()) + 1
    k = int(rng.integers(1, 6))

    def moves_args():
        tables = tuple(t.copy() if isinstance(t, np.ndarray) else t for t in cost.tables)
        d = cost.codes.shape[1]
        return (labels.copy(), counts, ptr, adj, np.zeros(n_classes, dtype=np.int64), k,
                rng_tabu.copy(), np.ones(u, dtype=np.bool_), np.zeros(u),
                np.full(u, -1, dtype=np.int64), cost.codes, tables, np.full(n_classes, np.nan),
                np.zeros((n_classes, d), dtype=np.int64), np.zeros((n_classes, d), dtype=np.int64),
                np.zeros((n_classes, d)), np.zeros((n_classes, d)), *code_major(tables),
                np.zeros(u), np.zeros(n_classes, dtype=np.bool_))

    rng_tabu = rng.random(u) < 0.1
    (_, py_args), (_, jit_args) = _both_ways(_best_moves, moves_args)
    _assert_same(py_args[8:10], jit_args[8:10])          # best gain and target, in place
    gain, target = py_args[8], py_args[9]
    assert (target >= 0).sum() > 0                       # moves found: a real comparison
    ranked = np.lexsort((np.arange(u), -gain)).astype(np.int64)

    def apply_args():
        tables = tuple(t.copy() if isinstance(t, np.ndarray) else t for t in cost.tables)
        return (ranked, labels.copy(), target, counts, k, 1e-9, u + 1, cost.codes, tables,
                np.zeros(n_classes, dtype=np.bool_))

    (py, py_args), (jit, jit_args) = _both_ways(_apply_moves, apply_args)
    assert py > 0                                          # and some applied
    assert py == jit
    _assert_same(py_args[1], jit_args[1])                  # the labels after the moves
    _assert_same(py_args[9], jit_args[9])                  # the classes touched


# --- kanon-graph demo with an empty numba cache: what compiles, and the same release ---

DEMO = """
import contextlib, hashlib, io, json, re, sys
from kanon_graph import _jit
work = {work}
if work is not None:
    _jit.PYTHON_WORK = work
from kanon_graph.cli import demo, main
results = []
def keep(*args, **kwargs):
    results.append(run(*args, **kwargs))
    return results[-1]
run, demo.anonymize = demo.anonymize, keep
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["demo"])
res = results[0]
text = re.sub(r" in [0-9.]+ s", "", out.getvalue())      # the one timed figure
release = hashlib.sha256(res.table.to_csv(index=False).encode()).hexdigest()
print(json.dumps({{
    "compiled": sorted(k.__module__ + "." + k.py_func.__name__
                       for k in _jit.kernels() if k.compiled),
    "python": sorted(k.py_func.__name__ for k in _jit.kernels() if k.python_work),
    "numba": "numba" in sys.modules, "algorithm": res.algorithm,
    "text": text, "release": release}}))
"""

#: the lattice search's roll-up and tagging kernels: called tens of thousands of times
#: by the demo's steps, they compile (a Python run of them would cost 20 s)
#: (frequency sets are rolled up packed: issue 47 item 4)
LATTICE = {"kanon_graph.lattice._rollup_kernels._hash_packed",
           "kanon_graph.lattice._rollup_kernels._hash_keys",      # _hash_packed's hash pass
           "kanon_graph.lattice._rollup_kernels._packed_keys",
           "kanon_graph.lattice._rollup_kernels._tally_sum",
           "kanon_graph.lattice.node_space._closed_fill"}


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp("numba-cache"))}
    first = _fresh(DEMO.format(work=None), env=env)            # a new user's first run
    compiled_all = _fresh(DEMO.format(work=0), env=env)        # every kernel compiled
    return first, compiled_all, _fresh(DEMO.format(work=None), env=env)   # the cache warm


def test_demo_with_an_empty_cache_compiles_only_the_lattice_kernels(demo_runs):
    first, _, _ = demo_runs
    assert first["algorithm"] == "stepwise"
    assert set(first["compiled"]) <= LATTICE, first["compiled"]
    assert not any(".records." in name for name in first["compiled"])
    # the refinement's costing runs as Python too (of_labels' one call, set_cost inside it)
    assert {"_best_moves_py", "_classes_cost_py", "_apply_moves_py"} <= set(first["python"])


def test_demo_releases_the_same_table_with_every_kernel_compiled(demo_runs):
    first, compiled_all, _ = demo_runs
    assert compiled_all["python"] == []
    assert {"kanon_graph.records.refine._best_moves_py",
            "kanon_graph.records.costs._set_cost_py"} <= set(compiled_all["compiled"])
    assert compiled_all["release"] == first["release"]
    assert compiled_all["text"] == first["text"]


def test_with_the_cache_warm_no_kernel_runs_as_python(demo_runs):
    # every kernel of the demo is in numba's cache (the run with budget 0 wrote it): each
    # is loaded, none runs as Python, and the release is the same
    first, compiled_all, warm = demo_runs
    assert warm["python"] == []
    assert set(compiled_all["compiled"]) <= set(warm["compiled"])
    assert warm["release"] == first["release"] and warm["text"] == first["text"]
