"""Issue 21, findings 2 and 3: a release on disk is whole or absent, whatever happens.

Real processes and real files: ``kanon-graph anonymize`` is interrupted with
SIGINT and SIGTERM at several moments of a CSV and a Parquet write, and two
runs write one output at once. ``tests/paused_write.py`` (the test's own seam,
not the library's) holds a run with its temporary complete and not yet
renamed, so that moment is hit reliably; the mid-write moment is caught by
watching the folder for the first file of the output to appear.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.io import read_input_table

PAUSED = Path(__file__).resolve().parent / "paused_write.py"
TEMP_MARK = ".kg-tmp-"        # kanon_graph.io.write.TEMP_MARK (spelled out: runs on old code)

ROWS = 30_000
QIS = "sex,age,race,education"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A 30,000-row census (CSV and Parquet) and its hierarchies."""
    root = tmp_path_factory.mktemp("publish")
    table = kg.datasets.make_census(ROWS, seed=3)
    table.to_csv(root / "people.csv", index=False)
    table.to_parquet(root / "people.parquet", index=False)
    (root / "h").mkdir()
    for column, h in kg.datasets.adult_hierarchies().items():
        kg.write_hierarchy(h, root / "h" / f"{column}.csv")
    return root


def _command(root, source, output, *extra):
    return [sys.executable, "-m", "kanon_graph", "anonymize", str(root / source), "--qi", QIS,
            "--hierarchies", str(root / "h"), "-k", "5", "--algorithm", "optimal", "-q",
            "-o", str(output), *extra]


def _start(command, pause=None):
    if pause:       # the same command, through the test's seam that holds every write
        command = [sys.executable, str(PAUSED), str(pause), *command[3:]]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _interrupt_when_written(proc, folder, name, sig, delay=0.0):
    """Send ``sig`` as soon as any file of ``name`` (the output or its temporary) appears."""
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if any(n.startswith((name, "." + name)) for n in os.listdir(folder)):
            time.sleep(delay)
            proc.send_signal(sig)
            break
        time.sleep(0.001)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, err


def _rows(path):
    if str(path).endswith(".parquet"):
        return len(pd.read_parquet(path))
    return len(read_input_table(path).frame)


def _leftovers(folder):
    return [n for n in os.listdir(folder) if TEMP_MARK in n]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_a_signal_mid_write_leaves_no_partial_release(files, tmp_path, sig, kind):
    out = tmp_path / f"out.{kind}"
    proc = _start(_command(files, f"people.{kind}", out))
    code, err = _interrupt_when_written(proc, tmp_path, out.name, sig)
    # 130: interrupted; 0, -SIGTERM or -SIGINT: the signal came after the command had
    # finished, as the interpreter shut down (on a busy machine the watcher sees the file late)
    assert code in (0, 130, -signal.SIGTERM, -signal.SIGINT), err
    if code == 130:
        assert "interrupted" in err
    if code < 0:
        assert out.exists()
    # no release, or (the signal came after the rename) the whole release
    assert not out.exists() or _rows(out) == ROWS
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("sig, kind", [(signal.SIGTERM, "csv"), (signal.SIGINT, "parquet")],
                         ids=["SIGTERM-csv", "SIGINT-parquet"])
def test_a_signal_before_the_rename_keeps_the_previous_release(files, tmp_path, sig, kind):
    out = tmp_path / f"out.{kind}"
    out.write_bytes(b"the previous release\n")
    proc = _start(_command(files, f"people.{kind}", out), pause=30)
    code, err = _interrupt_when_written(proc, tmp_path, "." + out.name, sig, delay=0.3)
    assert code == 130, err
    assert out.read_bytes() == b"the previous release\n"
    assert _leftovers(tmp_path) == []


def test_two_runs_on_one_output_leave_one_whole_release(files, tmp_path):
    # two inputs of the same size told apart by their occupation column, started together so
    # that their writes overlap: the output must be exactly one of the two releases
    table = read_input_table(files / "people.csv").frame
    table["pad"] = "x" * 300          # a long write (9 MB), so that the two writes overlap
    b = table.copy()
    b["occupation"] = "B-" + b["occupation"]
    table.to_csv(tmp_path / "a.csv", index=False)
    b.to_csv(tmp_path / "b.csv", index=False)
    (tmp_path / "h").symlink_to(files / "h")
    out = tmp_path / "out" / "release.csv"
    out.parent.mkdir()
    procs = [_start(_command(tmp_path, name, out)) for name in ("a.csv", "b.csv")]
    results = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    released = read_input_table(out).frame        # fails on a malformed row
    assert len(released) == len(table)
    from_b = released["occupation"].str.startswith("B-")
    assert from_b.all() or not from_b.any()
    assert os.listdir(out.parent) == ["release.csv"]


def test_atomic_file_failure_keeps_the_old_file(tmp_path):
    from kanon_graph.io.write import atomic_file

    target = tmp_path / "report.json"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_file(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("the writer failed")
    assert target.read_text() == "old" and _leftovers(tmp_path) == []


def test_atomic_folder_replaces_the_whole_folder(tmp_path):
    from kanon_graph.io.write import atomic_folder

    target = tmp_path / "release"
    with atomic_folder(target) as tmp:          # an earlier release (with its manifest)
        (tmp / "part-00007.parquet").write_text("stale")
    with atomic_folder(target) as tmp:
        (tmp / "part-00000.parquet").write_text("new")
    assert sorted(p.name for p in target.iterdir()) == ["_kanon_graph_release.json",
                                                        "part-00000.parquet"]
    with pytest.raises(KeyboardInterrupt), atomic_folder(target) as tmp:
        (tmp / "part-00000.parquet").write_text("half")
        raise KeyboardInterrupt
    assert (target / "part-00000.parquet").read_text() == "new"
    assert _leftovers(tmp_path) == []


def test_cli_outputs_of_other_commands_go_through_the_writer(tmp_path):
    # hierarchy build's output: a folder that cannot be renamed onto is refused or replaced
    target = tmp_path / "bands.csv"
    target.write_text("old")
    code = main(["hierarchy", "build", "--intervals", "5,10", "--values", "1..20",
                 "-o", str(target)])
    assert code == 0 and target.read_text() != "old" and _leftovers(tmp_path) == []
    assert Path(target).read_text().startswith("1")
