"""Distribution-level utility: how far a release's numbers drift from the original's.

Hussien, Darwish & Hefny, "Utility-based anonymization using generalization
boundaries to protect sensitive attributes" (2016), sections 2.7 and 3.3,
compare original and released numeric attributes with

* empirical-CDF measures (Woo et al. 2009): the largest and the mean absolute
  difference between the two empirical distribution functions;
* the cluster-analysis measure U_c (Woo et al. 2009);
* the two-sample Kolmogorov-Smirnov test, Welch's t-test and the F-test of
  equal variances.

A released cell is often an interval (``[20-24]``, ``[20-40)``) or ``*``.
:func:`released_numbers` maps it to a number by a stated rule: its midpoint,
or a seeded uniform draw within it. ``*`` maps to a draw over (or the midpoint
of) the attribute's whole original range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = [
    "released_numbers",
    "ecdf_distance",
    "cluster_utility",
    "distribution_tests",
    "DistributionTests",
]

_INTERVAL = re.compile(r"^\s*[\[(]\s*(-?[\d.]+(?:e-?\d+)?|-inf)\s*[-,;]\s*(-?[\d.]+(?:e-?\d+)?|inf)\s*[\])]\s*$")
_PLAIN_RANGE = re.compile(r"^\s*(-?[\d.]+)\s*-\s*(-?[\d.]+)\s*$")


def _bounds(cell, lo_all, hi_all):
    """(low, high) of one released cell."""
    text = str(cell).strip()
    if text == "*" or text == "":
        return lo_all, hi_all
    try:
        value = float(text)
        return value, value
    except ValueError:
        pass
    match = _INTERVAL.match(text) or _PLAIN_RANGE.match(text)
    if not match:
        raise ValueError(f"released_numbers: cannot read {text!r} as a number or an interval")
    low = float(match.group(1)) if match.group(1) != "-inf" else lo_all
    high = float(match.group(2)) if match.group(2) != "inf" else hi_all
    return max(low, lo_all), min(high, hi_all)


def released_numbers(released, original, *, method="midpoint", seed=None):
    """Map released cells of a numeric attribute to numbers.

    Parameters
    ----------
    released : sequence
        Released cells: numbers, intervals such as ``[20-24]``, ``[20-25)``
        or ``20-24``, or ``*``.
    original : sequence of numbers
        The original column; its range bounds ``*`` and open intervals.
    method : {"midpoint", "uniform"}
        The midpoint of each interval, or a uniform draw within it. When the
        original values are all integers and an interval's bounds are too,
        the draw is a uniform integer in ``[low, high]`` (so an integer band
        ``[35-39]`` is not biased half a unit downwards).
    seed : int, optional
        Seed of the uniform draws.

    Examples
    --------
    >>> released_numbers(["[20-24]", "31", "*"], [18, 31, 60]).tolist()
    [22.0, 31.0, 39.0]
    """
    original = np.asarray(original, dtype=float)
    lo_all, hi_all = float(np.nanmin(original)), float(np.nanmax(original))
    cells = np.asarray(released, dtype=object)
    uniques, inverse = np.unique(cells.astype(str), return_inverse=True)
    bounds = np.array([_bounds(u, lo_all, hi_all) for u in uniques], dtype=float)
    low, high = bounds[inverse, 0], bounds[inverse, 1]
    if method == "midpoint":
        return (low + high) / 2.0
    if method == "uniform":
        rng = np.random.default_rng(seed)
        draws = low + rng.random(len(low)) * (high - low)
        if np.all(original == np.round(original)):
            whole = (low == np.round(low)) & (high == np.round(high))
            draws[whole] = rng.integers(low[whole].astype(np.int64),
                                        high[whole].astype(np.int64) + 1)
        return draws
    raise ValueError(f"The 'method' parameter of released_numbers must be 'midpoint' or "
                     f"'uniform'. Got {method!r}.")


def ecdf_distance(original, released):
    """Largest and mean absolute difference between two empirical CDFs.

    Both CDFs are evaluated at every point of the pooled sample (Woo et al.
    2009's empirical-CDF measures, as used in section 2.7.2).

    Returns
    -------
    (float, float)
        ``(max |S_X - S_Y|, mean |S_X - S_Y|)``.

    Examples
    --------
    >>> ecdf_distance([1, 2, 3, 4], [1, 2, 3, 4])
    (0.0, 0.0)
    >>> ecdf_distance([1, 1], [2, 2])
    (1.0, 0.5)
    """
    x = np.sort(np.asarray(original, dtype=float))
    y = np.sort(np.asarray(released, dtype=float))
    pooled = np.concatenate([x, y])
    sx = np.searchsorted(x, pooled, side="right") / len(x)
    sy = np.searchsorted(y, pooled, side="right") / len(y)
    diff = np.abs(sx - sy)
    return float(diff.max()), float(diff.mean())


def cluster_utility(original, released, *, clusters=10, seed=0):
    """The cluster-analysis measure U_c (Woo et al. 2009; paper 002 section 2.7.1).

    Original and released records are pooled and clustered (k-means on the
    standardized columns, ``clusters`` groups);
    ``U_c = (1/g) * sum_i w_i (n_iO / n_i - c)^2`` with ``c`` the share of
    original records in the pool and ``w_i = n_i / N`` the weight of the
    cluster. 0 means every cluster mixes both in the pool's proportion;
    larger values mean the distributions differ.

    Parameters
    ----------
    original, released : array-like of shape (n,) or (n, d)
        Numbers (map released intervals with :func:`released_numbers` first).
    clusters : int
    seed : int
    """
    x = np.asarray(original, dtype=float)
    y = np.asarray(released, dtype=float)
    x = x.reshape(len(x), -1)
    y = y.reshape(len(y), -1)
    pooled = np.vstack([x, y])
    scale = pooled.std(axis=0)
    scale[scale == 0] = 1.0
    z = (pooled - pooled.mean(axis=0)) / scale
    from scipy.cluster.vq import kmeans2  # scipy loads only when the measure is asked for

    rng = np.random.default_rng(seed)
    _, labels = kmeans2(z, clusters, seed=rng, minit="++")
    n_i = np.bincount(labels, minlength=clusters).astype(float)
    n_io = np.bincount(labels[: len(x)], minlength=clusters).astype(float)
    used = n_i > 0
    c = len(x) / len(pooled)
    weights = n_i[used] / len(pooled)
    return float((weights * (n_io[used] / n_i[used] - c) ** 2).sum() / used.sum())


@dataclass(frozen=True)
class DistributionTests:
    """Statistics and p-values of original against released (section 3.3.3)."""

    ks_statistic: float
    ks_pvalue: float
    t_statistic: float
    t_pvalue: float
    f_statistic: float
    f_pvalue: float


def distribution_tests(original, released):
    """Kolmogorov-Smirnov, Welch's t and the F-test of variances.

    The KS test compares the distributions, Welch's t-test the means
    without assuming equal variances, and the two-sided F-test the ratio of
    the variances (original over released).

    Examples
    --------
    >>> res = distribution_tests([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    >>> round(res.ks_pvalue, 6), round(res.t_pvalue, 6), round(res.f_pvalue, 6)
    (1.0, 1.0, 1.0)
    """
    from scipy import stats  # scipy loads only when the tests are asked for

    x = np.asarray(original, dtype=float)
    y = np.asarray(released, dtype=float)
    ks = stats.ks_2samp(x, y)
    t = stats.ttest_ind(x, y, equal_var=False)
    vx, vy = x.var(ddof=1), y.var(ddof=1)
    f = vx / vy if vy > 0 else np.inf
    cdf = stats.f.cdf(f, len(x) - 1, len(y) - 1)
    f_p = float(min(1.0, 2 * min(cdf, 1 - cdf)))
    return DistributionTests(float(ks.statistic), float(ks.pvalue), float(t.statistic),
                             float(t.pvalue), float(f), f_p)
