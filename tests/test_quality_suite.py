"""``benchmarks/quality.py`` (issue 22) and ``quality_sensitive.py`` (issue 40).

The suites themselves are benchmarks (minutes); these tests check what they
are built from on small inputs: the builder-style hierarchies have the
shapes issue 22 names, the clinic table gets suggest's date / code / band
hierarchies, a run in a forked child measures Loss as the mean of
``arx_loss_per_attribute``, and the table marks the best Loss of each k.
With a sensitive column (no ARX needed): a run's release satisfies k and the
model when regrouped from its cells, a model the whole table fails is said
to be infeasible, t to the whole input takes the table's distance, the new
held-out tables have the shapes issue 40 asks for, and the markdown gives
the ratio default / ARX.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
import heldout  # noqa: E402
import quality  # noqa: E402
import quality_sensitive as qs  # noqa: E402
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


# --- the suite with sensitive columns (issue 40: benchmarks/quality_sensitive.py) ---------


@pytest.mark.parametrize("model", ["distinct-2", "t-0.3"])
def test_sensitive_run_releases_a_table_whose_k_and_model_hold_when_regrouped(model):
    """A forked run records k and l / t achieved; the release, regrouped by kg.evaluate
    from its cells alone, satisfies k and the model (no ARX needed)."""
    table = tables.patients(400)
    schema = tables.patients_builder_schema(table)
    row = qs.run_forked(table, schema, "default", 5, model, False, timeout=600)
    assert row["error"] == "" and row["holds"] and row["achieved_k"] >= 5
    ours = qs.MODELS[model][0]
    if "l" in ours:
        assert row["achieved_l"] >= 2
    else:
        assert row["achieved_t"] <= 0.3 + 1e-12
    _, res = qs.measure(table, schema, "default", 5, model, False)
    ev = kg.evaluate(table, res.table, schema, k=5, suppressed=res.suppressed_mask, **ours)
    assert ev.verification.holds and ev.verification.k_achieved >= 5
    per = kg.metrics.arx_loss_per_attribute(res.release)
    assert row["loss"] == pytest.approx(float(np.mean(list(per.values()))))
    assert row["suppressed"] == res.suppressed


def test_a_model_the_whole_table_fails_is_said_to_be_infeasible():
    table = tables.patients(200)
    table["diagnosis"] = np.where(np.arange(200) < 150, "flu", "asthma")   # 75% / 25%
    schema = tables.patients_builder_schema(table)
    assert qs.infeasible(table, schema, "distinct-2") == ""
    assert qs.infeasible(table, schema, "distinct-3").startswith("infeasible")
    assert qs.infeasible(table, schema, "recursive-3-2").startswith("infeasible")  # 150 = 3 * 50


def test_t_to_the_input_takes_the_ordered_or_the_equal_distance():
    import arx

    values = np.array([1, 2, 3, 1, 2, 3])
    whole = np.zeros(6, dtype=int)
    assert arx.t_input(values, whole, ordered=True) == pytest.approx(0.0)
    split = np.array([0, 0, 1, 1, 1, 1])           # {1, 2} and {3, 1, 2, 3}
    # class 0: p = (1/2, 1/2, 0) against q = (1/3, 1/3, 1/3): equal 1/3; ordered (1/6 + 1/3) / 2
    assert arx.t_input(values, split, ordered=False) == pytest.approx(1 / 3)
    assert arx.t_input(values, split, ordered=True) == pytest.approx(0.25)


def test_the_new_held_out_tables_have_a_skewed_and_a_numeric_sensitive_column():
    table, schema = heldout.screening(3_000)
    share = table["result"].value_counts(normalize=True)
    assert 0.6 <= share.iloc[0] <= 0.8 and share.index[0] == "negative"
    table, schema = heldout.earnings(3_000)
    assert qs.distance(table, schema) == "ordered" and table["monthly"].nunique() > 100
    assert {"screening", "earnings"} <= set(qs.GROUPS) and qs.GROUPS["earnings"] == "held out"


def test_fars_sensitive_column_leaves_the_quasi_identifier_rows_unchanged(monkeypatch):
    frame = pd.DataFrame({q: np.arange(50) % (i + 2) for i, q in enumerate(quality.FARS_QIS)})
    schema = kg.Schema(quasi_identifiers=quality.FARS_QIS)
    monkeypatch.setattr(quality, "fars", lambda: (frame.copy(), schema))
    table, with_sensitive = qs.fars()
    pd.testing.assert_frame_equal(table[quality.FARS_QIS], frame)
    assert list(with_sensitive.sensitive) == ["alcohol"] and set(table["alcohol"]) <= set(qs.ALCOHOL)


def test_sensitive_markdown_gives_the_ratio_and_marks_a_release_that_fails():
    base = {"table": "patients", "sensitive": "diagnosis", "model": "t-0.2", "k": 5,
            "profile": "", "error": ""}
    rows = [{**base, "algorithm": "arx-local", "loss": 0.2, "suppressed": 63, "holds": False,
             "seconds": 1.0, "cpu_seconds": 1.5, "seconds_warm": 0.5, "cpu_seconds_warm": 0.6,
             "load_before": 1.0},
            {**base, "algorithm": "default", "loss": 0.22, "suppressed": 0, "holds": True,
             "seconds": 2.0, "cpu_seconds": 2.0, "load_before": 1.0},
            {**base, "table": "screening", "sensitive": "result", "algorithm": "default",
             "error": "infeasible: the whole table has l 1"}]
    text = qs.markdown(rows)
    assert "| 0.2000 (63) † | 1.00 / 1.50 | 0.50 / 0.60 | 0.2200 (0) | 2.00 / 2.00 | 1.10 |" in text
    assert text.index("| tuning |") < text.index("| held out |")
    assert "infeasible: the whole table has l 1" in text
