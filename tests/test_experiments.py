"""kg.experiments.reproduce and ``kanon-graph reproduce``: every paper runs, verdicts are judged."""

from __future__ import annotations

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.experiments import FAILS, PAPERS, Claim, PaperReport, Run, rejudge, reproduce
from kanon_graph.experiments import paper000, paper003

ROWS = 160


@pytest.fixture(scope="module")
def quick_reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    return {p: reproduce(p, quick=True, rows=ROWS, out=out / p) for p in PAPERS}, out


@pytest.mark.parametrize("paper", list(PAPERS))
def test_every_paper_runs_quick_and_writes_its_verdicts(quick_reports, paper):
    reports, out = quick_reports
    report = reports[paper]
    assert report.paper == paper and report.quick
    assert report.claims, "a paper's experiment judges at least one claim"
    verdicts = pd.read_csv(out / paper / f"paper{paper}_verdicts.csv", keep_default_na=False)
    assert list(verdicts["claim"]) == [c.claim for c in report.claims]
    assert list(verdicts.columns) == ["claim", "literal", "literal_verdict", "ours", "verdict",
                                      "attribution", "full run"]
    assert set(verdicts["verdict"]) <= {"holds", "does not hold"}
    assert set(verdicts["literal_verdict"]) <= {"holds", "does not hold", "not run"}
    failing = (verdicts["verdict"] == "does not hold") | (
        verdicts["literal_verdict"] == "does not hold")
    assert verdicts.loc[failing, "attribution"].str.startswith(
        ("the paper's claim fails", "our setup differs", "our reconstruction decides it")).all()
    for name, frame in report.tables.items():
        written = pd.read_csv(out / paper / f"paper{paper}_{name}.csv")
        assert len(written) == len(frame) > 0


def test_runs_that_fail_are_rows_not_crashes(quick_reports):
    """Every measured row either carries metrics or the error that stopped it."""
    reports, _ = quick_reports
    for paper in ("000", "003"):
        frame = next(iter(reports[paper].tables.values()))
        ok = frame["error"].fillna("") == ""
        assert ok.any()
        metric = "ncp" if paper == "000" else "gcp"
        assert frame.loc[ok, metric].notna().all()


def test_paper000_claims_judge_the_figures_they_are_given():
    rows = []
    for n, shift in ((500, 0.0), (1000, 0.1)):
        for k in (2, 10):
            for algorithm, ncp in (("sd (paper)", 10 + k), ("sd", 9 + k), ("mondrian", 20 + k),
                                   ("incognito", 30 + k), ("datafly", 40 + k)):
                rows.append({"rows": n, "k": k, "algorithm": algorithm, "ncp": ncp * n,
                             "utility": 1 - ncp / 100 + (shift if "sd" in algorithm else 0),
                             "error": ""})
    frame = pd.DataFrame(rows)
    claims = paper000._claims(frame)
    assert [c.holds for c in claims] == [True, True, True, True]
    # the total-NCP gap (the literal reading of Fig. 4(d)) grows with the rows too
    assert claims[2].literal_holds and claims[2].literal.startswith("total-NCP gap")
    frame.loc[(frame["algorithm"] == "sd") & (frame["k"] == 10) & (frame["rows"] == 500),
              "ncp"] = 1e9
    assert [c.holds for c in paper000._claims(frame)] == [True, False, True, True]


def test_paper000_tells_the_total_ncp_reading_from_the_utility_reading():
    """Fig. 4(d): a total-NCP gap that grows with N while the utility gap shrinks is
    attributed to our setup (the normalization), not to the paper."""
    rows = []
    for n, sd_ncp, other_ncp in ((500, 100, 400), (1000, 400, 900)):
        for algorithm, ncp in (("sd (paper)", sd_ncp), ("mondrian", other_ncp)):
            rows.append({"rows": n, "k": 50, "algorithm": algorithm, "ncp": ncp,
                         "utility": 1 - ncp / (8 * n), "error": ""})
    claim = paper000._claims(pd.DataFrame(rows))[1]
    assert claim.literal_holds and not claim.holds      # +300 -> +500; 0.075 -> 0.0625
    assert claim.attribution.startswith("our setup differs")
    assert "+300, 1000 rows +500" in claim.literal


