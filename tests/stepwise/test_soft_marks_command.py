"""``benchmarks/stepwise_soft_marks.py``: the command behind the figures of
``kanon_graph/stepwise/_steps.py``'s soft-mark heuristic (issue 46 item 12: the
docstring cited 949,363 against 23,222 checks and no command printed both)."""

import re
import sys
from pathlib import Path

import pytest

import kanon_graph as kg
from kanon_graph.stepwise import _steps

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
import stepwise_soft_marks  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_the_command_prints_both_halves(capsys):
    original = _steps._first_releasing
    assert stepwise_soft_marks.main(["--rows", "300", "--k", "5"]) == 0
    assert _steps._first_releasing is original          # the library is left as it was
    out = capsys.readouterr().out
    halves = {name: (int(checked.replace(",", "")), float(loss)) for name, checked, loss in
              re.findall(r"^(remembered|re-checked)\s+([\d,]+) nodes checked\s+Loss (\S+)",
                         out, flags=re.M)}
    assert sorted(halves) == ["re-checked", "remembered"]
    # the remembered half is the library's own run
    res = kg.anonymize(kg.datasets.make_census(300, seed=0), kg.datasets.census_schema(),
                       k=5, t=0.2, algorithm="stepwise")
    assert halves["remembered"] == (res.stats["nodes_checked"],
                                    float(f"{res.metrics['loss']:.4f}"))
    # clearing the soft marks only adds checks
    assert halves["re-checked"][0] > halves["remembered"][0]


def test_the_docstring_cites_the_command():
    doc = _steps.__doc__
    assert "python benchmarks/stepwise_soft_marks.py" in doc
