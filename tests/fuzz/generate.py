"""Seeded random anonymization requests for the fuzz suite.

One integer seed gives one :class:`Case`: a table of 1-400 rows with 1-6
quasi-identifiers (categorical and numeric, with hierarchies of varied depth
and fan-out or without), skewed or uniform values with duplicates, a
sensitive and an insensitive column, and a request (algorithm, k from 1 to
n + 1, optional l / t / suppression budget / MAGVal boundaries). A case keeps
the hierarchies as plain leaf-to-root rows and MAGVal marks as labels, so
the checker can judge a release from them without the library.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

import kanon_graph as kg

KINDS = ("cat_h", "num_h", "num", "cat")   # with / without a hierarchy
SUPPRESSION = (None, None, 0.0, 0.05, 0.2, 0.5, 1.0)


@dataclass(frozen=True)
class Case:
    """A table, its hierarchies (as rows) and one request to ``kg.anonymize``."""

    seed: int
    table: pd.DataFrame
    qis: tuple
    kinds: dict                      # qi -> one of KINDS
    rows: dict                       # qi -> {leaf label: [leaf, parent, ..., root]}
    marks: dict                      # qi -> set of marked (MAGVal) labels
    sensitive: str
    sensitive_numeric: bool
    algorithm: str
    k: int
    l: float | None = None
    diversity: str = "distinct"
    t: float | None = None
    suppression: float | None = None
    respect_boundaries: bool | None = None
    identifier: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def n(self):
        return len(self.table)

    def schema(self):
        """The :class:`kg.Schema` of the case, hierarchies built from ``rows``."""
        hierarchies = {}
        for q in self.qis:
            if q in self.rows:
                h = kg.Hierarchy.from_rows(list(self.rows[q].values()), name=q)
                for label in sorted(self.marks.get(q, ())):
                    h.mark_magval(label)
                hierarchies[q] = h
        return kg.Schema(quasi_identifiers=list(self.qis), sensitive=[self.sensitive],
                         identifiers=[self.identifier] if self.identifier else [],
                         hierarchies=hierarchies,
                         numeric=[q for q in self.qis if self.kinds[q] in ("num_h", "num")],
                         categorical=[q for q in self.qis if self.kinds[q] in ("cat_h", "cat")])

    def boundaries_on(self):
        """Whether the release must respect MAGVal: as asked, else the algorithm's default."""
        if self.respect_boundaries is not None:
            return self.respect_boundaries
        fn = algorithm_info(self.algorithm).function
        if fn is None:                                   # auto: the facade's default (none)
            return False
        param = inspect.signature(fn).parameters.get("respect_boundaries")
        return bool(param is not None and param.default is True)

    def kwargs(self):
        """Keyword arguments of the request (beyond table, schema, k)."""
        out = dict(algorithm=self.algorithm, sensitive=self.sensitive, seed=0)
        if self.l is not None:
            out.update(l=self.l, diversity=self.diversity)
        if self.t is not None:
            out["t"] = self.t
        if self.suppression is not None:
            out["suppression"] = self.suppression
        if self.respect_boundaries is not None:
            out["respect_boundaries"] = self.respect_boundaries
        out.update(self.extra)
        return out

    def request_k(self):
        """The k passed to anonymize: None where the algorithm derives its own."""
        return None if algorithm_info(self.algorithm).derives_k is not None else self.k

    def with_rows(self, keep):
        """The same request on a subset of rows (positions ``keep``), k clamped to n."""
        table = self.table.iloc[np.asarray(keep, dtype=np.int64)]
        return replace(self, table=table, k=max(1, min(self.k, len(table))))

    def without_qi(self, q):
        """The same request with quasi-identifier ``q`` removed (column, hierarchy, marks)."""
        qis = tuple(x for x in self.qis if x != q)
        return replace(self, table=self.table.drop(columns=[q]), qis=qis,
                       kinds={x: self.kinds[x] for x in qis},
                       rows={x: r for x, r in self.rows.items() if x != q},
                       marks={x: m for x, m in self.marks.items() if x != q})

    def trimmed(self):
        """The same request with every hierarchy cut down to the leaves in the table."""
        rows = {}
        for q, paths in self.rows.items():
            present = set(map(str, self.table[q]))
            rows[q] = {leaf: path for leaf, path in paths.items() if leaf in present}
        marks = {q: {m for m in self.marks.get(q, ())
                     if any(m in path[1:-1] for path in rows[q].values())} for q in rows}
        return replace(self, rows=rows, marks=marks)

    def describe(self):
        """A runnable Python reproducer of the case."""
        lines = ["import pandas as pd, kanon_graph as kg",
                 f"table = pd.DataFrame({self.table.to_dict(orient='list')!r},",
                 f"                     index={self.table.index.tolist()!r})",
                 "hierarchies = {}"]
        for q in self.qis:
            if q in self.rows:
                lines.append(f"hierarchies[{q!r}] = kg.Hierarchy.from_rows("
                             f"{list(self.rows[q].values())!r}, name={q!r})")
                for m in sorted(self.marks.get(q, ())):
                    lines.append(f"hierarchies[{q!r}].mark_magval({m!r})")
        schema = self.schema()
        lines += [f"schema = kg.Schema(quasi_identifiers={list(self.qis)!r}, "
                  f"sensitive=[{self.sensitive!r}], identifiers={list(schema.identifiers)!r},",
                  f"                   numeric={list(schema.numeric)!r}, "
                  f"categorical={list(schema.categorical)!r}, hierarchies=hierarchies)",
                  f"res = kg.anonymize(table, schema, k={self.k}, **{self.kwargs()!r})"]
        return "\n".join(lines)


