"""The equivalence classes a risk model reads: sample class sizes, and population ones.

Every risk model of :mod:`kanon_graph.risk` reads one :class:`RiskClasses`:
the size ``f_j`` of each equivalence class ``j`` of the table (the sample), and
optionally the size ``F_j`` of the same class in the population the attacker
links against, the sampling fraction ``pi = n / N`` and the threshold ``tau``
above which a record's risk counts as high.

Classes are formed from the cells as they are written (their texts), so on a
local recoding they are the *released* classes: two records share a class
exactly when their released quasi-identifier texts are equal, whatever level
of the hierarchy each label comes from.

When ``F_j`` is *estimated* (from a sampling fraction or sampling weights, not
counted in a population table), a population model turns ``(f_j, F_j)`` into
the risk ``r_j`` of a record of class ``j`` that journalist and marketer risk
read (:data:`POPULATION_MODELS`): ``"individual"`` (Benedetti-Franconi, the
default) or ``"expansion"`` (``1 / F_j``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .individual import individual_risk

__all__ = ["POPULATION_MODELS", "RiskClasses", "risk_classes"]

#: How a record's risk is read from an *estimated* population class size
#: ``F_j``: ``{name: (function(f, F) -> r, description)}``.
POPULATION_MODELS = {
    "individual": (individual_risk,
                   "Benedetti-Franconi individual risk E[1/F | f] (sdcMicro's indivRisk)"),
    "expansion": (lambda sizes, population: 1.0 / population,
                  "1 / F with F = f / pi or the sum of the weights (the expansion estimate)"),
}


@dataclass(frozen=True)
class RiskClasses:
    """Class sizes of a table, and what is known of the population.

    Attributes
    ----------
    sizes : ndarray of int
        ``f_j``: the number of records of each class of the table (suppressed
        records are in no class).
    population_sizes : ndarray of float
        ``F_j``: the size of the same class in the population. Counted from a
        population table when one was given; else estimated as
        ``max(f_j, f_j / pi)`` from the sampling fraction; else ``f_j`` (the
        table is its own population, as ARX assumes without a population).
    sampling_fraction : float or None
        ``pi = n / N``.
    threshold : float
        ``tau``: a record whose re-identification probability is above it is
        at risk.
    population_source : str
        Where ``F_j`` came from: ``"table"`` (counted), ``"estimated"``
        (``f_j / pi``), ``"weights"`` (the sum of the records' sampling
        weights) or ``"sample"`` (``F_j = f_j``).
    suppressed : int
        Records left out (suppressed).
    population_model : str or None
        The model that turns an estimated ``F_j`` into a record's risk
        (:data:`POPULATION_MODELS`); None when ``F_j`` is not estimated (the
        risk is then ``1 / F_j``).
    """

    sizes: np.ndarray
    population_sizes: np.ndarray
    sampling_fraction: float | None = None
    threshold: float = 0.2
    population_source: str = "sample"
    suppressed: int = 0
    population_model: str | None = None

    def record_risks(self) -> np.ndarray:
        """``r_j``: the risk of a record of each class against the population.

        ``1 / F_j`` when ``F_j`` was counted (or is the sample's own); with an
        estimated ``F_j``, the :attr:`population_model`'s (Benedetti-Franconi's
        ``E[1/F_j | f_j]`` by default).

        Examples
        --------
        >>> rc = RiskClasses.from_sizes([1], sampling_fraction=0.1)
        >>> round(float(rc.record_risks()[0]), 4)      # 0.1 / 0.9 * ln 10
        0.2558
        >>> rc = RiskClasses.from_sizes([1], sampling_fraction=0.1, population_model="expansion")
        >>> float(rc.record_risks()[0])                # 1 / (1 / 0.1)
        0.1
        """
        if self.population_model is None:
            return 1.0 / self.population_sizes
        function, _ = POPULATION_MODELS[self.population_model]
        return np.asarray(function(self.sizes, self.population_sizes), dtype=float)

    @property
    def records(self) -> int:
        """``n``: records in a class (suppressed ones left out)."""
        return int(self.sizes.sum())

    @property
    def n_classes(self) -> int:
        return int(len(self.sizes))

    @property
    def population(self) -> float | None:
        """``N = n / pi`` (None without a sampling fraction)."""
        if self.sampling_fraction is None:
            return None
        return self.records / self.sampling_fraction

    def frequencies(self) -> dict[int, int]:
        """``{i: number of classes of size i}`` (the frequencies of frequencies)."""
        values, counts = np.unique(self.sizes, return_counts=True)
        return {int(v): int(c) for v, c in zip(values, counts)}

    @classmethod
    def from_sizes(cls, sizes, *, population_sizes=None, sampling_fraction=None,
                   threshold=0.2, suppressed=0, weight_sums=None, population_model=None):
        """Build from class sizes directly (hand-computed cases, other tools' counts).

        ``F_j`` is ``population_sizes`` (counted) when given; else
        ``weight_sums`` (the sum of the sampling weights of each class's
        records, taken as at least ``f_j``); else ``f_j / pi``; else ``f_j``.
        With sampling weights and no sampling fraction, ``pi = n / sum of the
        weights``. ``population_model`` (default ``"individual"``) is used only
        when ``F_j`` is estimated.

        Examples
        --------
        >>> RiskClasses.from_sizes([1, 2, 2, 5]).frequencies()
        {1: 1, 2: 2, 5: 1}
        """
        sizes = np.asarray(sizes, dtype=np.int64)
        if sizes.ndim != 1 or (sizes.size and sizes.min() < 1):
            raise ValueError("The 'sizes' parameter of RiskClasses.from_sizes must be a "
                             f"one-dimensional array of positive integers. Got {sizes!r}.")
        pi = _check_fraction(sampling_fraction)
        threshold = _check_threshold(threshold)
        model = _check_model(population_model)
        if weight_sums is not None:
            weight_sums = np.asarray(weight_sums, dtype=float)
            if weight_sums.shape != sizes.shape or not np.all(np.isfinite(weight_sums)) \
                    or np.any(weight_sums <= 0):
                raise ValueError("The 'weight_sums' parameter of RiskClasses.from_sizes must "
                                 "give one positive sum of sampling weights per class. Got "
                                 f"{weight_sums!r}.")
        if population_sizes is not None:
            population = np.asarray(population_sizes, dtype=float)
            if population.shape != sizes.shape or np.any(population < sizes):
                raise ValueError("The 'population_sizes' parameter of RiskClasses.from_sizes "
                                 "must give one size per class, each at least the class's "
                                 f"size in the table. Got {population_sizes!r}.")
            source = "table"
        elif weight_sums is not None:
            population, source = np.maximum(sizes, weight_sums), "weights"
            if pi is None and sizes.size:
                pi = min(1.0, float(sizes.sum() / weight_sums.sum()))
        elif pi is not None:
            population, source = np.maximum(sizes, sizes / pi), "estimated"
        else:
            population, source = sizes.astype(float), "sample"
        model = (model or "individual") if source in ("estimated", "weights") else None
        return cls(sizes, population, pi, threshold, source, int(suppressed), model)


def _check_fraction(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
            or not 0 < value <= 1:
        raise ValueError("The 'sampling_fraction' parameter must be a number in (0, 1] "
                         f"(the table's records / the population's). Got {value!r}.")
    return float(value)


def _check_model(value):
    if value is not None and value not in POPULATION_MODELS:
        raise ValueError("The 'population_model' parameter must be one of "
                         f"{sorted(POPULATION_MODELS)} (how a record's risk is read from an "
                         f"estimated population class size). Got {value!r}.")
    return value


def _check_weights(weights, table):
    """Per-row sampling weights: an array or the name of a column of ``table``."""
    if isinstance(weights, str):
        if weights not in table.columns:
            raise ValueError(f"The 'weights' parameter names column {weights!r}, which is not "
                             f"in the table; it has {list(table.columns)}.")
        weights = table[weights]
    try:
        values = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("The 'weights' parameter must hold numbers (sampling weights). "
                         f"Got {weights!r}.") from None
    if values.shape != (len(table),) or not np.all(np.isfinite(values)) \
            or np.any(values <= 0):
        raise ValueError("The 'weights' parameter must give one positive, finite sampling "
                         f"weight per row ({len(table)}). Got {values.size} value(s)"
                         + (f", the smallest {values.min()!r}." if values.size else "."))
    return values


def _check_threshold(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
            or not 0 <= value <= 1:
        raise ValueError("The 'threshold' parameter must be a probability in [0, 1]. "
                         f"Got {value!r}.")
    return float(value)


def _keys(table, quasi_identifiers):
    """Class id per row by the cells' texts, and the all-``*`` (suppressed) mask."""
    from ..encoding.row_keys import _row_keys

    return _row_keys(table, quasi_identifiers)


def risk_classes(table, quasi_identifiers, *, population=None, sampling_fraction=None,
                 threshold=0.2, suppressed=None, weights=None, population_model=None):
    """The classes of ``table`` on ``quasi_identifiers``, ready for the risk models.

    Parameters
    ----------
    table : DataFrame
        The original or the released table. Cells are compared as text; a row
        whose quasi-identifiers are all ``*`` is suppressed.
    quasi_identifiers : list of str
    population : DataFrame, optional
        The population the attacker links against (an identification
        database), with the same quasi-identifier columns written the same way
        as in ``table`` (generalized alike for a release). Gives ``F_j``.
    sampling_fraction : float, optional
        ``pi = n / N`` in (0, 1]. Needed by the population-uniqueness models;
        without a population table it also estimates ``F_j = f_j / pi``.
    threshold : float
        ``tau`` for the share of records at risk (default 0.2, one in five).
    suppressed : array of bool, optional
        Rows to leave out besides the rows whose quasi-identifiers are all
        ``*``, which are suppressed by definition (docs/privacy.md).
    weights : str or array of float, optional
        Sampling weights (a column of ``table``, or one per row): without a
        population table, ``F_j`` is the sum of the weights of class ``j``'s
        records (sdcMicro's estimate), and without a sampling fraction
        ``pi = n / sum of the weights``.
    population_model : {"individual", "expansion"}, optional
        How journalist and marketer risk read an estimated ``F_j``
        (:data:`POPULATION_MODELS`; default ``"individual"``).

    Returns
    -------
    RiskClasses

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"age": ["[20-30]", "[20-30]", "[31-40]", "*"],
    ...                   "sex": ["M", "M", "F", "*"]})
    >>> rc = risk_classes(t, ["age", "sex"])
    >>> rc.sizes.tolist(), rc.suppressed
    ([2, 1], 1)
    """
    qis = list(quasi_identifiers)
    absent = [q for q in qis if q not in table.columns]
    if absent:
        raise ValueError(f"The 'quasi_identifiers' parameter names column(s) {absent} that "
                         f"are not in the table; it has {list(table.columns)}.")
    keys, starred = _keys(table, qis)
    if suppressed is None:
        suppressed = starred
    suppressed = np.asarray(suppressed, dtype=bool)
    if suppressed.shape != (len(table),):
        raise ValueError("The 'suppressed' parameter must be a boolean array with one entry "
                         f"per row ({len(table)}). Got shape {suppressed.shape}.")
    suppressed = suppressed | starred       # an all-'*' row is suppressed by definition
    if weights is not None:
        weights = _check_weights(weights, table)
    kept = keys[~suppressed]
    _, first, inverse, sizes = np.unique(kept, return_index=True, return_inverse=True,
                                         return_counts=True)
    order = np.argsort(first, kind="stable")           # classes by first appearance
    sizes = sizes[order]
    population_sizes = weight_sums = None
    if population is not None:
        population_sizes = _population_counts(table, population, qis, ~suppressed)
    elif weights is not None:
        weight_sums = np.bincount(inverse.ravel(), weights=weights[~suppressed],
                                  minlength=len(first))[order]
    return RiskClasses.from_sizes(sizes, population_sizes=population_sizes,
                                  sampling_fraction=sampling_fraction, threshold=threshold,
                                  suppressed=int(suppressed.sum()), weight_sums=weight_sums,
                                  population_model=population_model)


def _population_counts(table, population, qis, kept):
    """``F_j``: rows of ``population`` whose quasi-identifier texts equal class j's."""
    absent = [q for q in qis if q not in population.columns]
    if absent:
        raise ValueError(f"The 'population' parameter lacks quasi-identifier column(s) "
                         f"{absent}; it has {list(population.columns)}.")
    both = pd.concat([table.loc[kept, qis].astype(str), population[qis].astype(str)],
                     ignore_index=True)
    keys, _ = pd.MultiIndex.from_frame(both).factorize()
    keys = np.asarray(keys, dtype=np.int64)
    sample, pop = keys[:int(kept.sum())], keys[int(kept.sum()):]
    classes, first = np.unique(sample, return_index=True)
    classes = classes[np.argsort(first, kind="stable")]
    counts = np.bincount(pop, minlength=int(keys.max()) + 1 if keys.size else 0)
    sample_counts = np.bincount(sample, minlength=len(counts))
    found = counts[classes]
    short = np.flatnonzero(found < sample_counts[classes])
    if short.size:
        raise ValueError(f"The 'population' parameter holds fewer records of "
                         f"{short.size} class(es) of the table than the table itself; the "
                         f"population must contain the table's records.")
    return found.astype(float)
