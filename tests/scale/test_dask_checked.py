"""Issue 46, the distributed path: the Dask release that is checked is the one written.

Item 1: the check of a Dask release reads its counted cells only, never what
the run reported (a raw release claiming nothing was released is refused).
Item 2: what a user writes (``res.write``, ``res.table.to_parquet``, the
command line) is checked again (k, l, t) from the cells written, and an input
file changed since it was read is an error naming it. Item 3: ``-o
release.csv`` says what a Dask release is; distributed's "Sending large
graph" advice is not printed; the partitions' tasks share no pandas ``Index``
(whose lazily built state two threads can corrupt). Item 5 (Dask side): a
record all ``*`` is suppressed, whatever the run reported.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")
pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (kanon_graph[dask])")

SIZES = (60, 80, 100)
QIS = ["sex", "age", "race"]


@pytest.fixture
def parts(tmp_path):
    """A census in three Parquet files, and its hierarchies."""
    table = kg.datasets.make_census(sum(SIZES), seed=3)
    (tmp_path / "in").mkdir()
    start = 0
    for i, n in enumerate(SIZES):
        table.iloc[start:start + n].to_parquet(tmp_path / "in" / f"p{i}.parquet", index=False)
        start += n
    (tmp_path / "h").mkdir()
    for column, h in kg.datasets.census_schema().hierarchies.items():
        kg.write_hierarchy(h, tmp_path / "h" / f"{column}.csv")
    return tmp_path, table


def _schema():
    full = kg.datasets.census_schema()
    return kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"],
                     hierarchies={c: full.hierarchies[c] for c in QIS})


def _claims_nothing_released(res):
    """``res`` claiming that it released nothing (every record suppressed)."""
    n = res.verification.released + res.verification.suppressed
    return dataclasses.replace(res, suppressed=n, verification=dataclasses.replace(
        res.verification, released=0, suppressed=n, classes=0, k_achieved=0))


def _raw(ddf, qis):
    """The input itself as a 'release': its quasi-identifiers as text, every class of one."""
    return ddf.astype({q: str for q in qis})


# item 1 -----------------------------------------------------------------------------------

def test_a_raw_release_claiming_nothing_released_is_refused(dask_client, monkeypatch):
    """The check used to skip k when the run said nothing was released."""
    from kanon_graph import api
    from kanon_graph.scale import dask_input

    table = kg.datasets.make_census(300, seed=1)
    schema = kg.datasets.census_schema()
    real = api._anonymize_counted
    monkeypatch.setattr(api, "_anonymize_counted",
                        lambda *a, **kw: _claims_nothing_released(real(*a, **kw)))
    monkeypatch.setattr(dask_input, "_release_by_value",      # every row released raw
                        lambda part, shared, columns, qis, out: _raw(part, qis)[out])
    with pytest.raises(kg.exceptions.PrivacyError, match=r"smallest class 1\b"):
        kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=5, algorithm="optimal")


def test_the_write_recounts_whatever_the_result_claims(parts, dask_client):
    tmp, _ = parts
    ddf = dd.read_parquet(tmp / "in")
    res = kg.anonymize(ddf, _schema(), k=5, algorithm="optimal")
    forged = dataclasses.replace(_claims_nothing_released(res), table=_raw(ddf, QIS))
    with pytest.raises(kg.exceptions.PrivacyError, match=r"smallest class 1\b"):
        forged.write(tmp / "out")
    assert not (tmp / "out").exists()


def test_the_cli_refuses_a_raw_release_claiming_nothing_released(parts, dask_client,
                                                                 monkeypatch, capsys):
    from kanon_graph.cli import anonymize as command

    tmp, _ = parts
    real = command.anonymize

    def forged(table, *args, **kwargs):
        res = real(table, *args, **kwargs)
        return dataclasses.replace(_claims_nothing_released(res), table=_raw(table, QIS))

    monkeypatch.setattr(command, "anonymize", forged)
    code = _cli(tmp, tmp / "out")
    err = capsys.readouterr().err
    assert code == 1 and "smallest class 1)" in err, err
    assert not (tmp / "out").exists()


def test_an_all_star_record_is_suppressed_whatever_the_run_reported():
    """Item 5 on Dask: the cells cannot tell a suppressed record from a class at the top,
    so the check counts every all-'*' record as suppressed: not a class of its own."""
    from kanon_graph.scale._released import CellCheck

    counted = pd.DataFrame({"a": ["*", "*", "x"], "b": ["*", "1", "y"],
                            "__kg_count__": [2, 5, 7]})
    got = CellCheck(("a", "b"), k=5, records=14).check(counted, where="test")
    assert (got.released, got.suppressed, got.classes, got.k_achieved) == (12, 2, 2, 5)
    with pytest.raises(kg.exceptions.PrivacyError, match="smallest class 2"):
        CellCheck(("a", "b"), k=5, records=14).check(
            counted.assign(a=["*", "*", "*"], b=["*", "*", "y"]).iloc[[0, 2]]
            .assign(__kg_count__=[12, 2]), where="test")


# item 2 -----------------------------------------------------------------------------------

def _replace_file(path, table):
    """Other records of ``table`` in ``path``, as many rows: every value one the run saw, so
    the lazy release maps them without a complaint (it used to write them silently)."""
    n = len(pd.read_parquet(path))
    table.sample(n, random_state=7).to_parquet(path, index=False)


@pytest.mark.parametrize("how", ["write", "to_parquet", "compute"])
def test_an_input_file_replaced_after_the_run_is_named(parts, dask_client, how):
    tmp, table = parts
    res = kg.anonymize(dd.read_parquet(tmp / "in"), _schema(), k=5, algorithm="optimal")
    _replace_file(tmp / "in" / "p1.parquet", table)
    with pytest.raises(kg.exceptions.DataError, match=r"input changed.*p1\.parquet"):
        if how == "write":
            res.write(tmp / "out")
        elif how == "to_parquet":
            res.table.to_parquet(tmp / "out", write_index=False)
        else:
            res.table.compute()
    assert how == "to_parquet" or not (tmp / "out").exists()


def test_res_write_of_a_dask_release_is_the_checked_release(parts, dask_client):
    """``res.write`` writes a Dask release (it used to raise TypeError): every record once,
    the cells of the in-memory release, k holding on the written cells."""
    tmp, table = parts
    res = kg.anonymize(dd.read_parquet(tmp / "in"), _schema(), k=5, l=2, algorithm="stepwise")
    written = res.write(tmp / "out", seed=4)
    assert written.files == 1 and written.shuffled
    out = pd.read_parquet(tmp / "out")
    memory = kg.anonymize(table, _schema(), k=5, l=2, algorithm="stepwise").table
    key = QIS + ["salary-class"]
    assert sorted(map(tuple, out[key].astype(str).to_numpy())) == \
        sorted(map(tuple, memory[key].astype(str).to_numpy()))
    assert out[QIS].astype(str).value_counts().min() >= 5


def _cli(tmp, out, *extra):
    return main(["anonymize", str(tmp / "in"), "--qi", ",".join(QIS), "--sensitive",
                 "salary-class", "--hierarchies", str(tmp / "h"), "-k", "5", "--algorithm",
                 "optimal", "--engine", "dask", "-o", str(out), "-q", *map(str, extra)])


def test_the_cli_names_an_input_file_replaced_before_the_write(parts, dask_client,
                                                               monkeypatch, capsys):
    from kanon_graph.cli import anonymize as command

    tmp, table = parts
    real = command.write_dask_table

    def write(*args, **kwargs):
        _replace_file(tmp / "in" / "p2.parquet", table)
        return real(*args, **kwargs)

    monkeypatch.setattr(command, "write_dask_table", write)
    code = _cli(tmp, tmp / "out")
    lines = [line for line in capsys.readouterr().err.strip().splitlines()
             if not line.startswith("kanon-graph: warning:")]   # the run's own warnings
    err = "\n".join(lines)
    assert code == 1 and len(lines) == 1, err
    assert "input changed" in err and "p2.parquet" in err, err
    assert not (tmp / "out").exists()


def _one_sensitive_value(res):
    """``res`` with every released record given one sensitive value (k kept, l broken)."""
    table = res.table.assign(**{"salary-class": "<=50K"})
    return dataclasses.replace(res, table=table)


def test_res_write_checks_l_on_the_written_cells(parts, dask_client):
    tmp, _ = parts
    res = kg.anonymize(dd.read_parquet(tmp / "in"), _schema(), k=5, l=2)
    with pytest.raises(kg.exceptions.PrivacyError, match="distinct l=2"):
        _one_sensitive_value(res).write(tmp / "api")
    assert not (tmp / "api").exists()


def test_the_cli_write_checks_l_on_the_written_cells(parts, dask_client, monkeypatch, capsys):
    """The command line used to re-count k at write time, never l or t."""
    from kanon_graph.cli import anonymize as command

    tmp, _ = parts
    real = command.anonymize
    monkeypatch.setattr(command, "anonymize",
                        lambda *a, **kw: _one_sensitive_value(real(*a, **kw)))
    code = _cli(tmp, tmp / "out", "--l", 2)
    err = capsys.readouterr().err
    assert code == 1 and "distinct l=2" in err, err
    assert not (tmp / "out").exists()


# item 3 -----------------------------------------------------------------------------------

def test_one_csv_file_as_dask_output_says_what_a_dask_release_is(parts, capsys):
    tmp, _ = parts
    code = _cli(tmp, tmp / "release.csv")
    err = capsys.readouterr().err.strip()
    assert code == 1 and err.count("\n") == 0, err
    assert "part-*.csv" in err and "folder" in err and "overwrite" not in err, err
    assert not (tmp / "release.csv").exists()


def test_the_large_graph_advice_is_not_printed(parts, dask_client, capsys):
    import dask

    tmp, _ = parts
    # every graph counts as large: the advice would follow each computation
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1B"}):
        code = _cli(tmp, tmp / "out", "--keep-order")
        evaluated = main(["evaluate", str(tmp / "in"), str(tmp / "out"), "--qi", ",".join(QIS),
                          "--hierarchies", str(tmp / "h"), "-k", "5", "--engine", "dask",
                          "-q"])
    captured = capsys.readouterr()
    assert code == 0 and evaluated == 0, captured.err
    assert "large graph" not in captured.err + captured.out


def _poison(value, seen):
    """Mark every pandas Index in ``value`` not unique, as a lost race leaves it."""
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, pd.Index):
        value._cache["is_unique"] = False
    elif isinstance(value, pd.CategoricalDtype):
        _poison(value.categories, seen)
    elif isinstance(value, pd.Series):
        _poison(value.index, seen)
    elif isinstance(value, dict):
        for item in value.values():
            _poison(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _poison(item, seen)


@pytest.mark.parametrize("mapper", ["_release_by_value", "_release_partition"])
def test_the_partition_tasks_share_no_pandas_index(census_small, dask_client, monkeypatch,
                                                   mapper):
    """Pandas computes an Index's hash table and uniqueness on first use; two threads
    doing so at once on one shared Index can leave it 'not unique' (pandas issue 21150),
    and every later lookup raises InvalidIndexError -- what ``.table.compute()`` raised
    once under load. Here the race's outcome is forced on whatever the tasks share."""
    from kanon_graph.scale import dask_input

    table, schema = census_small
    if mapper == "_release_partition":
        monkeypatch.setattr(dask_input, "_per_value", lambda *a: None)
    real = getattr(dask_input, mapper)

    def poisoned(part, shared, *args):
        _poison(shared, set())
        return real(part, shared, *args)

    monkeypatch.setattr(dask_input, mapper, poisoned)
    res = kg.anonymize(dd.from_pandas(table, npartitions=4), schema, k=5,
                       algorithm="optimal")
    memory = kg.anonymize(table, schema, k=5, algorithm="optimal")
    pd.testing.assert_frame_equal(res.table.compute().astype(str),
                                  memory.table.astype(str))


