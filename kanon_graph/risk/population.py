"""Population uniqueness from a sample: Pitman, Zayatz, SNB, and Dankar's rule.

A record unique in the table (a *sample unique*) is dangerous only if it is
also unique in the population. These models estimate the number ``U`` of
population uniques from the table's frequencies of frequencies ``f_i`` (the
number of classes of size ``i``), its size ``n``, ``u = sum_i f_i`` classes,
and the sampling fraction ``pi = n / N``.

Each estimator returns the *number* of population uniques (a float), or NaN
when its equations have no valid solution; :func:`population_uniqueness`
reports it as a share of the population (``U / N``) too.

References
----------
Dankar, F. K., El Emam, K., Neisa, A. & Roffey, T., "Estimating the
re-identification risk of clinical data sets", BMC Medical Informatics and
Decision Making 12:66 (2012): the three models compared and the selection rule.
"""

from __future__ import annotations

import math

import numpy as np

from ._classes import RiskClasses

__all__ = ["pitman", "zayatz", "snb", "dankar", "population_uniqueness"]


def _frequencies(classes):
    sizes, counts = np.unique(classes.sizes, return_counts=True)
    return sizes.astype(float), counts.astype(float)


def _need_fraction(classes, where):
    if classes.sampling_fraction is None:
        raise ValueError(f"{where} needs a sampling fraction: pass sampling_fraction=n/N "
                         "(the table's records over the population's).")
    return classes.sampling_fraction


def _valid(value, population):
    return bool(np.isfinite(value) and 0 < value <= population)


def zayatz(classes: RiskClasses) -> float:
    """Population uniques by Zayatz's conditional probability.

    With ``P(f=1 | F=i)`` the hypergeometric probability that a population
    class of size ``i`` leaves exactly one record in a sample of ``n`` drawn
    from ``N``, and the population's class sizes taken distributed as the
    sample's (``f_i / u``)::

        P(F=1 | f=1) = (f_1/u) P(f=1 | F=1) / sum_i (f_i/u) P(f=1 | F=i)
        U = f_1 P(F=1 | f=1) / pi

    ``P(f=1 | F=1) = n / N``.

    References
    ----------
    Zayatz, L. V., "Estimation of the percent of unique population elements on
    a microdata file using the sample", U.S. Bureau of the Census, Statistical
    Research Division Report RR-91/08 (1991). The reading with the sample's
    class-size distribution is the one of Dankar et al. (2012) and ARX.

    Examples
    --------
    >>> rc = RiskClasses.from_sizes([1, 1, 2], sampling_fraction=0.5)
    >>> round(zayatz(rc), 4)   # N = 8, n = 4: P(f=1|F=1) = 1/2, P(f=1|F=2) = 2 C(6,3)/C(8,4)
    2.5455
    """
    from scipy.stats import hypergeom

    pi = _need_fraction(classes, "zayatz")
    sizes, counts = _frequencies(classes)
    if not np.any(sizes == 1):
        return 0.0
    n = classes.records
    population = int(round(n / pi))
    u = counts.sum()
    one = hypergeom(population, sizes.astype(int), n).pmf(1)   # P(f=1 | F=i), per size i
    f1 = counts[sizes == 1][0]
    conditional = (f1 / u) * one[sizes == 1][0] / np.sum(counts / u * one)
    return float(f1 * conditional / pi)


def _pitman_loglik(theta, alpha, sizes, counts, n, u):
    """Log-likelihood of Pitman's sampling formula for the observed partition."""
    from scipy.special import gammaln

    return ((u - 1) * math.log(alpha) + gammaln(theta / alpha + u) - gammaln(theta / alpha + 1)
            - (gammaln(theta + n) - gammaln(theta + 1))
            + np.sum(counts * (gammaln(sizes - alpha) - gammaln(1 - alpha))))


