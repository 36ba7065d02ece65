"""The frozen result every anonymization returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._display import html
from .metrics._collapsed import collapse_lines

if TYPE_CHECKING:
    from .privacy import Verification
    from .recoding import Release

__all__ = ["AnonymizationResult"]


@dataclass(frozen=True)
class AnonymizationResult:
    """A release, how it was made, and what it achieves.

    Attributes
    ----------
    table : DataFrame
        The released table: identifiers removed, quasi-identifiers recoded,
        suppressed records' quasi-identifiers replaced by ``*``. Rows keep
        the input's order and index, so the table stays aligned with the
        input for evaluation; to publish it use :meth:`write` (rows
        shuffled, no index), not ``table.to_csv()``, which writes the
        index (patient ids, if they are the index) and the input's order.
        A quasi-identifier released as text is a pandas categorical (a
        small code per row, each label once): compare and print it as
        text, or ``.astype(str)`` it before setting a cell to a label it
        does not hold.
    classes : list of ndarray or None
        Per equivalence class, the row *positions* of the input table it
        holds (use them with ``table.iloc`` on the input; suppressed records
        are in no class). None for a Dask input, whose rows are not collected
        (so are ``suppressed_rows`` and ``suppressed_mask``; ``table`` is
        then a lazy Dask DataFrame).
    levels : dict or None
        For a global recoding: the level of every quasi-identifier.
    level_labels : dict or None
        For a global recoding: a readable name of each level (the label of
        the first node at that level, e.g. ``'[20-24]'``).
    metrics : dict
        Every metric computed (see :mod:`kanon_graph.metrics`).
    suppressed : int
        Records whose quasi-identifiers were suppressed (still in ``table``).
    suppressed_rows : ndarray
        Their index *labels* in ``table`` (and in the input table), so
        ``result.table.loc[result.suppressed_rows]`` selects them whatever
        the index is.
    suppressed_mask : ndarray of bool
        True for every suppressed row, aligned with the rows of ``table``
        (``result.table[result.suppressed_mask]``; safe with a non-unique
        index too).
    dropped : int
        Rows removed before anonymizing because of missing values
        (only with ``missing="drop"``).
    verification : Verification
        The privacy check of this very release.
    algorithm : str
    k : int
    stats : dict
        Run statistics (``seconds`` at least) and what the algorithm reports.
    """

    table: pd.DataFrame
    classes: list[np.ndarray] | None
    levels: dict[str, int] | None
    level_labels: dict[str, str] | None
    metrics: dict[str, float]
    suppressed: int
    suppressed_rows: np.ndarray | None
    suppressed_mask: np.ndarray | None
    dropped: int
    verification: Verification
    algorithm: str
    k: int
    stats: dict[str, Any] = field(default_factory=dict)
    release: Release = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    #: A Dask release only: what its counted cells must satisfy wherever they are counted
    #: (kanon_graph.scale._released.CellCheck); :meth:`write` checks them again.
    cell_check: Any = field(default=None, repr=False, compare=False)

    def class_summary(self) -> pd.DataFrame:
        """One row per equivalence class: its released values and size, largest first."""
        data: Any = self.release.data            # an EncodedData
        qis = list(data.schema.quasi_identifiers)
        # positions within the released table (``classes`` holds input positions,
        # which differ once rows with missing values were dropped)
        rows = [self.table.iloc[c[0]][qis].tolist() + [len(c)] for c in self.release.classes()]
        frame = pd.DataFrame(rows, columns=qis + ["size"])
        return frame.sort_values("size", ascending=False, kind="stable").reset_index(drop=True)

    def metric_info(self) -> dict[str, dict[str, Any]]:
        """What each computed metric declares: ``lower_is_better``, ``monotone``, ``description``.

        A metric unregistered since the run is left out.

        Examples
        --------
        >>> import kanon_graph as kg
        >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3)
        >>> res.metric_info()["loss"]["lower_is_better"]
        True
        """
        from .metrics import get_metric

        info = {}
        for name in self.metrics:
            try:
                metric = get_metric(name)
            except ValueError:  # unregistered since the run
                continue
            info[name] = {"lower_is_better": metric.lower_is_better,
                          "monotone": metric.monotone, "description": metric.description}
        return info

    def published_mask(self) -> np.ndarray | None:
        """The rows of ``table`` a publication holds: all, except withheld rows left out.

        ``safepub`` with ``withheld="drop"`` (its default) publishes only the
        released rows; every other release publishes every row (None).

        Examples
        --------
        >>> import kanon_graph as kg
        >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), k=3)
        >>> res.published_mask() is None
        True
        """
        dp = self.stats.get("dp") or {}
        withheld = self.withheld_mask
        if dp.get("withheld_rows") == "drop" and withheld is not None:
            return ~withheld
        return None

    @property
    def withheld_mask(self) -> np.ndarray | None:
        """``safepub``'s withheld rows of ``table`` (``*`` in every column); None otherwise.

        Its unsampled records and those of classes below k. A class released
        with every quasi-identifier ``*`` is suppressed by definition
        (``suppressed_mask``) but not withheld: its sensitive and other
        columns are published, as SafePub releases them.
        """
        mask = getattr(self.release, "withheld_mask", None)
        return None if mask is None else np.asarray(mask, dtype=bool)

    def write(self, path: Any, *, keep_order: bool = False, escape_formulas: bool = False,
              sep: str = ",", seed: int | None = None) -> Any:
        """Write the release as a file safe to publish: shuffled, no index, atomically.

        The rows written are those of :meth:`published_mask` (``safepub``
        leaves its withheld rows out unless ``withheld="star"``). They are put
        in a random order (a fresh order seed, returned as
        ``.seed`` of what is written: keep it private, it undoes the
        order), the index is not written, formula cells are
        counted (and escaped with a leading ``'`` when asked), and the file
        is written beside ``path`` and renamed into place, so an interrupted
        write leaves the previous file or none (see "Publishing a release"
        in the privacy docs).

        A Dask release (``table`` lazy) is written as the command line's
        ``--engine dask`` writes it (:func:`kanon_graph.scale.written.write_dask_release`):
        a folder of files, each row in a file drawn at random, every file
        shuffled, swapped into place whole; the cells written are counted
        as they are written and checked again (k, and l or t), and an input
        file changed since it was read is an error naming it.

        Parameters
        ----------
        path : str or path-like
            A CSV file, or Parquet for a ``.parquet`` name (pyarrow). For a
            Dask release: a folder (Parquet files) or a pattern with ``*``
            such as ``out/part-*.csv``.
        keep_order : bool, default False
            Keep the input's row order. Risky: anyone who knows the order of
            the original file (admission time, record number) can then link
            rows by position.
        escape_formulas : bool, default False
            Prefix cells a spreadsheet would run as formulas (starting with
            ``=``, ``+``, ``-``, ``@``, tab or carriage return, and not a
            plain number) with ``'``.
        sep : str, default ","
            The CSV separator.
        seed : int, optional
            The order seed; by default a fresh, unguessable one. A fixed
            seed gives an order anyone who knows it can undo: for tests and
            reproductions only.

        Returns
        -------
        kanon_graph.io.release.Publishable
            What was written (its ``formulas`` count the formula cells per
            column).

        Examples
        --------
        >>> import os, tempfile, pandas as pd
        >>> import kanon_graph as kg
        >>> table = kg.datasets.paper_003_table()
        >>> res = kg.anonymize(table.set_index(pd.Index(
        ...     [f"patient-{i}" for i in range(len(table))])),
        ...     kg.datasets.paper_003_schema(), k=3)
        >>> path = os.path.join(tempfile.mkdtemp(), "release.csv")
        >>> written = res.write(path)
        >>> text = open(path).read()
        >>> "patient-" in text, len(pd.read_csv(path)) == len(table)
        (False, True)
        """
        from .io.release import publishable
        from .io.tables import write_table

        if not isinstance(self.table, pd.DataFrame):
            from .scale.written import write_dask_release

            return write_dask_release(self, path, seed=seed, keep_order=keep_order,
                                      escape_formulas=escape_formulas, sep=sep)
        rows = self.published_mask()
        table = self.table if rows is None else self.table[rows]
        published = publishable(table, seed=seed, keep_order=keep_order,
                                escape_formulas=escape_formulas)
        write_table(published.table, path, sep=sep)
        return published

    def summary(self) -> str:
        """A few lines a person can read: classes, sizes, suppression, metrics.

        Then one line per quasi-identifier released as ``*`` (or its root)
        on most records, with the cause and a remedy.
        """
        sizes = np.array([len(c) for c in self.classes or []])  # None: a Dask release
        lines = [f"algorithm {self.algorithm}, k={self.k}: {self.verification.describe()}"]
        if self.stats.get("auto"):                       # algorithm="auto" said why
            auto = self.stats["auto"]
            lines.append(f"auto chose {auto['chose']}: {auto['reason']}")
        if self.stats.get("sharding"):                   # whole or shards, and the cost
            lines.append(self.stats["sharding"])
        dp = self.stats.get("dp")
        if dp:                                           # safepub: the guarantee and its k
            withheld = ("left out of the publication (withheld='drop')"
                    if dp.get("withheld_rows") == "drop"
                    else "published as rows of '*' (withheld='star': see its guarantee)")
            lines.append(f"({dp['epsilon']:g}, {dp['delta']:g})-differential privacy: records "
                         f"sampled with probability {dp['beta']:.4f}, k={dp['k']} derived; "
                         f"{dp['not_sampled']} not sampled and {dp['suppressed']} suppressed "
                         f"rows withheld, {withheld}")
        if sizes.size:
            lines.append(f"{len(sizes)} equivalence classes, sizes min {sizes.min()}, "
                         f"median {np.median(sizes):g}, max {sizes.max()}")
        if self.levels is not None:
            lines.append("levels: " + ", ".join(f"{a}={l}" for a, l in self.levels.items()))
        if self.dropped:
            lines.append(f"{self.dropped} row{'' if self.dropped == 1 else 's'} with a "
                         f"missing value {'was' if self.dropped == 1 else 'were'} dropped "
                         f"before anonymizing")
        kept = self.stats.get("missing_kept")
        if kept:
            lines.append(f"{sum(kept.values())} missing cell(s) kept as a value of their own: "
                         + ", ".join(f"{c} {n}" for c, n in kept.items()))
        lines.append("metrics: " + ", ".join(f"{n}={v:.6g}" for n, v in self.metrics.items()))
        lines.extend(collapse_lines(self.stats.get("collapsed_notes") or {}))
        return "\n".join(lines)

    def report(self, path: Any, *, format: str | None = None,
               sampling_fraction: float | None = None, threshold: float = 0.2,
               call: str | None = None, title: str | None = None,
               input_file: Any = None, output_file: Any = None, weights: Any = None,
               population_model: str | None = None) -> Any:
        """Write the privacy report of this release (HTML, or JSON) to ``path``.

        The report re-checks the privacy model from the released cells, and
        shows risk before and after, information loss, class sizes, levels,
        suppression, the call and SHA-256 checksums (see
        :mod:`kanon_graph.report`). It holds no identifier value and no
        original value of a generalized quasi-identifier.

        Parameters
        ----------
        path : str or path-like
            ``.json`` writes JSON; anything else one self-contained HTML file.
        format : {"html", "json"}, optional
            Overrides the extension.
        sampling_fraction : float, optional
            ``n / N``, for the population-uniqueness models; it also estimates
            each class's population size (``f / pi``).
        weights : str or array, optional
            Sampling weights (a column of the input table, or one per input
            row): a class's population size is estimated as the sum of its
            records' weights (sdcMicro's estimate).
        population_model : {"individual", "expansion"}, optional
            How journalist and marketer risk read an estimated population
            size: Benedetti-Franconi individual risk (default) or ``1 / F``
            (see ``docs/privacy.md``, "Individual risk").
        threshold : float
            Risk above which a record counts as at risk (default 0.2).
        call : str, optional
            How the release was made (default: rebuilt from the result).
        title : str, optional
        input_file, output_file : path-like, optional
            The files the tables were read from / written to: their bytes are
            checksummed. By default the checksums are those of the tables
            written as CSV (``to_csv(index=False)``).

        Returns
        -------
        Path

        Examples
        --------
        >>> import os, tempfile
        >>> import kanon_graph as kg
        >>> res = kg.anonymize(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(),
        ...                    k=3, algorithm="mst")
        >>> path = res.report(os.path.join(tempfile.mkdtemp(), "report.html"))
        >>> "Privacy model" in path.read_text()
        True
        """
        from .report._result import report_of_result
        return report_of_result(self, path, format=format, sampling_fraction=sampling_fraction,
                                threshold=threshold, call=call, title=title,
                                input_file=input_file, output_file=output_file,
                                weights=weights, population_model=population_model)

    def __repr__(self) -> str:
        return (f"AnonymizationResult(algorithm={self.algorithm!r}, k={self.k}, "
                f"rows={len(self.table)}, "
                f"classes={'on Dask' if self.classes is None else len(self.classes)}, "
                f"suppressed={self.suppressed}, holds={self.verification.holds})")

    def _repr_html_(self) -> str | None:  # Jupyter's display, registered by kanon_graph.viz
        return html(self)
