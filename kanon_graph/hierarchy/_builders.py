"""Builders for the two hierarchy shapes people write by hand most often.

* :func:`intervals` -- numeric values in nested bands (age in 5-, 10- and
  20-year bands), or between explicit cut points;
* :func:`masking` -- codes such as ZIP whose trailing characters are
  replaced by ``*`` one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..cells.amounts import number_reader
from ..cells.kinds import parse_number
from ..exceptions import HierarchyError
from ._codes import code_form, length_remedy, suffixed_rows
from ._tree import Hierarchy

__all__ = ["intervals", "masking", "read_intervals"]


def _fmt(x: Any) -> str:
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return str(int(x)) if float(x).is_integer() and abs(x) < 2**53 else repr(float(x))


def _numbers(given: Any, what: str, name: Any) -> list[float]:
    """``given`` as a list of finite numbers, else a HierarchyError saying ``what`` it must be."""
    try:
        numbers = [float(w) for w in given]
    except (TypeError, ValueError):
        numbers = None
    if numbers is None or not all(np.isfinite(numbers)):
        raise HierarchyError(f"intervals for {name!r}: {what}; got {given!r}")
    return numbers


def intervals(values: Iterable[Any], *, widths: Sequence[float] | None = None,
              cuts: Sequence[Sequence[float]] | None = None, origin: float = 0,
              name: str | None = None, root: str = "*") -> Hierarchy:
    """Hierarchy of nested numeric bands over ``values``.

    Parameters
    ----------
    values : iterable of numbers or number texts
        The leaves (duplicates are ignored); texts may be amounts
        (``$1,234.50``, ``12%``: :mod:`kanon_graph.cells.amounts`). Pass
        ``range(1, 101)`` to cover a domain rather than only the observed
        values. A text value stays
        the leaf's label as written (``1.50``, not ``1.5``), so the leaves
        match the data cell by cell; a number is written as its shortest
        exact text.
    widths : sequence of numbers, optional
        Band width per level, finest first; each must divide the next
        (``[5, 10, 20]``). Bands start at ``origin + i * width``.
    cuts : sequence of sequences of numbers, optional
        Instead of ``widths``: the cut points per level, finest first; each
        level's cuts must be a subset of the previous level's so bands nest.
        A band holds the values ``cut[i] <= v < cut[i + 1]``.
    origin : number
        Where width bands are anchored.
    name : str, optional
    root : str
        The root label.

    Returns
    -------
    Hierarchy
        Labels ``[lo-hi]`` with the smallest and largest value the band can
        hold (inclusive, for integer values), then ``root``.

    Examples
    --------
    >>> h = intervals(range(20, 41), widths=[5, 10], name="age")
    >>> h.ancestors(24)
    ['24', '[20-24]', '[20-29]', '*']
    >>> intervals([1, 5, 12], cuts=[[0, 10, 20]]).ancestors(12)
    ['12', '[10-19]', '*']
    """
    values = list(values)
    reader = number_reader([v for v in values if isinstance(v, str)], parse_number)
    return read_intervals(values, reader, widths=widths, cuts=cuts, origin=origin, name=name,
                          root=root)


def read_intervals(values: Sequence[Any], reader: Callable[[str], Any], *,
                   widths: Sequence[float] | None = None,
                   cuts: Sequence[Sequence[float]] | None = None, origin: float = 0,
                   name: str | None = None, root: str = "*") -> Hierarchy:
    """:func:`intervals` with its text values read by ``reader`` (a caller that has one).

    ``reader`` is what :func:`~kanon_graph.cells.amounts.number_reader` gives
    for the texts among ``values`` (``hierarchy suggest`` made it to draw the
    widths), so the amounts are not read again.
    """
    texts: dict[Any, Any] = {}
    number: Any
    text: Any
    for value in values:
        if isinstance(value, str):
            number = reader(value)
            text = value.strip()
        elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
            number, text = None, value
        else:
            number = value if isinstance(value, (int, np.integer)) else float(value)
            text = _fmt(number) if np.isfinite(number) else None
            number = number if text is not None else None
        if number is None:
            raise HierarchyError(f"intervals for {name!r}: values must be numbers; "
                                 f"got {value!r}")
        texts.setdefault(text, number)
    order = sorted(texts, key=lambda t: (texts[t], t))
    leaves: Any = np.asarray([float(texts[t]) for t in order], dtype=np.float64)
    if leaves.size == 0:
        raise HierarchyError(f"intervals for {name!r}: no values given")
    if (widths is None) == (cuts is None):
        raise HierarchyError(f"intervals for {name!r}: give exactly one of widths= or cuts=")
    integral = bool(np.all(leaves == np.round(leaves)))
    columns = []
    if widths is not None:
        widths = _numbers(widths, "widths= must be a list of finite numbers, finest level "
                          "first (e.g. [5, 10])", name)
        if any(w <= 0 for w in widths):
            raise HierarchyError(f"intervals for {name!r}: widths must be positive, got {widths}")
        for fine, coarse in zip(widths, widths[1:]):
            if coarse / fine != round(coarse / fine):
                raise HierarchyError(
                    f"intervals for {name!r}: width {_fmt(coarse)} is not a multiple of "
                    f"{_fmt(fine)}, so the bands would not nest"
                )
        for width in widths:
            lo = origin + np.floor((leaves - origin) / width) * width
            hi = lo + width - 1 if integral else lo + width
            columns.append(_bands(lo, hi, integral))
    else:
        previous = None
        levels = list(cuts) if isinstance(cuts, (list, tuple, np.ndarray)) else None
        if levels is None or not all(isinstance(c, (list, tuple, np.ndarray)) for c in levels):
            raise HierarchyError(f"intervals for {name!r}: cuts= must be a list of levels, "
                                 f"each a list of cut points, finest first (e.g. "
                                 f"[[0, 18, 65], [0, 65]]); got {cuts!r}")
        for level_cuts in levels:
            edges = np.unique(_numbers(level_cuts, "each level of cuts= must be a list of "
                                       "finite numbers (e.g. [0, 18, 65])", name))
            if previous is not None and not set(edges) <= set(previous):
                raise HierarchyError(
                    f"intervals for {name!r}: cut points "
                    f"{[_fmt(c) for c in sorted(set(edges) - set(previous))]} "
                    f"are not cut points of the finer level, so the bands would not nest"
                )
            previous = edges
            slot = np.searchsorted(edges, leaves, side="right") - 1
            lo = np.where(slot >= 0, edges[np.maximum(slot, 0)], -np.inf)
            hi = np.where(slot + 1 < len(edges), edges[np.minimum(slot + 1, len(edges) - 1)],
                          np.inf)
            if integral:
                hi = np.where(np.isfinite(hi), hi - 1, hi)
            columns.append(_bands(lo, hi, integral))
    return Hierarchy._from_columns([order, *columns, [root] * len(order)], name=name,
                                   source="intervals")


def _bands(lo: Any, hi: Any, integral: bool) -> Any:
    """The label of each leaf's band ``[lo-hi]``, written once per band.

    ``lo`` and ``hi`` are arrays over the leaves (``hi`` a function of ``lo``:
    a band's bounds); the text of each distinct band is made from its first
    leaf's bounds, as :func:`_band` writes it, and spread back.
    """
    _, first, inverse = np.unique(lo, return_index=True, return_inverse=True)
    texts = np.array([_band(lo[i], hi[i], integral) for i in first], dtype=object)
    return texts[inverse.ravel()]


def _band(lo: float, hi: float, integral: bool) -> str:
    lo_s = "-inf" if not np.isfinite(lo) else _fmt(lo)
    hi_s = "inf" if not np.isfinite(hi) else _fmt(hi)
    return f"[{lo_s}-{hi_s}]" if integral else f"[{lo_s}-{hi_s})"


def masking(values: Iterable[Any], *, levels: int | None = None, mask: str = "*",
            name: str | None = None, root: str = "*") -> Hierarchy:
    """Hierarchy that masks trailing characters of fixed-length codes.

    Level ``i`` replaces the last ``i`` characters with ``mask``. When the
    top level still holds more than one label, ``root`` is added above it.
    Codes of one head width with a suffix after a separator on some (ZIP+4
    ``02139-4307`` beside ``02139``) first drop the suffix (``02139*``), then
    mask the head (:mod:`~kanon_graph.hierarchy._codes`). Codes of other
    mixed lengths are refused with the remedy that makes them maskable.

    Parameters
    ----------
    values : iterable of str or int
        The codes (all of one length, or one head width with suffixes).
    levels : int, optional
        How many characters (of the head) to mask at most (default: all).

    Examples
    --------
    >>> h = masking(["535280", "535285", "535292"], levels=2, name="zip")
    >>> h.ancestors("535285"), h.height
    (['535285', '53528*', '5352**'], 2)
    >>> masking(["02139-4307", "02139", "10001"]).ancestors("02139-4307")
    ['02139-4307', '02139*', '0213*', '021**', '02***', '0****', '*****']
    """
    codes = sorted({str(v) for v in values})
    if not codes:
        raise HierarchyError(f"masking for {name!r}: no values given")
    lengths = {len(c) for c in codes}
    if len(lengths) > 1:
        width = code_form(codes)
        if width is not None:
            levels = width if levels is None else int(levels)
            if not 1 <= levels <= width:
                raise HierarchyError(f"masking for {name!r}: levels must be in [1, {width}] "
                                     f"(the digits before the separator), got {levels}")
            rows = suffixed_rows(codes, levels=levels, mask=mask, root=root)
            return Hierarchy._from_columns(list(zip(*rows)), name=name, source="masking")
        short = min(codes, key=len)
        long = max(codes, key=len)
        raise HierarchyError(
            f"masking for {name!r}: codes have different lengths ({short!r}, {long!r}); "
            f"{length_remedy(codes)}"
        )
    (length,) = lengths
    levels = length if levels is None else int(levels)
    if not 1 <= levels <= length:
        raise HierarchyError(f"masking for {name!r}: levels must be in [1, {length}], got {levels}")
    rows = [[c[: length - i] + mask * i for i in range(levels + 1)] for c in codes]
    if len({row[-1] for row in rows}) > 1:
        rows = [row + [root] for row in rows]
    return Hierarchy._from_columns(list(zip(*rows)), name=name, source="masking")
