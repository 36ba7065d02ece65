"""The schema: what every column of a table is, and how it may be generalized.

Each column has a *role*:

``identifier``
    Names a person directly (name, SSN). Never appears in any output.
``quasi-identifier``
    Could be linked with outside data (age, ZIP, sex). Generalized.
``sensitive``
    What must not be linked to a person (diagnosis, salary). Released as is;
    l-diversity and t-closeness look at it.
``insensitive``
    Everything else. Released as is.

and a *kind*, ``numeric``, ``date`` or ``categorical``, inferred from the
column unless given (a numeric dtype or text that is all plain numbers is
numeric; a ``datetime64`` dtype or text that is all ISO dates such as
``1944-12-14`` is a date, and so is text such as ``13/03/1961`` whose
day/month order the cells tell (:mod:`kanon_graph.cells.date_text`); digit codes of one width with a leading zero, such
as ZIP ``02139``, are categorical codes). A quasi-identifier may have a
:class:`~kanon_graph.Hierarchy`; one without falls back to the
hierarchy-free definitions (numeric ranges ``[min-max]``, date intervals
``[1944-12-14, 2008-01-10]``, codes masked from the right ``0213*``,
categorical value sets ``{a,b}``). Declaring a column in ``numeric``,
``dates`` or ``categorical`` overrides the inference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .cells.kinds import column_kind
from .exceptions import SchemaError
from .hierarchy import Hierarchy, read_hierarchy

__all__ = ["Schema", "ROLES", "KINDS"]

ROLES = ("identifier", "quasi-identifier", "sensitive", "insensitive")
KINDS = ("numeric", "date", "categorical")


def _names(value: Any, parameter: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    try:
        names = tuple(str(v) for v in value)
    except TypeError:
        raise SchemaError(
            f"The {parameter!r} parameter of Schema must be a list of column names. "
            f"Got {value!r}."
        ) from None
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SchemaError(f"The {parameter!r} parameter of Schema lists {duplicates} twice.")
    return names


@dataclass(frozen=True)
class Schema:
    """Roles, kinds and hierarchies of a table's columns.

    Parameters
    ----------
    quasi_identifiers : list of str
        The columns to generalize, in order (the order of level vectors).
    sensitive, identifiers : list of str, optional
    insensitive : list of str, optional
        Defaults to every column not named elsewhere.
    hierarchies : dict of str to Hierarchy, optional
        Hierarchies by column; entries for columns that are not
        quasi-identifiers are ignored. What :func:`kanon_graph.hierarchy.suggest`
        returns (``(Hierarchy, note)`` pairs) is taken as it is.
    numeric, categorical : list of str, optional
        Override the kind inferred from the column; ``categorical`` also
        keeps ISO date text as text and zero-padded codes as plain values
        (released as sets ``{02139,02141}`` without a hierarchy).
    dates : list of str, or dict of str to str, optional
        Date columns: ``datetime64`` columns, text columns of ISO 8601 dates
        (``1944-12-14``) and of dates such as ``13/03/1961`` whose day/month
        order the cells tell are dates anyway; list a column here to make
        any cell that is no date an error. A mapping gives each column's
        format, a strptime format such as ``"%d/%m/%Y"`` or ``"%m/%d/%Y"``
        (``None``: ISO 8601 or told by the cells), needed when every cell
        could be read either way (``01/02/1970``). A date is measured in
        days and released, without a hierarchy, as a closed interval
        ``[1944-12-14, 2008-01-10]`` (ISO 8601 whatever the input's format).
    date_formats : dict of str to str, optional
        The formats of ``dates`` given as a mapping (filled from it; a
        column here is a date column too).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> schema = kg.Schema(quasi_identifiers=["gender", "age", "zip"],
    ...                    sensitive=["disease"], categorical=["zip"],
    ...                    hierarchies=kg.datasets.paper_003_hierarchies())
    >>> schema.kind("age", table), schema.kind("zip", table)
    ('numeric', 'categorical')
    >>> schema.role("id")
    'insensitive'
    """

    quasi_identifiers: tuple = ()
    sensitive: tuple = ()
    identifiers: tuple = ()
    insensitive: tuple | None = None
    hierarchies: dict = field(default_factory=dict)
    numeric: tuple = ()
    categorical: tuple = ()
    dates: tuple = ()
    date_formats: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        formats = dict(self.date_formats or {})
        if isinstance(self.dates, dict):
            formats.update({str(c): f for c, f in self.dates.items() if f is not None})
            object.__setattr__(self, "dates", tuple(self.dates))
        if formats:
            named = tuple(self.dates) if not isinstance(self.dates, str) else (self.dates,)
            object.__setattr__(self, "dates", named + tuple(c for c in formats
                                                            if c not in named))
        for column, fmt in formats.items():
            if not isinstance(fmt, str) or "%" not in fmt:
                raise SchemaError(f"The date format of column {column!r} must be a strptime "
                                  f"format such as '%d/%m/%Y'. Got {fmt!r}.")
        object.__setattr__(self, "date_formats", formats)
        for name in ("quasi_identifiers", "sensitive", "identifiers", "numeric", "categorical",
                     "dates"):
            object.__setattr__(self, name, _names(getattr(self, name), name))
        if self.insensitive is not None:
            object.__setattr__(self, "insensitive", _names(self.insensitive, "insensitive"))
        if not self.quasi_identifiers:
            raise SchemaError(
                "The 'quasi_identifiers' parameter of Schema must name at least one column."
            )
        roles = {"quasi_identifiers": self.quasi_identifiers, "sensitive": self.sensitive,
                 "identifiers": self.identifiers, "insensitive": self.insensitive or ()}
        seen: dict[str, str] = {}
        for role, names in roles.items():
            for n in names:
                if n in seen:
                    raise SchemaError(
                        f"Column {n!r} is listed both as {seen[n]} and as {role} in the schema."
                    )
                seen[n] = role
        kinds = {"numeric": self.numeric, "categorical": self.categorical, "dates": self.dates}
        for a, b in (("numeric", "categorical"), ("numeric", "dates"), ("dates", "categorical")):
            both = sorted(set(kinds[a]) & set(kinds[b]))
            if both:
                raise SchemaError(f"Column(s) {both} are listed as both {a} and {b}.")
        hierarchies = dict(self.hierarchies or {})
        for column, h in list(hierarchies.items()):
            if (isinstance(h, tuple) and len(h) == 2 and isinstance(h[0], Hierarchy)
                    and isinstance(h[1], str)):           # suggest's (hierarchy, note)
                h = hierarchies[column] = h[0]
            if not isinstance(h, Hierarchy):
                raise SchemaError(
                    f"The hierarchy for column {column!r} must be a Hierarchy, got "
                    f"{type(h).__name__}; use kg.read_hierarchy(path) to load a file."
                )
            if h.name is None:
                h.name = column
        object.__setattr__(self, "hierarchies", hierarchies)

    # ----------------------------------------------------------------- queries
    def role(self, column: str) -> str:
        """The role of ``column``: one of :data:`ROLES`."""
        if column in self.quasi_identifiers:
            return "quasi-identifier"
        if column in self.sensitive:
            return "sensitive"
        if column in self.identifiers:
            return "identifier"
        return "insensitive"

    def kind(self, column: str, table: pd.DataFrame | None = None) -> str:
        """``"numeric"``, ``"date"`` or ``"categorical"``: declared, else from ``table``.

        The rule is :func:`kanon_graph.cells.kinds.column_kind`, shared with the
        encoder and the CLI.
        """
        if table is not None and column in table.columns:
            return column_kind(self, column, table[column])
        if column in self.numeric:
            return "numeric"
        return "date" if column in self.dates else "categorical"

    def date_format(self, column: str) -> str | None:
        """The format given for date column ``column`` (``None``: ISO or told by its cells)."""
        return self.date_formats.get(column)

    def hierarchy(self, column: str) -> Hierarchy | None:
        """The hierarchy of ``column``, or ``None``."""
        return self.hierarchies.get(column)

    def released_columns(self, table: pd.DataFrame) -> list[str]:
        """Columns that appear in a release, in table order (identifiers dropped)."""
        keep = set(self.quasi_identifiers) | set(self.sensitive)
        if self.insensitive is None:
            keep |= set(table.columns) - set(self.identifiers)
        else:
            keep |= set(self.insensitive)
        return [c for c in table.columns if c in keep]

    def check_table(self, table: pd.DataFrame, *, where: str = "anonymize") -> None:
        """Raise a :class:`SchemaError` naming any schema column missing from ``table``.

        A table with two columns of one name is refused too: which of them is
        the quasi-identifier, and which is released as is, would be a guess.
        """
        doubled = table.columns[table.columns.duplicated()].unique().tolist()
        if doubled:
            raise SchemaError(
                f"{where}: the table has several columns named "
                + ", ".join(repr(c) for c in doubled)
                + "; rename or drop the duplicates so every column has one name"
            )
        named = (list(self.quasi_identifiers) + list(self.sensitive) + list(self.identifiers)
                 + list(self.insensitive or ()))
        missing = [c for c in named if c not in table.columns]
        if missing:
            role = self.role(missing[0]).replace("-", " ")
            raise SchemaError(
                f"{where}: {role} column {missing[0]!r} is not in the table"
                + (f" (nor {missing[1:]})" if len(missing) > 1 else "")
                + f"; the table has columns {list(table.columns)}"
            )

    # -------------------------------------------------------------------- files
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (hierarchies by attribute name only)."""
        out: dict[str, Any] = {"quasi_identifiers": list(self.quasi_identifiers)}
        for name in ("sensitive", "identifiers", "numeric", "categorical", "dates"):
            if getattr(self, name):
                out[name] = list(getattr(self, name))
        if self.date_formats:
            out["dates"] = {c: self.date_formats.get(c) for c in self.dates}
        if self.insensitive is not None:
            out["insensitive"] = list(self.insensitive)
        return out

    @classmethod
    def from_dict(cls, spec: dict[str, Any], *, base: str | Path | None = None,
                  hierarchies: dict[str, Hierarchy] | None = None) -> Schema:
        """Build from a mapping (the content of a schema file).

        Keys: ``quasi_identifiers`` (required), ``sensitive``, ``identifiers``,
        ``insensitive``, ``numeric``, ``categorical``, ``dates`` (a list, or a
        mapping from column to date format), and ``hierarchies``: a
        mapping from column to an ARX-format CSV path (relative to ``base``),
        or a folder path read with :func:`~kanon_graph.load_hierarchies`.
        """
        if not isinstance(spec, dict):
            raise SchemaError(f"A schema must be a mapping, got {type(spec).__name__}.")
        known = {"quasi_identifiers", "sensitive", "identifiers", "insensitive",
                 "numeric", "categorical", "dates", "hierarchies"}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise SchemaError(f"Unknown schema key(s) {unknown}; known keys are {sorted(known)}.")
        base = Path(base) if base is not None else Path.cwd()
        hier = dict(hierarchies or {})
        given = spec.get("hierarchies")
        if isinstance(given, str):
            from .hierarchy import load_hierarchies

            folder = base / given
            qis = [str(q) for q in spec.get("quasi_identifiers") or []]
            hier.update(load_hierarchies(folder, columns=qis, missing="ignore"))
        elif isinstance(given, dict):
            for column, path in given.items():
                hier[column] = read_hierarchy(base / path, name=column)
        elif given is not None:
            raise SchemaError("The schema's 'hierarchies' must be a folder or a mapping.")
        args = {k: v for k, v in spec.items() if k != "hierarchies"}
        return cls(hierarchies=hier, **args)

    @classmethod
    def from_file(cls, path: str | Path, *,
                  hierarchies: dict[str, Hierarchy] | None = None) -> Schema:
        """Load a schema from a ``.json``, ``.yaml`` or ``.yml`` file.

        Hierarchy paths inside the file are relative to the file.
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SchemaError(f"schema file {str(path)!r} does not exist") from None
        if path.suffix.lower() == ".json":
            try:
                spec = json.loads(text)
            except json.JSONDecodeError as exc:
                raise SchemaError(f"schema file {str(path)!r}, line {exc.lineno}: {exc.msg}") from None
        else:
            import yaml

            try:
                spec = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                line = f", line {mark.line + 1}" if mark is not None else ""
                raise SchemaError(f"schema file {str(path)!r}{line}: {exc}") from None
        try:
            return cls.from_dict(spec, base=path.parent, hierarchies=hierarchies)
        except SchemaError as exc:
            raise SchemaError(f"schema file {str(path)!r}: {exc}") from None
