"""Pattern preservation (paper 004 section 6.2.2): rules of a CART tree on raw vs released."""

import sys

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.metrics import pattern_utility

from _utility_tables import decades_without_zip, schema, table

pytest.importorskip("sklearn")


def _by_class(pu):
    return {rule.majority: ok for rule, ok in zip(pu.top, pu.survives)}


def test_the_age_rule_survives_and_the_zip_rules_are_destroyed():
    frame = table()
    pu = pattern_utility(frame, decades_without_zip(frame), "label", schema(),
                         min_samples_leaf=1)
    assert sorted(rule.majority for rule in pu.top) == ["hi", "lo", "young"]
    assert all(rule.share == 1.0 for rule in pu.top)       # the raw tree finds the truth
    assert _by_class(pu) == {"young": True, "hi": False, "lo": False}
    young = next(m for r, m in zip(pu.top, pu.matches) if r.majority == "young")
    assert young.majority == "young" and young.share == 1.0
    assert all(c.attribute == "age" for c in young.conditions)
    assert pu.accuracy["original"] == 1.0
    assert pu.accuracy["released"] < 0.9                  # the zip signal is gone
    assert "1 of 3 top rules survive" in repr(pu) and "[destroyed]" in repr(pu)


def test_a_release_that_keeps_the_zip_keeps_every_rule():
    frame = table()
    released = decades_without_zip(frame)
    released["zip"] = frame["zip"]
    pu = pattern_utility(frame, released, "label", schema(), min_samples_leaf=1)
    assert all(pu.survives) and len(pu.top) == 3
    assert pu.accuracy == {"original": 1.0, "released": 1.0}


def test_a_cut_inside_a_decade_survives_only_on_that_decade_s_bounds():
    """Moving the class edge to 35 puts the raw cut inside [30-39]: the released tree's
    cut at 29/30 (a bound of [30-39]) keeps the rule; a cut at 49/50 would not."""
    from kanon_graph.metrics.pattern import Condition, Rule, _survives

    frame = table()
    frame["label"] = ["young" if a < 35 else ("hi" if z == "z1" else "lo")
                      for a, z in zip(frame["age"], frame["zip"])]
    released = decades_without_zip(frame)
    pu = pattern_utility(frame, released, "label", schema(), min_samples_leaf=1)
    assert _by_class(pu) == {"young": True, "hi": False, "lo": False}
    space = kg.metrics._features.FeatureSpace(kg.evaluate(frame, released, schema()).release)
    reader = space.attributes[0]
    assert reader.interval_of(34.5) == (30.0, 39.0)
    assert reader.interval_of(39.5) == (39.5, 39.5)       # between two decades
    assert reader.cut_range("hi", 34.0) == (29.0, 30.0)
    assert reader.cut_range("lo", 35.0) == (39.0, 40.0)
    assert reader.cut_range("lo", 45.0) == (49.0, 50.0)
    rule = next(r for r in pu.top if r.majority == "young")
    shares = {"hi": 0.0, "lo": 0.0, "young": 1.0}

    def leaf(bound, t, share=shares):
        cond = Condition("age", f"age.{bound}", "<=", t, "")
        return Rule(0, (cond,), 10, share, max(share, key=share.get))

    assert _survives(rule, leaf("hi", 34.0), space, 0.1)      # cut 29/30
    assert _survives(rule, leaf("lo", 35.0), space, 0.1)      # cut 39/40
    assert not _survives(rule, leaf("hi", 54.0), space, 0.1)  # cut 49/50
    assert not _survives(rule, leaf("hi", 34.0, {"hi": 0.0, "lo": 0.15, "young": 0.85}),
                         space, 0.1)                          # share off by 0.15
    assert _survives(rule, leaf("hi", 34.0, {"hi": 0.0, "lo": 0.15, "young": 0.85}),
                     space, 0.2)


def test_to_frame_lists_both_trees_with_the_verdicts():
    frame = table()
    pu = pattern_utility(frame, decades_without_zip(frame), "label", schema(),
                         min_samples_leaf=1)
    out = pu.to_frame()
    assert set(out["tree"]) == {"original", "released"}
    original = out[out["tree"] == "original"]
    assert original["records"].sum() == out[out["tree"] == "released"]["records"].sum()
    assert list(original["survives"].head(3)) == pu.survives
    assert np.allclose(out[[c for c in out if c.startswith("share[")]].sum(axis=1), 1.0)


def test_works_on_an_anonymization_result():
    frame = table()
    res = kg.anonymize(frame, schema(), k=4, algorithm="datafly")
    pu = pattern_utility(frame, res, "label", min_samples_leaf=1)
    assert len(pu.top) == 3 and 0.0 <= pu.accuracy["released"] <= 1.0


def test_bad_target_names_the_parameter_and_the_column():
    frame = table()
    with pytest.raises(ValueError, match=r"'target' parameter of pattern_utility.*'salary'"):
        pattern_utility(frame, decades_without_zip(frame), "salary", schema())
    with pytest.raises(ValueError, match=r"must not be a quasi-identifier.*'zip'"):
        pattern_utility(frame, decades_without_zip(frame), "zip", schema())
    with pytest.raises(ValueError, match=r"'schema' parameter of pattern_utility"):
        pattern_utility(frame, decades_without_zip(frame), "label")


def test_missing_scikit_learn_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    frame = table()
    with pytest.raises(ImportError, match=r"pip install -e \"\.\[ml\]\" \(the ml extra\)"):
        pattern_utility(frame, frame, "label", schema())


def test_trees_figure_draws_both_trees(tmp_path):
    pytest.importorskip("matplotlib")
    frame = table()
    pu = pattern_utility(frame, decades_without_zip(frame), "label", schema(),
                         min_samples_leaf=1)
    fig = kg.viz.pattern_trees_figure(pu)
    assert [ax.get_title() for ax in fig.axes] == ["original", "released"]
    assert all(len(ax.texts) >= 3 for ax in fig.axes)     # a box per node
    fig.savefig(tmp_path / "trees.png")
    assert (tmp_path / "trees.png").read_bytes()[:4] == b"\x89PNG"


def test_hierarchy_free_value_sets_and_suppressed_rows():
    """Without hierarchies: a zip released as the set {z1,z2} destroys the zip rules;
    kept zips survive even with suppressed rows, which are encoded as their own value."""
    frame = table()
    free = kg.Schema(quasi_identifiers=["age", "zip"], numeric=["age"], categorical=["zip"])
    merged = decades_without_zip(frame).assign(zip="{z1,z2}")
    pu = pattern_utility(frame, merged, "label", free, min_samples_leaf=1)
    assert _by_class(pu) == {"young": True, "hi": False, "lo": False}
    assert {c for c in pu.columns if c.startswith("zip")} == {"zip=z1", "zip=z2"}
    kept = decades_without_zip(frame).assign(zip=frame["zip"])
    kept.loc[[0, 1, 2, 3], ["age", "zip"]] = "*"
    pu = pattern_utility(frame, kept, "label", free, min_samples_leaf=1)
    assert all(pu.survives) and len(pu.top) == 3
    space = kg.metrics._features.FeatureSpace(kg.evaluate(frame, kept, free).release)
    released = space.released([0, 4])
    assert list(released[:, -1]) == [1.0, 0.0]                   # the suppressed column
    assert list(released[0, :2]) == [20.0, 59.0]                 # '*': the whole age range
    assert list(released[0, 2:4]) == [1.0, 1.0]                  # '*': every zip
