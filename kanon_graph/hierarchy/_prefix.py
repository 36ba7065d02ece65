"""Prefix levels for alphanumeric codes: the levels the data's prefix tree has.

Codes of many schemes are hierarchical by prefix: ICD-10 (``F32.1`` in the
category ``F32``, the block ``F3``, the chapter ``F``), UK postcodes (the
district ``LS6`` in the area ``LS``; a full postcode ``LS6 3AB`` in the
sector ``LS6 3``), Dutch postcodes (``1234 AB`` in ``1234``, ``123``, ...),
product and occupation codes. :func:`prefix_levels` finds such levels in the
data itself, with one rule for every scheme:

1. **Where a code may be cut.** A code is read as runs of letters, runs of
   digits and separators (``.``, ``-``, ``/``, a space). It may be cut where
   letters meet digits (``LS|6``, ``F|32``) and before a separator
   (``F32|.1``, ``north|-1``). A run of digits is also cut after each digit
   when that run has the same width in every code that has it (a positional
   code: ICD's ``32`` is always two digits, so ``F3`` is a block), and never
   inside when the widths differ (``LS1`` is not a prefix of ``LS10``: they
   are two districts).
2. **Depths.** The prefixes of a code at its cut points, coarsest first,
   give its depth 1, 2, ...; a code with fewer cuts stays at its finest
   prefix (the code ``F32`` belongs to the group ``F32*`` of ``F32.1``).
3. **Which depths become levels**, finest first, each compared with the
   last one kept (the codes themselves to start with): a depth is kept when
   it has at least two groups (one group is ``*`` again), fewer groups than
   the level below, and it **groups enough rows to matter**: at least
   :data:`MIN_MERGED_SHARE` (10%) of the rows are in groups that join two
   or more nodes of the level below (so a level that coarsens a handful of
   rare codes is left out).

A group is labelled by its prefix and ``*`` (``F3*``, ``LS*``): a code never
contains ``*``, so a label is never mistaken for a code (``F32*`` the group,
``F32`` the code), and every code under a label starts with the label's
prefix (each value is contained by its ancestors).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

__all__ = ["MIN_MERGED_SHARE", "is_prefix_code_column", "prefix_levels"]

#: The share of rows a prefix level must group with others to be kept.
MIN_MERGED_SHARE = 0.10

_CODE = re.compile(r"^[A-Za-z0-9]+(?:[.\-/ ]?[A-Za-z0-9]+)*$")
_RUN = re.compile(r"[A-Za-z]+|[0-9]+|[.\-/ ]")


def is_prefix_code_column(texts: Sequence[str]) -> bool:
    """Codes of letters and digits (and ``. - /`` or one space between runs),
    every one with a digit, some with a letter."""
    return (bool(texts) and all(_CODE.match(t) and any(c.isdigit() for c in t) for t in texts)
            and any(c.isalpha() for t in texts for c in t))


def _runs(text: str) -> list[str]:
    return _RUN.findall(text)


def _cuts(text: str, fixed: dict[int, int]) -> list[str]:
    """The prefixes of ``text`` at its cut points, coarsest first, ending with ``text``."""
    out: list[str] = []
    at = 0
    runs = _runs(text)
    alnum = 0                                   # index of this run among letter/digit runs
    for i, run in enumerate(runs):
        if run in ".-/ ":
            continue
        start = text.index(run, at)
        if run.isdigit() and fixed.get(alnum) == len(run):
            out.extend(text[:start + j] for j in range(1, len(run)))
        at = start + len(run)
        alnum += 1
        if i + 1 < len(runs):
            out.append(text[:at])
    out.append(text)
    return [p for n, p in enumerate(out) if p and p not in out[:n]]


def _fixed_widths(texts: Sequence[str]) -> dict[int, int]:
    """Letter/digit run index -> its width, where it is a digit run of one width in every code."""
    widths: dict[int, set[int]] = {}
    kinds: dict[int, set[bool]] = {}
    for t in texts:
        for i, run in enumerate(r for r in _runs(t) if r not in ".-/ "):
            widths.setdefault(i, set()).add(len(run))
            kinds.setdefault(i, set()).add(run.isdigit())
    return {i: next(iter(w)) for i, w in widths.items()
            if len(w) == 1 and kinds[i] == {True} and next(iter(w)) > 1}


def prefix_levels(texts: Sequence[str], counts: Sequence[int]) -> list[list[str]]:
    """Hierarchy rows ``[code, group, ..., "*"]`` for codes ``texts`` seen ``counts`` times.

    >>> prefix_levels(["F32.1", "F32.0", "F33.2", "F41.1", "F41.0"], [5, 5, 5, 5, 5])
    [['F32.1', 'F32*', 'F3*', '*'], ['F32.0', 'F32*', 'F3*', '*'], ['F33.2', 'F33*', 'F3*', '*'], ['F41.1', 'F41*', 'F4*', '*'], ['F41.0', 'F41*', 'F4*', '*']]
    >>> prefix_levels(["LS6", "LS11", "BD10", "BD1"], [30, 20, 10, 5])
    [['LS6', 'LS*', '*'], ['LS11', 'LS*', '*'], ['BD10', 'BD*', '*'], ['BD1', 'BD*', '*']]
    """
    texts = list(texts)
    weights = np.asarray(counts, dtype=float)
    fixed = _fixed_widths(texts)
    cuts = [_cuts(t, fixed) for t in texts]
    depth = max(len(c) for c in cuts)
    # keys[d][i]: the group of code i at depth d (depth - 1 is the code itself)
    keys = [[c[min(d, len(c) - 1)] for c in cuts] for d in range(depth - 1)]
    below = list(texts)                         # the finest level kept so far
    kept: list[list[str]] = []
    for level in reversed(keys):
        groups = set(level)
        if not 2 <= len(groups) < len(set(below)):
            continue
        children: dict[str, set[str]] = {}
        for key, child in zip(level, below):
            children.setdefault(key, set()).add(child)
        joined = np.array([len(children[key]) > 1 for key in level])
        if weights[joined].sum() < MIN_MERGED_SHARE * weights.sum():
            continue
        kept.append(level)
        below = level
    return [[t, *(level[i] + "*" for level in kept), "*"] for i, t in enumerate(texts)]
