"""The information loss computed by paper 001's section 5.1 pseudo-code.

Bhaladhare & Jinwala state that they measure Byun et al.'s information loss
(section 4.1; metric ``"byun_il"``), but the loop of their section 5.1 adds a
term ``(i + 1) / size`` per record of the i-th cluster::

    T1sum = cntcluster(i) * (((maxAge(i) - minAge(i)) / (Tmax - Tmin)) + 1 + 1 + (i + 1) / size)

where the two ``1`` are gender and zip code (always generalized to the top of
their one-level trees) and ``size`` is the number of clusters. This module
implements that loss, separately and under its own name, ``"paper001_il"``.

On the paper's Table 1 / Table 2 example (clusters {25}, {26}, {27},
{36, 39, 40}; gender at Person, zip at 4433**) it gives exactly 17.3, while
Byun's IL gives 12.8. The paper prints 17.28: its pseudo-code loss with the
age term 4/15 = 0.2667 rounded to 0.26 (3 * (0.26 + 1 + 1 + 1) = 9.78).
"""

from __future__ import annotations

import numpy as np

from ._loss import byun_il
from ._registry import register_metric

__all__ = ["paper001_il"]


def paper001_il(release, k=None):
    """Paper 001's pseudo-code loss: Byun's IL plus sum_i |C_i| (i + 1) / m.

    The i-th of the m released classes (numbered 0..m-1 in the release's
    order, by first record) adds ``(i + 1) / m`` per record to Byun's cost.
    The term depends on the order of the classes, so the metric is not
    monotone; it is kept to reproduce the paper's number, not to rank
    releases. A suppressed record costs Byun's 1 per attribute plus 1, the
    largest the extra term can be (as a record of a single class holding the
    whole table), so suppressing never costs less than generalizing to the
    top.

    Parameters
    ----------
    release : Release
    k : int, optional
        Unused.

    Returns
    -------
    float

    References
    ----------
    Bhaladhare & Jinwala, "A sensitive attribute based clustering method for
    k-anonymization" (2014), section 5.1 (step 8 of the pseudo-code) and the
    example of section 4.1 (17.28).

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> from kanon_graph.encoding import encode
    >>> from kanon_graph.recoding import recode_partition
    >>> schema = kg.Schema(quasi_identifiers=["age"], sensitive=["disease"],
    ...                    identifiers=["name"], insensitive=["gender", "zip"])
    >>> data = encode(kg.datasets.paper_001_table(), schema)
    >>> release = recode_partition(data, np.array([0, 1, 2, 3, 3, 3]))
    >>> round(paper001_il(release), 4)   # 1/4 + 2/4 + 3/4 + 3 * (4/15 + 4/4)
    5.3
    """
    m = release.n_classes
    extra = float((release.sizes * (np.arange(1, m + 1) / m)).sum()) if m else 0.0
    return byun_il(release) + extra + float(release.suppressed)


register_metric("paper001_il", paper001_il, monotone=False,
                description="Paper 001's section 5.1 pseudo-code loss (Byun's IL + (i+1)/m)")
