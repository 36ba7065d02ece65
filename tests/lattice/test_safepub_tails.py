"""SafePub's delta d(k, beta, epsilon): the tails summed in blocks and chunks (issue 46's note on
dp_parameters taking seconds near epsilon = 5) equal the binomial tails they stand for."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from kanon_graph.lattice.safepub._parameters import (_Sequences, _tail, _tails, _gamma,
                                                     dp_parameters, sampling_probability)


@settings(max_examples=60, deadline=None)
@given(epsilon=st.floats(0.05, 7.0), n=st.integers(1, 50_000))
def test_each_tail_is_the_binomial_tail_from_above(epsilon, n):
    beta = sampling_probability(epsilon)
    gamma = _gamma(epsilon, beta)
    start = math.floor(n * gamma) + 1
    exact = binom.sf(start - 1, n, beta)          # P(X >= start)
    ours = _tails(np.array([float(n)]), gamma, beta)[0]
    assert ours == pytest.approx(_tail(n, start, beta), rel=1e-10, abs=1e-300)   # both from logs of lgamma ~ 1e4
    # scipy's survival function underflows to 0 below about 1e-270, where ours still counts
    assert ours == pytest.approx(exact, rel=1e-9, abs=1e-250)


def test_delta_is_the_running_maximum_read_where_it_passes_the_bound():
    # the definition read one n at a time, beside the chunked reading
    epsilon = 2.0
    beta = sampling_probability(epsilon)
    seq = _Sequences(epsilon, beta)
    for k in (5, 40, 91, 300):
        n = max(math.ceil(k / seq.gamma - 1.0), 1)
        worst = -math.inf
        while True:
            worst = max(worst, _tail(n, math.floor(n * seq.gamma) + 1, beta))
            if worst > math.exp(-n * seq.rate):
                break
            n += 1
        assert seq.delta(k) == pytest.approx(worst, rel=1e-12)


@pytest.mark.parametrize("epsilon, delta, k", [(1.0, 1e-5, 58), (2.0, 1e-6, 118)])
def test_the_k_found_is_the_papers(epsilon, delta, k):
    # (0.9, 1e-5) and (1.9, 1e-6) after the 0.1 search budget: one below ARX's 59 and 119
    assert dp_parameters(epsilon, delta, 0.1).k == k