def _weights(rng, m):
    """Uniform or Zipf-like skewed weights over m values."""
    if m == 1 or rng.random() < 0.5:
        return np.full(m, 1.0 / m)
    w = 1.0 / np.arange(1, m + 1) ** rng.uniform(0.8, 2.5)
    rng.shuffle(w)
    return w / w.sum()


def _tree(rng, prefix, height):
    """Leaf-to-root rows of a random tree of ``height`` levels, labels unique."""
    paths = [["*"]]
    counter = 0
    for level in range(height - 1, -1, -1):
        grown = []
        for path in paths:
            for _ in range(int(rng.integers(1, 5))):
                counter += 1
                label = f"{prefix}{counter}" if level == 0 else f"{prefix.upper()}{level}_{counter}"
                grown.append([label] + path)
        paths = grown
        if len(paths) > 60:          # keep the domain of one attribute moderate
            paths = paths[:60]
    return {p[0]: p for p in paths}


def _numeric_tree(rng, height):
    """Integer leaves with interval groups ``[lo-hi]`` over consecutive leaves."""
    start = int(rng.choice([0, -50, 17, 1000]))
    leaves = [start + i for i in range(int(rng.integers(2, 40)))]
    rows = {str(v): [str(v)] for v in leaves}
    width = 1
    for level in range(1, height):
        width *= int(rng.integers(2, 4))         # nested: each band splits its parent's
        for v in leaves:
            lo = start + ((v - start) // width) * width
            hi = min(lo + width - 1, leaves[-1])
            rows[str(v)].append(f"[{lo}-{hi}]")
    for v in leaves:
        rows[str(v)].append("*")
    return rows


def _marks(rng, rows):
    """Random MAGVal marks on inner nodes (never a leaf, never the root)."""
    inner = sorted({label for path in rows.values() for label in path[1:-1]})
    if not inner or rng.random() < 0.5:
        return set()
    return set(rng.choice(inner, size=int(rng.integers(1, min(4, len(inner)) + 1)),
                          replace=False).tolist())


def _numeric_values(rng, n):
    style = rng.integers(0, 4)
    if style == 0:
        return rng.integers(0, int(rng.integers(1, 30)), n)
    if style == 1:
        return rng.integers(-10**6, 10**6, n)
    if style == 2:
        return np.round(rng.normal(0, 10 ** rng.uniform(-3, 4), n), int(rng.integers(0, 8)))
    pool = rng.uniform(-1e3, 1e3, int(rng.integers(1, 8)))
    return pool[rng.integers(0, len(pool), n)]


#: The facade's default, fuzzed beside the registered algorithms (it is no registry entry).
AUTO = "auto"

_AUTO_INFO = SimpleNamespace(name=AUTO, function=None, recoding=None, needs_hierarchies=False,
                             supports_suppression=True, supports_boundaries=True,
                             derives_k=None)


def algorithm_info(name):
    """The registry's entry for ``name``; for ``"auto"``, what the fuzzer needs of one."""
    return _AUTO_INFO if name == AUTO else kg.registry.get_algorithm(name)


def make_case(seed, algorithm=None, *, max_rows=400):
    """The random case of ``seed`` (``algorithm`` chosen from the registry unless given)."""
    rng = np.random.default_rng(seed)
    names = [*kg.algorithms(), AUTO]
    algorithm = algorithm or names[seed % len(names)]
    info = algorithm_info(algorithm)
    bucket = rng.random()
    hi = max(1, min(max_rows, 400))
    n = int(rng.integers(1, min(10, hi) + 1)) if bucket < 0.3 else \
        int(rng.integers(1, min(60, hi) + 1)) if bucket < 0.7 else int(rng.integers(1, hi + 1))
    d = int(rng.integers(1, 7))
    pool = ("cat_h", "num_h") if info.needs_hierarchies and rng.random() < 0.9 else KINDS
    cols, kinds, rows, marks = {}, {}, {}, {}
    qis = tuple(f"q{i}" for i in range(d))
    for i, q in enumerate(qis):
        kind = str(rng.choice(pool))
        kinds[q] = kind
        if kind == "cat_h":
            rows[q] = _tree(rng, chr(ord("a") + i), int(rng.integers(1, 5)))
        elif kind == "num_h":
            rows[q] = _numeric_tree(rng, int(rng.integers(1, 5)))
        if kind in ("cat_h", "num_h"):
            marks[q] = _marks(rng, rows[q])
            leaves = list(rows[q])
            picked = rng.choice(len(leaves), size=n, p=_weights(rng, len(leaves)))
            values = [leaves[j] for j in picked]
            cols[q] = [int(v) for v in values] if kind == "num_h" else values
        elif kind == "num":
            cols[q] = _numeric_values(rng, n)
        else:
            domain = [f"v{j}" for j in range(int(rng.integers(1, 12)))]
            cols[q] = [domain[j] for j in rng.choice(len(domain), size=n,
                                                    p=_weights(rng, len(domain)))]
    if n > 1 and rng.random() < 0.3:             # whole duplicate rows
        src = rng.integers(0, n, n // 2)
        dst = rng.integers(0, n, n // 2)
        for q in qis:
            arr = np.array(cols[q], dtype=object)
            arr[dst] = arr[src]
            cols[q] = arr.tolist() if kinds[q] != "num" else np.asarray(arr.tolist())
    sensitive_numeric = bool(rng.random() < 0.4)
    m = int(rng.integers(1, 6))
    s_pick = rng.choice(m, size=n, p=_weights(rng, m))
    cols["s"] = (s_pick * 10 + 3).astype(np.int64) if sensitive_numeric \
        else [f"s{j}" for j in s_pick]
    cols["note"] = [f"r{j}" for j in range(n)]
    identifier = None
    if rng.random() < 0.3:
        identifier = "name"
        cols["name"] = [f"person{j}" for j in range(n)]
    table = pd.DataFrame(cols)
    if rng.random() < 0.3:                       # a non-default index
        table.index = pd.Index(rng.permutation(n) * 7 + 3)
    k = int(rng.choice([1, 2, 2, 3, 5, int(rng.integers(1, n + 2))]))
    l = t = None
    diversity = "distinct"
    if rng.random() < 0.3:
        l = float(rng.choice([1, 2, 2, 3, 4]))
        if rng.random() < 0.3:
            diversity = "entropy"
            l = float(rng.choice([1.0, 1.3, 1.8]))
    if rng.random() < 0.25:
        t = float(rng.choice([0.0, 0.1, 0.3, 0.5, 0.8, 1.0]))
    suppression = SUPPRESSION[int(rng.integers(0, len(SUPPRESSION)))]
    respect = None
    if any(marks.get(q) for q in qis) and rng.random() < 0.6:
        respect = bool(info.supports_boundaries or rng.random() < 0.1)
    extra = {}
    if info.derives_k is not None:               # safepub: k, l, t and the budget are its own
        l = t = suppression = None
        extra["epsilon"] = float(rng.choice([0.5, 1.0, 2.0, 4.0]))
    return Case(seed, table, qis, kinds, rows, marks, "s", sensitive_numeric, algorithm, k,
                l, diversity, t, suppression, respect, identifier, extra)
