"""Individual risk (Benedetti and Franconi): each record's risk when the table is a sample.

When the table is a sample, the size ``F_k`` of a class in the population is
unknown; the sample tells its size ``f_k`` and, through the sampling weights,
an estimate ``F_k^ = sum of the weights of its records`` (``f_k / pi`` with a
sampling fraction ``pi``: every weight is ``1 / pi``). Reading ``1 / F_k^`` as
the risk (the *expansion* estimate) is optimistic: ``1 / F`` is convex, so
``E[1/F] > 1 / E[F]``, most of all for a sample unique.

Benedetti and Franconi take ``F_k`` given ``f_k`` to be negative binomial
(the number of trials until the ``f_k``-th success, success probability
``p_k = f_k / F_k^``)::

    P(F_k = h | f_k) = C(h-1, f_k-1) p_k^f_k (1-p_k)^(h-f_k),   h = f_k, f_k+1, ...

and the individual risk of a record of class ``k`` is the posterior mean
(eq. 1 below)::

    r_k = E[1/F_k | f_k] = sum_{h >= f_k} (1/h) C(h-1, f_k-1) p_k^f_k (1-p_k)^(h-f_k)

which sums in closed form for ``f_k = 1`` and ``f_k = 2`` (eq. 2, 3)::

    r_k = p_k / (1-p_k) * ln(1/p_k)                                   (f_k = 1)
    r_k = p_k / (1-p_k) - (p_k / (1-p_k))^2 * ln(1/p_k)               (f_k = 2)

and for ``f_k >= 3`` is approximated, as sdcMicro and mu-Argus do, by (eq. 4)::

    r_k ~ p_k / (f_k - (1 - p_k))

which is never below the exact value and is within 5% of it (the worst
case is ``f_k = 3``; checked against the series in the tests). The exact
value for any ``f_k`` is the Gauss hypergeometric function
``r_k = p_k / f_k * 2F1(1, 1; f_k + 1; 1 - p_k)`` (eq. 5; the series is
``sum_j j! / ((f_k+1)...(f_k+j)) (1-p_k)^j``), used with ``method="exact"``.
A class the weights say is the whole population (``p_k = 1``) has
``r_k = 1 / f_k``.

What is sdcMicro's here and what is not: ``indivRisk(method="approx")`` is
eq. 2-4 with ``r_k = 1/f_k`` where ``f_k = F_k``; ``measure_risk`` computes
the same formulas with ``p_k`` lowered by 0.0001 (a guard against
``p_k = 1``; its figures differ from these in the fourth decimal, 0.2557
for 0.2558 at ``p_k = 0.1``), and reports the global risk ``sum_k f_k r_k / n``
(the expected share of records re-identified) as :func:`individual` does.
sdcMicro's ``method="exact"`` is an alternating sum; eq. 5 is a different
closed form of the same series.

References
----------
Benedetti, R. and Franconi, L., "Statistical and technological solutions for
controlled data dissemination", Pre-proceedings of New Techniques and
Technologies for Statistics, vol. 1, 225-232 (1998).
Franconi, L. and Polettini, S., "Individual risk estimation in mu-Argus: a
review", Privacy in Statistical Databases, LNCS 3050, 262-272 (2004): the
posterior and its sums (eq. 1-4 are numbered in this module, not the paper's).
Templ, M., Kowarik, A. and Meindl, B., "Statistical disclosure control for
micro-data using the R package sdcMicro", Journal of Statistical Software
67(4) (2015); sdcMicro's ``R/indivRisk.R`` and ``src/Measure_Risk.h`` (read,
not copied: the formulas carry over).
"""

from __future__ import annotations

import numpy as np

__all__ = ["individual", "individual_risk"]

_METHODS = ("approx", "exact")


