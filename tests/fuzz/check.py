"""An independent check of one release, from the released cells alone.

Uses only pandas / numpy and the case's own hierarchy rows (leaf-to-root
paths); never ``kanon_graph.privacy`` nor ``kanon_graph.metrics``. What it
recomputes:

* record accounting: same rows, same index, same order; identifiers gone;
  every non-quasi-identifier column unchanged in the same rows;
* suppression: ``res.suppressed`` equals the rows listed in
  ``res.suppressed_rows`` (index labels of the released table, checked against
  ``res.suppressed_mask`` when present), which are exactly the rows whose
  quasi-identifier cells are all ``*`` (such a row is suppressed by
  definition, a class generalized to the top included), and their count is
  within the budget (``floor(s n)`` for every algorithm; at most k for
  Datafly's default below the top node);
* the classes formed by grouping the released cells are ``res.classes``;
* k, distinct / entropy l and t (equal-distance EMD for a categorical,
  ordered EMD for a numeric sensitive attribute, both against the released
  records only) on the classes formed by grouping the released cells, and
  that ``res.verification`` reports these very figures;
* generalization truth: a hierarchical cell is on its original leaf's path
  (at the reported level for a global release, never above the MAGVal when
  boundaries are asked), a numeric cell's ``[lo-hi]`` contains the value
  exactly (compared as decimals), a ``{a,b}`` set contains it;
* metrics: ``discernibility``, ``cavg``, ``ncp`` and ``loss`` (ARX), per
  docs/metrics.md, from the released cells and the hierarchy rows.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd

SUPPRESSED = "*"
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf"
_RANGE = re.compile(rf"^\[\s*({_NUM})\s*-\s*({_NUM})\s*\]$")
TOL = 1e-9


def _dec(x):
    """Exact decimal of a label or a value (ints stay exact, floats by their repr)."""
    if isinstance(x, (int, np.integer)):
        return Decimal(int(x))
    if isinstance(x, (float, np.floating)):
        return Decimal(repr(float(x)))
    try:
        return Decimal(str(x).strip())
    except InvalidOperation:
        return None


def parse_range(label):
    """``(lo, hi)`` as decimals for ``[lo-hi]`` or a single number; ``None`` otherwise."""
    text = str(label).strip()
    m = _RANGE.match(text)
    if m:
        return _dec(m.group(1)), _dec(m.group(2))
    if re.fullmatch(_NUM, text):
        v = _dec(text)
        return v, v
    return None


def parse_set(label):
    """Members of a released categorical cell: ``{a,b}`` or a single value."""
    text = str(label)
    if text.startswith("{") and text.endswith("}"):
        return text[1:-1].split(",")
    return [text]


class Finding(Exception):
    """A violated property: ``category`` routes it, ``detail`` explains it."""

    def __init__(self, category, detail):
        super().__init__(f"{category}: {detail}")
        self.category = category
        self.detail = detail


def _leaves_under(rows):
    """``{label: set of leaf labels}`` for every node of a hierarchy (rows by leaf)."""
    under = {}
    for leaf, path in rows.items():
        for label in path:     # a label may sit on two levels of one path (ARX's age)
            under.setdefault(label, set()).add(leaf)
    return under


def _magval_level(path, marks):
    """Index on ``path`` of the first marked node (the root when none is marked)."""
    for i, label in enumerate(path):
        if label in marks:
            return i
    return len(path) - 1


def _emd(p, q, ordered):
    if ordered:
        m = len(q)
        return float(np.abs(np.cumsum(p - q)).sum() / (m - 1)) if m > 1 else 0.0
    return float(0.5 * np.abs(p - q).sum())


class Checker:
    """Check ``res`` (an AnonymizationResult) against ``case`` (a generate.Case)."""

    def __init__(self, case, res, *, recoding, supports_suppression, withholds=False):
        self.case = case
        self.res = res
        self.recoding = recoding
        self.supports_suppression = supports_suppression
        # an algorithm that samples records (safepub) withholds rows: every cell `*`, so that
        # a record not sampled says nothing of itself, sensitive and other columns included
        self.withholds = withholds
        self.findings = []

    def fail(self, category, detail):
        self.findings.append(Finding(category, detail))

    def run(self):
        """All checks; returns the list of findings (empty when the release is sound)."""
        try:
            self._accounting()
            released = self._suppression()
            self._truth(released)
            self._privacy(released)
            self._metrics(released)
        except Finding as stop:          # a finding that makes later checks meaningless
            self.findings.append(stop)
        return self.findings

    # -- rows ---------------------------------------------------------------
    def _accounting(self):
        case, out = self.case, self.res.table
        src = case.table
        if len(out) != len(src):
            raise Finding("records lost", f"{len(src)} rows in, {len(out)} out")
        if not out.index.equals(src.index):
            raise Finding("row order/index changed", "released index differs from the input's")
        if case.identifier and case.identifier in out.columns:
            self.fail("identifier released", case.identifier)
        for col in src.columns:
            if col in case.qis or col == case.identifier:
                continue
            if col not in out.columns:
                raise Finding("column lost", col)
            a, b = src[col].to_numpy(), out[col].to_numpy()
            withheld = set(withheld_positions(self.res)) if self.withholds else set()
            starred = [i for i in withheld if b[i] != SUPPRESSED]
            if starred:
                self.fail("withheld row not starred", f"{col!r} row {starred[0]}: {b[starred[0]]!r}")
            bad = [i for i, (x, y) in enumerate(zip(a, b)) if i not in withheld and not x == y]
            if bad:
                i = bad[0]
                self.fail("non-QI cell changed", f"{col!r} row {i}: {a[i]!r} -> {b[i]!r}")
            elif src[col].dtype != out[col].dtype and not withheld:   # `*` turns a column to text
                self.fail("non-QI dtype changed", f"{col!r}: {src[col].dtype} -> "
                          f"{out[col].dtype}")

    def _suppression(self):
        case, res = self.case, self.res
        out = res.table[list(case.qis)].astype(str).to_numpy()
        labels = list(res.suppressed_rows)
        rows = suppressed_positions(res)
        if len(np.unique(rows)) != len(rows) or (len(rows) and rows.min() < 0):
            raise Finding("suppressed_rows invalid", f"{labels[:10]}")
        given = getattr(res, "suppressed_mask", None)
        if given is not None:
            expected = np.zeros(len(res.table), dtype=bool)
            expected[rows] = True
            if not np.array_equal(np.asarray(given, dtype=bool), expected):
                raise Finding("suppressed_mask disagrees with suppressed_rows", f"{labels[:10]}")
        if res.suppressed != len(rows):
            self.fail("suppressed count", f"res.suppressed={res.suppressed}, "
                      f"{len(rows)} suppressed_rows")
        mask = np.zeros(case.n, dtype=bool)
        mask[rows] = True
        if mask.any() and not (out[mask] == SUPPRESSED).all():
            self.fail("suppressed row not starred", f"row {int(np.flatnonzero(mask)[0])}")
        starred = (out == SUPPRESSED).all(axis=1) if len(case.qis) else np.zeros(case.n, bool)
        if (starred & ~mask).any():
            self.fail("all-* row not counted as suppressed",
                      f"row {int(np.flatnonzero(starred & ~mask)[0])}")
        budget = None
        if case.suppression is not None:      # a class released all '*' counts too
            budget = math.floor(case.suppression * case.n)
        elif case.algorithm == "datafly" and not self._at_top():
            budget = case.k
        if budget is not None and mask.sum() > budget:
            self.fail("suppression over budget", f"{int(mask.sum())} suppressed, budget {budget}")
        # generalizing every record to the root is a valid release; it is the whole table
        # suppressed itself when every root reads '*' (a hierarchy's), not otherwise
        root_not_star = any(q not in case.rows for q in case.qis)
        if mask.all() and case.n and not case.boundaries_on() and not self.withholds \
                and root_not_star:
            self.fail("whole table suppressed",
                      f"all {case.n} records suppressed although generalizing to the root "
                      f"is a valid release")
        return ~mask

    def _at_top(self):
        """A global release at the top node: every quasi-identifier at its root's level."""
        levels, rows = self.res.levels, self.case.rows
        return levels is not None and all(
            q in rows and levels.get(q) == max(len(p) for p in rows[q].values()) - 1
            for q in self.case.qis)

    # -- generalization truth -----------------------------------------------------
    def _aggregates(self, released):
        """A microaggregation: each released class shows, per attribute, one value that lies
        within its records' range (numeric) or is one of their values."""
        case, res = self.case, self.res
        codes, m = self._classes(released)
        rows = np.flatnonzero(released)
        for q in case.qis:
            orig, cells = case.table[q].to_numpy()[rows], res.table[q].to_numpy()[rows]
            for c in range(m):
                pick = codes == c
                shown, members = cells[pick][0], orig[pick]
                numeric = case.kinds[q] in ("num", "num_h")
                if numeric:
                    values = [float(_dec(v)) for v in members]
                    inside = min(values) <= float(shown) <= max(values)
                else:
                    inside = str(shown) in set(map(str, members))
                if not inside:
                    raise Finding("aggregate outside its class",
                                  f"{q!r}: {shown!r} for {sorted(set(map(str, members)))}")

    def _truth(self, released):
        case, res = self.case, self.res
        if self.recoding == "microaggregation":
            return self._aggregates(released)
        out = res.table
        levels = res.levels
        bounded = case.boundaries_on()
        for q in case.qis:
            orig = case.table[q].to_numpy()
            cells = out[q].to_numpy()
            kind = case.kinds[q]
            for i in np.flatnonzero(released):
                value, cell = orig[i], cells[i]
                if q in case.rows:
                    path = case.rows[q][str(value)]
                    if str(cell) not in path:
                        raise Finding("released value not an ancestor",
                                      f"{q!r} row {i}: {value!r} released as {cell!r}")
                    at = path.index(str(cell))
                    cap = _magval_level(path, case.marks.get(q, ()))
                    if bounded and at > cap:
                        self.fail("beyond MAGVal", f"{q!r} row {i}: {value!r} -> {cell!r}")
                    capped = bounded and cap < levels[q] and path[cap] == str(cell) \
                        if levels is not None else False
                    if levels is not None and path[levels[q]] != str(cell) and not capped:
                        self.fail("global level mismatch",
                                  f"{q!r} row {i}: {cell!r} is level {at}, reported {levels[q]}")
                elif kind == "num":
                    span = parse_range(cell)
                    v = _dec(value)
                    if span is None or v is None:
                        raise Finding("unparsable numeric label", f"{q!r} row {i}: {cell!r}")
                    if not span[0] <= v <= span[1]:
                        raise Finding("interval does not contain value",
                                      f"{q!r} row {i}: {value!r} released as {cell!r}")
                elif str(value) not in parse_set(cell):
                    raise Finding("set does not contain value",
                                  f"{q!r} row {i}: {value!r} released as {cell!r}")

    # -- privacy --------------------------------------------------------------
    def _classes(self, released):
        cells = self.res.table[list(self.case.qis)].astype(str)[released]
        if not len(cells):
            return np.zeros(0, dtype=np.int64), 0
        codes = cells.groupby(list(self.case.qis), sort=False).ngroup().to_numpy()
        return codes, int(codes.max()) + 1

    def _privacy(self, released):
        case = self.case
        codes, m = self._classes(released)
        self.codes, self.m = codes, m
        if not m:
            return
        sizes = np.bincount(codes, minlength=m)
        v = getattr(self.res, "verification", None)
        if v is not None and int(sizes.min()) != v.k_achieved:
            self.fail("verified k differs from the released cells",
                      f"cells {int(sizes.min())}, res.verification {v.k_achieved}")
        if len(self.res.classes) != m:
            self.fail("class count differs from released cells",
                      f"res.classes has {len(self.res.classes)}, the released cells form {m}")
        if sizes.min() < case.k:
            self.fail("k broken", f"smallest released class {sizes.min()} < k={case.k}")
        s = case.table[case.sensitive].to_numpy()[released]
        if case.l is not None:
            frame = pd.DataFrame({"c": codes, "s": s})
            if case.diversity == "distinct":
                got = frame.groupby("c")["s"].nunique().min()
            else:
                p = frame.groupby("c")["s"].value_counts(normalize=True)
                got = np.exp(-(p * np.log(p)).groupby(level=0).sum()).min()
            if got < case.l - TOL:
                self.fail("l broken", f"{case.diversity} l={got:g} < {case.l:g}")
            if v is not None and v.l_achieved is not None \
                    and not math.isclose(got, v.l_achieved, rel_tol=1e-6, abs_tol=1e-6):
                self.fail("verified l differs from the released cells",
                          f"cells {got:g}, res.verification {v.l_achieved:g}")
        if case.t is not None:
            values, inverse = np.unique(s, return_inverse=True)
            q = np.bincount(inverse, minlength=len(values)) / len(s)
            worst = 0.0
            for c in range(m):
                pick = codes == c
                p = np.bincount(inverse[pick], minlength=len(values)) / pick.sum()
                worst = max(worst, _emd(p, q, case.sensitive_numeric))
            if worst > case.t + TOL:
                self.fail("t broken", f"EMD {worst:.4f} > t={case.t:g} (released records)")
            if v is not None and v.t_achieved is not None \
                    and not math.isclose(worst, v.t_achieved, rel_tol=1e-6, abs_tol=1e-9):
                self.fail("verified t differs from the released cells",
                          f"cells {worst:.6f}, res.verification {v.t_achieved:.6f}")

    # -- metrics --------------------------------------------------------------
    def _cell_costs(self, q, cells):
        """(NCP, ARX loss) of each released cell of attribute ``q`` (docs/metrics.md)."""
        case = self.case
        src = case.table[q].to_numpy()
        if q in case.rows:
            under = _leaves_under(case.rows[q])
            total = len(case.rows[q])
            ncp, loss = [], []
            for cell in cells:
                leaves = under[str(cell)]
                loss.append((len(leaves) - 1) / (total - 1) if total > 1 else 0.0)
                if case.kinds[q] == "num_h":
                    all_v = [float(v) for v in case.rows[q]]
                    vals = [float(v) for v in sorted(leaves)]
                    span = max(all_v) - min(all_v)
                    ncp.append((max(vals) - min(vals)) / span if span else 0.0)
                else:
                    ncp.append(0.0 if len(leaves) <= 1 else len(leaves) / total)
            return np.array(ncp), np.array(loss)
        if case.kinds[q] == "num":
            span = float(np.max(src) - np.min(src))
            widths = np.array([float(parse_range(c)[1] - parse_range(c)[0]) for c in cells])
            cost = widths / span if span else np.zeros(len(cells))
            return cost, cost
        distinct = len(set(map(str, src)))
        sizes = np.array([len(parse_set(c)) for c in cells])
        ncp = np.where(sizes <= 1, 0.0, sizes / distinct)
        loss = (sizes - 1) / (distinct - 1) if distinct > 1 else np.zeros(len(cells))
        return ncp, loss

    def _metrics(self, released):
        case, res = self.case, self.res
        metrics = res.metrics
        n, d, k = case.n, len(case.qis), case.k
        suppressed = int((~released).sum())
        codes, m = self.codes, self.m
        sizes = np.bincount(codes, minlength=m).astype(float) if m else np.zeros(0)
        want = {"discernibility": float((sizes[sizes >= k] ** 2).sum()
                                        + n * sizes[sizes < k].sum() + n * suppressed)}
        # the suppressed records all read '*': together they are one more class
        classes = m + (1 if suppressed else 0)
        if classes:
            want["cavg"] = float(n / (classes * k))
        if self.recoding == "microaggregation":      # aggregates, not ranges: SSE / SST
            if not 0.0 <= metrics.get("sse_sst", -1.0) <= 1.0 + 1e-12:
                self.fail("metric sse_sst out of range", f"{metrics.get('sse_sst')!r}")
            want.pop("ncp", None)
            self._compare(metrics, want)
            return
        ncp_total, losses = float(suppressed * d), []
        cells = res.table[list(case.qis)].astype(str).to_numpy()[released]
        for j, q in enumerate(case.qis):
            ncp, loss = self._cell_costs(q, cells[:, j]) if len(cells) else (np.zeros(0),) * 2
            ncp_total += float(ncp.sum())
            losses.append((float(loss.sum()) + suppressed) / n)
        want["ncp"] = ncp_total
        want["loss"] = float(np.prod([1 + x for x in losses]) ** (1 / d) - 1)
        self._compare(metrics, want)

    def _compare(self, metrics, want):
        for name, value in metrics.items():
            if value is None or (isinstance(value, float) and not math.isfinite(value)):
                self.fail("metric undefined", f"{name}={value!r}")
        for name, expected in want.items():
            got = metrics.get(name)
            if got is None or not math.isfinite(got):
                continue
            if not math.isclose(got, expected, rel_tol=1e-6, abs_tol=1e-6):
                self.fail(f"metric {name} mismatch", f"reported {got!r}, recomputed {expected!r}")


def check_release(case, res, *, recoding, supports_suppression, withholds=False):
    """The findings of every check on ``res``; an empty list when it is sound.

    ``withholds``: the algorithm samples records (safepub), and a withheld row
    (listed in ``res.suppressed_rows``) is ``*`` in every column.
    """
    return Checker(case, res, recoding=recoding, supports_suppression=supports_suppression,
                   withholds=withholds).run()


def withheld_positions(res):
    """safepub's withheld rows: as many as it says, all suppressed (a class at the top is not)."""
    rows, dp = np.flatnonzero(res.withheld_mask), res.stats["dp"]
    if len(rows) != dp["not_sampled"] + dp["suppressed"] or \
            not set(rows.tolist()) <= set(suppressed_positions(res).tolist()):
        raise Finding("withheld rows miscounted", f"{len(rows)} withheld, stats {dp}")
    return rows.tolist()


def suppressed_positions(res):
    """Row positions in ``res.table`` of the index labels in ``res.suppressed_rows``."""
    labels = pd.Index(list(res.suppressed_rows))
    if not len(labels):
        return np.zeros(0, dtype=np.int64)
    return np.asarray(res.table.index.get_indexer(labels), dtype=np.int64)
