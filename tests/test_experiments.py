"""kg.experiments.reproduce and ``kanon-graph reproduce``: every paper runs, verdicts are judged."""

from __future__ import annotations

import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.experiments import PAPERS, Claim, PaperReport, reproduce
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
    verdicts = pd.read_csv(out / paper / f"paper{paper}_verdicts.csv")
    assert list(verdicts["claim"]) == [c.claim for c in report.claims]
    assert set(verdicts["verdict"]) <= {"holds", "does not hold"}
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
    frame.loc[(frame["algorithm"] == "sd") & (frame["k"] == 10) & (frame["rows"] == 500),
              "ncp"] = 1e9
    assert [c.holds for c in paper000._claims(frame)] == [True, False, True, True]


def test_paper003_claims_count_points_where_mst_is_not_worse():
    rows = []
    for q in (1, 2):
        for k in (3, 6):
            for algorithm, value in (("mst (paper)", 1.0), ("mst", 2.0), ("mondrian", 1.5),
                                     ("k-member", 1.5)):
                rows.append({"qi_size": q, "k": k, "algorithm": algorithm, "gcp": value,
                             "discernibility": value, "cavg": value, "error": ""})
    claims = paper003._claims(pd.DataFrame(rows))
    assert [c.holds for c in claims] == [True] * 3 + [False] * 3
    assert claims[3].ours.startswith("at or below both at 0 of 4")


def test_report_renders_markdown_with_escaped_pipes():
    report = PaperReport("000", "t", "d", True, [Claim("a | b", "1", True),
                                                 Claim("c", "2", False)], {})
    text = report.to_markdown()
    assert "a \\| b" in text and text.count("\n") == 3
    assert report.held == 1 and "does not hold" in text


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


def test_research_page_holds_the_committed_verdicts_of_the_claims_judged_today(quick_reports):
    """docs/research.md's tables are the CSVs of full runs, and their claims are today's."""
    import importlib.util
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    spec = importlib.util.spec_from_file_location("make_research", docs / "make_research.py")
    make_research = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_research)
    page = (docs / "research.md").read_text()
    reports, _ = quick_reports
    for paper, report in reports.items():
        assert make_research.block(paper) in page, f"paper {paper}: run docs/make_research.py"
        committed = pd.read_csv(docs / "research" / f"paper{paper}_verdicts.csv")
        assert list(committed["claim"]) == [c.claim for c in report.claims], paper


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
