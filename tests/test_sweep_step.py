"""``benchmarks/sweep_step.py``: the command that reruns the tuning of stepwise's STEP
(issue 39 item 11: the code and its commit named different tables, and nothing reran it)."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.stepwise import STEP

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
import quality  # noqa: E402
import sweep_step  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_the_sweep_prints_the_loss_of_each_step(capsys):
    argv = ["--tables", "patients", "--k", "5", "--steps", "0.002,0.05", "--rows", "600"]
    assert sweep_step.main(argv) == 0
    out = capsys.readouterr().out
    assert f"the library's STEP = {STEP}" in out
    printed = dict(re.findall(r"k=5\s+step=(\S+)\s+Loss (\d\.\d{4})", out))
    assert sorted(printed) == ["0.002", "0.05"]
    table, schema = quality.TABLES["patients"]()
    for step, loss in printed.items():          # the suite's formula on that step's release
        res = kg.anonymize(table.iloc[:600].reset_index(drop=True), schema, k=5,
                           algorithm="stepwise", step=float(step), seed=0)
        mean = np.mean(list(kg.metrics.arx_loss_per_attribute(res.release).values()))
        assert f"{mean:.4f}" == loss
    best = min(printed, key=lambda s: (printed[s], float(s)))
    assert re.search(rf"patients\s+k=5\s+step {re.escape(best)} ", out)


@pytest.mark.parametrize("tables", ["claims", "registry", "nowhere"])
def test_the_sweep_takes_tuning_tables_only(tables, capsys):
    with pytest.raises(SystemExit):
        sweep_step.main(["--tables", tables])
    assert "held-out" in capsys.readouterr().err or tables == "nowhere"


def test_steps_docstring_names_the_sweep_and_its_tables():
    source = (Path(kg.stepwise.__file__).parent / "_steps.py").read_text()
    doc = source[source.index("STEP = "):source.index("_CHUNK")]
    assert "benchmarks/sweep_step.py" in doc
    for name in sweep_step.TUNING:
        assert f"``{name}``" in doc
        assert quality.GROUPS[name] == "tuning"
    steps = re.findall(r"\d\.\d+", doc[doc.index("Chosen from"):doc.index("on the tuning")])
    assert [float(s) for s in steps] == list(sweep_step.STEPS) and STEP in sweep_step.STEPS
