"""Risk models (kanon_graph.risk) on hand-computed cases, simulated populations and releases."""

import math
import random

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom, hypergeom, nbinom

import kanon_graph as kg
from kanon_graph import risk
from kanon_graph.risk import RiskClasses


# ------------------------------------------------------------ sample-based models
def test_prosecutor_hand_computed():
    # classes of sizes 1, 2, 2, 5: n = 10, J = 4
    rc = RiskClasses.from_sizes([1, 2, 2, 5], threshold=0.4)
    r = risk.prosecutor(rc)
    assert r["highest"] == 1.0
    assert r["average"] == pytest.approx(4 / 10)
    assert r["at_risk"] == pytest.approx((1 + 2 + 2) / 10)   # risks 1, .5, .5 > .4; .2 not
    # the threshold is strict: exactly 1/2 is not above 0.5
    assert risk.prosecutor(RiskClasses.from_sizes([2, 2], threshold=0.5))["at_risk"] == 0.0


def test_journalist_and_marketer_with_a_population():
    # f = (1, 2, 3), F = (4, 2, 6): n = 6
    rc = RiskClasses.from_sizes([1, 2, 3], population_sizes=[4, 2, 6], threshold=0.3)
    j = risk.journalist(rc)
    assert j["highest"] == pytest.approx(1 / 2)
    assert j["average"] == pytest.approx(max(3 / 12, (1 / 4 + 2 / 2 + 3 / 6) / 6))
    assert j["at_risk"] == pytest.approx(2 / 6)                # only the class with F = 2
    assert risk.marketer(rc)["average"] == pytest.approx((1 / 4 + 1 + 1 / 2) / 6)


def test_without_population_journalist_is_prosecutor_and_marketer_is_classes_over_n():
    rc = RiskClasses.from_sizes([1, 3, 3, 7], threshold=0.1)
    p, j = risk.prosecutor(rc), risk.journalist(rc)
    assert j == p
    assert risk.marketer(rc)["average"] == pytest.approx(4 / 14)


def test_estimated_population_sizes_from_the_sampling_fraction():
    # the f / pi reading of an estimated population is asked for by name ("expansion");
    # the default is Benedetti-Franconi's individual risk (tests/test_risk_individual.py)
    rc = RiskClasses.from_sizes([1, 2, 4], sampling_fraction=0.25,
                                population_model="expansion")
    assert rc.population_source == "estimated" and rc.population_model == "expansion"
    assert rc.population_sizes.tolist() == [4.0, 8.0, 16.0]
    assert risk.journalist(rc)["highest"] == pytest.approx(1 / 4)
    assert rc.population == pytest.approx(28)


def test_population_table_counts_matching_classes():
    sample = pd.DataFrame({"age": ["[20-29]", "[20-29]", "[30-39]", "*"],
                           "sex": ["F", "F", "M", "*"]})
    population = pd.DataFrame({"age": ["[20-29]"] * 5 + ["[30-39]"] * 2 + ["[40-49]"] * 9,
                               "sex": ["F"] * 5 + ["M"] * 2 + ["F"] * 9})
    rc = risk.risk_classes(sample, ["age", "sex"], population=population)
    assert rc.sizes.tolist() == [2, 1] and rc.suppressed == 1
    assert rc.population_sizes.tolist() == [5.0, 2.0]
    with pytest.raises(ValueError, match="fewer records"):
        risk.risk_classes(sample, ["age", "sex"], population=population.iloc[5:])


def test_sample_uniques():
    assert risk.sample_uniqueness(RiskClasses.from_sizes([1, 1, 1, 4, 2])) == \
        {"uniques": 3.0, "share": pytest.approx(3 / 9)}


def test_bad_parameters_name_themselves():
    with pytest.raises(ValueError, match="'sampling_fraction'"):
        RiskClasses.from_sizes([1, 2], sampling_fraction=1.5)
    with pytest.raises(ValueError, match="'threshold'"):
        RiskClasses.from_sizes([1, 2], threshold=-1)
    with pytest.raises(ValueError, match="sampling fraction"):
        risk.zayatz(RiskClasses.from_sizes([1, 2]))
    with pytest.raises(ValueError, match="Unknown risk model 'nope'"):
        risk.get_risk("nope")
    with pytest.raises(ValueError, match=r"'quasi_identifiers'.*\['b'\]"):
        risk.assess(pd.DataFrame({"a": [1]}), ["b"])


