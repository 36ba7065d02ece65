"""Generalization within boundaries, in ascending sensitivity weight (paper 002).

Hussien, Darwish & Hefny, "Utility-based anonymization using generalization
boundaries to protect sensitive attributes", Journal of Information Security
7 (2016), section 3.2: quasi-identifiers are generalized one at a time, in
ascending order of their sensitivity weight, each level by level but never
beyond its maximum allowed generalization value (MAGVal, Definitions 3-6),
testing k-anonymity (and l-diversity of the sensitive attribute when asked)
after every step and stopping as soon as the table passes.
"""

from __future__ import annotations

import numpy as np

from ..registry import K_L_T, Partition, register_algorithm

__all__ = ["boundaries", "generalization_order"]


def generalization_order(names, weights):
    """Quasi-identifiers in ascending weight; ties keep the schema order.

    Examples
    --------
    >>> generalization_order(["age", "sex", "race"], {"age": 5, "sex": 2, "race": 4})
    ['sex', 'race', 'age']
    """
    names = list(names)
    if weights is None:
        return names
    missing = [n for n in names if n not in weights]
    if missing:
        raise ValueError(f"The 'weights' option of boundaries must give a weight for every "
                         f"quasi-identifier; missing {missing}.")
    for name in names:
        w = weights[name]
        if isinstance(w, bool) or not isinstance(w, (int, float, np.number)) or w < 0:
            raise ValueError(f"The weight of {name!r} must be a number >= 0. Got {w!r}.")
    return sorted(names, key=lambda n: (weights[n], names.index(n)))


def _boundary_level(attr, respect):
    """The highest level worth trying: the top MAGVal in the data, or the height."""
    h = attr.hierarchy
    if not respect or not h.has_magvals:
        return h.height
    return int(h.magval_levels()[np.unique(attr.codes)].max())


def boundaries(data, model, *, rng=None, suppression=None, weights=None,
               respect_boundaries=True):
    """Generalize quasi-identifiers in ascending weight within their MAGVals.

    Parameters
    ----------
    data : EncodedTable
    model : PrivacyModel
        Tested after every single generalization step (k, and l / t when
        the model asks for them).
    rng : numpy.random.Generator
        Unused: the method is deterministic.
    suppression : float, optional
        Fraction of records that may be suppressed when the boundaries make
        the model unreachable. Default 0: then the run fails with an error
        naming the binding boundaries.
    weights : dict, optional
        Sensitivity weight of every quasi-identifier; lower weights are
        generalized first. Default: schema order.
    respect_boundaries : bool
        Stop every value at its MAGVal (Definition 6). With ``False`` the
        attributes may rise to their roots.

    Returns
    -------
    Partition
        Levels capped at the MAGVals; ``stats["steps"]`` lists every
        ``(attribute, level)`` tried, in order, and ``stats["order"]`` the
        generalization order.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
    ...                    k=2, algorithm="boundaries",
    ...                    weights={"gender": 1, "zip": 2, "age": 3})
    >>> res.stats["steps"]
    [('gender', 1), ('zip', 1), ('zip', 2), ('age', 1)]
    """
    order = generalization_order(data.names, weights)
    position = {name: i for i, name in enumerate(data.names)}
    levels = [0] * len(data.attributes)

    def failing_rows():
        keys = data.group_keys(levels, respect_boundaries)
        uniques, class_of = np.unique(keys, return_inverse=True)
        bad = model.suppressed_classes(class_of, data, len(uniques))
        return bad[class_of]

    steps = []
    failing = failing_rows()
    for name in order:
        if not failing.any():
            break
        i = position[name]
        top = _boundary_level(data.attributes[i], respect_boundaries)
        while failing.any() and levels[i] < top:
            levels[i] += 1
            steps.append((name, levels[i]))
            failing = failing_rows()
    # records (rows that are counted tuples weigh their records)
    n_failing = int(failing.sum() if data.weights is None else data.weights[failing].sum())
    budget = 0 if suppression is None else int(np.floor(suppression * data.records))
    if n_failing > budget:
        binding = [f"{a.name} (stops at level {_boundary_level(a, True)} of {a.height})"
                   for a in data.attributes
                   if respect_boundaries and _boundary_level(a, True) < a.height]
        why = (f"the generalization boundaries of {', '.join(binding)}" if binding
               else "every quasi-identifier at its root")
        needed = n_failing / data.records
        raise ValueError(
            f"boundaries: the privacy model cannot be reached within {why}: {n_failing} "
            f"records still fail; allow suppression >= {needed:.4f} to suppress them, "
            f"or relax the boundaries"
        )
    class_of = np.zeros(data.n, dtype=np.int64)
    class_of[failing] = -1
    return Partition(class_of, tuple(levels),
                     {"order": order, "steps": steps, "suppressed_for_boundaries": n_failing},
                     capped=respect_boundaries)


register_algorithm(
    "boundaries", boundaries, recoding="global", needs_hierarchies=True,
    supports_suppression=True, supports_boundaries=True, weighted=True, models=K_L_T,
    description="Generalization boundaries in ascending sensitivity weight "
                "(Hussien, Darwish & Hefny 2016)")
