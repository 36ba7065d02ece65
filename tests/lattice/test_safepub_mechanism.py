"""SafePub's mechanism against its papers: the derived k and beta, the sampling, the search.

* k and beta: Li, Qardaji and Su 2012, with delta recomputed here
  from scipy's binomial tail over a wide range of n (not the library's
  log-space sum nor its Chernoff stopping rule);
* the sampling and the exponential mechanism's draws: chi-square tests on
  fixed seeds (deterministic, so never flaky), each also shown to reject a
  slightly wrong distribution (the test has power);
* the score's sensitivity (Bild et al. 2018): adding one record to the sample
  moves the Loss score by at most 1.
"""

import math
import secrets
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import kanon_graph as kg
from kanon_graph.encoding import encode
from kanon_graph.lattice import Lattice
from kanon_graph.lattice.safepub import (Randomness, SampleScores, bernoulli_exp, delta_of_k,
                                         dp_parameters, em_probabilities,
                                         exponential_mechanism, sampling_probability, search)
from kanon_graph.testing._checks import random_schema, random_table


def _delta_scipy(k, beta, epsilon, span=4000):
    """d(k, beta, epsilon) = max over n >= n_m of P[Binomial(n, beta) > gamma n].

    Li et al. 2012; the maximum taken over ``span`` values of n from n_m on.
    """
    gamma = (math.exp(epsilon) - 1 + beta) / math.exp(epsilon)
    n_m = max(math.ceil(k / gamma - 1), 1)
    n = np.arange(n_m, n_m + span)
    return float(stats.binom.sf(np.floor(gamma * n), n, beta).max())


@pytest.mark.parametrize("epsilon, delta, budget", [
    (1.0, 1e-5, 0.1), (2.0, 1e-6, 0.1), (0.5, 1e-3, 0.05), (1.0, 1e-4, 0.0)])
def test_k_and_beta_are_the_papers(epsilon, delta, budget):
    p = dp_parameters(epsilon, delta, budget)
    anon = epsilon - budget
    assert p.epsilon_anon == pytest.approx(anon)
    assert p.beta == pytest.approx(1 - math.exp(-anon), rel=1e-12)
    assert p.beta == pytest.approx(sampling_probability(anon))
    # the smallest k whose delta, from scipy's binomial tail, is below the asked delta
    assert _delta_scipy(p.k, p.beta, anon) < delta
    assert _delta_scipy(p.k - 1, p.beta, anon) >= delta
    assert p.delta_k == pytest.approx(_delta_scipy(p.k, p.beta, anon), rel=1e-6)


def test_delta_falls_with_k():
    beta = sampling_probability(0.9)
    deltas = [delta_of_k(k, beta, 0.9) for k in (5, 10, 20, 40, 80)]
    assert all(a > b for a, b in zip(deltas, deltas[1:]))


def _table_and_data(n=300, seed=2):
    table, schema = random_table(n, seed), random_schema()
    return table, schema, encode(table, schema)


def test_sampling_probability_chi_square():
    """40 seeded releases of 300 records: the records drawn follow beta (and not beta + 0.03)."""
    table, schema, _ = _table_and_data()
    beta = dp_parameters(2.0, 0.5, 0.1).beta
    sampled = [kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=0.5,
                            steps=2, seed=seed).stats["dp"]["sampled"] for seed in range(40)]
    total, drawn = 40 * len(table), int(np.sum(sampled))
    observed = [drawn, total - drawn]
    assert stats.chisquare(observed, [total * beta, total * (1 - beta)]).pvalue > 0.01
    wrong = beta + 0.03
    assert stats.chisquare(observed, [total * wrong, total * (1 - wrong)]).pvalue < 0.01
    # and per release: the counts spread as Binomial(300, beta) (variance check)
    assert np.var(sampled, ddof=1) == pytest.approx(len(table) * beta * (1 - beta), rel=0.5)


def test_em_probabilities_are_the_exponential_mechanism():
    scores = np.array([-3.0, -1.0, -1.0, -10.0, 0.0])
    p = em_probabilities(scores, 0.8)
    expected = np.exp(0.4 * scores) / np.exp(0.4 * scores).sum()
    assert p == pytest.approx(expected, rel=1e-12)
    assert em_probabilities(scores + 1e6, 0.8) == pytest.approx(expected)   # no overflow


