"""A release as it leaves the machine: shuffled, without an index, formulas counted.

:func:`publishable` turns a released table into the rows to write:

* **order**: the rows are put in a random order drawn from an *order seed*
  (``numpy.random.default_rng([seed, ORDER_STREAM])``), so nobody who knows
  the order of the original file (admission time, record number) can link
  rows by position; ``keep_order=True`` opts out. The order seed is drawn
  fresh (:func:`fresh_order_seed`) unless one is given: a seed anybody can
  guess (the algorithm's default seed 0, say) gives an order anybody can
  undo, so a fixed order seed is for tests and reproductions only. The seed
  used is returned (and the CLI writes it in its report, which stays with
  the publisher);
* **index**: the index is dropped (an identifier held in the index, such
  as a patient id, never reaches the file);
* **dictionaries**: a categorical column (a released quasi-identifier, or
  any column read as one) keeps only the values its rows hold, in sorted
  order (:func:`plain_dictionaries`). Its categories otherwise follow the
  *input's* order of first appearance, which a Parquet file stores as the
  column's dictionary: its first entry would be the released value of the
  input's first row, and a dropped record's value could stay in it;
* **formula cells**: text cells that a spreadsheet would execute (starting
  with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, and not a
  plain number such as ``-3``) are counted per column; with
  ``escape_formulas=True`` they are written with a leading ``'``.

:func:`order_of` gives the permutation itself, so ``kanon-graph evaluate
--unshuffle SEED`` can put a release back in the original's order.

A release written in several files (``--engine dask``) is spread over them
at random: :func:`file_of_rows` draws each row's file from the order seed
(so a file is a random sample of every input file, never the rows of one),
and :func:`file_order` shuffles the rows of each file.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cells.kinds import parse_number

__all__ = ["ORDER_STREAM", "fresh_order_seed", "order_of", "order_seed_from", "formula_cells",
           "publishable", "Publishable", "plain_dictionaries", "file_count", "file_of_rows",
           "file_order"]

ORDER_STREAM = 0x0DE7
_FORMULA_START = ("=", "+", "-", "@", "\t", chr(13))


def fresh_order_seed() -> int:
    """A new order seed from the operating system's randomness (63 bits): not guessable."""
    return secrets.randbits(63)


def order_seed_from(value: str) -> int:
    """The order seed named by ``value``: an integer, or the JSON report of the run.

    ``kanon-graph anonymize --report REPORT.json`` records the order seed of
    the written release in ``publication.order_seed``; ``evaluate`` and
    ``report`` take either that number or the report's path.
    """
    import json
    from pathlib import Path

    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        pass
    path = Path(text)
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"takes the order seed or the run's JSON report; cannot "
                         f"read {text!r}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{text!r} is not a JSON report (line {exc.lineno}: "
                         f"{exc.msg})") from None
    seed = (report.get("publication") or {}).get("order_seed") if isinstance(report, dict) \
        else None
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the report {text!r} has no publication.order_seed "
                         f"(was the release written with --keep-order?)")
    return seed


def order_of(n: int, seed: int) -> np.ndarray:
    """The row order of a written release of ``n`` rows made with ``seed``.

    Row ``i`` of the written file is row ``order_of(n, seed)[i]`` of
    ``result.table``.

    >>> order_of(5, 0).tolist() == order_of(5, 0).tolist(), sorted(order_of(5, 0).tolist())
    (True, [0, 1, 2, 3, 4])
    """
    return np.random.default_rng([int(seed), ORDER_STREAM]).permutation(int(n))


