"""The distance terms both spanning-tree kernels share (:mod:`.mst`, :mod:`.indexed_prim`).

``TIE``: distances closer than this are equal, ties going to the smaller node
index; ``_level_term``: a hierarchy attribute's term between two codes.
"""

from __future__ import annotations

from .._jit import njit  # numba loads on a kernel's first call

__all__ = ["TIE"]

TIE = 1e-9
"""Distances closer than this are equal: ties go to the smaller node index."""


def _level_term_py(k, flat, off, m, levels, weights, woff, ci, cj):
    """A hierarchy attribute's term from inside code ``ci`` to outside ``cj`` (kinds 2, 3).

    The LCA level is the lowest level where the two agree; agreeing at a level
    implies agreeing above it, so the search runs from the top down. Kind 2
    weighs a level, kind 3 a level and the outside code.
    """
    lev = int(levels) - 1
    for l in range(int(levels) - 2, -1, -1):
        row = off + l * m
        if flat[row + cj] != flat[row + ci]:
            break
        lev = l
    if k == 2:
        return weights[woff + lev]
    return weights[woff + lev * m + cj]


_level_term = njit(cache=True)(_level_term_py)
