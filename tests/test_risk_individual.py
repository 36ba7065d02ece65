"""Individual risk (Benedetti-Franconi): hand-computed cases, the series, sdcMicro, the report."""

import math

import numpy as np
import pandas as pd
import pytest

from kanon_graph import risk
from kanon_graph.risk import RiskClasses, individual_risk


def series_risk(f, big_f, terms=400_000):
    """E[1/F | f] summed term by term from the negative binomial posterior (no closed form).

    P(F = h | f) = C(h-1, f-1) p^f (1-p)^(h-f) for h >= f, p = f / F^; the sum
    of P(F = h | f) / h is cut where the terms no longer move it.
    """
    p = f / big_f
    if p >= 1:
        return 1.0 / f
    total, mass = 0.0, 0.0
    for h in range(f, f + terms):
        log_term = (math.lgamma(h) - math.lgamma(f) - math.lgamma(h - f + 1)
                    + f * math.log(p) + (h - f) * math.log1p(-p))
        term = math.exp(log_term)
        total += term / h
        mass += term
        if h > (f - 1) / p + 1 and term < 1e-17 * total:    # past the mode: tail negligible
            break
    assert mass == pytest.approx(1.0, abs=1e-9)          # the posterior was summed whole
    return total


# --------------------------------------------------------------- hand-computed cases
def test_a_sample_unique_of_weight_10_is_about_0_26_not_0_1():
    # f = 1, F^ = 10 (a 10% sample): p = 0.1,
    # r = p / (1 - p) * ln(1 / p) = 0.1 / 0.9 * ln 10 = 0.111111 * 2.302585 = 0.255843
    rc = RiskClasses.from_sizes([1], sampling_fraction=0.1)
    assert rc.population_model == "individual"
    assert risk.journalist(rc)["highest"] == pytest.approx(0.1 / 0.9 * math.log(10))
    assert risk.journalist(rc)["highest"] == pytest.approx(0.255843, abs=1e-6)
    # the f / pi estimate, by its name, says 1 / 10
    rc_f = RiskClasses.from_sizes([1], sampling_fraction=0.1, population_model="expansion")
    assert risk.journalist(rc_f)["highest"] == pytest.approx(0.1)


def test_hand_computed_classes_of_one_two_and_five():
    # f = (1, 2, 5), F^ = (10, 20, 50): p = 0.1 for each
    # f = 1: 0.1/0.9 * ln 10                       = 0.255843
    # f = 2: 0.1/0.9 - (0.1/0.9)^2 * ln 10         = 0.111111 - 0.0123457 * 2.302585 = 0.082684
    # f = 5: 0.1 / (5 - 0.9)                       = 0.024390
    r = individual_risk([1, 2, 5], [10.0, 20.0, 50.0])
    assert r == pytest.approx([0.255843, 0.082684, 0.024390], abs=1e-6)
    rc = RiskClasses.from_sizes([1, 2, 5], sampling_fraction=0.1, threshold=0.2)
    expected = 1 * 0.2558428 + 2 * 0.0826841 + 5 * 0.0243902          # = 0.5431620
    assert risk.individual(rc) == pytest.approx(
        {"highest": 0.255843, "average": expected / 8, "expected": expected,
         "at_risk": 1 / 8}, abs=1e-6)
    j = risk.journalist(rc)
    # J / sum F = 3 / 80 = 0.0375 < 0.0679: the average is the expected share re-identified
    assert j == pytest.approx({"highest": 0.255843, "average": expected / 8,
                               "at_risk": 1 / 8}, abs=1e-6)
    assert risk.marketer(rc)["average"] == pytest.approx(expected / 8, abs=1e-6)


def test_a_class_that_is_its_whole_population_has_risk_one_over_f():
    # pi = 1 (the table is the population): F = f, p = 1, so the posterior is F = f
    r = individual_risk([1, 2, 3, 7], [1.0, 2.0, 3.0, 7.0])
    assert r.tolist() == [1.0, 0.5, pytest.approx(1 / 3), pytest.approx(1 / 7)]
    rc = RiskClasses.from_sizes([1, 3], sampling_fraction=1.0)
    assert risk.journalist(rc) == risk.prosecutor(rc)


