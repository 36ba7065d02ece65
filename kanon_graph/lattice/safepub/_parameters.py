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

Both are floats rounded *down*, never to the nearest: ``epsilon_anon`` is
the largest float with ``epsilon_anon + epsilon_search <= epsilon`` exactly
(``1.0 - 0.1`` rounds to the nearest float, 0.9, which lies above the true
difference), and ``beta`` the largest float at most ``1 - U``, with ``U`` a
rational upper bound of ``exp(-epsilon_anon)`` (:func:`exp_minus_upper`), so
``beta <= 1 - exp(-epsilon_anon)`` holds exactly (the float
``-expm1(-0.4)``, for one, lies above it). The theorem's condition
``epsilon_anon >= -ln(1 - beta)`` is therefore met by the very floats the
sampling uses, not only by the real numbers they approximate.

The maximum over ``n`` is taken over a finite range: each tail ``a_n`` is at
most the Chernoff bound ``c_n = exp(-n (gamma ln(gamma / beta) - (gamma -
beta)))``, which falls with ``n``, so once the running maximum reaches
``c_n`` no later ``n`` can raise it (the stopping rule of ARX's
``ParameterCalculation``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import gammaln

__all__ = ["DPParameters", "dp_parameters", "sampling_probability", "delta_of_k",
           "anonymization_epsilon", "float_at_most", "exp_minus_upper"]

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
        ``epsilon - search_budget``, rounded down: the part the sampling and
        k-anonymity carry (``epsilon_anon + search_budget <= epsilon`` exactly).
    beta : float
        The sampling probability: the largest float found at most ``1 -
        exp(-epsilon_anon)`` (:func:`sampling_probability`).
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


#: Above this exponent ``exp(-x)`` is bounded by its value at the cap (it falls with x): the
#: series stays short, and ``exp(-40) < 2**-53`` already puts beta at the last float below 1.
_EXP_CAP = 40

#: The series for ``exp(x)`` is summed until a term is below ``2**-_EXP_BITS`` of the sum.
_EXP_BITS = 128


def float_at_most(value: Fraction) -> float:
    """The largest float that is at most ``value`` (exactly: rational comparison).

    Examples
    --------
    >>> from fractions import Fraction
    >>> x = float_at_most(Fraction(9, 10))
    >>> Fraction(x) <= Fraction(9, 10) < Fraction(math.nextafter(x, 1))
    True
    """
    value = Fraction(value)
    x = float(value)                      # the nearest float: at most one step off
    while Fraction(x) > value:
        x = math.nextafter(x, -math.inf)
    while Fraction(math.nextafter(x, math.inf)) <= value:
        x = math.nextafter(x, math.inf)
    return x


def exp_minus_upper(x: float) -> Fraction:
    """A rational ``U >= exp(-x)`` for ``x >= 0``, within a ``2**-128`` relative step of it.

    ``1 / S`` with ``S`` a partial sum of ``exp(x) = sum_n x^n / n!``: every
    term is positive, so ``S <= exp(x)`` and ``1 / S >= exp(-x)`` whatever
    the number of terms; it is exact rational arithmetic on the float's
    value. Above ``x = 40`` the bound at 40 is used (``exp(-x)`` falls).

    Examples
    --------
    >>> exp_minus_upper(0.0)
    Fraction(1, 1)
    >>> float(exp_minus_upper(1.0)) == math.exp(-1.0)
    True
    """
    x = min(Fraction(x), Fraction(_EXP_CAP))
    total = term = Fraction(1)
    n = 0
    while term * (1 << _EXP_BITS) > total or n <= x:
        n += 1
        term = term * x / n
        total += term
    return 1 / total


def anonymization_epsilon(epsilon: float, search_budget: float) -> float:
    """``epsilon - search_budget`` rounded down: the largest float ``e`` with ``e +
    search_budget <= epsilon`` exactly (the sampling and k-anonymity's part).

    Examples
    --------
    >>> 1.0 - 0.1, anonymization_epsilon(1.0, 0.1)     # the float 0.9 is above 1 - 0.1
    (0.9, 0.8999999999999999)
    """
    return float_at_most(Fraction(float(epsilon)) - Fraction(float(search_budget)))


def sampling_probability(epsilon_anon: float) -> float:
    """``beta``: the largest float at most ``1 - exp(-epsilon_anon)`` (Li et al. 2012).

    The theorem allows any ``beta <= 1 - exp(-epsilon_anon)``; the float
    ``-expm1(-epsilon_anon)`` is within a step of it, on either side (at 0.4
    and 2.8 it lies above). This is the largest float at most ``1 - U``,
    ``U`` a rational upper bound of ``exp(-epsilon_anon)``
    (:func:`exp_minus_upper`): at most the true value, exactly.

    Examples
    --------
    >>> sampling_probability(0.4)      # 1 - exp(-0.4) = 0.329679953964360714...
    0.3296799539643607
    """
    if epsilon_anon <= 0:
        return 0.0
    return float_at_most(1 - exp_minus_upper(epsilon_anon))


def _gamma(epsilon: float, beta: float) -> float:
    power = math.exp(epsilon)
    return (power - 1.0 + beta) / power


#: The tail is summed in blocks of this many terms.
_BLOCK = 64
#: Summing stops once what is left is at most this share of the sum (and is added as a bound).
_REST = 2.0 ** -60


def _tail(n: int, start: int, beta: float) -> float:
    """``sum_{j=start}^{n} f(j; n, beta)``, from above, summed from logs (no overflow).

    Past the mode the terms fall ever faster: ``f(j + 1) / f(j) = (n - j) / (j + 1)
    * beta / (1 - beta)`` shrinks as j grows. So the sum runs block by block and
    stops once that ratio ``r`` at the last term is below 1 and the rest, at most
    ``last * r / (1 - r)`` (a geometric series bounds the falling terms), is below
    ``2**-60`` of the sum; that bound is added, so the result never falls below the
    true tail. Near epsilon = 5 the Chernoff bound falls slowly and some 60,000
    tails of up to 60,000 terms are asked for: summing every term took seconds,
    the first block or two a few milliseconds.
    """
    if start > n:
        return 0.0
    j = max(start, 0)
    log_beta, log_rest = math.log(beta), math.log1p(-beta)
    const = math.lgamma(n + 1)
    ref, scaled = -math.inf, 0.0          # the sum is exp(ref) * scaled
    while j <= n:
        js = np.arange(j, min(j + _BLOCK, n + 1), dtype=np.float64)
        logs = const - gammaln(js + 1) - gammaln(n - js + 1) + js * log_beta + (n - js) * log_rest
        top = float(logs.max())
        if top > ref:
            scaled *= math.exp(ref - top) if ref > -math.inf else 0.0
            ref = top
        scaled += float(np.exp(logs - ref).sum())
        last = float(js[-1])
        j = int(last) + 1
        if j > n:
            break
        ratio = (n - last) / (last + 1) * beta / (1 - beta)
        rest = math.exp(float(logs[-1]) - ref) * ratio / (1 - ratio) if ratio < 1 else math.inf
        if rest <= _REST * scaled:
            scaled += rest
            break
    return math.exp(ref) * scaled


def _tails(ns: np.ndarray, gamma: float, beta: float) -> np.ndarray:
    """:func:`_tail` of ``n`` from ``floor(n * gamma) + 1``, for many ``n`` at once.

    The first terms of every tail in one array (as many as the ratio of the
    second term to the first says are needed, at most :data:`_BLOCK`); a tail whose rest is
    not yet below ``2**-60`` of its sum (the terms still rise, or fall slowly) is
    summed again by :func:`_tail` itself. Either way each value is the same upper
    bound :func:`_tail` gives.
    """
    starts = np.floor(ns * gamma) + 1
    # as many terms as the ratio at the start says take the rest below 2**-60 (<= _BLOCK)
    first = float(((ns - starts) / (starts + 1)).max()) * beta / (1 - beta)
    block = (_BLOCK if not 0 < first < 1 else
             int(min(_BLOCK, max(4, math.ceil(-math.log(_REST) / -math.log(first)) + 2))))
    js = starts[:, None] + np.arange(block, dtype=np.float64)[None, :]
    inside = js <= ns[:, None]
    js = np.minimum(js, ns[:, None])
    log_beta, log_rest = math.log(beta), math.log1p(-beta)
    logs = (gammaln(ns + 1)[:, None] - gammaln(js + 1) - gammaln(ns[:, None] - js + 1)
            + js * log_beta + (ns[:, None] - js) * log_rest)
    logs = np.where(inside, logs, -np.inf)
    ref = logs.max(axis=1)
    held = np.isfinite(ref)
    ref = np.where(held, ref, 0.0)
    terms = np.exp(logs - ref[:, None])
    scaled = terms.sum(axis=1)
    last = starts + block - 1
    ratio = (ns - last) / (last + 1) * beta / (1 - beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = np.where(ratio < 1, terms[:, -1] * ratio / (1 - ratio), np.inf)
    whole = ~inside[:, -1] | ~held                  # the tail ended inside the block
    done = whole | (rest <= _REST * scaled)
    out = np.where(held, np.exp(ref) * (scaled + np.where(whole, 0.0, rest)), 0.0)
    for i in np.flatnonzero(~done):
        out[i] = _tail(int(ns[i]), int(starts[i]), beta)
    return out


class _Sequences:
    """The tails ``a_n`` and Chernoff bounds ``c_n`` for one (epsilon, beta), cached over k.

    ``d(k)`` is the running maximum of the tails from ``n_m`` on, read where it
    first passes the bound ``c_n``; both are computed a chunk of ``n`` at a time.
    Near epsilon = 5 the bound falls so slowly that some 380,000 values of ``n``
    are read for each k tried: one at a time in Python that took 5 s, in chunks
    some 0.1 s.
    """

    CHUNK = 8192

    def __init__(self, epsilon: float, beta: float):
        self.beta = beta
        self.gamma = _gamma(epsilon, beta)
        g, b = self.gamma, beta
        self.rate = g * math.log(g / b) - (g - b)
        self.a = np.empty(0, dtype=np.float64)      # a[n - 1] for n = 1, 2, ...

    def tails(self, first: int, stop: int) -> np.ndarray:
        """``a_n`` for ``first <= n < stop``."""
        if stop - 1 > len(self.a):
            ns = np.arange(len(self.a) + 1, max(stop - 1, len(self.a) + self.CHUNK) + 1,
                           dtype=np.float64)
            self.a = np.concatenate([self.a, _tails(ns, self.gamma, self.beta)])
        return self.a[first - 1:stop - 1]

    def delta(self, k: int) -> float:
        n = max(math.ceil(k / self.gamma - 1.0), 1)
        worst = -math.inf
        while True:
            a = self.tails(n, n + self.CHUNK)
            running = np.maximum.accumulate(np.maximum(a, worst))
            passed = running > np.exp(-np.arange(n, n + len(a), dtype=np.float64) * self.rate)
            if passed.any():
                return float(running[int(np.argmax(passed))])
            worst = float(running[-1])
            n += len(a)


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
    epsilon_anon = anonymization_epsilon(epsilon, search_budget)
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
