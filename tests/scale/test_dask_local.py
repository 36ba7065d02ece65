"""Issue 41 item 2: local recoding (``stepwise``) on a Dask table, by default.

The Dask table is counted into its distinct (QI, sensitive) tuples on the
workers; ``stepwise`` runs on them weighted by their records (the client
holds one row per distinct tuple) and its release is mapped back onto the
partitions, then checked from the released cells on the workers: k, and l
and t through the privacy model's own check.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def census():
    table = kg.datasets.make_census(3000, seed=7)
    return pd.concat([table, table.head(1000)], ignore_index=True), kg.datasets.census_schema()


def _cells(table, schema):
    return table[list(schema.quasi_identifiers)].astype(str).reset_index(drop=True)


@pytest.mark.parametrize("options", [dict(k=5), dict(k=10, l=2), dict(k=5, t=0.3),
                                     dict(k=5, l=1.5, diversity="entropy")], ids=str)
def test_the_dask_default_is_the_in_memory_default(census, dask_client, options):
    table, schema = census
    plain = kg.anonymize(table, schema, **options)
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, scheduler=dask_client,
                       **options)
    assert res.algorithm == plain.algorithm == "stepwise"
    assert "a Dask table" in res.stats["auto"]["reason"] and res.stats["auto"]["tried"] == []
    if "l" in options:      # no trials under l (issue 47), on Dask as in memory
        assert "as in memory" in res.stats["auto"]["reason"]
        assert "l-diversity" in res.stats["auto"]["reason"]
    assert res.metrics["loss"] == pytest.approx(plain.metrics["loss"], abs=1e-12)
    pd.testing.assert_frame_equal(_cells(res.table.compute().sort_index(), schema),
                                  _cells(plain.table.sort_index(), schema))
    if "l" in options or "t" in options:     # checked from the released cells on the workers
        assert res.verification.holds


def test_stepwise_runs_on_one_row_per_distinct_tuple(census, dask_client, monkeypatch):
    import kanon_graph.stepwise as stepwise_module

    table, schema = census
    seen = []
    real = stepwise_module.release_steps

    def spy(data, *args, **kwargs):
        seen.append((data.n, data.records))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(stepwise_module, "release_steps", spy)
    res = kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=5,
                       algorithm="stepwise", scheduler=dask_client)
    assert res.verification.holds and seen
    rows, records = seen[0]
    assert records == len(table) and rows <= res.stats["distinct_tuples"] < len(table)


def _forge_sensitive(monkeypatch):
    """Every released row's sensitive cell made the first one's, after the mapping."""
    from kanon_graph.scale import dask_input

    for name in ("_release_by_value", "_release_partition"):
        real = getattr(dask_input, name)

        def forged(part, *args, _real=real):
            out = _real(part, *args)
            out["salary-class"] = out["salary-class"].iloc[0] if len(out) else None
            return out

        monkeypatch.setattr(dask_input, name, forged)


@pytest.mark.parametrize("options", [dict(l=2), dict(t=0.05)], ids=str)
def test_l_and_t_are_checked_from_the_released_cells(census, dask_client, monkeypatch,
                                                      options):
    table, schema = census
    _forge_sensitive(monkeypatch)
    with pytest.raises(kg.exceptions.PrivacyError,
                       match="the release of the counted tuples (fails its privacy check|holds other)"):
        kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=5,
                     scheduler=dask_client, **options)


def test_a_sensitive_value_not_in_the_input_is_refused(census, dask_client, monkeypatch):
    from kanon_graph.scale import dask_input

    table, schema = census
    for name in ("_release_by_value", "_release_partition"):
        real = getattr(dask_input, name)

        def forged(part, *args, _real=real):
            out = _real(part, *args)
            out["salary-class"] = "invented"
            return out

        monkeypatch.setattr(dask_input, name, forged)
    with pytest.raises(kg.exceptions.PrivacyError, match="'invented'.*not counted"):
        kg.anonymize(dd.from_pandas(table, npartitions=3), schema, k=5, l=2,
                     scheduler=dask_client)


@pytest.mark.parametrize("drop", [["age"], "all"], ids=["one-without", "none-with"])
def test_without_a_hierarchy_auto_is_refused_before_anything_is_counted(census, monkeypatch,
                                                                        drop):
    """Issue 46 item 4: ``auto`` on a Dask table lacking a hierarchy used to pick ``optimal``
    after counting the table, then fail. It is refused up front, naming the in-memory
    default without hierarchies and the command that drafts them."""
    from kanon_graph.scale import dask_input

    table, schema = census
    hierarchies = {} if drop == "all" else {
        c: h for c, h in schema.hierarchies.items() if c not in drop}
    partial = kg.Schema(quasi_identifiers=schema.quasi_identifiers, sensitive=schema.sensitive,
                        hierarchies=hierarchies)

    def counted(*args, **kwargs):
        raise AssertionError("the table was counted before auto was refused")

    monkeypatch.setattr(dask_input, "collect_tuples", counted)
    with pytest.raises(kg.exceptions.SchemaError) as caught:
        kg.anonymize(dd.from_pandas(table, npartitions=2), partial, k=5)
    message = str(caught.value)
    assert "'flat'" in message and "kanon-graph hierarchy suggest" in message
    assert "'age'" in message and "\n" not in message


pa = pytest.importorskip("pyarrow", reason="Parquet files need pyarrow (kanon_graph[dask])")


def test_the_cli_writes_the_local_release_as_safely_as_a_global_one(tmp_path, census,
                                                                    dask_client, monkeypatch):
    from kanon_graph.scale import written

    monkeypatch.setattr(written, "ROWS_PER_FILE", 900)
    table, schema = census
    table = table.assign(rec=[f"r{i}" for i in range(len(table))])
    (tmp_path / "in").mkdir()
    sizes = (1000, 1500, 1500)
    start = 0
    for i, n in enumerate(sizes):
        table.iloc[start:start + n].to_parquet(tmp_path / "in" / f"p{i}.parquet", index=False)
        start += n
    (tmp_path / "h").mkdir()
    for column, h in schema.hierarchies.items():
        kg.write_hierarchy(h, tmp_path / "h" / f"{column}.csv")
    out, report = tmp_path / "out", tmp_path / "r.json"
    code = main(["anonymize", str(tmp_path / "in"), "--qi", ",".join(schema.quasi_identifiers),
                 "--hierarchies", str(tmp_path / "h"), "-k", "5", "--engine", "dask",
                 "-o", str(out), "--report", str(report), "-q"])
    assert code == 0
    data = json.loads(report.read_text())
    assert data["algorithm"] == "stepwise" and data["publication"]["shuffled"]
    files = sorted(p for p in out.iterdir() if p.suffix == ".parquet")
    assert (out / "_kanon_graph_release.json").exists()
    assert len(files) >= 4                  # by rows (900 a file), not the 3 input files
    written = [pd.read_parquet(f) for f in files]
    assert sorted(r for w in written for r in w["rec"]) == sorted(table["rec"])
    start = 0
    for n in sizes:                         # no output file is one input file's rows
        rows = set(table["rec"].iloc[start:start + n])
        start += n
        assert sum(bool(rows & set(w["rec"])) for w in written) >= 2
    released = pd.concat(written)
    assert released["rec"].tolist() != table["rec"].tolist()      # not in input order
    plain = kg.anonymize(table.drop(columns="rec"), schema, k=5)
    mine = released.set_index("rec").loc[table["rec"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(_cells(mine, schema), _cells(plain.table, schema))
    sizes_out = released.groupby(list(schema.quasi_identifiers), observed=True).size()
    assert int(np.min(sizes_out)) >= 5
