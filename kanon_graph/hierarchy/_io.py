"""Reading and writing hierarchies in ARX's CSV format.

ARX's format has one row per original value, from the value (level 0) to the
root, separated by ``;`` (``,`` is accepted too), with no header. A file
whose last column holds several values (as ARX's date builder writes, e.g.
date; year; decade) is read with an implicit ``*`` root above that column
(see :class:`~kanon_graph.Hierarchy`), and written back without it.

MAGVal marks (Hussien et al. 2016, Definition 3) travel with a hierarchy in
one of two ways:

* in the file itself, by wrapping a cell in asterisks as the paper's Figure 2
  does: ``Geza;*South Egypt*;A.R.E`` marks ``South Egypt``. A cell counts as
  marked when it is at least three characters long, starts and ends with
  ``*`` and has something other than ``*`` in between (so masks such as
  ``5352**`` and the root ``*`` are never taken for marks);
* beside the file, in ``<hierarchy file>.magval``: one label per line, or
  ``level;label`` where a label occurs on several levels. Lines starting with
  ``#`` are comments.
"""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from collections.abc import Iterable

import numpy as np
from pathlib import Path

from ..exceptions import HierarchyError
from ._rows import _MARK, _collector_paused, _plain_columns, _plain_rows, _quoted_rows
from ._tree import Hierarchy

__all__ = ["read_hierarchy", "write_hierarchy", "load_hierarchies"]


def _sniff_separator(text: str, path: str | os.PathLike[str]) -> str:
    """The first of ``;``, ``,`` and tab found outside quotes on the first line."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    outside = re.sub(r'"(?:[^"]|"")*"', "", first)
    for sep in (";", ",", "\t"):
        if sep in outside:
            return sep
    return ";"


#: Published hierarchy files whose one known flaw is said once per process, by a
#: digest of their text (lines joined by newlines): ARX's Adult age hierarchy
#: (``adult_hierarchy_age.csv`` of ARX's examples and of the shared data) names
#: its bands one off, '0-4' over ages 1 to 5. Experiments read it as published,
#: so their figures compare with ARX's; any other warning of the file is shown.
_KNOWN_FILES = {
    "d3e9b9674ec288b84216542d225fc5fa612a7a58382264bad12478e7925364b9":
        "ARX's published Adult age hierarchy: its range labels are one off ('0-4' holds "
        "ages 1 to 5, and so on for every band); it is read as published so results "
        "compare with ARX's (the project's own Adult hierarchies, "
        "kg.datasets.adult_hierarchies(), are labelled truthfully). Said once per process",
}
_SAID: set[str] = set()

#: Files of fewer characters than this are read row by row (bulk cutting pays from there).
BULK_FROM = 20_000


def _read_known(note: str, rows: list[list[str]], name: str | None, path: Path,
                lines: list[int]) -> Hierarchy:
    """Build a known published file's hierarchy; its known range warning said once."""
    from ..exceptions import HierarchyWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hierarchy = Hierarchy(rows, name=name, source=str(path), lines=lines,
                              implicit_root=True)
    for w in caught:
        if issubclass(w.category, HierarchyWarning) and "outside the range it names" in str(
                w.message):
            if note not in _SAID:
                _SAID.add(note)
                warnings.warn(f"hierarchy {str(path)!r}: {note}.", HierarchyWarning,
                              stacklevel=4)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return hierarchy


