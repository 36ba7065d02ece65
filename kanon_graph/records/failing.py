"""Merging the classes of a partition that fail l-diversity or t-closeness.

A clustering built for k alone may leave classes that are too homogeneous
(l-diversity) or too far from the table's distribution (t-closeness). Every
criterion of :class:`~kanon_graph.privacy.PrivacyModel` holds for the union
of the whole table (the api refuses a model for which it does not), and
holds again for a union of classes that each satisfy it; so merging a
failing class with a neighbour, over and over, ends in a release that
passes, at worst one class per MAGVal cell. :func:`merge_failing_classes`
does this for any clustering: the algorithm only says how far two of its
classes are, in its own distance.
"""

from __future__ import annotations

import numpy as np

__all__ = ["merge_failing_classes"]


def merge_failing_classes(class_of, failing, distances, *, cell=None, on_merge=None):
    """Merge each failing class into its nearest class until no class fails.

    Pass after pass: the classes ``failing`` flags are taken in class order;
    each one that has not grown during the pass is merged into the live
    class nearest to it (``distances``; ties go to the lowest class index).
    A class that grew is looked at again in the next pass, once its new
    members are counted. The loop ends when nothing fails, when one class
    is left per cell, or when a pass cannot merge anything.

    Parameters
    ----------
    class_of : array of int, shape (n,)
        Class of every record, ``0..C-1``; ``-1`` for suppressed records
        (they stay suppressed).
    failing : callable
        ``failing(labels) -> bool array (C,)``: the classes of ``labels``
        that break the privacy model, e.g.
        ``lambda labels: model.failing(labels, data, C)``.
    distances : callable
        ``distances(c, others) -> float array``: the distance from class
        ``c`` to each class of the int array ``others`` (the algorithm's own
        distance; it need not be symmetric).
    cell : array of int, shape (C,), optional
        Only classes of the same cell are merged (generalization
        boundaries: the MAGVal cell of each class).
    on_merge : callable, optional
        ``on_merge(c, into)`` is called after class ``c`` joins class
        ``into``, so that the state ``distances`` reads can follow.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
        The merged partition; a surviving class keeps its label.
    merges : int

    Examples
    --------
    Classes 0 and 1 hold one sensitive value each; class 0 is nearer to 1
    than to 2, so it joins 1, which then holds two values.

    >>> import numpy as np
    >>> values = np.array([0, 0, 1, 1, 0, 1])
    >>> def failing(labels):
    ...     pairs = np.unique(np.column_stack([labels, values]), axis=0)
    ...     return np.bincount(pairs[:, 0], minlength=3) < 2
    >>> centre = np.array([0.0, 1.0, 5.0])
    >>> labels, merges = merge_failing_classes(
    ...     [0, 0, 1, 1, 2, 2], failing, lambda c, o: abs(centre[o] - centre[c]))
    >>> labels.tolist(), merges
    ([1, 1, 1, 1, 2, 2], 1)
    """
    labels = np.array(class_of, dtype=np.int64)
    n_classes = int(labels.max(initial=-1)) + 1
    alive = np.bincount(labels[labels >= 0], minlength=n_classes) > 0
    cell = np.zeros(n_classes, dtype=np.int64) if cell is None else np.asarray(cell)
    into = np.arange(n_classes)
    merges = 0
    while alive.sum() > 1:
        flagged = np.flatnonzero(alive & np.asarray(failing(labels), dtype=bool)[:n_classes])
        if not flagged.size:
            break
        touched = np.zeros(n_classes, dtype=bool)
        made = 0
        for c in flagged:
            if touched[c]:
                continue
            others = np.flatnonzero(alive & (cell == cell[c]))
            others = others[others != c]
            if not others.size:
                continue
            best = int(others[np.argmin(np.asarray(distances(int(c), others), dtype=float))])
            into[c] = best
            alive[c] = False
            touched[best] = True
            made += 1
            if on_merge is not None:
                on_merge(int(c), best)
        if not made:
            break
        merges += made
        while True:                           # follow chains c -> best -> ... to a live class
            step = into[into]
            if np.array_equal(step, into):
                break
            into = step
        kept = labels >= 0
        labels[kept] = into[labels[kept]]
    return labels, merges
