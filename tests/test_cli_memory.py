"""What ``kanon-graph anonymize`` holds besides the table (issue 47, CLI peak memory).

Behaviour, not timings or byte counts: the command loads the modules of the
algorithm it runs and nothing of the others (each loaded library stays
resident for the whole run: scipy's special functions, the record graph,
the clusterings cost megabytes the 1M-row streamed run never uses).
"""

import json
import os
import subprocess
import sys
import textwrap
import warnings

import pandas as pd
import pytest

import kanon_graph as kg

#: Loaded by no step of a global algorithm's run (numba itself imports scipy.linalg).
UNUSED = ("scipy.special", "scipy.stats", "scipy.sparse", "scipy.optimize", "networkx",
          "igraph", "matplotlib", "dask", "sklearn", "starlette", "uvicorn",
          "kanon_graph.lattice.safepub", "kanon_graph.records", "kanon_graph.clustering",
          "kanon_graph.baselines", "kanon_graph.stepwise", "kanon_graph.flat",
          "kanon_graph.constrained", "kanon_graph.viz", "kanon_graph.report",
          "kanon_graph.explorer", "kanon_graph.experiments", "kanon_graph.comparison")


@pytest.fixture(scope="module")
def census_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("census")
    schema = kg.datasets.census_schema()
    (folder / "h").mkdir()
    for name, hierarchy in schema.hierarchies.items():
        kg.write_hierarchy(hierarchy, folder / "h" / f"census_hierarchy_{name}.csv")
    kg.datasets.make_census(400, seed=0).to_csv(folder / "census.csv", index=False)
    return folder, list(schema.quasi_identifiers)


def _loaded_by(argv):
    """The modules a fresh interpreter holds after ``kanon-graph *argv``."""
    code = textwrap.dedent("""
        import contextlib, io, json, sys
        from kanon_graph.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(sys.argv[1:])
        print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
    """)
    out = subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("stream", ["on", "off"])
def test_a_global_run_loads_its_algorithm_and_none_of_the_others(census_files, stream):
    folder, qis = census_files
    report = _loaded_by(["anonymize", folder / "census.csv", "--qi", ",".join(qis),
                         "--hierarchies", folder / "h", "-k", "5", "--algorithm", "optimal",
                         "-o", folder / f"out_{stream}.csv", "--stream", stream, "-q"])
    assert report["code"] == 0
    modules = set(report["modules"])
    assert "kanon_graph.lattice.optimal" in modules
    loaded = sorted(m for m in modules if any(m == u or m.startswith(u + ".") for u in UNUSED))
    assert loaded == []


def test_an_unknown_algorithm_is_still_named_with_the_known_ones(census_files):
    folder, qis = census_files
    out = subprocess.run([sys.executable, "-m", "kanon_graph", "anonymize",
                          str(folder / "census.csv"), "--qi", ",".join(qis), "--hierarchies",
                          str(folder / "h"), "-k", "5", "--algorithm", "no-such-one",
                          "-o", str(folder / "never.csv"), "--stream", "off"],
                         capture_output=True, text=True)
    assert out.returncode != 0
    assert "no-such-one" in out.stderr and "'optimal'" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (folder / "never.csv").exists()


def _counted(folder, qis, tmp_path, csv=None):
    """Pass 1 and the search of the streamed command on ``csv`` (the census by default)."""
    from kanon_graph.cli import build_parser
    from kanon_graph.cli._common import Progress
    from kanon_graph.cli._stream import count_tuples, run_counted

    args = build_parser("anonymize").parse_args(
        ["anonymize", str(csv or folder / "census.csv"), "--qi", ",".join(qis), "--hierarchies",
         str(folder / "h"), "-k", "5", "--algorithm", "optimal", "-o",
         str(tmp_path / "out.csv"), "--stream", "on", "--order-seed", "1", "-q"])
    counted = count_tuples(args, Progress(True), rows=64)
    with warnings.catch_warnings():                 # optimal's 'generalizes to nothing' advice
        warnings.simplefilter("ignore")
        result = run_counted(counted, args, Progress(True))
    return args, counted, result


def test_the_streamed_run_holds_one_small_code_per_tuple_and_cell(census_files, tmp_path):
    """The counted tuples' codes and the released cells per tuple: one byte each here (fewer
    than 127 distinct cells per column), not 4 (int32 codes) or 8 (an object pointer)."""
    from kanon_graph.cli._stream_write import _tuple_cells

    folder, qis = census_files
    _, counted, result = _counted(folder, qis, tmp_path)
    assert all(counted.codes[c].dtype.itemsize == 1 for c in counted.columns)
    cells, _, _ = _tuple_cells(result, counted)
    for column in qis:
        codes, labels = cells[column]
        assert codes.dtype.itemsize == 1 and len(codes) == len(counted.tuples)
        assert len(labels) < 255                            # one object per label


def test_a_row_of_cells_seen_in_an_unseen_combination_is_refused(census_files, tmp_path):
    """The second pass finds each row's tuple by its codes; a combination of known cells the
    first pass never counted (the file changed) is an error, never another tuple's cells."""
    from kanon_graph.cli._common import Progress
    from kanon_graph.cli._stream_write import write_release
    from kanon_graph.exceptions import PrivacyError

    folder, qis = census_files
    table = pd.read_csv(folder / "census.csv", dtype=str, keep_default_na=False)
    csv = tmp_path / "census.csv"
    table.to_csv(csv, index=False)
    args, counted, result = _counted(folder, qis, tmp_path, csv)
    seen = set(map(tuple, table[qis].to_numpy().tolist()))
    changed = table.copy()
    options = ((c, v) for c in qis for v in table[c].unique())  # cells the file holds
    for column, value in options:                   # row 0 takes one of them
        changed = table.copy()
        changed.loc[0, column] = value
        if tuple(changed.loc[0, qis]) not in seen:
            break
    assert tuple(changed.loc[0, qis]) not in seen
    changed.to_csv(csv, index=False)                # the file changed between the passes
    with pytest.raises(PrivacyError, match="first pass did not count"):
        write_release(result, counted, args, Progress(True), rows=64)
    assert not (tmp_path / "out.csv").exists()


def test_the_command_allocates_arrow_buffers_from_the_system_heap(census_files, tmp_path):
    """Arrow's own pool (mimalloc) keeps the pages a phase freed, out of malloc_trim's reach."""
    pytest.importorskip("pyarrow")
    folder, qis = census_files
    code = textwrap.dedent("""
        import contextlib, io, json, sys
        import pyarrow
        from kanon_graph.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(sys.argv[1:])
        print(json.dumps({"code": code, "pool": pyarrow.default_memory_pool().backend_name}))
    """)
    argv = ["anonymize", folder / "census.csv", "--qi", ",".join(qis), "--hierarchies",
            folder / "h", "-k", "5", "--algorithm", "optimal", "-o", tmp_path / "o.csv", "-q"]
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    out = subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                         text=True, check=True, env=env)
    assert json.loads(out.stdout.splitlines()[-1]) == {"code": 0, "pool": "system"}