def pitman_parameters(classes: RiskClasses) -> tuple[float, float]:
    """The maximum-likelihood ``(theta, alpha)`` of Pitman's sampling formula.

    The probability of the observed partition of ``n`` records into ``u``
    classes of sizes ``n_1 .. n_u`` is (Pitman 1996)::

        prod_{i=1}^{u-1} (theta + i alpha) / (theta + 1)_{n-1}
            * prod_j (1 - alpha)_{n_j - 1}

    with ``(x)_m`` the rising factorial, ``0 < alpha < 1``, ``theta > -alpha``.
    It is maximized numerically (in log gamma form), starting from Hoshino's
    moment estimate.
    """
    from scipy.optimize import minimize

    sizes, counts = _frequencies(classes)
    n, u = float(classes.records), float(counts.sum())
    c1 = float(counts[sizes == 1].sum())
    c2 = float(counts[sizes == 2].sum()) or 1.0

    def negative(x):
        alpha = 1.0 / (1.0 + math.exp(-x[1]))
        theta = -alpha + math.exp(x[0])
        value = -_pitman_loglik(theta, alpha, sizes, counts, n, u)
        return value if np.isfinite(value) else 1e300

    starts = [(1.0, 0.5)]
    c = c1 * (c1 - 1) / c2
    denominator = 2 * c1 * u + c1 * c - n * c
    if denominator:
        t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / denominator
        a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
        if 0 < a0 < 1 and t0 > -a0:
            starts.insert(0, (t0, a0))
    best = None
    for t0, a0 in starts:
        x0 = [math.log(t0 + a0), math.log(a0 / (1 - a0))]
        fit = minimize(negative, x0, method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 4000})
        if best is None or fit.fun < best.fun:
            best = fit
    alpha = 1.0 / (1.0 + math.exp(-best.x[1]))
    if not best.success:
        return float("nan"), float("nan")
    return float(-alpha + math.exp(best.x[0])), float(alpha)


def pitman(classes: RiskClasses) -> float:
    """Population uniques under Pitman's sampling formula (Hoshino's estimator).

    With ``(theta, alpha)`` from :func:`pitman_parameters`, the expected
    number of population uniques is approximately::

        U = Gamma(theta + 1) / Gamma(theta + alpha) * N ** alpha

    NaN when the estimate is not in ``(0, N]``, when the likelihood has no
    maximum to find (every class of the table is a single record: the
    likelihood grows without bound as ``theta`` does) or the search does not
    converge.

    References
    ----------
    Pitman, J., "Some developments of the Blackwell-MacQueen urn scheme" (1996).
    Hoshino, N., "Applying Pitman's sampling formula to microdata disclosure
    risk assessment", Journal of Official Statistics 17(4):499-520 (2001),
    section 4.

    Examples
    --------
    >>> rc = RiskClasses.from_sizes([1] * 40 + [2] * 20 + [3] * 10 + [8] * 5,
    ...                             sampling_fraction=0.1)
    >>> 40 < pitman(rc) < 40 / 0.1      # more uniques than sampled, fewer than f1 / pi
    True
    """
    from scipy.special import gammaln

    pi = _need_fraction(classes, "pitman")
    if not np.any(classes.sizes == 1):
        return 0.0
    population = classes.records / pi
    if classes.sizes.max() == 1:
        return float("nan")
    theta, alpha = pitman_parameters(classes)
    if not np.isfinite(theta):
        return float("nan")
    value = math.exp(gammaln(theta + 1) - gammaln(theta + alpha) + alpha * math.log(population))
    return float(value) if _valid(value, population) else float("nan")


def shlosser(classes: RiskClasses) -> float:
    """Shlosser's estimate of the number ``K`` of non-empty classes in the population.

    ``K = u + f_1 sum_i (1-pi)^i f_i / sum_i i pi (1-pi)^(i-1) f_i``
    (Haas, Naughton, Seshadri & Stokes 1995, "Sampling-based estimation of the
    number of distinct values of an attribute", eq. for D_Sh).
    """
    pi = _need_fraction(classes, "shlosser")
    sizes, counts = _frequencies(classes)
    u, f1 = counts.sum(), counts[sizes == 1].sum()
    if pi >= 1:
        return float(u)
    top = np.sum((1 - pi) ** sizes * counts)
    bottom = np.sum(sizes * pi * (1 - pi) ** (sizes - 1) * counts)
    return float(u + f1 * top / bottom)


def snb_probabilities(alpha, beta, pi):
    """``(P(f=1), P(f=2))`` for a class under the SNB model.

    A population class has ``F = 1 + G`` records, ``G`` negative binomial
    (``P(G=g) = C(g+alpha-1, g) beta^alpha (1-beta)^g``), and each is sampled
    with probability ``pi``. With ``d = (1-pi)(1-beta)``::

        P(f=1) = pi (beta / (1-d))^alpha (1 + alpha d / (1-d))
        P(f=2) = alpha beta^alpha pi^2 (1-beta) (2 - (1-alpha) d) / (2 (1-d)^(alpha+2))

    (from the probability generating function
    ``(1 - pi + pi t) (beta / (1 - d - (1-beta) pi t))^alpha``).
    """
    d = (1 - pi) * (1 - beta)
    p1 = pi * (beta / (1 - d)) ** alpha * (1 + alpha * d / (1 - d))
    p2 = (alpha * beta ** alpha * pi ** 2 * (1 - beta) * (2 - (1 - alpha) * d)
          / (2 * (1 - d) ** (alpha + 2)))
    return p1, p2


