"""Starting the explorer for real: ``kanon-graph explore`` and ``kg.explore`` on 127.0.0.1."""

import os
import subprocess
import sys
import warnings

import pytest

import kanon_graph as kg

from .conftest import QIS


def _get(url, **kwargs):
    import httpx

    return httpx.get(url, timeout=30, **kwargs)


def test_kg_explore_serves_in_a_thread_and_its_repr_is_the_link(tmp_path):
    table = kg.datasets.make_census(300, seed=0)
    ex = kg.explore(table, kg.datasets.census_schema(), exports=tmp_path)
    try:
        assert ex.url.startswith("http://127.0.0.1:") and "?token=" in ex.url
        assert ex.url in repr(ex) and ex.url.replace("&", "&amp;") in ex._repr_html_()
        base = ex.url.split("?")[0]
        assert _get(base + "api/session").status_code == 403
        answer = _get(base + "api/session", headers={"X-Token": ex.session.token})
        assert answer.status_code == 200 and answer.json()["rows"] == 300
        assert answer.json()["can_export"] is True
    finally:
        ex.stop()


def test_the_command_prints_the_url_on_a_line_of_its_own_and_serves(tmp_path):
    data = tmp_path / "census.csv"
    kg.datasets.make_census(300, seed=0).to_csv(data, index=False)
    folder = tmp_path / "hierarchies"
    folder.mkdir()
    for q in QIS:
        kg.write_hierarchy(kg.datasets.census_schema().hierarchies[q], folder / f"{q}.csv")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    proc = subprocess.Popen(
        [sys.executable, "-m", "kanon_graph", "explore", str(data), "--qi", ",".join(QIS),
         "--hierarchies", str(folder), "--no-browser"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("http://127.0.0.1:") and "/?token=" in line, (
            line, proc.poll() is not None and proc.stderr.read())
        base, token = line.split("/?token=")
        import time

        answer = _get(base + "/api/session", headers={"X-Token": token})  # printed: it listens
        assert answer.status_code == 200
        assert answer.json()["hierarchies"]["age"]["source"] == str(folder)
        assert _get(base + "/api/session").status_code == 403
        import httpx

        saved = httpx.post(base + "/api/hierarchy/age/save",
                                         headers={"X-Token": token}, timeout=30)
        assert saved.json()["path"] == str((folder / "age.csv").resolve())
        # a run's worker is spawned from the command's process (python -m kanon_graph)
        run = httpx.post(base + "/api/run", json={"k": 5, "algorithm": "optimal"},
                         headers={"X-Token": token}, timeout=60).json()["run"]
        for _ in range(600):
            state = _get(f"{base}/api/run/{run}", headers={"X-Token": token}).json()
            if state["state"] != "running":
                break
            time.sleep(0.2)
        assert state["state"] == "done", state
        assert state["summary"]["min_class"] >= 5
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0, proc.stderr.read()      # SIGTERM stops it cleanly


def test_a_port_in_use_is_one_line_before_the_data_is_read(tmp_path, capsys):
    import socket

    from kanon_graph.cli import main

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["explore", str(tmp_path / "absent.csv"), "--qi", "a", "--port",
                     str(port), "--no-browser"])
    assert code == 1
    err = capsys.readouterr().err
    assert f"--port {port}" in err and "absent.csv" not in err and len(err.splitlines()) == 1


def test_explore_help_and_a_bad_port(capsys):
    from kanon_graph.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["explore", "--help"]) == 0
    assert "--no-browser" in capsys.readouterr().out
    assert main(["explore", "x.csv", "--qi", "a", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_explore_refuses_what_it_cannot_serve():
    schema = kg.datasets.census_schema()
    with pytest.raises(TypeError, match="'table' parameter of explore"):
        kg.explore([[1, 2]], schema)
    with pytest.raises(ValueError, match="'schema' parameter of explore is required"):
        kg.explore(kg.datasets.make_census(20, seed=0))
    with pytest.raises(ValueError, match="salary-class"):
        kg.explore(kg.datasets.make_census(20, seed=0).drop(columns="salary-class"), schema)
