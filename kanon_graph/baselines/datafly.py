"""Datafly: Sweeney's heuristic full-domain generalization.

Sweeney, "Achieving k-anonymity privacy protection using generalization and
suppression", International Journal on Uncertainty, Fuzziness and
Knowledge-based Systems 10(5), 2002. It is the Datafly baseline that paper
000 (Sarrafi Aghdam & Sonehara) compares SpatialDistance against.
"""

from __future__ import annotations

import numpy as np

from ..lattice import FrequencyEngine, node_metric
from ..registry import K_L_T, Partition, register_algorithm

__all__ = ["datafly"]


def datafly(data, model, *, rng=None, suppression=None, respect_boundaries=False):
    """Generalize the attribute with most distinct values until few records fail.

    Starting from the original table (every level 0), while more records sit
    in classes that fail the privacy model than may be suppressed, raise by
    one level the quasi-identifier that has the most distinct values at its
    current level (ties: the first in schema order). Then suppress the
    records of the failing classes.

    A suppressed record costs as much as a fully generalized one (ARX's
    Loss counts it as 1 on every attribute), so Datafly does not stop at
    the first node within the budget: it keeps raising levels by the same
    rule until no record fails and releases the node on that path with
    the lowest Loss (ties: the fewest suppressed records). Suppressing the
    whole table is thus never chosen over generalizing.

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
    budget = model.k if suppression is None else int(np.floor(suppression * data.records))
    levels = [0] * len(data.attributes)
    heights = [_top(a, respect_boundaries) for a in data.attributes]
    steps = 0
    engine = FrequencyEngine(data, capped=bool(respect_boundaries))
    scorer = node_metric("loss", data, budget, bool(respect_boundaries))
    best = None                                   # (loss, suppressed, steps, levels)
    while True:
        node = tuple(levels)
        fs = engine.frequency_set(node)
        failing = engine.failing_groups(node, model)
        n_failing = int(fs.counts[failing].sum())
        if n_failing <= budget:
            key = (scorer.value(node, fs, failing), n_failing, steps, node)
            if best is None or key[:2] < best[:2]:
                best = key
            if n_failing == 0:
                break
        candidates = [i for i, (l, h) in enumerate(zip(levels, heights)) if l < h]
        if not candidates and best is not None:
            break
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
    _, _, steps, node = best
    class_of, n_classes = engine.class_of(node)
    suppress = np.asarray(model.suppressed_classes(class_of, data, n_classes), dtype=bool)
    class_of = np.where(suppress[class_of], -1, class_of).astype(np.int64)
    return Partition(class_of, node, {"generalization_steps": steps,
                                      "suppression_budget": budget},
                     capped=bool(respect_boundaries))


def _top(attr, respect_boundaries):
    """Highest useful level: the top MAGVal among the data's values, or the height."""
    if not attr.is_capped(respect_boundaries):
        return attr.height
    return int(attr.hierarchy.magval_levels()[np.unique(attr.codes)].max())


register_algorithm("datafly", datafly, recoding="global", models=K_L_T, needs_hierarchies=True,
                   supports_suppression=True, supports_boundaries=True, default_suppression="k",
                   weighted=True,
                   description="Sweeney's Datafly heuristic full-domain generalization (2002)")
