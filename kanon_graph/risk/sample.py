"""Prosecutor, journalist and marketer risk, and sample uniqueness.

Notation (El Emam 2013, chapter "Measuring the probability of
re-identification"; the same quantities ARX reports): the table (the sample)
has ``n`` records in ``J`` equivalence classes of sizes ``f_j``; the same
classes hold ``F_j >= f_j`` records of the population the attacker links
against; ``tau`` is the risk threshold.

========================  =====================================  ====================================
attacker                  highest risk                           average risk (expected success)
========================  =====================================  ====================================
prosecutor (knows the     ``max_j 1/f_j``                        ``J / n``
person is in the table)
journalist (links a       ``max_j 1/F_j``                        ``max(J / sum_j F_j, sum_j (f_j/F_j) / n)``
population database)
marketer (re-identifies   --                                     ``sum_j (f_j/F_j) / n``
as many as possible)
========================  =====================================  ====================================

The share of records at risk is ``sum_{j: r_j > tau} f_j / n`` with
``r_j = 1/f_j`` (prosecutor) or ``1/F_j`` (journalist). Without a population
(``F_j = f_j``) journalist risk equals prosecutor risk and marketer risk is
``J / n``.

When ``F_j`` is *estimated* (a sampling fraction or sampling weights, no
population table), ``1/F_j`` is replaced everywhere above by the record risk
``r_j`` of the classes' population model
(:meth:`~kanon_graph.risk.RiskClasses.record_risks`): Benedetti and
Franconi's ``E[1/F_j | f_j]`` by default (:mod:`kanon_graph.risk.individual`),
or ``1/F_j`` itself with ``population_model="expansion"``. With a population
table or none, the formulas are ARX's (``RiskModelSampleSummary``).

References
----------
El Emam, K., *Guide to the De-Identification of Personal Health Information*
(CRC Press, 2013), chapter 12, "Measuring the probability of re-identification".
Prasser, F. & Kohlmayer, F., "Putting statistical disclosure control into
practice: the ARX data anonymization tool" (2015), section "Risk analysis".
"""

from __future__ import annotations

import numpy as np

from ._classes import RiskClasses

__all__ = ["prosecutor", "journalist", "marketer", "sample_uniqueness"]


def _at_risk(sizes, risk, threshold, n):
    return float(sizes[risk > threshold].sum() / n)


def prosecutor(classes: RiskClasses) -> dict:
    """Prosecutor risk: the attacker knows their target is in the table.

    A record of class ``j`` is re-identified with probability ``1/f_j``.

    * ``highest`` = ``1 / min_j f_j``;
    * ``average`` = ``J / n`` (the expected share of records re-identified when
      every record is attacked: ``sum_j f_j (1/f_j) / n``);
    * ``at_risk`` = ``sum_{j: 1/f_j > tau} f_j / n``.

    Parameters
    ----------
    classes : RiskClasses

    Returns
    -------
    dict
        ``highest``, ``average``, ``at_risk`` (all 0 when no record is released).

    References
    ----------
    El Emam (2013), ch. 12, prosecutor risk measures A, B and C (ARX's
    ``ProsecutorRisk``: records at risk, highest risk, success rate).

    Examples
    --------
    >>> r = prosecutor(RiskClasses.from_sizes([1, 2, 2, 5], threshold=0.4))
    >>> r["highest"], r["average"], r["at_risk"]
    (1.0, 0.4, 0.5)
    """
    sizes, n = classes.sizes, classes.records
    if n == 0:
        return {"highest": 0.0, "average": 0.0, "at_risk": 0.0}
    risk = 1.0 / sizes
    return {"highest": float(risk.max()), "average": float(len(sizes) / n),
            "at_risk": _at_risk(sizes, risk, classes.threshold, n)}


def journalist(classes: RiskClasses) -> dict:
    """Journalist risk: the attacker links a population database to the table.

    A record of class ``j`` is matched to one of the ``F_j`` population
    records of its class, so its risk is ``r_j = 1/F_j``.

    * ``highest`` = ``max_j r_j``;
    * ``average`` = ``max(J / sum_j F_j, sum_j f_j r_j / n)``;
    * ``at_risk`` = ``sum_{j: r_j > tau} f_j / n``.

    ``F_j`` is counted from a population table, or estimated from the
    sampling fraction or the sampling weights, or taken equal to ``f_j`` (see
    :class:`RiskClasses`). An estimated ``F_j`` is uncertain: ``r_j`` is then
    the classes' population model's (Benedetti-Franconi individual risk by
    default, :meth:`RiskClasses.record_risks`), not ``1/F_j``.

    References
    ----------
    El Emam (2013), ch. 12, journalist risk; the average as ARX computes it
    (Prasser & Kohlmayer 2015).

    Examples
    --------
    >>> rc = RiskClasses.from_sizes([1, 2], population_sizes=[4, 2], threshold=0.3)
    >>> r = journalist(rc)
    >>> r["highest"], round(r["average"], 4), round(r["at_risk"], 4)
    (0.5, 0.4167, 0.6667)
    """
    sizes, n = classes.sizes, classes.records
    if n == 0:
        return {"highest": 0.0, "average": 0.0, "at_risk": 0.0}
    population = classes.population_sizes
    risk = classes.record_risks()
    average = max(len(sizes) / population.sum(), float((sizes * risk).sum() / n))
    return {"highest": float(risk.max()), "average": float(average),
            "at_risk": _at_risk(sizes, risk, classes.threshold, n)}


def marketer(classes: RiskClasses) -> dict:
    """Marketer risk: the expected share of records re-identified by linking all of them.

    ``average`` = ``sum_j f_j r_j / n`` with ``r_j = 1/F_j`` (or, for an
    estimated ``F_j``, the population model's risk,
    :meth:`RiskClasses.record_risks`); with ``F_j = f_j`` it is ``J / n``.
    A marketer is not after one person, so there is no highest risk.

    References
    ----------
    El Emam (2013), ch. 12, marketer risk.

    Examples
    --------
    >>> marketer(RiskClasses.from_sizes([1, 2, 2, 5]))
    {'average': 0.4}
    """
    sizes, n = classes.sizes, classes.records
    if n == 0:
        return {"average": 0.0}
    return {"average": float((sizes * classes.record_risks()).sum() / n)}


def sample_uniqueness(classes: RiskClasses) -> dict:
    """Sample uniques: records alone in their class.

    * ``uniques`` = ``f_1`` (classes of size 1, one record each);
    * ``share`` = ``f_1 / n``.

    Examples
    --------
    >>> sample_uniqueness(RiskClasses.from_sizes([1, 1, 2, 4]))
    {'uniques': 2.0, 'share': 0.25}
    """
    n = classes.records
    uniques = float(np.sum(classes.sizes == 1))
    return {"uniques": uniques, "share": uniques / n if n else 0.0}
