"""What ``kanon-graph anonymize`` holds besides the table (issue 47, CLI peak memory).

Behaviour, not timings or byte counts: the command loads the modules of the
algorithm it runs and nothing of the others (each loaded library stays
resident for the whole run: scipy's special functions, the record graph,
the clusterings cost megabytes the 1M-row streamed run never uses).
"""

import json
import subprocess
import sys
import textwrap

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
