"""SafePub's randomness: exact draws from uniform random bytes, the OS's unless seeded.

Every draw here is exact: integers uniform below a bound by rejection of
masked random bits, Bernoulli trials of a rational probability by comparing
such an integer with the numerator, and the exponential mechanism by
rejection with exact Bernoulli(exp(-gamma)) trials (Canonne, Kamath and
Steinke 2020, Algorithm 1). No probability is rounded inside a draw: a
draw's parameters (the sampling probability ``beta``, the epsilon of a draw
of the mechanism, the scores) are taken at their exact rational values, so
the distribution drawn from is exactly the one the privacy proof assumes for
those values and cannot leak through floating-point rounding (Mironov 2012's
attack on floating-point Laplace noise is the classic example of that leak).
The parameters themselves are floats rounded *down* where they are computed
(``beta`` and ``epsilon_anon`` in :mod:`._parameters`, the epsilons of the
draws in :func:`._search.search`), so that the proof's conditions hold for
the very floats used, not for nearby real numbers.

:class:`Randomness` reads its bytes from

* the operating system's cryptographic source (``secrets.token_bytes``),
  when the caller gave no seed (:meth:`Randomness.system`): what a release
  uses; nothing of it is kept or recorded;
* a seeded numpy generator (:meth:`Randomness.seeded`): reproducible, for
  tests and benchmarks only (anyone who knows the seed can redraw the sample
  and every draw of the mechanism).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from fractions import Fraction

import numpy as np

__all__ = ["Randomness", "as_randomness", "bernoulli_exp", "exponential_mechanism"]

_WORD = 1 << 64


class Randomness:
    """Exact random draws from a source of uniform random bytes.

    Parameters
    ----------
    read : callable
        ``read(n)`` returns ``n`` uniform random bytes.
    seeded : bool
        Whether the bytes come from a seeded generator (reproducible).
    """

    def __init__(self, read: Callable[[int], bytes], seeded: bool):
        self.read = read
        self.seeded = seeded

    @classmethod
    def system(cls) -> Randomness:
        """The operating system's cryptographic source (``secrets``)."""
        return cls(secrets.token_bytes, seeded=False)

    @classmethod
    def seeded_from(cls, rng: np.random.Generator) -> Randomness:
        """Bytes of a seeded numpy generator: reproducible, not fit for a release."""
        return cls(rng.bytes, seeded=True)

    def randbelow(self, n: int) -> int:
        """An integer uniform in ``[0, n)`` (rejection of ``n.bit_length()`` random bits).

        Examples
        --------
        >>> r = Randomness.seeded_from(np.random.default_rng(0))
        >>> sorted({r.randbelow(3) for _ in range(100)})
        [0, 1, 2]
        """
        if n < 1:
            raise ValueError(f"randbelow needs n >= 1. Got {n!r}.")
        bits = (n - 1).bit_length()
        if bits == 0:
            return 0
        size, mask = (bits + 7) // 8, (1 << bits) - 1
        while True:
            value = int.from_bytes(self.read(size), "little") & mask
            if value < n:
                return value

    def bernoulli(self, p: Fraction) -> bool:
        """True with probability exactly ``p`` (a rational in [0, 1])."""
        return self.randbelow(p.denominator) < p.numerator

    def bernoulli_each(self, p: Fraction, size: int) -> np.ndarray:
        """``size`` independent Bernoulli(``p``) trials, exactly ``p`` each, vectorized.

        A uniform 64-bit word ``w`` decides unless it equals ``floor(p 2**64)``
        (probability ``2**-64``); then the trial continues exactly with the
        remainder ``frac(p 2**64)``: P(True) = floor / 2**64 + frac / 2**64 = p.
        """
        scaled = p * _WORD
        floor = scaled.numerator // scaled.denominator
        rest = scaled - floor
        words = np.frombuffer(self.read(8 * size), dtype="<u8") if size else \
            np.zeros(0, dtype=np.uint64)
        if floor >= _WORD:                    # p == 1
            return np.ones(size, dtype=bool)
        threshold = np.uint64(floor)
        out = words < threshold
        for i in np.flatnonzero(words == threshold):
            out[i] = self.bernoulli(rest)
        return out