def test_a_non_unique_index_over_several_partitions(census_small, dask_client):
    """Rows sharing index labels, within and across partitions: the release keeps each
    row's labels and cells, in order, as in memory."""
    table, schema = census_small
    table = table.set_index(pd.Index(np.arange(len(table)) // 7))     # 7 rows per label
    ddf = dd.from_pandas(table, npartitions=5, sort=False)
    for algorithm in ("optimal", "stepwise"):
        res = kg.anonymize(ddf, schema, k=5, algorithm=algorithm)
        memory = kg.anonymize(table, schema, k=5, algorithm=algorithm)
        out = res.table.compute()
        assert out.index.tolist() == table.index.tolist()
        pd.testing.assert_frame_equal(out.astype(str), memory.table.astype(str))


@pytest.fixture
def census_small():
    return kg.datasets.make_census(400, seed=8), kg.datasets.census_schema()


def test_the_fingerprint_tells_a_replaced_file(tmp_path):
    from kanon_graph.scale._sources import Fingerprints

    path = tmp_path / "a.parquet"
    kg.datasets.make_census(50, seed=0).to_parquet(path, index=False)
    seen = Fingerprints.take([(str(path), None)])
    assert seen.changed() is None
    stamp = os.stat(path)
    kg.datasets.make_census(40, seed=1).to_parquet(path, index=False)
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))     # the old time put back
    assert seen.changed()[0] == str(path)
    with pytest.raises(kg.exceptions.DataError, match=r"a\.parquet.*size went from"):
        seen.check("test")
    path.unlink()
    assert seen.changed() == (str(path), "it is gone")


