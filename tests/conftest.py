"""Shared fixtures.

Tests that need the real datasets read them from ``$KANON_GRAPH_DATA`` (a
folder holding ``adult/`` and ``fars/``). They skip with a reason when the
variable is unset, and fail when it is set but the files are missing.
"""

import os
from pathlib import Path

import pandas as pd
import pytest

import kanon_graph as kg

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]


def _data_root():
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        pytest.skip("KANON_GRAPH_DATA is not set; it should point at the shared data folder")
    return Path(root)


def _require(path):
    if not path.exists():
        pytest.fail(f"KANON_GRAPH_DATA is set but {path} does not exist")
    return path


@pytest.fixture(scope="session")
def adult_dir():
    """``$KANON_GRAPH_DATA/adult`` (ARX's adult.csv and its hierarchies)."""
    return _require(_data_root() / "adult")


@pytest.fixture(scope="session")
def fars_dir():
    """``$KANON_GRAPH_DATA/fars`` (FARS, integer-recoded, with hierarchies)."""
    return _require(_data_root() / "fars")


@pytest.fixture(scope="session")
def adult_table(adult_dir):
    return pd.read_csv(_require(adult_dir / "adult.csv"), sep=";")


@pytest.fixture(scope="session")
def adult_schema(adult_dir):
    """The 8 usual quasi-identifiers of Adult, with ARX's hierarchies; salary-class sensitive."""
    hier = kg.load_hierarchies(adult_dir)
    return kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"], hierarchies=hier)


@pytest.fixture
def table():
    """Table 1 of paper 003 (10 records), fresh for every test."""
    return kg.datasets.paper_003_table()


@pytest.fixture
def schema():
    """Paper 003's schema: gender, age, zip quasi-identifiers with hierarchies; disease sensitive."""
    return kg.datasets.paper_003_schema()


def _uses_dask(item):
    """True for a test that needs the optional Dask extra (it skips without it)."""
    path = Path(str(item.fspath)).as_posix()
    if "/tests/scale/" in path or "dask_client" in getattr(item, "fixturenames", ()):
        return True
    page = getattr(item, "callspec", None) and item.callspec.params.get("page")
    if page is not None and Path(page).suffix == ".md":      # a docs page that runs Dask
        text = Path(page).read_text()
        return "import dask" in text or "--engine dask" in text
    return item.name.startswith("test_default_scheduler_is_the_current_client")


def pytest_collection_modifyitems(config, items):
    # `pytest -m dask` runs exactly the tests that skip without the extra: .ci/run runs the
    # README's command first (no extra installed), then installs the extra and runs these
    for item in items:
        if _uses_dask(item):
            item.add_marker(pytest.mark.dask)


def pytest_addoption(parser):
    parser.addoption("--fuzz", type=int, default=None, metavar="N",
                     help="run N fuzz cases per algorithm in tests/fuzz (the long run; "
                          "same as KANON_GRAPH_FUZZ=N) and print the totals")


@pytest.fixture(scope="session")
def dask_client():
    """One in-process Dask LocalCluster (2 threaded workers) for the whole session.

    Skips, with the reason, when the optional Dask extra is not installed.
    """
    pytest.importorskip("distributed", reason="the optional Dask extra is not installed "
                                              "(pip install \"kanon_graph[dask]\")")
    pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                 "(pip install \"kanon_graph[dask]\")")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client