def test_paper003_claims_count_points_where_mst_is_not_worse():
    rows = []
    for q in (1, 2):
        for k in (3, 6):
            for algorithm, value in (("mst (paper)", 1.0), ("mst", 2.0), ("mondrian", 1.5),
                                     ("k-member", 1.5)):
                rows.append({"qi_size": q, "k": k, "algorithm": algorithm, "gcp": value,
                             "discernibility": value, "cavg": value, "error": ""})
    claims = paper003._claims(pd.DataFrame(rows))
    # literal reading: the paper's procedure (1.0, below both); ours: the default (2.0)
    assert [c.literal_holds for c in claims] == [True] * 3
    assert [c.holds for c in claims] == [False] * 3
    assert claims[0].ours.startswith("at or below both at 0 of 4")
    assert all(c.attribution.startswith(FAILS) for c in claims)


def test_report_renders_markdown_with_escaped_pipes():
    report = PaperReport("000", "t", "d", True, [
        Claim("a | b", "1", True),
        Claim("c", "2", False, literal="3", literal_holds=True,
              attribution="our setup differs: the metric")], {})
    text = report.to_markdown()
    assert "a \\| b" in text and text.count("\n") == 3
    assert report.held == 1 and report.held_literally == 2 and "does not hold" in text
    assert "| same setup as ours | holds |" in text


def test_a_claim_that_does_not_hold_needs_an_attribution():
    with pytest.raises(ValueError, match="attribution must start with one of"):
        Claim("c", "2", False)
    with pytest.raises(ValueError, match="attribution must start with one of"):
        Claim("c", "2", True, literal="1", literal_holds=False, attribution="because")
    assert Claim("c", "2", True, literal="1", literal_holds=None).literal_verdict == "not run"


def test_quick_verdicts_name_where_the_committed_full_run_differs(monkeypatch):
    from kanon_graph.experiments import _full

    monkeypatch.setattr(_full, "FULL", {"000": [("a", "holds", "does not hold"),
                                                ("b", "holds", "holds")]})
    report = PaperReport("000", "t", "d", True, [
        Claim("a", "1", True, literal="2", literal_holds=True),
        Claim("b", "1", True), Claim("new", "1", True)], {})
    column = report.verdicts()["full run"].tolist()
    assert column == ["differs: the full run says ours does not hold", "",
                      "not judged by the committed full run"]
    report.full = True
    assert "full run" not in report.verdicts()


@pytest.mark.parametrize("paper", ["5", "0000", "abc", True])
def test_unknown_papers_are_refused_by_name(paper):
    with pytest.raises(ValueError, match="paper must be one of 000, 001"):
        reproduce(paper)


def test_integer_paper_numbers_are_accepted(tmp_path):
    report = reproduce(3, quick=True, rows=60)
    assert report.paper == "003"


def test_a_data_folder_without_adult_is_named(tmp_path):
    with pytest.raises(kg.DataError, match="no adult.csv or adult.data"):
        reproduce("000", quick=True, data=tmp_path, rows=50)


def test_cli_reproduce_prints_the_verdicts_and_writes_files(tmp_path, capsys):
    code = main(["reproduce", "003", "--quick", "--rows", "80", "--out", str(tmp_path)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Paper 003" in printed and "claims hold" in printed
    assert (tmp_path / "paper003_verdicts.csv").exists()


def test_cli_reproduce_refuses_an_unknown_paper(capsys):
    assert main(["reproduce", "007"]) == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["kanon_graph", "kanon_graph.cli"])
def test_python_dash_m_runs_the_command(module):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", module, "reproduce", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "PAPER" in done.stdout


def _make_research():
    import importlib.util
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    spec = importlib.util.spec_from_file_location("make_research", docs / "make_research.py")
    make_research = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_research)
    return docs, make_research


def test_research_page_holds_the_committed_verdicts_of_the_claims_judged_today(quick_reports):
    """docs/research.md's tables are the CSVs of full runs, and their claims are today's."""
    docs, make_research = _make_research()
    page = (docs / "research.md").read_text()
    reports, _ = quick_reports
    for paper, report in reports.items():
        assert make_research.block(paper) in page, f"paper {paper}: run docs/make_research.py"
        committed = make_research.verdicts(paper)
        assert list(committed["claim"]) == [c.claim for c in report.claims], paper


@pytest.mark.parametrize("paper", list(PAPERS))
def test_committed_verdicts_are_what_the_code_judges_from_the_committed_runs(paper):
    """Each committed verdict table (both readings, attributions) is what today's code
    judges from the committed full run's measured tables, and _full.py holds it."""
    from kanon_graph.experiments._full import FULL

    docs, make_research = _make_research()
    committed = make_research.verdicts(paper)
    judged = rejudge(paper, docs / "research")
    assert "rows" not in judged.data
    pd.testing.assert_frame_equal(judged.verdicts().astype(str), committed.astype(str))
    assert FULL[paper] == [(r.claim, r.literal_verdict, r.verdict)
                           for r in committed.itertuples(index=False)]
    assert make_research.full_module() == (
        docs.parent / "kanon_graph" / "experiments" / "_full.py").read_text()


