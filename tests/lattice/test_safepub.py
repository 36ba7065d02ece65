"""SafePub through the facade, the CLI and the report: what a careful user expects.

Every input row comes back; the records not released (not sampled, or in a
class below k) are withheld rows, '*' in every column; the release holds the
derived k; the randomness is fresh unless a seed is given, and then not
recorded; bad options name the parameter and the value.
"""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.lattice.safepub import dp_parameters

pytestmark = pytest.mark.filterwarnings("ignore:algorithm 'safepub' generalizes")


@pytest.fixture(scope="module")
def census():
    table = kg.datasets.make_census(3000, seed=2)
    table.insert(0, "name", [f"person {i}" for i in range(len(table))])
    table["income"] = np.arange(len(table)) * 7
    schema = kg.datasets.census_schema()
    schema = kg.Schema(quasi_identifiers=schema.quasi_identifiers, sensitive=["salary-class"],
                       identifiers=["name"], hierarchies=schema.hierarchies)
    return table, schema


@pytest.fixture(scope="module")
def release(census):
    table, schema = census
    return kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-4,
                        seed=7)


def test_release_holds_the_derived_k(census, release):
    p = dp_parameters(2.0, 1e-4, 0.1)
    dp = release.stats["dp"]
    assert release.k == dp["k"] == p.k
    assert dp["beta"] == pytest.approx(p.beta) and dp["delta_k"] < 1e-4
    assert (dp["epsilon"], dp["delta"], dp["search_budget"], dp["steps"]) == (2.0, 1e-4, 0.1, 300)
    assert release.verification.holds and release.verification.k_achieved >= p.k
    qis = list(census[1].quasi_identifiers)
    kept = ~release.suppressed_mask
    counts = release.table[kept][qis].astype(str).value_counts()
    assert counts.min() >= p.k


def test_every_row_comes_back_and_withheld_rows_say_nothing(census, release):
    table, schema = census
    dp = release.stats["dp"]
    assert len(release.table) == len(table)
    assert dp["sampled"] + dp["not_sampled"] == len(table)
    assert dp["not_sampled"] + dp["suppressed"] == release.suppressed
    assert dp["released"] == len(table) - release.suppressed > 0
    assert dp["not_sampled"] > 0 and dp["suppressed"] > 0
    withheld = release.table[release.suppressed_mask]
    assert (withheld.astype(str) == "*").all(axis=None)        # QIs, sensitive, insensitive
    assert "name" not in release.table.columns
    kept = ~release.suppressed_mask            # a released row's other cells are untouched
    for column in ("salary-class", "income"):
        assert (release.table[column].to_numpy(dtype=object)[kept].tolist()
                == table[column].to_numpy(dtype=object)[kept].tolist())


def test_release_is_the_node_reported(census, release):
    levels = tuple(release.levels.values())
    assert levels == tuple(release.stats["dp"]["node"])


def test_default_randomness_is_fresh_and_unrecorded(census):
    table, schema = census
    runs = [kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-4,
                         steps=5) for _ in range(2)]
    assert all(r.stats["seed"] is None for r in runs)
    assert not runs[0].suppressed_mask.tolist() == runs[1].suppressed_mask.tolist()


def test_an_explicit_seed_none_records_nothing(census, tmp_path):
    """seed=None is no seed: nothing recorded in stats, summary, the report's call or JSON."""
    table, schema = census
    res = kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-4, steps=5,
                       seed=None)
    assert res.stats["seed"] is None
    report = json.loads(res.report(tmp_path / "r.json").read_text())
    texts = [repr(res.stats), res.summary(), res.report(tmp_path / "r.html").read_text(),
             json.dumps(report)]
    assert not any(re.search(r"\bseed\W{1,4}\d", t) for t in texts)
    assert "seed=" not in report["provenance"]["call"]


def test_seed_none_is_recorded_where_the_guarantee_does_not_rest_on_it(census):
    """The rule is the registry's: k-member's seed=None draws a seed and records it."""
    table, schema = census
    res = kg.anonymize(table.head(200), schema, k=5, algorithm="k-member", seed=None)
    assert isinstance(res.stats["seed"], int)


def test_a_given_seed_reproduces(census, release):
    table, schema = census
    again = kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-4, seed=7)
    pd.testing.assert_frame_equal(again.table, release.table)
    assert again.stats["seed"] == 7


