"""SafePub's floats are rounded down (issue 46 item 6): the theorem's conditions hold for them.

Li, Qardaji and Su 2012 allow a sampling probability ``beta`` only where
``beta <= 1 - exp(-epsilon_anon)``, and sequential composition adds the
epsilons of the steps: so beta, ``epsilon_anon`` and the epsilons of the
search's draws must be at most their real values, exactly, not merely close.
The reference here is :mod:`decimal`'s correctly rounded ``exp`` at 60 digits
(independent of the library's rational series), with a margin far above its
rounding error and far below a float's step.
"""

import decimal
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_graph.encoding import encode
from kanon_graph.lattice import Lattice
from kanon_graph.lattice.safepub import (SampleScores, dp_parameters, sampling_probability,
                                         search)
from kanon_graph.testing._checks import random_schema, random_table

_MARGIN = Decimal(10) ** -50


def _true_beta(epsilon_anon: float) -> Decimal:
    """``1 - exp(-epsilon_anon)`` at 60 digits, rounded down by the margin."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        return 1 - (-Decimal(epsilon_anon)).exp() - _MARGIN


def _below_true(beta: float, epsilon_anon: float) -> bool:
    return Decimal(beta) <= _true_beta(epsilon_anon)       # Decimal(float) is exact


def test_the_issues_cases_were_above_and_are_now_below():
    """At (epsilon, search_budget) = (1, 0.1), (0.5, 0.1), (3, 0.2): the old
    ``-expm1(-(epsilon - search_budget))`` lies above the true value at two of them (at
    (1, 0.1) its epsilon_anon, the float 0.9, is itself above 1 - 0.1); the new beta and
    epsilon_anon are at most the true values."""
    above = 0
    for epsilon, budget in [(1.0, 0.1), (0.5, 0.1), (3.0, 0.2)]:
        p = dp_parameters(epsilon, 1e-5, budget)
        assert Fraction(p.epsilon_anon) + Fraction(budget) <= Fraction(epsilon)
        assert _below_true(p.beta, p.epsilon_anon)
        old_anon = epsilon - budget
        above += (not _below_true(-math.expm1(-old_anon), old_anon)
                  or Fraction(old_anon) + Fraction(budget) > Fraction(epsilon))
        # rounded down by at most a step: the next float up is no longer below
        assert not _below_true(math.nextafter(p.beta, 1), p.epsilon_anon)
    assert above == 3


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-6, max_value=60.0, allow_nan=False))
def test_beta_never_lies_above_one_minus_exp(epsilon_anon):
    beta = sampling_probability(epsilon_anon)
    assert 0 <= beta < 1
    assert _below_true(beta, epsilon_anon)
    if epsilon_anon < 30:           # the largest such float (up to the margin's width)
        assert not _below_true(math.nextafter(beta, 1), epsilon_anon)


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0.01, max_value=50.0), st.floats(min_value=0.0, max_value=0.99))
def test_epsilon_anon_and_the_budget_add_up_to_at_most_epsilon(epsilon, share):
    from kanon_graph.lattice.safepub._parameters import anonymization_epsilon
    budget = epsilon * share
    anon = anonymization_epsilon(epsilon, budget)
    assert Fraction(anon) + Fraction(budget) <= Fraction(epsilon)
    assert Fraction(math.nextafter(anon, math.inf)) + Fraction(budget) > Fraction(epsilon)


@settings(max_examples=200)
@given(st.fractions(min_value=-10, max_value=10, max_denominator=10**30))
def test_float_at_most_is_the_largest_float_not_above(value):
    from kanon_graph.lattice.safepub._parameters import float_at_most
    x = float_at_most(value)
    assert Fraction(x) <= value < Fraction(math.nextafter(x, math.inf))


def test_the_search_spends_at_most_its_budget_exactly():
    """The pick (0.9 of the budget) and the walk's draws, rounded down: summed exactly,
    never above the search budget, at budgets where nearest rounding goes over."""
    table, schema = random_table(200, 3), random_schema()
    data = encode(table, schema)
    scores = SampleScores(data, np.random.default_rng(0).random(data.n) < 0.7, 3)
    lattice = Lattice(data.heights, data.names)
    for budget, steps in [(0.1, 3), (0.3, 7), (0.7, 11), (1.1, 3)]:
        found = search(lattice, scores, steps, budget, np.random.default_rng(1))
        spent = Fraction(found.epsilon_pick) + steps * Fraction(found.epsilon_per_step)
        assert spent <= Fraction(budget)
        assert found.epsilon_pick <= 0.9 * budget
