"""Production code carries no test machinery (issue 33 item 6): no sleep hook read from the
environment in the writer (the publish tests hold a write through their own seam,
tests/paused_write.py), and the LocalCluster's default size is the machine's, not a
constant written for the development machine."""

import importlib
import os
import time

from kanon_graph.io import write
from kanon_graph.scale import _cluster


def test_the_writer_reads_no_pause_from_the_environment(tmp_path, monkeypatch):
    slept = []
    monkeypatch.setenv("KANON_GRAPH_TEST_WRITE_PAUSE", "5")
    monkeypatch.setattr(time, "sleep", slept.append)
    write.write_text(tmp_path / "out.txt", "whole\n")
    with write.atomic_folder(tmp_path / "release") as folder:
        (folder / "part-0.csv").write_text("a\n")
    assert slept == []
    assert (tmp_path / "out.txt").read_text() == "whole\n"


def test_the_tests_seam_holds_a_write_before_its_swap(tmp_path, monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        from paused_write import pause_before_the_swap
    finally:
        sys.path.pop(0)
    seen = []
    monkeypatch.setattr(time, "sleep", lambda s: seen.append(
        (s, sorted(p.name for p in tmp_path.iterdir()))))
    monkeypatch.setattr(write, "fsync_tree", write.fsync_tree)   # undone after the test
    pause_before_the_swap(30)
    write.write_text(tmp_path / "out.txt", "whole\n")
    # it waited once, the temporary complete beside the target and the target not there yet
    assert len(seen) == 1 and seen[0][0] == 30
    assert [n for n in seen[0][1] if n.startswith(".out.txt.kg-tmp-")] == seen[0][1]
    assert (tmp_path / "out.txt").read_text() == "whole\n"


def test_default_workers_follow_the_machine(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    try:
        eight = importlib.reload(_cluster)
        assert eight.machine_cores() == 8 and eight.DEFAULT_WORKERS == 8
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
        assert importlib.reload(_cluster).DEFAULT_WORKERS == 3     # the cores it may use
    finally:
        monkeypatch.undo()
        importlib.reload(_cluster)
    assert _cluster.DEFAULT_WORKERS == _cluster.machine_cores() >= 1