def test_steps_zero_releases_the_top(census):
    table, schema = census
    res = kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-4, steps=0,
                       search_budget=0.0, seed=1)
    assert tuple(res.levels.values()) == tuple(h.height for h in
                                               (schema.hierarchy(q) for q in
                                                schema.quasi_identifiers))
    assert res.stats["dp"]["epsilon_anon"] == 2.0


@pytest.mark.parametrize("options, message", [
    ({"k": 5}, r"The 'k' parameter of anonymize must be left unset for algorithm 'safepub'"),
    ({"epsilon": 0}, r"The 'epsilon' parameter of anonymize must be a real number > 0\. Got 0"),
    ({"epsilon": "1"}, r"The 'epsilon' parameter of anonymize must be a finite real number"),
    ({"delta": 1.5}, r"The 'delta' parameter of anonymize must be a real number in \(0, 1\)\. "
                     r"Got 1\.5"),
    ({"search_budget": 1.0}, r"The 'search_budget' parameter of anonymize must be a real number "
                             r"in \[0, epsilon=1\)"),
    ({"steps": -1}, r"The 'steps' parameter of anonymize must be an integer >= 0\. Got -1"),
    ({"steps": 2.5}, r"The 'steps' parameter of anonymize must be an integer >= 0\. Got 2\.5"),
    ({"suppression": 0.1}, r"The 'suppression' parameter of safepub must be None or 1"),
    ({"l": 2}, r"algorithm 'safepub' does not take distinct l-diversity \(it takes \(epsilon, "
               r"delta\)-differential privacy\)"),
    ({"unknown": 1}, r"Unknown option\(s\) \['unknown'\] for algorithm 'safepub'"),
])
def test_bad_options_are_refused_by_name(census, options, message):
    table, schema = census
    with pytest.raises(ValueError, match=message):
        kg.anonymize(table, schema, algorithm="safepub", seed=0, **options)


def test_a_table_smaller_than_k_is_withheld_not_refused():
    """Item 5 of issue 39: 40 records at (1, 1e-5), whose k is 58: every row withheld and a
    warning, not an error about a k the caller never passed."""
    table, schema = kg.datasets.make_census(40, seed=2), kg.datasets.census_schema()
    with pytest.warns(UserWarning, match="40 records, fewer than k = 58"):
        res = kg.anonymize(table, schema, algorithm="safepub")
    assert res.k == 58 and res.suppressed == len(res.table) == 40
    assert (res.table.astype(str) == "*").all(axis=None)
    dp = res.stats["dp"]
    assert dp["released"] == 0 and dp["draws"] == 0 and res.verification.holds


def test_other_algorithms_still_need_k(census):
    table, schema = census
    with pytest.raises(ValueError, match=r"The 'k' parameter of anonymize must be an integer "
                                         r">= 1 \(required for algorithm 'optimal'"):
        kg.anonymize(table, schema, algorithm="optimal")


def test_a_dask_table_is_refused_up_front(census):
    dd = pytest.importorskip("dask.dataframe")
    table, schema = census
    with pytest.raises(ValueError, match="draws records one by one at random: it needs a "
                                         "pandas table"):
        kg.anonymize(dd.from_pandas(table, npartitions=2), schema, algorithm="safepub")


def test_report_states_the_guarantee(tmp_path, release):
    path = release.report(tmp_path / "report.json")
    content = json.loads(path.read_text())
    dp = content["privacy"]["differential_privacy"]
    assert dp["guarantee"].startswith("(2, 0.0001)-differential privacy of the published rows")
    assert dp["neighbouring_relation"] == "add or remove one record"
    assert dp["k"] == release.k and dp["not_sampled"] == release.stats["dp"]["not_sampled"]
    assert "epsilon=2, delta=0.0001" in content["provenance"]["call"]
    html = release.report(tmp_path / "report.html").read_text()
    assert "differential privacy of the published rows" in html
    assert "(2, 0.0001)-differential privacy" in release.summary()


def _cli_inputs(tmp_path, table, schema):
    """The table as a CSV and its hierarchies as a folder, for the command line."""
    data, hdir = tmp_path / "table.csv", tmp_path / "h"
    table.to_csv(data, index=False)
    hdir.mkdir()
    for q in schema.quasi_identifiers:
        kg.write_hierarchy(schema.hierarchy(q), hdir / f"{q}.csv")
    return data, hdir


