"""``algorithm="auto"``: which algorithm :func:`~kanon_graph.anonymize` runs by default.

The rule is small and stated in one place, so the result, the report and
the CLI can say which algorithm ran and why.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AUTO_LATTICE_LIMIT", "AUTO_LOCAL", "choose_algorithm"]

#: The largest lattice (product of hierarchy heights + 1) ``algorithm="auto"``
#: searches exactly with ``optimal``. Time alone would allow more: the lattice
#: of Adult's eight quasi-identifiers (also the synthetic census's), 23,040
#: nodes, takes 0.5 s on 2,000 rows. But a full-domain release of that many
#: quasi-identifiers loses much more than a local one (census, k = 5, 2,000
#: rows: optimal ARX loss 0.64 with every age ``*``; mondrian 0.24), so
#: lattices that large go to the local algorithm; five or six attributes
#: (a few hundred to a few thousand nodes) are searched exactly.
AUTO_LATTICE_LIMIT = 20_000

#: The local algorithm ``auto`` falls back to: the fastest of the local
#: algorithms with a loss close to the lowest on the project's Adult benchmark
#: (``benchmarks/compare.py --only local``, k = 5, mean per-attribute ARX Loss:
#: mst 0.060 in about 4 s of CPU, mondrian 0.070 in about 1 s), and it honours
#: l and t. Ask for ``algorithm="mst"`` for the lowest loss.
AUTO_LOCAL = "mondrian"


def choose_algorithm(data):
    """``(name, reason)`` of the algorithm ``algorithm="auto"`` runs on ``data``.

    ``optimal`` (the exact full-domain optimum) when every quasi-identifier
    has a hierarchy and the lattice has at most :data:`AUTO_LATTICE_LIMIT`
    nodes; otherwise :data:`AUTO_LOCAL`, a fast local algorithm whose loss is
    close to the lowest on the project's benchmarks.
    """
    lacking = [a.name for a in data.attributes if a.hierarchy is None]
    if not lacking:
        nodes = int(np.prod([a.height + 1 for a in data.attributes], dtype=object))
        if nodes <= AUTO_LATTICE_LIMIT:
            return "optimal", (f"every quasi-identifier has a hierarchy and the lattice has "
                               f"{nodes} nodes (at most {AUTO_LATTICE_LIMIT}): searched exactly")
        why = f"the lattice has {nodes} nodes, more than {AUTO_LATTICE_LIMIT} to search exactly"
    else:
        why = f"no hierarchy for {lacking}"
    return AUTO_LOCAL, (f"{why}; {AUTO_LOCAL} is the fastest local algorithm with a loss "
                        f"close to the lowest on the Adult benchmark (algorithm='mst' loses "
                        f"less, in about 4x the time)")
