"""SafePub's privacy parameters: the sampling probability and the k that (epsilon, delta) imply.

Li, Qardaji and Su (2012), their theorem on sampling and k-anonymity (as
restated by Bild, Kuhn and Prasser 2018): drawing every record with
probability ``beta`` and then applying a *strongly safe* k-anonymization (a
generalization scheme chosen without looking at the data, every class of
fewer than ``k`` sampled records suppressed) satisfies (epsilon,
delta)-differential privacy for every ``epsilon >= -ln(1 - beta)`` and

.. math::

    \\delta = d(k, \\beta, \\epsilon) = \\max_{n \\ge n_m}
        \\sum_{j > \\gamma n}^{n} f(j; n, \\beta),
    \\qquad n_m = \\lceil k / \\gamma - 1 \\rceil,
    \\qquad \\gamma = \\frac{e^\\epsilon - 1 + \\beta}{e^\\epsilon},

with ``f(j; n, beta)`` the binomial probability mass. SafePub (Bild et al.
2018) spends ``epsilon_anon = epsilon - epsilon_search`` on this step,
takes ``beta = 1 - exp(-epsilon_anon)`` (the largest beta the theorem
allows) and the smallest ``k`` with ``d(k, beta, epsilon_anon) < delta``.
(ARX 3.9.2's ``ParameterCalculation`` returns one more than that smallest k
-- its loop raises k once after the last check -- e.g. 59 and 119 where this
gives 58 and 118 for (0.9, 1e-5) and (1.9, 1e-6); both are private, the
smaller one suppresses less.)

The maximum over ``n`` is taken over a finite range: each tail ``a_n`` is at
most the Chernoff bound ``c_n = exp(-n (gamma ln(gamma / beta) - (gamma -
beta)))``, which falls with ``n``, so once the running maximum reaches
``c_n`` no later ``n`` can raise it (the stopping rule of ARX's
``ParameterCalculation``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["DPParameters", "dp_parameters", "sampling_probability", "delta_of_k"]

#: The largest k the search tries before giving up (delta cannot be met).
MAX_K = 100_000

#: A k is taken only when its delta is below ``delta * (1 - MARGIN)``: the floating-point sum
#: of the tail (relative error far below 1e-12) can never round a k across the bound (ARX
#: uses interval arithmetic for the same purpose).
MARGIN = 1e-9


@dataclass(frozen=True)
class DPParameters:
    """What (epsilon, delta) and the search budget imply for SafePub.

    Attributes
    ----------
    epsilon, delta : float
        The guarantee asked for.
    search_budget : float
        The part of epsilon spent on the exponential mechanism's search.
    epsilon_anon : float
        ``epsilon - search_budget``: the part the sampling and k-anonymity carry.
    beta : float
        The sampling probability, ``1 - exp(-epsilon_anon)``.
    k : int
        The smallest k with ``d(k, beta, epsilon_anon) < delta``.
    delta_k : float
        ``d(k, beta, epsilon_anon)`` for that k (below delta).
    """

    epsilon: float
    delta: float
    search_budget: float
    epsilon_anon: float
    beta: float
    k: int
    delta_k: float


def sampling_probability(epsilon_anon: float) -> float:
    """``beta = 1 - exp(-epsilon_anon)`` (Li et al. 2012, at equality)."""
    return -math.expm1(-epsilon_anon)


def _gamma(epsilon: float, beta: float) -> float:
    power = math.exp(epsilon)
    return (power - 1.0 + beta) / power


def _tail(n: int, start: int, beta: float) -> float:
    """``sum_{j=start}^{n} f(j; n, beta)``, summed from logs (no overflow for large n)."""
    if start > n:
        return 0.0
    start = max(start, 0)
    j = np.arange(start, n + 1, dtype=np.float64)
    log_first = (math.lgamma(n + 1) - math.lgamma(start + 1) - math.lgamma(n - start + 1)
                 + start * math.log(beta) + (n - start) * math.log1p(-beta))
    # f(j) / f(j - 1) = (n - j + 1) / j * beta / (1 - beta)
    steps = np.log((n - j[1:] + 1) / j[1:]) + math.log(beta) - math.log1p(-beta)
    logs = log_first + np.concatenate(([0.0], np.cumsum(steps)))
    top = logs.max()
    return float(math.exp(top) * np.exp(logs - top).sum())


class _Sequences:
    """The tails ``a_n`` and Chernoff bounds ``c_n`` for one (epsilon, beta), cached over k."""

    def __init__(self, epsilon: float, beta: float):
        self.beta = beta
        self.gamma = _gamma(epsilon, beta)
        g, b = self.gamma, beta
        self.rate = g * math.log(g / b) - (g - b)
        self.a: dict[int, float] = {}

    def tail(self, n: int) -> float:
        if n not in self.a:
            self.a[n] = _tail(n, math.floor(n * self.gamma) + 1, self.beta)
        return self.a[n]

    def bound(self, n: int) -> float:
        return math.exp(-n * self.rate)

    def delta(self, k: int) -> float:
        n = max(math.ceil(k / self.gamma - 1.0), 1)
        worst = -math.inf
        while True:
            worst = max(worst, self.tail(n))
            if worst > self.bound(n):
                return worst
            n += 1


def delta_of_k(k: int, beta: float, epsilon: float) -> float:
    """``d(k, beta, epsilon)``: the delta that sampling with ``beta`` and k-anonymity give.

    Li, Qardaji and Su 2012; Bild et al. 2018.

    Examples
    --------
    >>> from kanon_graph.lattice.safepub import delta_of_k, sampling_probability
    >>> beta = sampling_probability(1.0)
    >>> delta_of_k(10, beta, 1.0) > delta_of_k(20, beta, 1.0)
    True
    """
    return _Sequences(epsilon, beta).delta(int(k))


def dp_parameters(epsilon: float, delta: float, search_budget: float) -> DPParameters:
    """The sampling probability and k SafePub uses for (epsilon, delta) (Bild et al. 2018).

    Parameters
    ----------
    epsilon, delta : float
        Checked by the caller: ``epsilon > search_budget >= 0``, ``0 < delta < 1``.
    search_budget : float
        The part of epsilon the exponential mechanism spends.

    Examples
    --------
    >>> p = dp_parameters(1.0, 1e-5, 0.1)
    >>> round(p.beta, 4), p.delta_k < 1e-5
    (0.5934, True)
    """
    epsilon_anon = float(epsilon) - float(search_budget)
    beta = sampling_probability(epsilon_anon)
    seq = _Sequences(epsilon_anon, beta)
    # d(k) falls with k: double to a k that meets delta, then bisect to the smallest
    bound = float(delta) * (1.0 - MARGIN)
    low, high = 0, 1
    while seq.delta(high) >= bound:
        low, high = high, high * 2
        if high > MAX_K:
            raise ValueError(f"(epsilon, delta) = ({epsilon}, {delta}) with search budget "
                             f"{search_budget} needs k above {MAX_K}; raise epsilon or delta")
    while high - low > 1:
        mid = (low + high) // 2
        if seq.delta(mid) < bound:
            high = mid
        else:
            low = mid
    return DPParameters(float(epsilon), float(delta), float(search_budget), epsilon_anon,
                        beta, high, seq.delta(high))
