"""The privacy report and ``kanon-graph report`` with individual risk: they agree with kg.risk."""

import json

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import report, risk
from kanon_graph.cli import main
from kanon_graph.risk import individual_risk


def _release():
    table = kg.datasets.make_census(400, seed=7)
    table["w"] = np.random.default_rng(1).uniform(5, 40, size=len(table)).round(1)
    schema = kg.Schema(quasi_identifiers=["sex", "age", "race"],
                       hierarchies=kg.datasets.adult_hierarchies())
    res = kg.anonymize(table, schema, k=3, algorithm="optimal", suppression=0.05)
    return table, schema, res


@pytest.mark.parametrize("how", [dict(sampling_fraction=0.05),
                                 dict(sampling_fraction=0.05, population_model="expansion"),
                                 dict(weights="w")])
def test_the_report_and_kg_risk_agree(how):
    table, schema, res = _release()
    qis = ["sex", "age", "race"]
    released = res.table.reset_index(drop=True)
    c = report.build_report(table, released, schema, k=3, suppressed=res.suppressed_mask,
                            **how)
    r = c["risk"]
    model = how.get("population_model", "individual")
    assert r["population_model"] == {"before": model, "after": model}
    assert r["population_sizes_from"]["after"] == ("weights" if "weights" in how
                                                   else "estimated")
    options = dict(how)
    if "weights" in how:
        options["weights"] = table["w"].to_numpy()
    after = risk.assess(released, qis, suppressed=res.suppressed_mask, **options)
    before = risk.assess(table, qis, **options)
    for name in ("prosecutor", "journalist", "marketer", "individual"):
        assert r["after"][name] == pytest.approx(after[name], rel=1e-12), name
        assert r["before"][name] == pytest.approx(before[name], rel=1e-12), name
    if how == dict(sampling_fraction=0.05):     # and the release's figure is the formula's:
        sizes = released.loc[~res.suppressed_mask, qis].astype(str).value_counts()
        f = int(sizes.min())                      # the smallest class has the highest risk
        assert r["after"]["journalist"]["highest"] == pytest.approx(
            individual_risk([f], [f / 0.05])[0])


def test_the_html_report_says_which_model_it_used(tmp_path):
    table, schema, res = _release()
    html = res.report(tmp_path / "r.html", sampling_fraction=0.05).read_text()
    assert "Benedetti-Franconi individual risk" in html
    assert "estimated as f / pi from the sampling fraction" in html
    assert "expected re-identifications" in html
    html = res.report(tmp_path / "e.html", sampling_fraction=0.05,
                      population_model="expansion").read_text()
    assert "the expansion estimate" in html and "Benedetti-Franconi" not in html
    data = json.loads(res.report(tmp_path / "w.json", weights="w").read_text())["risk"]
    assert data["population_sizes_from"]["before"] == "weights"
    assert data["sampling_fraction_from"] == "weights"
    assert data["population"] == pytest.approx(table["w"].sum())


def test_the_report_command_chooses_the_model(tmp_path):
    table, schema, res = _release()
    table.to_csv(tmp_path / "in.csv", index=False)
    res.table.to_csv(tmp_path / "out.csv", index=False)
    base = ["report", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"), "--qi",
            "sex,age,race", "-k", "3", "-q", "--format", "json"]
    got = {}
    for name, extra in (("default", ["--sampling-fraction", "0.05"]),
                        ("expansion", ["--sampling-fraction", "0.05",
                                       "--population-model", "expansion"]),
                        ("weights", ["--weights", "w"])):
        out = tmp_path / f"{name}.json"
        assert main(base + ["-o", str(out)] + extra) == 0
        got[name] = json.loads(out.read_text())["risk"]
    assert got["default"]["population_model"]["after"] == "individual"
    assert got["expansion"]["population_model"]["after"] == "expansion"
    assert got["weights"]["population_sizes_from"]["before"] == "weights"
    assert (got["default"]["before"]["journalist"]["highest"]
            > got["expansion"]["before"]["journalist"]["highest"])
    qis = ["sex", "age", "race"]
    weighted = risk.assess(pd.read_csv(tmp_path / "in.csv"), qis, weights="w")
    assert got["weights"]["before"]["individual"] == pytest.approx(weighted["individual"])

def test_the_report_command_names_a_missing_weights_column(tmp_path, capsys):
    table = pd.DataFrame({"sex": ["F", "M"] * 10, "age": [30, 40] * 10})
    table.to_csv(tmp_path / "in.csv", index=False)
    table.to_csv(tmp_path / "out.csv", index=False)
    assert main(["report", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"), "--qi",
                 "sex,age", "-k", "2", "-q", "-o", str(tmp_path / "x.json"),
                 "--weights", "nope"]) != 0
    err = capsys.readouterr().err
    assert "--weights 'nope'" in err and "'sex'" in err