@pytest.mark.parametrize("scores, epsilon", [
    ([-3.0, -1.0, -1.5, -6.0, 0.0], 1.0),          # every gamma below 3
    ([0.0, -2.0, -5.0, -8.0, -0.5, -3.3], 1.4)])   # gammas up to 5.6: the whole-part loop
def test_em_draws_chi_square(scores, epsilon):
    """The exact sampler's draws follow exp(epsilon s / 2), and not a slightly other epsilon."""
    scores = np.array(scores)
    rng = np.random.default_rng(11)
    draws = np.bincount([exponential_mechanism(scores, epsilon, rng) for _ in range(6000)],
                        minlength=len(scores))
    p = em_probabilities(scores, epsilon)
    assert stats.chisquare(draws, 6000 * p).pvalue > 0.01
    assert stats.chisquare(draws, 6000 * em_probabilities(scores, epsilon * 1.3)).pvalue < 0.01


def test_search_first_step_follows_the_mechanism():
    """On a small lattice, the first pivot drawn from the top's specializations follows
    exp(epsilon * score / 2) of their Loss scores."""
    _, _, data = _table_and_data(300, 5)
    sampled = np.random.default_rng(0).random(data.n) < 0.7
    scores = SampleScores(data, sampled, 4)
    lattice = Lattice(data.heights, data.names)
    children = lattice.predecessors(lattice.top)
    epsilon = 1.0          # one step and the pick: 0.5 each, distinct probabilities here
    p = em_probabilities([scores.score(c) for c in children], epsilon / 2)
    assert p.max() - p.min() > 0.05
    counts = dict.fromkeys(children, 0)
    for seed in range(3000):
        found = search(lattice, scores, 1, epsilon, np.random.default_rng(seed), pick_share=0.5)
        counts[found.pivots[1]] += 1
    observed = np.array([counts[c] for c in children])
    assert stats.chisquare(observed, 3000 * p).pvalue > 0.01
    assert stats.chisquare(observed, np.full(len(children), 3000 / len(children))).pvalue < 0.01


def test_release_is_drawn_among_the_pivots_by_the_mechanism():
    """Item 3 of issue 39: the node released is one more draw of the mechanism among the
    pivots (not their argmax), and the walk and the pick share the search budget."""
    _, _, data = _table_and_data(300, 6)
    sampled = np.random.default_rng(1).random(data.n) < 0.8
    scores = SampleScores(data, sampled, 3)
    lattice = Lattice(data.heights, data.names)
    epsilon = 1.0          # two draws of 0.5: the walk's one step, and the pick
    top = lattice.top
    picked, expected = {}, {}
    for seed in range(3000):
        found = search(lattice, scores, 1, epsilon, np.random.default_rng(seed), pick_share=0.5)
        assert found.draws == 2 and found.epsilon_per_step == found.epsilon_pick == 0.5
        assert found.node in found.pivots and found.pivots[0] == top
        child = found.pivots[1]
        picked.setdefault(child, [0, 0])[found.node == child] += 1
        expected[child] = em_probabilities([scores.score(top), scores.score(child)], 0.5)
    observed = np.array([c for child in picked for c in picked[child]])
    p = np.concatenate([expected[child] * sum(picked[child]) for child in picked])
    assert stats.chisquare(observed, p).pvalue > 0.01
    best = np.concatenate([[0, sum(picked[c])] if scores.score(c) >= scores.score(top)
                           else [sum(picked[c]), 0] for c in picked])
    assert (observed != best).any()            # not the argmax


def test_the_walk_and_the_pick_spend_the_search_budget():
    _, _, data = _table_and_data(300, 6)
    scores = SampleScores(data, np.random.default_rng(1).random(data.n) < 0.8, 3)
    found = search(Lattice(data.heights, data.names), scores, 12, 0.1,
                   np.random.default_rng(3))
    assert found.draws == 13 and found.epsilon_pick == pytest.approx(0.09)
    assert 12 * found.epsilon_per_step + found.epsilon_pick == pytest.approx(0.1)
    top = search(Lattice(data.heights, data.names), scores, 0, 0.1, np.random.default_rng(3))
    assert top.draws == 0 and top.epsilon_pick == 0 and top.node == tuple(data.heights)