# ------------------------------------------------------------- the independent check
@pytest.mark.parametrize("p", [0.005, 0.05, 0.1, 0.3, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("f", [1, 2, 3, 4, 6, 10, 40])
def test_the_formulas_against_the_series_summed_term_by_term(f, p):
    exact = series_risk(f, f / p)
    approx = individual_risk([f], [f / p])[0]
    assert individual_risk([f], [f / p], method="exact")[0] == pytest.approx(exact, rel=1e-9)
    if f <= 2:                                   # eq. 2 and 3 are the series' sums
        assert approx == pytest.approx(exact, rel=1e-9)
    else:                                        # eq. 4: never below, within 5%
        assert exact * (1 - 1e-12) <= approx <= 1.05 * exact
    assert approx >= p / f * (1 - 1e-12)         # never below 1 / F^ (1/F is convex)


def test_sdcmicros_own_weighted_example():
    # sdcMicro's tests/testthat/test_indivRisk.R, the weighted case: keys (A, B, C) of eight
    # records with weights 18, 45.5, 39, 17, 92, 8, 123.5, 51 form classes f = 3 (rows 1, 3,
    # 8; F = 108), 1 (F = 45.5), 1 (F = 17), 2 (rows 5, 6; F = 100), 1 (F = 123.5)
    table = pd.DataFrame({"A": [2, 3, 2, 2, 3, 3, 1, 2], "B": [3, 3, 3, 3, 3, 3, 4, 3],
                          "C": [1, 3, 1, 2, 1, 1, 1, 1],
                          "w": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0]})
    rc = risk.risk_classes(table, ["A", "B", "C"], weights="w")
    assert rc.population_source == "weights"
    assert rc.sizes.tolist() == [3, 1, 1, 2, 1]
    assert rc.population_sizes.tolist() == [108.0, 45.5, 17.0, 100.0, 123.5]
    assert rc.sampling_fraction == pytest.approx(8 / 394)          # n / sum of the weights
    per_record = rc.record_risks()[[0, 1, 0, 2, 3, 3, 4, 0]]
    # sdcMicro's expected rk, method = "approx" and "exact"
    assert per_record == pytest.approx([0.01369863, 0.08579129, 0.01369863, 0.17707583,
                                        0.01877883, 0.01877883, 0.03931625, 0.01369863],
                                       abs=5e-9)
    exact = individual_risk(rc.sizes, rc.population_sizes, method="exact")
    assert exact[[0, 1, 0, 2, 3, 3, 4, 0]] == pytest.approx(
        [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883, 0.01877883,
         0.03931625, 0.01355297], abs=5e-9)


# -------------------------------------------------------------- models and defaults
def test_the_population_model_applies_to_estimated_sizes_only():
    counted = RiskClasses.from_sizes([1, 2], population_sizes=[4, 2],
                                     population_model="expansion")
    assert counted.population_model is None
    assert risk.journalist(counted)["highest"] == 0.5               # 1 / F, counted
    own = RiskClasses.from_sizes([1, 2])
    assert own.population_model is None and risk.journalist(own) == risk.prosecutor(own)
    assert "individual" not in risk.compute_risks(own)             # needs a sampling fraction
    estimated = RiskClasses.from_sizes([1, 2], sampling_fraction=0.5)
    assert estimated.population_model == "individual"
    assert "individual" in risk.compute_risks(estimated)


def test_individual_risk_is_never_below_the_expansion_estimate():
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 30, size=200)
    for pi in (0.01, 0.2, 0.7):
        ind = RiskClasses.from_sizes(sizes, sampling_fraction=pi)
        exp = RiskClasses.from_sizes(sizes, sampling_fraction=pi, population_model="expansion")
        assert np.all(ind.record_risks() >= exp.record_risks() * (1 - 1e-12))
        assert risk.marketer(ind)["average"] > risk.marketer(exp)["average"]
        assert risk.journalist(ind)["highest"] > risk.journalist(exp)["highest"]


def test_bad_weights_and_models_name_themselves():
    t = pd.DataFrame({"a": ["x", "x", "y"], "w": [2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="'population_model'.*'expansion', 'individual'"):
        risk.assess(t, ["a"], sampling_fraction=0.5, population_model="plugin")
    with pytest.raises(ValueError, match="'weights'.*'v'"):
        risk.assess(t, ["a"], weights="v")
    with pytest.raises(ValueError, match="'weights'.*one positive, finite"):
        risk.assess(t, ["a"], weights=[1.0, -2.0, 3.0])
    with pytest.raises(ValueError, match="'weights'.*one positive, finite"):
        risk.assess(t, ["a"], weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="'weights' parameter must hold numbers"):
        risk.assess(t, ["a"], weights=["a", "b", "c"])
    with pytest.raises(ValueError, match="'method'"):
        individual_risk([1], [2.0], method="series")
    with pytest.raises(ValueError, match="population sizes at least"):
        individual_risk([3], [2.0])


def test_weights_of_suppressed_rows_are_left_out():
    t = pd.DataFrame({"a": ["x", "x", "*"], "w": [4.0, 6.0, 100.0]})
    rc = risk.risk_classes(t, ["a"], weights="w")
    assert rc.sizes.tolist() == [2] and rc.population_sizes.tolist() == [10.0]
    # a class whose weights sum below its records is taken as its whole population
    low = risk.risk_classes(pd.DataFrame({"a": ["x", "x"]}), ["a"], weights=[0.5, 0.5])
    assert low.population_sizes.tolist() == [2.0]
    assert risk.journalist(low)["highest"] == 0.5