def file_count(rows: int, rows_per_file: int) -> int:
    """How many files a release of ``rows`` rows is spread over: one per ``rows_per_file``.

    It depends on the number of rows only, never on how the input was split.

    >>> file_count(0, 100), file_count(100, 100), file_count(101, 100)
    (1, 1, 2)
    """
    return max(1, -(-int(rows) // int(rows_per_file)))


def file_of_rows(n: int, seed: int, part: int, files: int) -> np.ndarray:
    """The output file of each of the ``n`` rows of input partition ``part``.

    Each row's file is drawn uniformly from ``files`` with the order seed
    (a stream of its own per partition), so every input file's rows are
    spread over every output file.

    >>> file_of_rows(6, 0, 1, 3).tolist() == file_of_rows(6, 0, 1, 3).tolist()
    True
    """
    rng = np.random.default_rng([int(seed), ORDER_STREAM, 3, int(part)])
    return rng.integers(0, int(files), size=int(n))


def file_order(n: int, seed: int, file: int) -> np.ndarray:
    """The row order of output file ``file`` (``n`` rows): row ``i`` written is row
    ``file_order(n, seed, file)[i]`` of its rows gathered in input order.

    >>> sorted(file_order(4, 0, 2).tolist())
    [0, 1, 2, 3]
    """
    return np.random.default_rng([int(seed), ORDER_STREAM, 4, int(file)]).permutation(int(n))


def plain_dictionaries(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every categorical column's categories reduced to the values its rows
    hold, sorted (an ordered categorical keeps its declared order).

    Nothing of a column's categories then depends on the input's row order,
    and no value that no written row holds is written.

    >>> t = pd.DataFrame({"zip": pd.Categorical(["130**", "148**", "130**"],
    ...                                         categories=["148**", "999**", "130**"])})
    >>> list(plain_dictionaries(t)["zip"].cat.categories)
    ['130**', '148**']
    """
    columns = [c for c in table.columns if isinstance(table[c].dtype, pd.CategoricalDtype)]
    if not columns:
        return table
    out = table.copy()
    for column in columns:
        cells = out[column].cat.remove_unused_categories()
        if not cells.cat.ordered:
            categories = cells.cat.categories
            try:
                ranked = categories.sort_values()
            except TypeError:          # mixed kinds of value: sorted by their text
                ranked = categories[np.argsort(categories.astype(str), kind="stable")]
            cells = cells.cat.reorder_categories(ranked)
        out[column] = cells
    return out


def _is_formula(value: object) -> bool:
    return (isinstance(value, str) and value.startswith(_FORMULA_START)
            and parse_number(value) is None)


def formula_cells(table: pd.DataFrame) -> dict[str, int]:
    """``{column: count}`` of the text cells a spreadsheet would run as a formula.

    >>> formula_cells(pd.DataFrame({"a": ["=1+1", "-3", "x"], "b": ["@SUM(A1)", "+", "y"]}))
    {'a': 1, 'b': 2}
    """
    counts = {}
    for column in table.columns:
        cells = table[column]
        if isinstance(cells.dtype, pd.CategoricalDtype):   # a released QI: each label once
            flags = np.array([_is_formula(c) for c in cells.cat.categories], dtype=bool)
            codes = cells.cat.codes.to_numpy()
            n = int(flags[codes[codes >= 0]].sum())
        elif cells.dtype != object and not pd.api.types.is_string_dtype(cells.dtype):
            continue
        else:
            n = int(cells.map(_is_formula).to_numpy(dtype=bool).sum())   # 0 when empty
        if n:
            counts[str(column)] = n
    return counts


@dataclass(frozen=True)
class Publishable:
    """The rows to write and what was done to them.

    Attributes
    ----------
    table : DataFrame
        Shuffled (unless ``keep_order``), index ``0..n-1`` (never written),
        categorical columns with sorted categories (:func:`plain_dictionaries`).
    shuffled : bool
    formulas : dict
        ``{column: count}`` of formula cells found (before escaping).
    escaped : bool
        Whether those cells were written with a leading ``'``.
    seed : int or None
        The order seed the rows were shuffled with (None: not shuffled);
        ``order_of(len(table), seed)`` undoes it, so keep it with the
        publisher, never with the release.
    files : int or None
        A release written in several files (``--engine dask``): how many.
    """

    table: pd.DataFrame
    shuffled: bool
    formulas: dict[str, int] = field(default_factory=dict)
    escaped: bool = False
    seed: int | None = None
    files: int | None = None

    def describe(self) -> str:
        """One line for the summary: order and formula cells."""
        spread = "" if self.files is None else \
            f"spread at random over {self.files} file{'' if self.files == 1 else 's'} and "
        order = (f"rows {spread}shuffled (order seed in the report, not in the release), "
                 f"no index" if self.shuffled
                 else "rows in the input's order (--keep-order), no index")
        if not self.formulas:
            return order + "; no formula cells"
        where = ", ".join(f"{c} ({n})" for c, n in self.formulas.items())
        what = "escaped with a leading '" if self.escaped else \
            "written as they are (--escape-formulas prefixes them with ')"
        return (f"{order}; {sum(self.formulas.values())} cell(s) a spreadsheet would run "
                f"as formulas, in {where}: {what}")


def publishable(table: pd.DataFrame, *, seed: int | None = None, keep_order: bool = False,
                escape_formulas: bool = False) -> Publishable:
    """The rows of ``table`` as they should be written (see the module docstring).

    Parameters
    ----------
    table : DataFrame
        A released table (in memory).
    seed : int, optional
        The order seed; by default a fresh one (:func:`fresh_order_seed`),
        returned as ``Publishable.seed``.
    keep_order : bool
        Keep the rows in the table's order. Risky: the order of the original
        file then links released rows to people.
    escape_formulas : bool
        Prefix formula cells with ``'``.

    Examples
    --------
    >>> t = pd.DataFrame({"age": ["[20-29]"] * 3, "note": ["=1+1", "a", "b"]},
    ...                  index=["id-7", "id-8", "id-9"])
    >>> p = publishable(t, seed=0, escape_formulas=True)
    >>> list(p.table.index), sorted(p.table["note"]), p.formulas
    ([0, 1, 2], ["'=1+1", 'a', 'b'], {'note': 1})
    """
    formulas = formula_cells(table)
    out = table.reset_index(drop=True)
    if keep_order:
        seed = None
    else:
        seed = fresh_order_seed() if seed is None else int(seed)
        out = out.iloc[order_of(len(out), seed)].reset_index(drop=True)
    out = plain_dictionaries(out)
    if escape_formulas and formulas:
        out = out.copy()
        for column in formulas:
            cells = out[column].astype(object)
            out[column] = cells.where(~cells.map(_is_formula).to_numpy(dtype=bool),
                                      "'" + cells.astype(object).astype(str))
    return Publishable(out, shuffled=not keep_order, formulas=formulas,
                       escaped=bool(escape_formulas and formulas), seed=seed)
