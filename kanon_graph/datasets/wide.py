"""A synthetic table of many binary quasi-identifiers, for scaling lattice searches.

With ``d`` two-level attributes the generalization lattice has ``2**d``
nodes, so the RV searches' string lists and memory budgets (Morton et al.
2012, section 5.3.5) can be exercised at any size without real data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..hierarchy import Hierarchy
from ..schema import Schema

__all__ = ["make_wide_binary"]


def make_wide_binary(n, d, seed=0):
    """A table of ``n`` records and ``d`` binary quasi-identifiers, with its schema.

    Parameters
    ----------
    n : int
        Number of records.
    d : int
        Number of attributes, named ``q00``, ``q01``, ...
    seed : int or numpy.random.Generator, optional
        The same seed gives the same table.

    Returns
    -------
    (DataFrame, Schema)
        Attribute ``qJJ`` takes the values ``qJJ_0`` and ``qJJ_1``, with the
        hierarchy ``qJJ_b -> *`` (height 1). All ``d`` columns are
        categorical quasi-identifiers.

    Notes
    -----
    A hidden variable ``h`` uniform on 0..7 drives the first ``d - 4``
    attributes: attribute ``j`` is bit ``j % 3`` of ``h`` when ``j`` is odd,
    else ``h >= j % 7 + 1``. The last 4 are noise, 1 with probability 0.2.
    The correlated attributes keep many combinations frequent, so
    anonymous nodes exist well below the top of the lattice.

    References
    ----------
    Morton, Mahoui, Gibson & Yechuri, "An enhanced utility-driven data
    anonymization method", Transactions on Data Privacy 5 (2012), section
    5.3.5 (the distributed search that such wide lattices call for).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.make_wide_binary(6, 5, seed=1)
    >>> table.shape, schema.quasi_identifiers[:2]
    ((6, 5), ('q00', 'q01'))
    >>> sorted(set(table["q00"]) | {"q00_0"})
    ['q00_0', 'q00_1']
    """
    rng = np.random.default_rng(seed)
    hidden = rng.integers(0, 8, n)
    columns, hierarchies = {}, {}
    for j in range(d):
        name = f"q{j:02d}"
        if j < d - 4:
            bit = (hidden >> (j % 3)) & 1 if j % 2 else (hidden >= j % 7 + 1).astype(int)
        else:
            bit = (rng.random(n) < 0.2).astype(int)
        leaves = [f"{name}_0", f"{name}_1"]
        hierarchies[name] = Hierarchy.from_rows([[v, "*"] for v in leaves], name=name)
        columns[name] = np.array(leaves)[bit]
    schema = Schema(quasi_identifiers=list(columns), hierarchies=hierarchies,
                    categorical=list(columns))
    return pd.DataFrame(columns), schema