def test_bernoulli_exp_is_exp_minus_gamma():
    """Canonne, Kamath and Steinke's exact Bernoulli(exp(-gamma)), gamma below and above 1."""
    source = Randomness.seeded_from(np.random.default_rng(21))
    for gamma in (Fraction(1, 3), Fraction(7, 4), Fraction(3)):
        hits = sum(bernoulli_exp(gamma, source) for _ in range(4000))
        p = math.exp(-float(gamma))
        assert stats.binomtest(hits, 4000, p).pvalue > 0.01
        assert stats.binomtest(hits, 4000, p * 1.15).pvalue < 0.01


def test_bernoulli_each_is_exactly_p():
    source = Randomness.seeded_from(np.random.default_rng(8))
    drawn = source.bernoulli_each(Fraction(1, 3), 6000)
    assert stats.binomtest(int(drawn.sum()), 6000, 1 / 3).pvalue > 0.01
    assert stats.binomtest(int(drawn.sum()), 6000, 0.36).pvalue < 0.01
    assert source.bernoulli_each(Fraction(1), 5).all()
    assert not source.bernoulli_each(Fraction(0), 5).any()


def test_without_a_seed_every_draw_comes_from_the_os_source(monkeypatch):
    """Item 4 of issue 39: with no seed the sampling and every draw of the mechanism read
    secrets.token_bytes (replaced here by a scripted source: two runs then agree)."""
    table, schema, _ = _table_and_data(300, 3)

    def run():
        script = np.random.default_rng(99)
        calls = []

        def scripted(n):
            calls.append(n)
            return script.bytes(n)

        monkeypatch.setattr(secrets, "token_bytes", scripted)
        res = kg.anonymize(table, schema, algorithm="safepub", epsilon=2.0, delta=1e-3,
                           steps=4)
        return res, calls

    (one, calls), (two, _) = run(), run()
    assert calls and one.stats["seed"] is None
    assert one.suppressed_mask.tolist() == two.suppressed_mask.tolist()
    assert one.stats["dp"]["node"] == two.stats["dp"]["node"]


def test_exact_score_is_the_float_score():
    _, _, data = _table_and_data(300, 7)
    scores = SampleScores(data, np.random.default_rng(3).random(data.n) < 0.7, 3)
    for node in [(0, 0, 0, 0), tuple(data.heights), (1, 2, 0, 1)]:
        exact = scores.exact_score(node)
        assert isinstance(exact, Fraction) and scores.score(node) == float(exact)


@pytest.mark.parametrize("seed", range(6))
def test_score_sensitivity_is_one(seed):
    """Adding any one record to the sample moves the normalized score by at most 1."""
    _, _, data = _table_and_data(120, seed)
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 8))
    sampled = rng.random(data.n) < 0.6
    lattice_nodes = [tuple(int(rng.integers(0, h + 1)) for h in data.heights)
                     for _ in range(8)]
    base = SampleScores(data, sampled, k)
    for record in rng.choice(np.flatnonzero(~sampled), 10, replace=False):
        more = sampled.copy()
        more[record] = True
        plus = SampleScores(data, more, k)
        for node in lattice_nodes:
            assert abs(plus.score(node) - base.score(node)) <= 1 + 1e-9


def test_compiled_and_numpy_loss_agree():
    _, _, data = _table_and_data(400, 9)
    scores = SampleScores(data, np.random.default_rng(2).random(data.n) < 0.6, 3)
    assert scores.packed is not None
    for node in [(0, 0, 0, 0), tuple(data.heights), (1, 2, 0, 1), (3, 1, 1, 2)]:
        compiled = scores.loss(node)
        packed, scores.packed = scores.packed, None
        assert scores.loss(node) == pytest.approx(compiled, rel=1e-12)
        scores.packed = packed


def test_dense_and_hashed_kernels_agree():
    """The direct-count kernel (small key spaces) and the hashing one give the same loss."""
    from kanon_graph.lattice.safepub._kernels import node_loss, node_loss_dense

    _, _, data = _table_and_data(400, 10)
    scores = SampleScores(data, np.random.default_rng(4).random(data.n) < 0.7, 4)
    codes, costs, widths, bits, radices = scores.packed
    rng = np.random.default_rng(5)
    for _ in range(25):
        node = np.array([rng.integers(0, h + 1) for h in data.heights])
        space = int(np.prod([radices[j, l] for j, l in enumerate(node)]))
        hashed = node_loss(codes, costs, widths, node, scores.weights, 4, bits)
        dense = node_loss_dense(codes, costs, radices, node, scores.weights, 4, space)
        assert dense[0].tolist() == hashed[0].tolist() and dense[1] == hashed[1]
