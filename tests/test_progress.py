"""progress=: one reporter for every long call (kanon_graph._progress)."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph._progress import Reporter, TqdmBar, reporter
from kanon_graph.registry import get_algorithm

REPORTING = ["mst", "sd", "k-member", "bottom-up", "optimal", "incognito", "rv-global",
             "rv-hybrid", "stepwise"]


@pytest.fixture(scope="module")
def census():
    return kg.datasets.make_census(1500, seed=4), kg.datasets.census_schema()


def _recorder():
    seen = []
    return seen, lambda done, total, text: seen.append((done, total, text))


def _assert_rises_to_total(seen):
    assert seen, "no progress was reported"
    totals = {total for _, total, _ in seen}
    assert len(totals) == 1, totals
    total = totals.pop()
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and 0 <= done[0] and done[-1] == total
    assert all(isinstance(text, str) for _, _, text in seen)


@pytest.mark.parametrize("algorithm", REPORTING)
def test_each_reporting_algorithm_rises_to_its_total(census, algorithm):
    table, schema = census
    assert get_algorithm(algorithm).reports_progress()
    seen, record = _recorder()
    kg.anonymize(table, schema, k=5, algorithm=algorithm, progress=record)
    _assert_rises_to_total(seen)


@pytest.mark.parametrize("algorithm", ["optimal", "incognito", "bottom-up", "rv-global"])
def test_searches_with_suppression_report_too(census, algorithm):
    table, schema = census
    seen, record = _recorder()
    kg.anonymize(table, schema, k=5, algorithm=algorithm, suppression=0.05, progress=record)
    _assert_rises_to_total(seen)
    assert len(seen) > 1


@pytest.mark.parametrize("algorithm", REPORTING + ["datafly", "mondrian"])
def test_release_with_progress_equals_release_without(census, algorithm):
    table, schema = census
    plain = kg.anonymize(table, schema, k=5, algorithm=algorithm, seed=2)
    seen, record = _recorder()
    watched = kg.anonymize(table, schema, k=5, algorithm=algorithm, seed=2, progress=record)
    assert watched.table.equals(plain.table)
    assert [c.tolist() for c in watched.classes] == [c.tolist() for c in plain.classes]
    assert watched.levels == plain.levels


def test_algorithms_that_do_not_report_ignore_it(census):
    table, schema = census
    assert not get_algorithm("datafly").reports_progress()
    seen, record = _recorder()
    kg.anonymize(table, schema, k=5, algorithm="datafly", progress=record)
    assert seen == []
    assert "progress" not in get_algorithm("mst").options()


def test_sharded_runs_report_per_shard(census):
    table, schema = census
    seen, record = _recorder()
    res = kg.anonymize(table, schema, k=5, algorithm="mst", shard_size=400, progress=record)
    shards = res.stats["shards"]
    assert shards > 1 and [(d, t) for d, t, _ in seen] == [(i, shards)
                                                            for i in range(1, shards + 1)]


def test_sharded_runs_on_a_cluster_report_per_completed_shard(census, dask_client):
    table, schema = census
    seen, record = _recorder()
    res = kg.anonymize(table, schema, k=5, algorithm="sd", shard_size=400,
                       scheduler=dask_client, progress=record)
    assert res.stats["scheduler"] == "dask"
    assert [d for d, _, _ in seen] == list(range(1, res.stats["shards"] + 1))


def test_dask_partitions_draw_a_tqdm_bar(census, dask_client, capsys):
    import dask.dataframe as dd

    table, schema = census
    ddf = dd.from_pandas(table, npartitions=3)
    kg.anonymize(ddf, schema, k=5, algorithm="optimal", scheduler=dask_client, progress=True)
    err = capsys.readouterr().err
    assert "3/3" in err and "partition 3/3" in err


def test_progress_true_draws_a_tqdm_bar_on_stderr(census, capsys):
    table, schema = census
    res = kg.anonymize(table, schema, k=5, algorithm="mst", progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and "5/5" in err and "refined" in err
    assert res.verification.k_achieved >= 5
    kg.anonymize(table, schema, k=5, algorithm="mst")
    assert capsys.readouterr().err == ""


def test_compare_reports_one_step_per_run(census, capsys):
    table, schema = census
    seen, record = _recorder()
    frame = kg.compare(table, schema, ["datafly", "mondrian"], [2, 5, 10], metrics=["loss"],
                       progress=record)
    assert len(frame) == 6 and (frame["error"] == "").all()
    assert [(d, t) for d, t, _ in seen] == [(i, 6) for i in range(7)]
    assert seen[-1][2] == "mondrian k=10"
    kg.compare(table, schema, ["datafly"], [5], metrics=["loss"], progress=True)
    assert "1/1" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["yes", 1, 0.5, [1]])
def test_bad_progress_values_name_the_parameter(census, bad):
    table, schema = census
    for call in (lambda: kg.anonymize(table, schema, k=5, algorithm="mst", progress=bad),
                 lambda: kg.compare(table, schema, ["mst"], [5], progress=bad)):
        with pytest.raises(ValueError, match="The 'progress' parameter of") as info:
            call()
        assert repr(bad) in str(info.value) and "\n" not in str(info.value)


def test_reporter_values():
    assert not reporter(None, "x") and not reporter(False, "x")
    same = Reporter(print)
    assert reporter(same, "x") is same
    on = reporter(True, "x")
    assert on and isinstance(on._owned, TqdmBar)
    on.close()


def test_off_costs_nothing_but_a_falsy_call():
    off = reporter(None, "x")
    assert off(1, 2, "t") is None and not off
    silent = TqdmBar(enabled=False)
    silent(1, 2, "t")
    silent.phase("p")
    silent.close()
    assert silent._bar is None


def test_numbers_are_plain_ints(census):
    seen, record = _recorder()
    reporter(record, "x")(np.int64(3), np.int32(4), "t")
    assert seen == [(3, 4, "t")] and all(type(v) is int for v in seen[0][:2])


def test_stepwise_reports_the_records_released(census):
    table, schema = census
    seen, record = _recorder()
    kg.anonymize(table, schema, k=5, algorithm="stepwise", progress=record)
    assert seen[0][2] == "stepwise: step 1" and 0 < seen[0][0] < len(table)
    assert {t for _, t, _ in seen} == {len(table)} and seen[-1] == (len(table), len(table),
                                                                    "stepwise: done")


def test_auto_reports_its_trials_then_the_winner(census):
    # with a hierarchy for every quasi-identifier auto runs stepwise alone, under l too; with
    # generalization boundaries it still tries its candidates
    table, schema = census
    seen, record = _recorder()
    res = kg.anonymize(table, schema, k=5, l=2, sensitive="salary-class", progress=record,
                       respect_boundaries=True)
    assert res.stats["auto"]["tried"]
    trials = [s for s in seen if s[2].startswith("auto:")]
    assert trials[0][:2] == (0, trials[0][1]) and trials[-1] == (trials[0][1], trials[0][1],
                                                               "auto: trials done")
    assert len(trials) == trials[0][1] + 1 and res.stats["auto"]["chose"]


def _pty_stream():
    """A text stream on a pseudo-terminal with no window size (0 x 0), and its master fd."""
    import os

    master, slave = os.openpty()
    return os.fdopen(slave, "w", buffering=1, encoding="utf-8"), master


def _read_until(master, wanted, seconds=20):
    """What the terminal shows until ``wanted`` appears (or ``seconds`` pass)."""
    import os
    import select
    import time

    seen, end = b"", time.monotonic() + seconds
    while wanted.encode() not in seen and time.monotonic() < end:
        if select.select([master], [], [], 0.1)[0]:
            seen += os.read(master, 65536)
    return seen.decode(errors="replace")


def test_a_bar_is_drawn_on_a_terminal_that_reports_no_width():
    """Issue 42 item 4: tqdm draws nothing on a 0-column terminal; the bar falls back to 80."""
    import os

    stream, master = _pty_stream()
    try:
        assert os.get_terminal_size(stream.fileno()).columns == 0
        bar = TqdmBar(stream)
        bar.phase("reading")
        assert "kanon-graph: reading [00:00]" in _read_until(master, "reading")
        bar(2, 4, "half")
        assert "2/4" in _read_until(master, "2/4")
        bar.close()
    finally:
        stream.close()
        os.close(master)


def test_an_open_phase_is_redrawn_while_nothing_is_reported(monkeypatch):
    import os

    import kanon_graph._progress as progress

    monkeypatch.setattr(progress, "TICK", 0.05)
    stream, master = _pty_stream()
    try:
        bar = TqdmBar(stream)
        bar.phase("searching")
        shown = _read_until(master, "searching [00:00]\rkanon-graph: searching")
        assert shown.count("kanon-graph: searching") >= 2     # redrawn without a call
        bar.close()
        assert bar._ticker is None
    finally:
        stream.close()
        os.close(master)


def test_the_cli_draws_its_phases_on_a_pseudo_terminal(census, tmp_path):
    """Issue 42 item 4: a hierarchy-free run under a pseudo-terminal drew no bar."""
    import os
    import subprocess
    import sys

    table, _ = census
    table.to_csv(tmp_path / "c.csv", index=False)
    stream, master = _pty_stream()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kanon_graph", "anonymize", str(tmp_path / "c.csv"),
             "--qi", "sex,age,race,education", "-k", "5", "-o", str(tmp_path / "o.csv")],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stream)
        stream.close()
        shown = _read_until(master, "kanon-graph: writing", seconds=120)
        out, _ = proc.communicate(timeout=120)
    finally:
        os.close(master)
    assert proc.returncode == 0 and b"wrote" in out
    assert "kanon-graph: looking at" in shown and "kanon-graph: reading" in shown
    assert "kanon-graph: anonymizing 1500 rows" in shown
    assert "kanon-graph: writing" in shown
