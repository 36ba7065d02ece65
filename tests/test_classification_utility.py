"""Classification utility and the metrics that declare they need a target."""

import json
import sys

import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.metrics import classification_utility, compute_metrics

from _utility_tables import decades_without_zip, schema, table

pytest.importorskip("sklearn")

TARGET_METRICS = {"classification_accuracy", "classification_f1"}


def test_identity_release_scores_exactly_one():
    frame = table()
    for released in (frame.copy(), kg.anonymize(frame, schema(), k=1, algorithm="datafly")):
        cu = classification_utility(frame, released, "label", schema())
        assert cu.accuracy == 1.0 and cu.f1 == 1.0
        assert cu.accuracy_original == cu.accuracy_released


def test_identity_local_release_scores_exactly_one():
    frame = table()
    res = kg.anonymize(frame, schema(), k=1, algorithm="mst")
    assert res.levels is None                                  # a local release
    cu = classification_utility(frame, res, "label")
    assert (cu.accuracy, cu.f1) == (1.0, 1.0)


def test_release_that_destroys_the_signal_scores_below_one():
    frame = table()
    cu = classification_utility(frame, decades_without_zip(frame), "label", schema())
    assert cu.accuracy_original == 1.0
    assert cu.accuracy < 0.9 and cu.f1 < 0.9                   # hi / lo are guessed
    assert cu.accuracy_released > 0.4                          # young is still learnt
    assert "held-out records" in repr(cu) and cu.as_dict()["accuracy"] == cu.accuracy


def test_local_release_maps_held_out_records_to_covering_cells():
    frame = table()
    res = kg.anonymize(frame, schema(), k=8, algorithm="mst")
    assert res.levels is None
    space = kg.metrics._features.FeatureSpace(res.release)
    rows = list(range(len(frame)))
    mapped, released = space.mapped(rows), space.released(rows)
    assert mapped.shape == released.shape
    # every mapped cell is one the release holds and covers the raw value
    lo, hi = mapped[:, 0], mapped[:, 1]
    assert ((lo <= frame["age"]) & (frame["age"] <= hi)).all()
    held = {tuple(r) for r in released[:, :2]}
    assert {tuple(r) for r in mapped[:, :2]} <= held


def test_the_metric_is_skipped_without_a_target_and_computed_with_one():
    frame = table()
    released = decades_without_zip(frame)
    plain = kg.evaluate(frame, released, schema(), k=2)
    assert not TARGET_METRICS & set(plain.metrics)
    assert TARGET_METRICS & set(kg.metrics.metric_names()) == TARGET_METRICS
    ev = kg.evaluate(frame, released, schema(), k=2, target="label")
    cu = classification_utility(frame, released, "label", schema())
    assert ev.metrics["classification_accuracy"] == cu.accuracy
    assert ev.metrics["classification_f1"] == cu.f1
    assert {k: v for k, v in ev.metrics.items() if k not in TARGET_METRICS} == plain.metrics
    res = kg.anonymize(frame, schema(), k=2, algorithm="datafly")
    assert not TARGET_METRICS & set(res.metrics)
    assert kg.metrics.get_metric("classification_accuracy").needs == ("target",)
    assert compute_metrics(res.release, 2, ["classification_f1"], target="label") == {
        "classification_f1": pytest.approx(
            classification_utility(frame, res, "label").f1)}


def test_asking_for_the_metric_without_a_target_is_a_clear_error():
    frame = table()
    with pytest.raises(ValueError, match=r"'classification_accuracy' needs target"):
        kg.evaluate(frame, frame, schema(), metrics=["classification_accuracy"])
    with pytest.raises(ValueError, match=r"needs target"):
        kg.anonymize(frame, schema(), k=2, algorithm="datafly",
                     metrics=["classification_f1"])


def test_bad_target_names_the_parameter_and_the_column():
    frame = table()
    with pytest.raises(ValueError, match=r"'target' parameter of evaluate.*'salary'"):
        kg.evaluate(frame, frame, schema(), target="salary")
    with pytest.raises(ValueError,
                       match=r"'target' parameter of classification_utility.*'salary'"):
        classification_utility(frame, frame, "salary", schema())
    with pytest.raises(ValueError, match=r"must not be a quasi-identifier.*'age'"):
        kg.evaluate(frame, frame, schema(), target="age")
    missing = frame.assign(label=frame["label"].where(frame.index != 7))
    with pytest.raises(kg.exceptions.DataError, match=r"'label' has a missing value in row 7"):
        classification_utility(missing, missing, "label", schema())


def test_missing_scikit_learn_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    frame = table()
    with pytest.raises(ImportError, match=r"pip install -e \"\.\[ml\]\" \(the ml extra\)"):
        classification_utility(frame, frame, "label", schema())
    with pytest.raises(ImportError, match=r"pip install -e \"\.\[ml\]\" \(the ml extra\)"):
        kg.evaluate(frame, frame.assign(label=frame["label"]), schema(), target="label")
    assert "classification_accuracy" not in kg.evaluate(frame, frame, schema()).metrics


def test_cli_evaluate_target(tmp_path, capsys):
    frame = table()
    frame.to_csv(tmp_path / "o.csv", index=False)
    decades_without_zip(frame).to_csv(tmp_path / "r.csv", index=False)
    folder = tmp_path / "h"
    folder.mkdir()
    for column, h in schema().hierarchies.items():
        kg.write_hierarchy(h, folder / f"{column}.csv")
    args = ["evaluate", tmp_path / "o.csv", tmp_path / "r.csv", "--qi", "age,zip",
            "--hierarchies", folder, "-k", 2, "--report", tmp_path / "e.json"]
    assert main([str(a) for a in args]) == 0
    assert not TARGET_METRICS & set(json.loads((tmp_path / "e.json").read_text())["metrics"])
    assert main([str(a) for a in args + ["--target", "label"]]) == 0
    out = capsys.readouterr().out
    report = json.loads((tmp_path / "e.json").read_text())
    want = classification_utility(frame, decades_without_zip(frame), "label", schema())
    assert report["metrics"]["classification_accuracy"] == pytest.approx(want.accuracy)
    assert report["parameters"]["target"] == "label" and "classification_f1" in out
    assert main([str(a) for a in args + ["--target", "nope"]]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'target'" in err[0] and "'nope'" in err[0]
