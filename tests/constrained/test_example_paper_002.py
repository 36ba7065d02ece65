"""The paper 002 example script runs and reports the flow and the three tests."""

import re
import runpy
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "paper_002_boundaries.py"


def test_example_prints_order_steps_and_tests(adult_dir, capsys, tmp_path, monkeypatch):
    png = tmp_path / "age.png"
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), str(adult_dir), "--plot", str(png)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "total weight 20 > threshold 6: anonymize=True; withheld ['name']" in out
    assert "generalization order: sex -> marital-status -> race -> age" in out
    steps = re.findall(r"step \d+: (\S+) to level (\d+)", out)
    assert steps and steps[-1][0] == "age"
    assert "holds: k=2" in out
    for test in ("KS", "t ", "F "):
        assert re.search(rf"{test}\s+\S+ = -?[\d.]+\s+p = [\d.e+-]+", out), test
    assert png.stat().st_size > 10_000