# item 5, the Dask side --------------------------------------------------------------------

ON_DASK = [n for n in kg.algorithms() if kg.registry.get_algorithm(n).recoding == "global"
           and not kg.registry.get_algorithm(n).samples_records] + ["stepwise"]


@pytest.mark.parametrize("model", [{}, {"l": 2}, {"t": 0.3}], ids=["k", "l", "t"])
@pytest.mark.parametrize("algorithm", ON_DASK)
def test_public_measures_on_the_written_release_give_the_verified_figures(
        parts, dask_client, algorithm, model):
    """Whatever the algorithm, what ``res.verification`` says of a Dask release is what the
    library's public measures read in the written files (an all-'*' record suppressed)."""
    tmp, _ = parts
    options = {"memory_budget": 20_000} if algorithm == "rv-distributed" else {}
    try:
        res = kg.anonymize(dd.read_parquet(tmp / "in"), _schema(), k=5, algorithm=algorithm,
                           suppression=0.05, **model, **options)
    except kg.exceptions.PrivacyError as exc:   # a top class over the budget (boundaries):
        assert "counts as suppressed" in str(exc), exc          # refused, never written
        return
    except ValueError as exc:           # an algorithm that does not take l or t says so
        assert model and ("l" in str(exc) or "t" in str(exc)), exc
        pytest.skip(f"{algorithm} refuses {model}: {exc}")
    res.write(tmp / "out", seed=1)
    written = pd.read_parquet(tmp / "out")
    starred = (written[QIS].astype(str) == "*").all(axis=1)
    released = written[~starred]
    got = res.verification
    assert (got.released, got.suppressed) == (len(released), int(starred.sum()))
    assert got.k_achieved == kg.privacy.k_anonymity(released, QIS)
    # nothing released: the verification says None ("none released"), a measure 0
    if "l" in model:
        assert (got.l_achieved if got.released else 0.0) == \
            kg.privacy.l_diversity(released, QIS, "salary-class")
    if "t" in model:
        assert (got.t_achieved if got.released else 0.0) == pytest.approx(
            kg.privacy.t_closeness(released, QIS, "salary-class"), abs=1e-12)
