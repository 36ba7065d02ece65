"""The pieces of a release's views: the class-size histogram, strict JSON."""

import json

import numpy as np

from kanon_graph.explorer._views import class_histogram, json_safe


def test_histogram_keeps_every_class_and_record_in_one_bar():
    few = np.array([5, 5, 7, 12])
    bars = class_histogram(few)
    assert [(b["from"], b["to"], b["classes"]) for b in bars] == [(5, 5, 2), (7, 7, 1),
                                                                   (12, 12, 1)]
    many = np.random.default_rng(0).integers(5, 5000, size=3000)
    bars = class_histogram(many, bins=40)
    assert len(bars) <= 40
    assert sum(b["classes"] for b in bars) == many.size
    assert sum(b["records"] for b in bars) == many.sum()
    for bar in bars:
        inside = many[(many >= bar["from"]) & (many <= bar["to"])]
        assert bar["classes"] == inside.size and bar["records"] == inside.sum()
    assert class_histogram(np.zeros(0, dtype=np.int64)) == []


def test_views_are_strict_json():
    value = {"risk": np.float64("nan"), "sizes": [np.int64(3), float("inf")], "ok": np.bool_(1)}
    text = json.dumps(json_safe(value), allow_nan=False)
    assert json.loads(text) == {"risk": None, "sizes": [3, None], "ok": True}
