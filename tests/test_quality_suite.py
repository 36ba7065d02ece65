"""``benchmarks/quality.py`` (issue 22): its tables, its one formula, its output.

The suite itself is a benchmark (minutes); these tests check what it is
built from on small inputs: the builder-style hierarchies have the shapes
issue 22 names, the clinic table gets suggest's date / code / band
hierarchies, a run in a forked child measures Loss as the mean of
``arx_loss_per_attribute``, and the table marks the best Loss of each k.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import kanon_graph as kg

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
import quality  # noqa: E402
import tables  # noqa: E402


def test_patients_builder_hierarchies_have_the_issue_shapes():
    table = tables.patients(500)
    schema = tables.patients_builder_schema(table)
    zip_h, dob, income, sex = (schema.hierarchies[c] for c in ("zip", "dob", "income", "sex"))
    z = table["zip"].iloc[0]
    assert zip_h.ancestors(z) == [z[:5 - i] + "*" * i for i in range(6)]      # to *****
    d = table["dob"].iloc[0]
    assert dob.ancestors(d)[1] == d[:4] and dob.ancestors(d)[-1] == "*" and dob.height == 3
    assert income.height == 5 and sex.height == 1


def test_clinic_gets_suggested_date_code_and_band_hierarchies():
    table = tables.clinic(400)
    assert table["cost"].mean() > 1.5 * table["cost"].median()      # the skewed sensitive column
    schema = tables.clinic_schema(table)
    visit = schema.hierarchies["visit"].ancestors(table["visit"].iloc[0])
    assert visit[1] == table["visit"].iloc[0][:7]                     # month
    assert schema.hierarchies["zip"].ancestors(table["zip"].iloc[0])[1].endswith("*")
    assert schema.hierarchies["weight"].height >= 2


def test_forked_run_scores_with_the_mean_per_attribute_loss():
    table = tables.patients(300)
    schema = tables.patients_builder_schema(table)
    row = quality.run_forked(table, schema, "mondrian", 5, timeout=300)
    assert row["error"] == ""
    res = kg.anonymize(table, schema, k=5, algorithm="mondrian", seed=0)
    per = kg.metrics.arx_loss_per_attribute(res.release)
    assert row["loss"] == pytest.approx(float(np.mean(list(per.values()))))
    assert row["cpu_seconds"] > 0 and row["peak_mb"] > 0


def test_markdown_bolds_the_best_loss_of_each_k_and_keeps_errors():
    rows = [{"table": "t", "algorithm": "a", "k": 5, "loss": 0.2, "gcp": 0.1,
             "discernibility": 10.0, "seconds": 1.0, "cpu_seconds": 1.0, "peak_mb": 5.0},
            {"table": "t", "algorithm": "b", "k": 5, "loss": 0.1, "gcp": 0.1,
             "discernibility": 10.0, "seconds": 1.0, "cpu_seconds": 1.0, "peak_mb": 5.0},
            {"table": "t", "algorithm": "c", "k": 5, "error": "stopped after 9 s",
             "loss": math.nan}]
    text = quality.markdown(rows)
    assert "| t | b | **0.1000** |" in text and "| t | a | 0.2000 |" in text
    assert "stopped after 9 s" in text


def test_a_fresh_process_knows_every_local_algorithm():
    """Algorithms register on first lookup (issue 25): the suite must ask the registry,
    not read its table before anything is loaded."""
    import subprocess

    code = ("import sys; sys.path.insert(0, sys.argv[1]); import quality; "
            "print(','.join(sorted(quality.local_algorithms())))")
    out = subprocess.run([sys.executable, "-c", code, str(BENCH)], capture_output=True,
                         text=True, check=True).stdout.strip().split(",")
    assert {"mst", "sd", "mondrian", "bottom-up", "k-member"} <= set(out)
    assert "optimal" not in out