def test_cli_names_a_missing_extra_in_one_line(monkeypatch, capsys):
    """An optional extra that is not installed ends the command with the extra's name."""
    def missing(where):
        raise ImportError(f"{where} needs scikit-learn, which is not installed: "
                          f'pip install -e ".[ml]" (the ml extra)')

    monkeypatch.setattr("kanon_graph.metrics.pattern.require_sklearn", missing)
    assert main(["reproduce", "004", "--quick", "--rows", "60", "--out", "unused"]) == 1
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith("kanon-graph: error:") and '".[ml]"' in last
    assert "Traceback" not in err


def test_a_run_without_matplotlib_says_no_figures_were_drawn(monkeypatch, tmp_path):
    import kanon_graph.experiments as experiments
    from kanon_graph.experiments import _runs

    monkeypatch.setattr(experiments, "_can_plot", lambda: False)
    monkeypatch.setattr(_runs, "curves", lambda *a, **k: None)
    report = reproduce("003", quick=True, rows=60, out=tmp_path)
    assert any("matplotlib is not installed" in note for note in report.notes)
    assert "note: no figures were drawn" in report.describe()


def test_paper001_pseudo_code_il_gives_the_papers_17_70_on_table_1():
    """Section 5.1's code as written, on two clusters of three (k = 3): 17.70."""
    from kanon_graph.experiments import paper001
    from kanon_graph.experiments._runs import measure

    table, schema = paper001._table1()
    row = measure(table, schema, 3, "systematic", paper001.METRICS, extra=paper001._sizes)
    assert row["clusters"] == 2
    assert row["pseudo_code_il"] == pytest.approx(17.70)
    assert row["byun_il"] == pytest.approx(7.2)     # Byun's IL of the same clusters
    pooled = measure(table, schema, 3, "sensitive-clustering", paper001.METRICS,
                     extra=paper001._sizes, rare="pool")
    assert pooled["clusters"] == 2


def test_paper001_says_which_verdicts_depend_on_the_systematic_cap():
    from kanon_graph.experiments import paper001

    rows = []
    for k in (2, 3):
        for algorithm, il, cv in (("sensitive-clustering", 5.0, 0.1),
                                  ("sensitive-clustering (pool)", 5.0, 0.1),
                                  ("systematic", 6.0, 0.05), ("systematic (no cap)", 4.0, 0.5)):
            rows.append({"algorithm": algorithm, "k": k, "seconds": 1.0 + (algorithm[0] == "s"
                         and "systematic" in algorithm), "paper001_il": il * k,
                         "pseudo_code_il": il * k, "byun_il": il * k, "size_cv": cv,
                         "error": ""})
    claims = {c.claim[:30]: c for c in paper001._claims(pd.DataFrame(rows), pd.DataFrame())}
    il = claims["The proposed method loses less"]
    assert il.holds and not il.literal_holds          # capped: less; uncapped: more
    assert "against the uncapped systematic: does not hold" in il.ours
    assert il.attribution.startswith("our reconstruction decides it")
    size = claims["The proposed clusters are of n"]
    assert not size.holds and size.literal_holds
    assert size.attribution.startswith("our reconstruction decides it")


def test_systematic_without_the_cap_keeps_its_floor_n_over_k_clusters():
    table = pd.DataFrame({"x": [0] * 6 + [100] * 4, "s": list("abababcdcd")})
    schema = kg.Schema(quasi_identifiers=["x"], sensitive=["s"])
    capped = kg.anonymize(table, schema, k=2, algorithm="systematic", seed=0)
    free = kg.anonymize(table, schema, k=2, algorithm="systematic", seed=0, cap=False)
    assert capped.stats["clusters"] == 5 and free.stats["clusters"] == 2
    with pytest.raises(ValueError, match="'cap' parameter of systematic"):
        kg.anonymize(table, schema, k=2, algorithm="systematic", cap="no")


def test_paper002_reads_ranges_as_midpoints_literally_and_draws_in_ours(quick_reports):
    reports, _ = quick_reports
    frame = reports["002"].tables["age_tests"]
    assert set(frame["numbers"].dropna()) == {"midpoint", "uniform"}
    assert dict(zip(frame["reading"], frame["numbers"])) == {"literal": "midpoint",
                                                              "ours": "uniform"}


def test_comparisons_print_enough_digits_or_say_equal():
    from kanon_graph.experiments._report import pair

    assert pair(0.36981, 0.36984) == "0.36981 against 0.36984"
    assert pair(0.3698, 0.3698).endswith(": equal")
    assert pair(17.7, 17.70000000001).endswith(": equal")


