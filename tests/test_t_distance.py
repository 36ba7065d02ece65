"""t's ground distance is said, and warned of when text decided it (issue 46 item 14)."""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cli import main
from kanon_graph.exceptions import InferenceWarning


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 70, n).astype(str),
                         "sex": rng.choice(["F", "M"], n),
                         "score": [f"{v:.1f}" for v in rng.normal(4, 1, n)]})


def _run(table, schema, t=0.3):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = kg.anonymize(table, schema, k=5, t=t, algorithm="mondrian")
    return res, [str(w.message) for w in seen if issubclass(w.category, InferenceWarning)
                 and "sensitive column" in str(w.message)]


def test_numbers_written_as_text_take_the_ordered_distance_with_a_word():
    res, said = _run(_table(), kg.Schema(quasi_identifiers=["age", "sex"],
                                         sensitive=["score"]))
    assert len(said) == 1
    assert "'score'" in said[0] and "ordered distance" in said[0]
    assert re.search(r"numbers written as text \(e\.g\. '\d+\.\d'\)", said[0])
    assert "--categorical score" in said[0]
    assert "t=0.3 (ordered distance, largest EMD" in res.summary()
    assert res.stats["t_distance"] == "ordered"
    assert res.verification.t_distance == "ordered"
    report = kg.io.result_report(res)
    assert report["verification"]["t_distance"] == "ordered"


@pytest.mark.parametrize("declared, distance", [({"categorical": ["score"]}, "equal"),
                                                ({"numeric": ["score"]}, "ordered")])
def test_a_declared_kind_decides_without_a_word(declared, distance):
    res, said = _run(_table(), kg.Schema(quasi_identifiers=["age", "sex"],
                                         sensitive=["score"], **declared), t=0.6)
    assert said == []
    assert f"({distance} distance, largest EMD" in res.summary()
    assert res.stats["t_distance"] == distance


def test_typed_numbers_need_no_word():
    table = _table()
    table["score"] = table["score"].astype(float)
    res, said = _run(table, kg.Schema(quasi_identifiers=["age", "sex"], sensitive=["score"]))
    assert said == [] and res.stats["t_distance"] == "ordered"


def test_the_command_line_says_the_distance(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    out, report = tmp_path / "o.csv", tmp_path / "r.json"
    assert main(["anonymize", str(path), "--qi", "age,sex", "--sensitive", "score",
                 "-k", "5", "--t", "0.3", "--algorithm", "mondrian", "--keep-order",
                 "-o", str(out), "--report", str(report)]) == 0
    std, err = capsys.readouterr()
    assert "warning: anonymize: sensitive column 'score'" in err and "ordered distance" in err
    assert "t=0.3 (ordered distance, largest EMD" in std
    written = json.loads(report.read_text())
    assert written["stats"]["t_distance"] == "ordered"
    assert written["verification"]["t_distance"] == "ordered"
    assert main(["evaluate", str(path), str(out), "--qi", "age,sex", "--sensitive", "score",
                 "-k", "5", "--t", "0.3"]) == 0
    std, err = capsys.readouterr()
    assert "t=0.3 (ordered distance" in std and "warning: evaluate: sensitive column" in err
    privacy = tmp_path / "p.json"
    assert main(["report", str(path), str(out), "--qi", "age,sex", "--sensitive", "score",
                 "-k", "5", "--t", "0.3", "-o", str(privacy), "--format", "json", "-q"]) == 0
    assert json.loads(privacy.read_text())["privacy"]["t_distance"] == "ordered"