def read_hierarchy(path: str | os.PathLike[str], *, name: str | None = None,
                   sep: str | None = None) -> Hierarchy:
    """Read one hierarchy from an ARX-format CSV file.

    Parameters
    ----------
    path : str or path-like
        The CSV file: one row per leaf, leaf first, root last.
    name : str, optional
        The attribute name (defaults to the file's name without
        ``*_hierarchy_`` prefix and extension).
    sep : str, optional
        Cell separator; sniffed from the first line (``;``, ``,`` or tab)
        when omitted.

    Returns
    -------
    Hierarchy

    Examples
    --------
    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "location.csv")
    >>> _ = open(path, "w").write("Geza;*South Egypt*;A.R.E\\nAlex;North Egypt;A.R.E\\n")
    >>> h = read_hierarchy(path)
    >>> h.name, h.magval("Geza"), h.magval("Alex")
    ('location', 'South Egypt', 'A.R.E')
    """
    path = Path(path)
    if name is None:
        name = attribute_name_from_file(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise HierarchyError(f"hierarchy file {str(path)!r} does not exist") from None
    except UnicodeDecodeError as exc:
        raise HierarchyError(f"hierarchy file {str(path)!r} is not UTF-8 text: {exc}") from None
    sep = sep or _sniff_separator(text, path)
    known = _KNOWN_FILES.get(hashlib.sha256("\n".join(text.splitlines()).encode()).hexdigest())
    marks: list[tuple[int, str]] = []
    with _collector_paused():
        # a large regular file (what a builder writes) is cut into columns at once
        columns = _plain_columns(text, sep) if known is None and len(text) >= BULK_FROM else None
        if columns is not None:
            hierarchy = Hierarchy._from_columns(columns, name=name, source=str(path),
                                                implicit_root=True)
        else:
            rows, lines, marks = (_plain_rows if '"' not in text else _quoted_rows)(text, sep)
            if not rows:
                raise HierarchyError(f"hierarchy file {str(path)!r} is empty")
            if known is None:
                hierarchy = Hierarchy(rows, name=name, source=str(path), lines=lines,
                                      implicit_root=True)
            else:
                hierarchy = _read_known(known, rows, name, path, lines)
    for level, label in marks:
        hierarchy.mark_magval(label, level)
    sidecar = path.with_name(path.name + ".magval")
    if sidecar.exists():
        _read_magval_file(hierarchy, sidecar)
    return hierarchy


def _read_magval_file(hierarchy: Hierarchy, path: Path) -> None:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        level = None
        if ";" in line:
            head, tail = line.split(";", 1)
            if head.strip().isdigit():
                level, line = int(head), tail.strip()
        try:
            hierarchy.mark_magval(line, level)
        except HierarchyError as exc:
            raise HierarchyError(f"{path}, line {number}: {exc}") from None


def attribute_name_from_file(path: str | os.PathLike[str]) -> str:
    """``adult_hierarchy_age.csv`` -> ``age``; ``age.csv`` -> ``age``."""
    stem = Path(path).name
    for suffix in (".csv", ".txt"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
    if "_hierarchy_" in stem:
        stem = stem.split("_hierarchy_", 1)[1]
    return stem


def write_hierarchy(hierarchy: Hierarchy, path: str | os.PathLike[str], *, sep: str = ";",
                    mark_magvals: bool = True) -> None:
    """Write a hierarchy in ARX's CSV format; :func:`read_hierarchy` reads it back.

    Cells are quoted as CSV does (a label holding ``"``, ``;``, ``,``, a tab,
    leading or trailing spaces, or one that looks like a ``*mark*``, is
    written in double quotes; a quoted cell is read with its spaces), so
    every label reads back as it was. MAGVals are written as ``*label*``
    cells; when a marked label itself needs quotes, the marks go to the
    ``<path>.magval`` sidecar instead (``level;label`` lines). A sidecar
    left beside ``path`` by an earlier write is replaced or removed.

    Examples
    --------
    >>> import tempfile, os
    >>> from kanon_graph import Hierarchy
    >>> h = Hierarchy.from_rows([["a;1", "x", "*"], ["b", "*y*", "*"]])
    >>> path = os.path.join(tempfile.mkdtemp(), "h.csv")
    >>> write_hierarchy(h, path)
    >>> print(open(path).read(), end="")
    "a;1";x;*
    b;"*y*";*
    >>> read_hierarchy(path).to_rows() == h.to_rows()
    True
    """
    if not isinstance(sep, str) or len(sep) != 1 or sep in '"*\r\n ':
        raise ValueError(f"The 'sep' parameter of write_hierarchy must be one character other "
                         f"than a quote, '*', space or line break. Got {sep!r}.")
    rows = hierarchy.to_rows()
    if getattr(hierarchy, "implicit_root", False):
        rows = [row[:-1] for row in rows]      # the root read_hierarchy adds back
    for row in rows:
        for label in row:
            if len(label.splitlines()) > 1:
                raise HierarchyError(f"write_hierarchy: label {label!r} of {hierarchy._where()} "
                                     f"holds a line break; ARX's format cannot store it")

    def needs_quotes(label: str) -> bool:
        # any separator read_hierarchy might sniff is quoted, so sniffing finds ``sep``
        return any(c in label for c in (sep, ";", ",", "\t", '"')) or bool(_MARK.match(label)) \
            or label != label.strip()     # leading / trailing spaces kept in quotes

    def quote(label: str) -> str:
        return '"' + label.replace('"', '""') + '"' if needs_quotes(label) else label

    marked = []
    if mark_magvals and hierarchy.has_magvals:
        marked = [(level, hierarchy.label(level, index))
                  for level in range(hierarchy.height + 1)
                  for index in np.flatnonzero(hierarchy._magval[level]).tolist()]
    def reads_as_mark(label: str) -> bool:
        match = _MARK.match(f"*{label}*")
        return match is not None and match.group(1).strip() == label \
            and not needs_quotes(match.group(1))

    inline = all(reads_as_mark(label) for _, label in marked)
    if getattr(hierarchy, "implicit_root", False):
        marked = [(level, label) for level, label in marked if level < hierarchy.height]
    lines = []
    for leaf, row in enumerate(rows):
        cells = []
        for level, label in enumerate(row):
            node = hierarchy.level_map[level][leaf]
            if inline and marked and hierarchy._magval[level][node]:
                cells.append(f"*{label}*")
            else:
                cells.append(quote(label))
        lines.append(sep.join(cells))
    from ..io.write import write_text  # every output through the one atomic writer

    path = Path(path)
    write_text(path, "\n".join(lines) + "\n")
    sidecar = path.with_name(path.name + ".magval")
    if marked and not inline:
        write_text(sidecar, "".join(f"{level};{label}\n" for level, label in marked))
    elif sidecar.exists():
        sidecar.unlink()


def load_hierarchies(folder: str | os.PathLike[str], *, columns: Iterable[str] | None = None,
                     missing: str = "error", sep: str | None = None) -> dict[str, Hierarchy]:
    """Read every hierarchy file in ``folder`` into ``{column: Hierarchy}``.

    Files named ``*_hierarchy_<column>.csv`` (ARX's convention) are read;
    when the folder has none, every ``<column>.csv`` is read instead. So a
    folder that holds a data table beside ARX-named hierarchies (as ARX's
    own ``data/`` folder does) works as is.

    Parameters
    ----------
    folder : str or path-like
    columns : iterable of str, optional
        Only these columns (other files in the folder, such as the data
        table itself, are not read).
    missing : {"error", "ignore"}
        With ``columns``: whether a listed column without a file is an
        error, or simply gets no hierarchy.
    sep : str, optional
        Cell separator, sniffed when omitted.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> hier = kg.load_hierarchies(kg.datasets.adult_hierarchies_path())
    >>> sorted(hier)[:3], hier["age"].height
    (['age', 'education', 'marital-status'], 5)
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise HierarchyError(f"hierarchy folder {str(folder)!r} does not exist")
    found = {}
    entries = [e for e in sorted(os.listdir(folder)) if e.endswith(".csv")]
    if any("_hierarchy_" in e for e in entries):
        entries = [e for e in entries if "_hierarchy_" in e]
    for entry in entries:
        column = attribute_name_from_file(entry)
        if column in found:
            raise HierarchyError(
                f"hierarchy folder {str(folder)!r}: two files for column {column!r}"
            )
        found[column] = folder / entry
    if missing not in ("error", "ignore"):
        raise ValueError(f"The 'missing' parameter of load_hierarchies must be 'error' or "
                         f"'ignore'. Got {missing!r}.")
    if columns is not None:
        columns = list(columns)
        absent = [c for c in columns if c not in found]
        if absent and missing == "error":
            raise HierarchyError(
                f"hierarchy folder {str(folder)!r} has no file for column(s) {absent}; "
                f"found {sorted(found)}"
            )
        found = {c: found[c] for c in columns if c in found}
        if missing == "ignore":
            return {c: read_hierarchy(path, name=c, sep=sep) for c, path in found.items()}
    if not found:
        raise HierarchyError(f"hierarchy folder {str(folder)!r} holds no .csv hierarchy files")
    return {column: read_hierarchy(path, name=column, sep=sep) for column, path in found.items()}