def individual_risk(sizes, population_sizes, *, method="approx"):
    """Benedetti and Franconi's individual risk ``r_k`` of each class.

    Parameters
    ----------
    sizes : array of int
        ``f_k``: records of each class in the table (the sample), at least 1.
    population_sizes : array of float
        ``F_k^``: the estimated size of each class in the population (the sum
        of its records' sampling weights, or ``f_k / pi``), at least ``f_k``.
    method : {"approx", "exact"}
        ``"approx"`` (sdcMicro's default): eq. 2 and 3 for ``f_k <= 2``, eq. 4
        for larger ``f_k``; ``"exact"``: eq. 5 for every ``f_k``.

    Returns
    -------
    ndarray of float
        ``r_k``, the probability that a record of class ``k`` is
        re-identified by an attacker who links it to the population.

    References
    ----------
    Franconi & Polettini (2004); sdcMicro's ``indivRisk``. The equations
    are those of :mod:`kanon_graph.risk.individual`.

    Examples
    --------
    A sample unique drawn with weight 10 (``p = 0.1``):
    ``0.1 / 0.9 * ln 10 = 0.2558``, where ``1 / F^`` says 0.1.

    >>> individual_risk([1, 2, 5], [10.0, 20.0, 5.0]).round(4).tolist()
    [0.2558, 0.0827, 0.2]
    """
    if method not in _METHODS:
        raise ValueError(f"The 'method' parameter of individual_risk must be one of "
                         f"{list(_METHODS)}. Got {method!r}.")
    f = np.asarray(sizes, dtype=float)
    big_f = np.asarray(population_sizes, dtype=float)
    if f.shape != big_f.shape or f.ndim != 1:
        raise ValueError("The 'population_sizes' parameter of individual_risk must give one "
                         f"size per class ({f.shape}). Got shape {big_f.shape}.")
    if f.size and (f.min() < 1 or not np.all(np.isfinite(big_f)) or np.any(big_f < f)):
        raise ValueError("individual_risk needs class sizes of at least 1 and population "
                         "sizes at least as large as the class sizes (p_k = f_k / F_k <= 1). "
                         f"Got sizes {f.tolist()[:10]} and population sizes "
                         f"{big_f.tolist()[:10]}.")
    p = f / np.where(big_f > 0, big_f, 1.0)
    whole = p >= 1.0                                   # the class is its whole population
    p = np.where(whole, 0.5, p)                        # (placeholder; set to 1/f below)
    odds, log_inverse = p / (1.0 - p), -np.log(p)
    if method == "exact":
        from scipy.special import hyp2f1

        risk = p / f * hyp2f1(1.0, 1.0, f + 1.0, 1.0 - p)           # eq. 5
    else:
        risk = np.where(f == 1, odds * log_inverse,                        # eq. 2
                        np.where(f == 2, odds - odds ** 2 * log_inverse,   # eq. 3
                                 p / (f - (1.0 - p))))                     # eq. 4
    return np.where(whole, 1.0 / np.maximum(f, 1.0), risk)


def individual(classes) -> dict:
    """Individual risk (Benedetti-Franconi) of the records, summarized as sdcMicro does.

    Each record of class ``k`` has risk ``r_k`` (:func:`individual_risk`, with
    ``F_k`` estimated from the sampling fraction or the sampling weights, or
    counted from a population table when one is given).

    * ``highest`` = ``max_k r_k``;
    * ``average`` = ``sum_k f_k r_k / n``: the expected share of records
      re-identified (sdcMicro's global risk);
    * ``expected`` = ``sum_k f_k r_k``: the expected number re-identified
      (sdcMicro's ``global_risk_ER``);
    * ``at_risk`` = ``sum_{k: r_k > tau} f_k / n``.

    References
    ----------
    Franconi & Polettini (2004) (eq. 2-4 of :mod:`kanon_graph.risk.individual`);
    Templ, Kowarik & Meindl (2015) and sdcMicro's ``measure_risk`` (the
    global risk).

    Parameters
    ----------
    classes : RiskClasses

    Returns
    -------
    dict
        ``highest``, ``average``, ``expected``, ``at_risk``.

    Examples
    --------
    >>> from kanon_graph.risk import RiskClasses
    >>> rc = RiskClasses.from_sizes([1, 4], sampling_fraction=0.1)
    >>> {m: round(v, 4) for m, v in individual(rc).items()}
    {'highest': 0.2558, 'average': 0.077, 'expected': 0.3849, 'at_risk': 0.2}
    """
    sizes, n = classes.sizes, classes.records
    if n == 0:
        return {"highest": 0.0, "average": 0.0, "expected": 0.0, "at_risk": 0.0}
    risk = individual_risk(sizes, classes.population_sizes)
    expected = float((sizes * risk).sum())
    return {"highest": float(risk.max()), "average": expected / n, "expected": expected,
            "at_risk": float(sizes[risk > classes.threshold].sum() / n)}
