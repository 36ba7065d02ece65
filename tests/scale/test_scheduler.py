"""Dask uses the user's scheduler (issue 23 item 7): no LocalCluster unless asked."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                    "(pip install -e '.[dask]')")
distributed = pytest.importorskip("distributed", reason="the optional Dask extra is not "
                                  "installed (pip install -e '.[dask]')")

import dask  # noqa: E402

from kanon_graph.scale import client_for  # noqa: E402


def _workers(client):
    return client.scheduler_info()["workers"]


def test_default_runs_on_threads_in_this_process():
    # in a fresh interpreter: the suite's session Client would be the current one here
    script = (
        "import os, dask\n"
        "from kanon_graph.scale import client_for\n"
        "with client_for(None) as client:\n"
        "    workers = client.scheduler_info()['workers']\n"
        "    assert len(workers) == 1, workers\n"
        "    (address, info), = workers.items()\n"
        "    assert address.startswith('inproc://'), address\n"
        "    assert info['nthreads'] == (os.cpu_count() or 1), info\n"
        "with dask.config.set(scheduler='sync'):\n"
        "    with client_for(None) as client:\n"
        "        threads = [w['nthreads'] for w in client.scheduler_info()['workers'].values()]\n"
        "        assert threads == [1], threads\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_current_client_is_used_and_left_open():
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None) as mine:
        with client_for(None) as client:
            assert client is mine
        assert mine.status == "running"
        with client_for(mine) as client:
            assert client is mine


def test_local_starts_a_localcluster_only_when_asked():
    with client_for("local", workers=2, processes=False) as client:
        assert len(_workers(client)) == 2
    with pytest.raises(ValueError, match="'scheduler' parameter of here must be None"):
        with client_for(3, where="here"):
            pass


def test_a_script_without_main_guard_starts_no_process(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text(
        "import multiprocessing, dask.dataframe as dd, kanon_graph as kg\n"
        "table = kg.datasets.make_census(600, seed=1)\n"
        "res = kg.anonymize(dd.from_pandas(table, npartitions=3), "
        "kg.datasets.census_schema(), k=5, algorithm='optimal')\n"
        "print('children', len(multiprocessing.active_children()), res.verification.holds)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "children 0 True" in done.stdout


def test_default_algorithm_on_a_dask_table_is_the_in_memory_default():
    """algorithm='auto' (the default) on a Dask table used to fail ('Unknown algorithm'),
    then ran the global optimum; since issue 41 it runs what auto runs in memory here
    (stepwise on the counted tuples), with the in-memory default's Loss."""
    import dask.dataframe as dd

    import kanon_graph as kg

    table, schema = kg.datasets.make_census(800, seed=2), kg.datasets.census_schema()
    res = kg.anonymize(dd.from_pandas(table, npartitions=2), schema, k=5)
    alone = kg.anonymize(table, schema, k=5)
    assert res.algorithm == alone.algorithm == "stepwise" and res.verification.holds
    assert "Dask table" in res.stats["auto"]["reason"]
    assert abs(res.metrics["loss"] - alone.metrics["loss"]) < 1e-12
    # missing='keep' is taken on a Dask table too (issue 31 item 5; it was refused)
    kept = kg.anonymize(dd.from_pandas(table, npartitions=2), schema, k=5, missing="keep")
    assert abs(kept.metrics["loss"] - alone.metrics["loss"]) < 1e-12