def test_cli_safepub(tmp_path, census):
    table, schema = census
    data, hdir = _cli_inputs(tmp_path, table, schema)
    out, report = tmp_path / "out.csv", tmp_path / "report.json"
    base = ["anonymize", str(data), "--qi", ",".join(schema.quasi_identifiers),
            "--sensitive", "salary-class", "--identifiers", "name",
            "--hierarchies", str(hdir), "-o", str(out), "-q"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(base + ["--algorithm", "safepub", "--epsilon", "2", "--delta", "1e-4",
                            "--steps", "20", "--withheld", "star",
                            "--report", str(report)]) == 0
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    rep = json.loads(report.read_text())
    dp = rep["stats"]["dp"]
    assert rep["parameters"]["k"] == dp["k"] == dp_parameters(2.0, 1e-4, 0.1).k
    assert rep["parameters"]["seed"] is None and dp["steps"] == 20
    starred = (written == "*").all(axis=1)
    assert int(starred.sum()) == dp["not_sampled"] + dp["suppressed"]
    assert not written.loc[~starred, "income"].eq("*").any()
    # the file's own text comes back only for released rows
    assert set(written.loc[starred, "income"]) == {"*"}
    assert main(base + ["--algorithm", "safepub", "-k", "5"]) == 2
    assert main(base + ["--algorithm", "optimal", "-k", "5", "--epsilon", "1"]) == 2
    assert main(base + ["--algorithm", "optimal"]) == 2


def _released_at_top(table, schema, **options):
    """A safepub release whose search picked the top node (the first seed that does)."""
    top = tuple(schema.hierarchy(q).height for q in schema.quasi_identifiers)
    for seed in range(200):
        res = kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-4,
                           steps=5, seed=seed, **options)
        if res.stats["dp"]["node"] == top:
            return res
    raise AssertionError("no seed in 0..199 picked the top node")


@pytest.fixture(scope="module")
def small_census():
    table = kg.datasets.make_census(400, seed=1)
    table["note"] = [f"note {i}" for i in range(len(table))]
    base = kg.datasets.census_schema()
    return table, kg.Schema(quasi_identifiers=base.quasi_identifiers, sensitive=["salary-class"],
                            hierarchies=base.hierarchies)


def test_a_class_at_the_top_keeps_its_other_columns(small_census):
    # every quasi-identifier '*' is suppressed by definition, but SafePub releases the
    # class's records: their sensitive and other cells go out; only withheld rows say nothing
    table, schema = small_census
    res = _released_at_top(table, schema, withheld="star")
    dp = res.stats["dp"]
    withheld = res.withheld_mask
    assert dp["released"] > 0 and int(withheld.sum()) == dp["not_sampled"] + dp["suppressed"]
    assert res.suppressed_mask.all()               # all '*' in the quasi-identifiers
    out = res.table
    shown = ~withheld
    for column in ("salary-class", "note"):
        assert out.loc[withheld, column].astype(str).eq("*").all()
        assert out.loc[shown, column].astype(str).tolist() == \
            table.loc[shown, column].astype(str).tolist()


def test_a_class_at_the_top_is_published_when_withheld_rows_are_dropped(small_census):
    table, schema = small_census
    res = _released_at_top(table, schema)              # withheld="drop", the default
    kept = res.published_mask()
    assert int(kept.sum()) == res.stats["dp"]["released"] > 0
    assert not res.table.loc[kept, "note"].astype(str).eq("*").any()


def test_cli_writes_a_class_at_the_top(tmp_path, small_census):
    table, schema = small_census
    data, hdir = _cli_inputs(tmp_path, table, schema)
    top = tuple(schema.hierarchy(q).height for q in schema.quasi_identifiers)
    for attempt in range(200):                         # the CLI's randomness is fresh
        out, report = tmp_path / f"out{attempt}.csv", tmp_path / f"r{attempt}.json"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(["anonymize", str(data), "--qi", ",".join(schema.quasi_identifiers),
                         "--sensitive", "salary-class", "--hierarchies", str(hdir),
                         "--algorithm", "safepub", "--epsilon", "2", "--delta", "1e-4",
                         "--steps", "5", "-o", str(out), "--report", str(report), "-q"]) == 0
        dp = json.loads(report.read_text())["stats"]["dp"]
        if tuple(dp["node"]) == top:
            break
    else:
        raise AssertionError("the CLI's search never picked the top node in 200 runs")
    written = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(written) == dp["released"] > 0
    assert (written[list(schema.quasi_identifiers)] == "*").all().all()
    assert sorted(written["note"]) == sorted(set(written["note"])) and \
        set(written["note"]) <= set(table["note"])