def bernoulli_exp(gamma: Fraction, source: Randomness) -> bool:
    """True with probability exactly ``exp(-gamma)``, for a rational ``gamma >= 0``.

    Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
    Privacy", NeurIPS 2020, Algorithm 1: for ``gamma`` in [0, 1], draw
    ``A_K ~ Bernoulli(gamma / K)`` for ``K = 1, 2, ...`` until the first
    failure, and return whether that ``K`` is odd; a larger ``gamma`` is
    ``floor(gamma)`` trials at ``gamma = 1`` and one at its fraction, stopping
    at the first failure.

    Examples
    --------
    >>> from fractions import Fraction
    >>> r = Randomness.seeded_from(np.random.default_rng(1))
    >>> bernoulli_exp(Fraction(0), r)
    True
    """
    whole = gamma.numerator // gamma.denominator
    for _ in range(whole):
        if not _bernoulli_exp_unit(Fraction(1), source):
            return False
    return _bernoulli_exp_unit(gamma - whole, source)


def _bernoulli_exp_unit(gamma: Fraction, source: Randomness) -> bool:
    k = 1
    while source.randbelow(gamma.denominator * k) < gamma.numerator:   # A ~ Bernoulli(gamma/k)
        k += 1
    return k % 2 == 1


def as_randomness(rng) -> Randomness:
    """``rng`` as a :class:`Randomness`: None is the OS's source, a numpy generator seeded."""
    if rng is None:
        return Randomness.system()
    if isinstance(rng, Randomness):
        return rng
    if isinstance(rng, np.random.Generator):
        return Randomness.seeded_from(rng)
    raise TypeError(f"safepub's randomness must be None (the operating system's), a "
                    f"numpy Generator (seeded, for tests) or a Randomness. Got {rng!r}.")


def exponential_mechanism(scores, epsilon: float, source, *, exact=None) -> int:
    """Draw an index with probability exactly proportional to ``exp(epsilon s_i / 2)``.

    The exponential mechanism (McSherry and Talwar 2007) for a score of
    sensitivity 1, sampled by rejection in exact rational arithmetic: draw
    ``i`` uniformly and accept it with probability ``exp(-gamma_i)``,
    ``gamma_i = epsilon (M - s_i) / 2`` with ``M`` the largest score
    (:func:`bernoulli_exp`); repeat until one is accepted. Index ``i`` comes
    out with probability ``exp(-gamma_i) / sum_j exp(-gamma_j)``: exactly
    the mechanism's, whatever the floats. A draw takes ``len(scores) /
    sum_j exp(-gamma_j)`` rounds on average (at most ``len(scores)``).

    Parameters
    ----------
    scores : sequence of float
        The scores, rounded (used to find the largest).
    epsilon : float
        Taken as the exact rational value of the float.
    source : Randomness, numpy Generator or None
        See :func:`as_randomness`.
    exact : callable, optional
        ``exact(i)``: score ``i`` as an exact ``Fraction`` (default: the
        float's own value). A float rounds monotonically, so the largest
        exact score is among those whose float is the largest.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> exponential_mechanism([0.0, -1e9], 1.0, rng)      # the second is (almost) never drawn
    0
    """
    floats = [float(s) for s in scores]
    if not floats:
        raise ValueError("the exponential mechanism needs at least one candidate")
    value = exact if exact is not None else (lambda i: Fraction(floats[i]))
    source = as_randomness(source)
    top = max(floats)
    best = max(value(i) for i, f in enumerate(floats) if f == top)
    scale = Fraction(float(epsilon)) / 2
    while True:
        i = source.randbelow(len(floats))
        if bernoulli_exp(scale * (best - value(i)), source):
            return i
