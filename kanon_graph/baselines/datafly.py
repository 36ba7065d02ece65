"""Datafly: Sweeney's heuristic full-domain generalization.

Sweeney, "Achieving k-anonymity privacy protection using generalization and
suppression", International Journal on Uncertainty, Fuzziness and
Knowledge-based Systems 10(5), 2002. It is the Datafly baseline that paper
000 (Sarrafi Aghdam & Sonehara) compares SpatialDistance against.
"""

from __future__ import annotations

import numpy as np

from ..registry import Partition, register_algorithm

__all__ = ["datafly"]


def datafly(data, model, *, rng=None, suppression=None, respect_boundaries=False):
    """Generalize the attribute with most distinct values until few records fail.

    Starting from the original table (every level 0), while more records sit
    in classes that fail the privacy model than may be suppressed, raise by
    one level the quasi-identifier that has the most distinct values at its
    current level (ties: the first in schema order). Then suppress the
    records of the failing classes.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Classes that fail any criterion (k, and l / t when asked) count as
        failing, so Datafly also reaches l-diversity and t-closeness.
    rng : numpy.random.Generator
        Unused: Datafly is deterministic.
    suppression : float, optional
        Fraction of records that may be suppressed. By default Sweeney's
        rule: at most ``k`` records.
    respect_boundaries : bool
        Stop every value at its MAGVal (Hussien et al. 2016): an attribute
        is raised only while some value in the data can still rise.

    Returns
    -------
    Partition
        The level vector, and ``-1`` for suppressed records.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> schema = kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="datafly")
    >>> res.levels, res.suppressed
    ({'gender': 1, 'age': 2, 'zip': 1}, 1)
    """
    budget = model.k if suppression is None else int(np.floor(suppression * data.n))
    levels = [0] * len(data.attributes)
    heights = [_top(a, respect_boundaries) for a in data.attributes]
    steps = 0
    while True:
        keys = data.group_keys(levels, respect_boundaries)
        uniques, class_of = np.unique(keys, return_inverse=True)
        failing = model.suppressed_classes(class_of, data, len(uniques))
        n_failing = int(failing[class_of].sum())
        if n_failing <= budget:
            break
        candidates = [i for i, (l, h) in enumerate(zip(levels, heights)) if l < h]
        if not candidates:
            where = ("its generalization boundary (" + ", ".join(
                f"{a.name} stops at level {top} of {a.height}"
                for a, top in zip(data.attributes, heights) if top < a.height) + ")"
                if any(top < a.height for a, top in zip(data.attributes, heights))
                else "its root")
            raise ValueError(
                f"datafly: {n_failing} records still fail the privacy model with every "
                f"quasi-identifier at {where}, more than the {budget} that may be suppressed"
            )
        distinct = [len(np.unique(data.attributes[i].at_level(levels[i], respect_boundaries)))
                    for i in candidates]
        levels[candidates[int(np.argmax(distinct))]] += 1
        steps += 1
    class_of = class_of.astype(np.int64)
    class_of[failing[class_of]] = -1
    return Partition(class_of, tuple(levels), {"generalization_steps": steps,
                                               "suppression_budget": budget},
                     capped=bool(respect_boundaries))


def _top(attr, respect_boundaries):
    """Highest useful level: the top MAGVal among the data's values, or the height."""
    if not attr.is_capped(respect_boundaries):
        return attr.height
    return int(attr.hierarchy.magval_levels()[np.unique(attr.codes)].max())


register_algorithm("datafly", datafly, recoding="global", needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True,
                   description="Sweeney's Datafly heuristic full-domain generalization (2002)")
