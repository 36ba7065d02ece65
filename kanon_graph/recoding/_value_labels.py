"""How a categorical value without a hierarchy is written in a release, and read back.

A released cell of such an attribute is one value, a value set ``{a,b}``
(its members sorted by text, separated by commas), ``*`` (a suppressed
record, or the whole column) or ``(missing)`` (a missing cell kept by
``missing="keep"``).

A cell holding **one value** (the algorithm did not generalize it) is the
value byte for byte, unless reading it back could take it for something
else: then it is written between double quotes, each ``"`` in it doubled
(as in CSV). That is the case when it is one of the markers ``*`` or
``(missing)``, is empty (an empty cell reads as missing), begins with a
``"``, or begins with ``{`` and ends with ``}`` -- blanks around it aside
(:func:`alone`).

A **member of a set** is written between quotes when it is a marker, is
empty, begins or ends with whitespace, or holds a ``"``, a ``,``, a ``{``
or a ``}`` (:func:`quoted`).

So ``a,b`` kept with ``c`` is ``{"a,b",c}``, a literal ``*`` is ``"*"``, a
literal ``(missing)`` is ``"(missing)"`` (the kept missing cell stays
``(missing)``), ``{x}`` alone is ``"{x}"``, while `` sp`` or ``a,b`` alone
stay as they are. Values without those forms are written exactly as before,
and the written forms of two different values, or of two different sets,
always differ.

:func:`read_members` reads a cell back into its members; it also takes
other tools' sets (``{a, b}``, members unquoted).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..encoding import MISSING

__all__ = ["quoted", "alone", "set_label", "read_members", "member_codes"]

_MARKERS = ("*", MISSING)
_SPECIAL = frozenset('",{}')


def quoted(value: object) -> str:
    """``value`` as a released cell or set member writes it: as is, or quoted.

    Examples
    --------
    >>> quoted("flu"), quoted("a,b"), quoted("*"), quoted(" sp"), quoted('5" tall')
    ('flu', '"a,b"', '"*"', '" sp"', '"5"" tall"')
    """
    text = str(value)
    if (text in _MARKERS or not text or text != text.strip()
            or not _SPECIAL.isdisjoint(text)):
        return '"' + text.replace('"', '""') + '"'
    return text


def alone(value: object) -> str:
    """``value`` as a released cell holding that one value: as is, unless it reads otherwise.

    Examples
    --------
    >>> alone("flu"), alone("a,b"), alone(" sp"), alone("*"), alone("{x}"), alone("")
    ('flu', 'a,b', ' sp', '"*"', '"{x}"', '""')
    """
    text = str(value)
    core = text.strip()              # what a reader sees through the blanks
    if (core in _MARKERS or not text or core.startswith('"')
            or (core.startswith("{") and core.endswith("}"))):
        return '"' + text.replace('"', '""') + '"'
    return text


def set_label(members: Iterable[tuple[str, str]]) -> str:
    """The released cell of a class holding ``members``: ``(text, written form)`` pairs.

    One member is written alone (:func:`alone`, the kept missing cell as
    ``(missing)``); several are ``{a,b}``, sorted by their texts (then by
    written form: a literal ``(missing)`` before the kept missing cell).

    Examples
    --------
    >>> set_label([("b", "b"), ("a,b", quoted("a,b")), ("(missing)", "(missing)")])
    '{(missing),"a,b",b}'
    >>> set_label([("a,b", quoted("a,b"))])
    'a,b'
    """
    members = sorted(members)
    if len(members) == 1:
        text, form = members[0]
        return form if form == MISSING else alone(text)
    return "{" + ",".join(form for _, form in members) + "}"


def _quoted_token(text: str, start: int) -> tuple[str, int] | None:
    """The quoted value starting at ``text[start] == '"'`` and the index after it."""
    out, i = [], start + 1
    while i < len(text):
        if text[i] == '"':
            if text[i + 1:i + 2] == '"':
                out.append('"')
                i += 2
                continue
            return "".join(out), i + 1
        out.append(text[i])
        i += 1
    return None                                  # no closing quote


def _members(inner: str) -> list[tuple[str, bool]] | None:
    """The members of a set's inside, or None when a quoted one is malformed."""
    found, i = [], 0
    while True:
        while i < len(inner) and inner[i].isspace():
            i += 1
        if i < len(inner) and inner[i] == '"':
            token = _quoted_token(inner, i)
            if token is None:
                return None
            value, i = token
            while i < len(inner) and inner[i].isspace():
                i += 1
            if i < len(inner) and inner[i] != ",":
                return None                      # text after the closing quote
            found.append((value, True))
        else:
            end = inner.find(",", i)
            end = len(inner) if end < 0 else end
            found.append((inner[i:end].strip(), False))
            i = end
        if i >= len(inner):
            return found
        i += 1                                   # the comma


def read_members(text: str) -> list[tuple[str, bool]] | None:
    """The values a released categorical cell names: ``(value, was quoted)`` each.

    ``None`` for ``*`` (every value of the column). A quoted value is always
    a value of the data; an unquoted ``(missing)`` is the kept missing cell.
    A cell whose quotes do not close is read as unquoted text (another tool's
    release).

    Examples
    --------
    >>> read_members('{"a,b",c}'), read_members('"*"'), read_members("*")
    ([('a,b', True), ('c', False)], [('*', True)], None)
    >>> read_members("{a, b}")
    [('a', False), ('b', False)]
    """
    raw, text = text, text.strip()
    if text == "*":
        return None
    if len(text) >= 2 and text.startswith("{") and text.endswith("}"):
        members = _members(text[1:-1])
        if members is not None:
            return members
        return [(part.strip(), False) for part in text[1:-1].split(",")]
    if text.startswith('"'):
        token = _quoted_token(text, 0)
        if token is not None and token[1] == len(text):
            return [(token[0], True)]
    return [(raw, False)]               # one value, as written (blanks are part of it)


def member_codes(text: str, domain: Mapping[str, int],
                 missing_code: int | None = None) -> list[int] | None:
    """Codes of the values a released cell names (``None`` for ``*``: every value).

    ``domain`` maps each value's text to its code (the kept missing cell
    left out: it is ``missing_code``). Raises ``LookupError`` whose argument
    is the first member that is no value of the column.
    """
    members = read_members(text)
    if members is None:
        return None
    codes = []
    for value, was_quoted in members:
        if not was_quoted and value == MISSING and missing_code is not None:
            codes.append(missing_code)
        elif value in domain:
            codes.append(domain[value])
        elif not was_quoted and value.strip() in domain:     # another tool padded it
            codes.append(domain[value.strip()])
        else:
            raise LookupError(value)
    return codes