def test_assess_skips_models_whose_needs_are_missing():
    t = pd.DataFrame({"a": ["x", "x", "y"]})
    assert "population_uniqueness" not in risk.assess(t, ["a"])
    assert "population_uniqueness" in risk.assess(t, ["a"], sampling_fraction=0.5)
    with pytest.raises(ValueError, match="needs sampling_fraction"):
        risk.assess(t, ["a"], models=["population_uniqueness"])


def test_privacy_prosecutor_risk_is_the_risk_models_figure():
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=2, algorithm="mst")
    qis = list(schema.quasi_identifiers)
    highest, average = kg.privacy.prosecutor_risk(res.table, qis)
    p = risk.assess(res.table, qis)["prosecutor"]
    assert (highest, average) == (p["highest"], p["average"])
    assert p["highest"] <= 1 / 2


def test_local_recoding_risk_is_on_the_released_classes():
    # two overlapping released ranges are two classes, though both cover age 25
    released = pd.DataFrame({"age": ["[20-30]"] * 3 + ["[25-35]"] * 2, "zip": ["1*"] * 5})
    r = risk.assess(released, ["age", "zip"], models=["prosecutor"])["prosecutor"]
    assert r["highest"] == pytest.approx(1 / 2) and r["average"] == pytest.approx(2 / 5)
    table = kg.datasets.make_census(400, seed=3)
    res = kg.anonymize(table, kg.datasets.census_schema(), k=4, algorithm="mst")
    sizes = sorted(len(c) for c in res.release.classes())
    rc = risk.risk_classes(res.table, list(kg.datasets.census_schema().quasi_identifiers))
    assert sorted(rc.sizes.tolist()) == sizes
    assert risk.prosecutor(rc)["highest"] == pytest.approx(1 / min(sizes))


# ------------------------------------------------------------ population models
def test_zayatz_hand_computed():
    # sizes 1, 1, 2: n = 4, pi = 0.5, N = 8, u = 3
    p11 = 4 / 8                                     # P(f=1 | F=1)
    p12 = 2 * math.comb(6, 3) / math.comb(8, 4)     # P(f=1 | F=2) = 40/70
    conditional = (2 / 3) * p11 / ((2 / 3) * p11 + (1 / 3) * p12)
    rc = RiskClasses.from_sizes([1, 1, 2], sampling_fraction=0.5)
    assert risk.zayatz(rc) == pytest.approx(2 * conditional / 0.5)
    assert hypergeom(8, 2, 4).pmf(1) == pytest.approx(p12)


def _crp(n, theta, alpha, seed):
    """Class of each of n records drawn from Pitman's two-parameter urn."""
    rnd, table_of, sizes = random.Random(seed), [], []
    for i in range(n):
        if i == 0 or rnd.random() < (theta + len(sizes) * alpha) / (theta + i):
            sizes.append(1)
            table_of.append(len(sizes) - 1)
            continue
        while True:                       # a table with probability (size - alpha)
            t = table_of[rnd.randrange(i)]
            if rnd.random() < (sizes[t] - alpha) / sizes[t]:
                break
        sizes[t] += 1
        table_of.append(t)
    return np.array(table_of)


def test_pitman_recovers_a_simulated_population():
    population = _crp(200_000, 500.0, 0.6, seed=1)
    true_uniques = int((np.bincount(population) == 1).sum())
    sample = np.random.default_rng(2).choice(population, 10_000, replace=False)
    sizes = np.bincount(sample)
    rc = RiskClasses.from_sizes(sizes[sizes > 0], sampling_fraction=0.05)
    theta, alpha = risk.pitman_parameters(rc)
    assert alpha == pytest.approx(0.6, abs=0.08)
    estimate = risk.pitman(rc)
    assert estimate == pytest.approx(true_uniques, rel=0.15)
    # the maximum: the likelihood's gradient vanishes there
    from kanon_graph.risk.population import _frequencies, _pitman_loglik
    s, c = _frequencies(rc)
    f = lambda t, a: _pitman_loglik(t, a, s, c, rc.records, c.sum())  # noqa: E731
    h = 1e-5
    assert abs(f(theta + h, alpha) - f(theta - h, alpha)) / (2 * h) < 1e-3
    assert abs(f(theta, alpha + h) - f(theta, alpha - h)) / (2 * h) < 1e-1
    assert risk.dankar(rc) == (estimate, "pitman")          # pi <= 0.1: Pitman