def snb(classes: RiskClasses) -> float:
    """Population uniques under the shifted negative binomial (SNB) model.

    The population has ``K`` non-empty classes (:func:`shlosser`); ``alpha``
    and ``beta`` solve ``K P(f=1) = f_1`` and ``K P(f=2) = f_2``
    (:func:`snb_probabilities`), and the population uniques are
    ``U = K P(F=1) = K beta^alpha``. NaN when the equations have no solution
    with ``alpha > 0``, ``0 < beta < 1``.

    Note: ARX's ``ModelSNB`` multiplies the second equation by
    ``(1-d)^(alpha+2)`` where the generating function divides by it; the
    equation here is the generating function's (checked against direct
    summation over ``F`` in the tests).

    References
    ----------
    Chen, G. & Keller-McNulty, S., "Estimation of identification disclosure
    risk in microdata", Journal of Official Statistics 14(1):79-95 (1998).
    """
    from scipy.optimize import root

    pi = _need_fraction(classes, "snb")
    sizes, counts = _frequencies(classes)
    f1, f2 = counts[sizes == 1].sum(), counts[sizes == 2].sum()
    if f1 == 0:
        return 0.0
    if f2 == 0:
        return float("nan")
    k = shlosser(classes)
    population = classes.records / pi

    def equations(x):
        alpha, beta = math.exp(x[0]), 1.0 / (1.0 + math.exp(-x[1]))
        p1, p2 = snb_probabilities(alpha, beta, pi)
        return [math.log(k * p1 / f1), math.log(k * p2 / f2)]

    best = None
    for a0, b0 in ((1.0, 0.5), (0.1, 0.1), (5.0, 0.9), (0.5, 0.01)):
        try:
            fit = root(equations, [math.log(a0), math.log(b0 / (1 - b0))], method="hybr")
        except (ValueError, OverflowError, ZeroDivisionError):
            continue
        if fit.success and max(abs(v) for v in fit.fun) < 1e-8:
            best = fit
            break
    if best is None:
        return float("nan")
    alpha, beta = math.exp(best.x[0]), 1.0 / (1.0 + math.exp(-best.x[1]))
    value = k * beta ** alpha
    return float(value) if _valid(value, population) else float("nan")


def dankar(classes: RiskClasses) -> tuple[float, str]:
    """Dankar et al.'s selection rule: ``(population uniques, model chosen)``.

    * ``pi <= 0.1``: Pitman; Zayatz when Pitman has no valid estimate;
    * ``pi > 0.1``: the smaller of Zayatz and SNB; Zayatz when SNB has no
      valid estimate.

    No sample unique means no population unique (``(0.0, "none")``).

    References
    ----------
    Dankar, El Emam, Neisa & Roffey (2012), section "Decision rule" (Figure 3).

    Examples
    --------
    >>> dankar(RiskClasses.from_sizes([2, 3], sampling_fraction=0.05))
    (0.0, 'none')
    """
    pi = _need_fraction(classes, "dankar")
    if not np.any(classes.sizes == 1):
        return 0.0, "none"
    population = classes.records / pi
    if pi <= 0.1:
        value = pitman(classes)
        if _valid(value, population):
            return value, "pitman"
        return zayatz(classes), "zayatz"
    z, s = zayatz(classes), snb(classes)
    if _valid(s, population) and s < z:
        return s, "snb"
    return z, "zayatz"


def population_uniqueness(classes: RiskClasses) -> dict:
    """Every estimate of population uniques, as counts and shares of ``N``.

    Returns
    -------
    dict
        ``population`` (``N``), ``pitman``, ``zayatz``, ``snb``, ``dankar``
        (numbers of population uniques, NaN when a model has no valid
        estimate), ``dankar_model`` (the model the rule chose) and ``share``
        (``dankar / N``).
    """
    pi = _need_fraction(classes, "population_uniqueness")
    population = classes.records / pi
    chosen, model = dankar(classes)
    out = {"population": float(population), "pitman": pitman(classes),
           "zayatz": zayatz(classes), "snb": snb(classes), "dankar": float(chosen),
           "dankar_model": model, "share": float(chosen / population) if population else 0.0}
    return out
