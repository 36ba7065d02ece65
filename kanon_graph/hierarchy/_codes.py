"""Codes of mixed length and form: ZIP+4 beside 5-digit ZIPs, a suffix after a separator.

A column of US ZIP codes often mixes ``02139`` and ``02139-4307``; codes of
other schemes carry a suffix too (``1234-56``, ``4711/2``). Such a column is
read here as a *head* of digits, all of one width, optionally followed by a
separator (``-``, ``.``, ``/`` or a space) and a suffix of letters and
digits. Its hierarchy first drops the suffix, then masks the head from the
right::

    02139-4307 -> 02139* -> 0213* -> 021** -> 02*** -> 0**** -> *****
    02139      -> 02139* -> 0213* -> ...

The first level is labelled ``02139*`` (the prefix and ``*``, as
:mod:`~kanon_graph.hierarchy._prefix` labels its groups), not ``02139``: the
plain ZIP ``02139`` is a value of its own, and one label must never name
both the value and the group holding it.

:func:`length_remedy` says what to do with codes that fit no such form
(digit codes whose widths differ: numbers that lost their leading zeros).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["code_form", "suffixed_rows", "length_remedy"]

_FORM = re.compile(r"^([0-9]+)(?:[-./ ]([A-Za-z0-9]+))?$")


def code_form(texts: Sequence[str]) -> int | None:
    """The head width of codes ``head[sep suffix]`` with a suffix on some, else ``None``.

    Every text is a run of digits of one width (at least 2), some followed
    by a separator and a suffix.

    >>> code_form(["02139-4307", "02139", "10001-0001"])
    5
    >>> code_form(["02139", "10001"]) is None, code_form(["2139-1", "10001"]) is None
    (True, True)
    """
    matches = [_FORM.match(t) for t in texts]
    if not texts or not all(matches):
        return None
    widths = {len(m.group(1)) for m in matches if m}
    if len(widths) != 1 or not any(m.group(2) for m in matches if m):
        return None
    width = widths.pop()
    return width if width >= 2 else None


def suffixed_rows(texts: Sequence[str], *, levels: int | None = None, mask: str = "*",
                  root: str = "*") -> list[list[str]]:
    """Rows ``[code, head*, head masked by 1, ...]`` for codes :func:`code_form` accepts.

    ``levels`` counts the masked characters of the head (default: all of
    them); ``root`` is added when the top level still holds several labels.

    >>> suffixed_rows(["02139-4307", "02139"], levels=2)
    [['02139', '02139*', '0213*', '021**'], ['02139-4307', '02139*', '0213*', '021**']]
    """
    width = code_form(texts)
    if width is None:
        raise ValueError("codes of one head width with a suffix on some are expected")
    levels = width if levels is None else levels
    rows = []
    for text in sorted(set(texts)):
        head = text[:width]
        rows.append([text, head + mask] + [head[:width - i] + mask * i
                                           for i in range(1, levels + 1)])
    if len({row[-1] for row in rows}) > 1:
        rows = [row + [root] for row in rows]
    return rows


def length_remedy(texts: Sequence[str]) -> str:
    """What makes codes of different lengths maskable, in one clause.

    >>> print(length_remedy(["2139", "10001"]))
    they look like numbers that lost their leading zeros: pad them to 5 digits (str.zfill(5): ...)
    """
    longest = max(len(t) for t in texts)
    if all(t.isdigit() for t in texts):
        short = min(texts, key=len)
        return (f"they look like numbers that lost their leading zeros: pad them to "
                f"{longest} digits (str.zfill({longest}): {short!r} -> {short.zfill(longest)!r})")
    heads = {m.group(1) for m in map(_FORM.match, texts) if m}
    if heads and all(_FORM.match(t) for t in texts):
        return ("their digits before the separator differ in width: pad those to one "
                f"width ({max(len(h) for h in heads)} digits) with leading zeros")
    return ("they are not one code scheme of fixed width: use 'hierarchy suggest', which "
            "cuts codes at their prefixes, or write the hierarchy by hand")