@pytest.mark.parametrize("alpha, beta, pi", [(0.5, 0.3, 0.2), (2.0, 0.7, 0.05),
                                             (1.3, 0.1, 0.5)])
def test_snb_probabilities_match_direct_summation(alpha, beta, pi):
    sizes = np.arange(1, 4000)
    prior = nbinom(alpha, beta).pmf(sizes - 1)      # F - 1 ~ NB(alpha, beta)
    p1 = float(np.sum(prior * binom(sizes, pi).pmf(1)))
    p2 = float(np.sum(prior * binom(sizes, pi).pmf(2)))
    assert risk.snb_probabilities(alpha, beta, pi) == pytest.approx((p1, p2), rel=1e-9)


def test_snb_recovers_a_simulated_population(monkeypatch):
    rng = np.random.default_rng(5)
    k, alpha, beta, pi = 40_000, 0.8, 0.25, 0.3
    population = 1 + rng.negative_binomial(alpha, beta, k)
    true_uniques = int((population == 1).sum())
    sampled = rng.binomial(population, pi)
    sizes = sampled[sampled > 0]
    rc = RiskClasses.from_sizes(sizes, sampling_fraction=sizes.sum() / population.sum())
    # Shlosser's K is 13% high here (45,253 for 40,000), and SNB's estimate with it
    assert risk.shlosser(rc) == pytest.approx(k, rel=0.2)
    estimate = risk.snb(rc)
    assert estimate == pytest.approx(true_uniques, rel=0.3)
    assert abs(estimate - true_uniques) < abs(risk.zayatz(rc) - true_uniques)
    value, model = risk.dankar(rc)          # pi > 0.1: the smaller of Zayatz and SNB
    assert (value, model) == (estimate, "snb")
    # with the true K, the two equations recover the population's uniques within 2%
    from kanon_graph.risk import population as models
    monkeypatch.setattr(models, "shlosser", lambda classes: float(k))
    assert risk.snb(rc) == pytest.approx(true_uniques, rel=0.02)


def test_no_sample_unique_means_no_population_unique():
    rc = RiskClasses.from_sizes([2, 3, 5], sampling_fraction=0.3)
    assert risk.population_uniqueness(rc)["dankar"] == 0.0
    assert risk.pitman(rc) == risk.zayatz(rc) == risk.snb(rc) == 0.0


def test_population_uniqueness_of_a_release_falls():
    table = kg.datasets.make_census(2000, seed=1)
    schema = kg.datasets.census_schema()
    res = kg.anonymize(table, schema, k=5, algorithm="datafly", suppression=0.02)
    qis = list(schema.quasi_identifiers)
    before = risk.assess(table, qis, sampling_fraction=0.01)
    after = risk.assess(res.table, qis, sampling_fraction=0.01)
    assert before["sample_uniqueness"]["uniques"] > 0
    assert after["sample_uniqueness"]["uniques"] == 0
    assert after["population_uniqueness"]["dankar"] == 0.0
    assert before["population_uniqueness"]["dankar"] > 0
    assert after["prosecutor"]["highest"] <= 1 / 5 < before["prosecutor"]["highest"]


def test_pitman_has_no_estimate_when_every_record_is_unique():
    rc = RiskClasses.from_sizes([1] * 10, sampling_fraction=0.1)
    assert math.isnan(risk.pitman(rc))
    # Dankar's rule then falls back to Zayatz: every sample unique is a population unique
    assert risk.dankar(rc) == (pytest.approx(100.0), "zayatz")