@pytest.mark.skipif(not __import__("os").environ.get("KANON_GRAPH_DATA"),
                    reason="reads UCI's adult.data from KANON_GRAPH_DATA")
def test_paper004_runs_the_literal_reading_on_uci_adult(quick_reports):
    reports, _ = quick_reports
    report = reports["004"]
    assert "adult-uci" in report.data
    frame = report.tables["patterns"]
    literal = frame[frame["reading"] == "literal"]
    assert set(literal["algorithm"]) == {"rv-global", "rv-global (1% suppressed)", "bottom-up"}
    assert "capital-gain" in " ".join(report.tables["raw_rules_literal"]["rule"]) or \
        "education-num" in " ".join(report.tables["raw_rules_literal"]["rule"])
    assert (literal["error"].fillna("") == "").all()
    assert {c.literal_verdict for c in report.claims} <= {"holds", "does not hold"}


def test_an_added_run_appears_in_the_verdicts_of_every_paper():
    """extra_runs: the added algorithm is in the run table and in the verdict comparisons."""
    for paper in ("001", "003"):
        report = reproduce(paper, quick=True, rows=60, extra_runs=[Run("greedy", "k-member")])
        frame = next(iter(report.tables.values()))
        assert "greedy" in set(frame["algorithm"])
        assert report.verdicts().apply(lambda r: "greedy" in " ".join(map(str, r)),
                                       axis=1).any(), paper
        assert not report.full


@pytest.mark.parametrize("extra, message", [
    (["no-such-algorithm"], "unknown algorithm 'no-such-algorithm'"),
    ([("mondrian", "mondrian")], "label 'mondrian' is already used"),
    ([42], "must be a Run, an algorithm name"),
])
def test_bad_extra_runs_are_refused_by_name(extra, message):
    with pytest.raises(ValueError, match=message):
        reproduce("003", quick=True, rows=60, extra_runs=extra)


PLUGIN = '''
import numpy as np
import kanon_graph as kg


@kg.register_algorithm("one-block", recoding="local")
def one_block(data, model, *, rng=None, suppression=None):
    """Every record in one class: k-anonymous for any k <= n."""
    return kg.registry.Partition(np.zeros(data.n, dtype=np.int64), None, {})
'''


def test_cli_reproduce_adds_a_plugin_algorithm_with_options(tmp_path, capsys):
    plugin = tmp_path / "my_plugin.py"
    plugin.write_text(PLUGIN)
    code = main(["reproduce", "003", "--quick", "--rows", "60", "--out", str(tmp_path / "o"),
                 "--plugin", str(plugin), "--with", "one-block",
                 "--with", "mondrian:cut=relaxed"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "one-block" in out.out and "mondrian:cut=relaxed" in out.out
    frame = pd.read_csv(tmp_path / "o" / "paper003_fig79.csv")
    assert {"one-block", "mondrian:cut=relaxed"} <= set(frame["algorithm"])
    assert (frame.loc[frame["algorithm"] == "mondrian:cut=relaxed", "error"].isna()).all()
    kg.registry.unregister_algorithm("one-block")


def test_cli_reproduce_refuses_a_malformed_with(capsys):
    assert main(["reproduce", "003", "--with", "mondrian:strict"]) == 2
    assert "ALGORITHM[:KEY=VALUE,...]" in capsys.readouterr().err


def test_the_common_checks_run_on_a_plugin_without_editing_the_checkout(tmp_path):
    """``KANON_GRAPH_PLUGINS=... pytest --pyargs kanon_graph.testing`` checks the plugin's
    algorithm, and fails on a broken one."""
    import os
    import subprocess
    import sys

    good = tmp_path / "good_plugin.py"
    good.write_text(PLUGIN)
    bad = tmp_path / "bad_plugin.py"
    bad.write_text(PLUGIN.replace('"one-block"', '"singletons"').replace(
        "np.zeros(data.n, dtype=np.int64)", "np.arange(data.n)"))
    printed = {}
    for plugin, expect in ((good, 0), (bad, 1)):
        env = dict(os.environ, KANON_GRAPH_PLUGINS=str(plugin))
        done = subprocess.run([sys.executable, "-m", "pytest", "--pyargs",
                               "kanon_graph.testing", "-q", "-p", "no:cacheprovider", "-x",
                               "-k", "common_check"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == expect, done.stdout[-2000:] + done.stderr[-2000:]
        printed[plugin.stem] = done.stdout
    assert "18 passed" in printed["good_plugin"]           # 6 checks x 3 cases, one-block only
    assert "test_common_check[singletons-" in printed["bad_plugin"]
