"""ARX 3.9.2 beside kanon_graph in the same run (issues 30 and 32).

``../shared/arx/`` builds ARX 3.9.2 from its public source and a small driver,
``ArxRun``, that runs ARX's local recoding or its optimal full-domain search
on a table of your own (its README says how to build it). Set ``ARX_BUILD`` to
the build folder and the benchmarks that import this module add ARX's row:

* :func:`run` writes the table and *the same hierarchy objects our run uses*
  (``kg.write_hierarchy``, without MAGVal marks, which ARX does not know) to a
  temporary folder, runs ``ArxRun`` in one JVM (warm-up runs, then measured
  runs) and returns every run's timing line with ARX's released table;
* :func:`score` scores ARX's released table with **our** formula: the table is
  read back by :func:`kanon_graph.evaluate` (ARX's suppressed rows, marked in
  ``OUT.csv.outliers``, cost 1 per cell) and the mean over the
  quasi-identifiers of :func:`kanon_graph.metrics.arx_loss_per_attribute` is
  taken -- the number ``quality.py`` reports for our algorithms. ARX's own
  ``arx_granularity_loss`` (1 - granularity, weighted by 1 - 1/N) is kept in
  the timing lines but never set beside our mean Loss.

Searches ``ArxRun`` does not run -- Flash on lattices above ARX's default
limit of 100,000 nodes, its genetic algorithm, its heuristic search -- are run
by ``benchmarks/java/ArxSearch.java`` (this repository's, compiled with
``javac`` against the build's classpath on first use, into the temporary
folder): ``run("flash", ...)``, ``run("genetic", ..., millis=10000)``.

Run alone it prints ARX's local recoding of a suite table::

    ARX_BUILD=/work/arx/build KANON_GRAPH_DATA=/work/shared/data \\
        python benchmarks/arx.py --table adult --k 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg


def build_folder() -> Path | None:
    """The ARX build named by ``ARX_BUILD``, or None when it is unset or not built."""
    folder = os.environ.get("ARX_BUILD")
    if not folder:
        return None
    path = Path(folder)
    if not (path / "classpath").exists():
        raise SystemExit(f"ARX_BUILD={folder} holds no 'classpath' file: build ARX with "
                         f"../shared/arx/build.sh first (its README says how)")
    return path


@dataclass
class ArxResult:
    """ARX's timing lines and the first measured run's released table.

    ``runs`` holds the measured runs' lines, ``warmups`` the warm-up runs'
    (in order: ``warmups[1]`` is the run after one warm-up).
    """

    runs: list
    released: pd.DataFrame
    outliers: np.ndarray
    warmups: list = field(default_factory=list)

    def median(self, key: str) -> float:
        """The median of ``key`` over the measured runs (never the warm-ups)."""
        return float(np.median([r[key] for r in self.runs]))


def leaf_labels(table: pd.DataFrame, schema) -> pd.DataFrame:
    """Every quasi-identifier cell as the label of the hierarchy leaf it is encoded to.

    ARX matches a cell to its hierarchy row by text; our encoding matches by
    value (``17828.0`` to the leaf ``17828``, a date to its ISO label). Writing
    the leaf each cell was encoded to hands ARX exactly the values our run
    sees.
    """
    from kanon_graph.encoding import encode

    with warnings.catch_warnings():      # the inferred kinds were said by our own run
        warnings.simplefilter("ignore")
        data = encode(table, schema)
    if data.n != len(table):
        raise SystemExit("the table has rows with missing values; ArxRun takes complete rows")
    return pd.DataFrame({a.name: np.asarray(a.domain, dtype=object)[a.codes]  # QIs only
                         for a in data.attributes})


def _write_inputs(folder: Path, table: pd.DataFrame, schema, sensitive=None,
                  sensitive_hierarchy=None) -> Path:
    """The table as ';'-text and one ARX hierarchy file per quasi-identifier.

    ``sensitive`` (a column name) joins the table as its text; its
    ``sensitive_hierarchy`` (for hierarchical t-closeness) is written too.
    """
    for qi in schema.quasi_identifiers:
        if schema.hierarchy(qi) is None:
            raise SystemExit(f"ARX needs a hierarchy for every quasi-identifier; {qi!r} has none")
    cells = leaf_labels(table, schema)
    if sensitive is not None:
        if table[sensitive].isna().any():
            raise SystemExit(f"the sensitive column {sensitive!r} has missing values")
        cells[sensitive] = table[sensitive].astype(str).to_numpy()
    for column in cells.columns:
        if cells[column].astype(str).str.contains(";", regex=False).any():
            raise SystemExit(f"column {column!r} holds ';', ArxRun's separator")
    data = folder / "table.csv"
    cells.to_csv(data, sep=";", index=False)
    hdir = folder / "hierarchies"
    hdir.mkdir()
    for qi in schema.quasi_identifiers:
        kg.write_hierarchy(schema.hierarchy(qi), hdir / f"{qi}.csv", sep=";", mark_magvals=False)
    if sensitive_hierarchy is not None:
        kg.write_hierarchy(sensitive_hierarchy, hdir / f"{sensitive}.csv", sep=";",
                           mark_magvals=False)
    return data


SEARCHES = ("flash", "genetic", "heuristic")
"""Searches run by ``java/ArxSearch.java`` (compiled on first use): Flash without ARX's
limit on the lattice size (``ArxRun optimal`` refuses lattices above 100,000 nodes), the
genetic algorithm and the bottom-up heuristic search."""


def _search_classes(classpath: str, name: str = "ArxSearch") -> Path:
    """The folder of ``java/<name>.class``, compiled against ``classpath`` once per source."""
    source = Path(__file__).resolve().parent / "java" / f"{name}.java"
    stamp = hashlib.sha256(source.read_bytes() + classpath.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"kanon-graph-arx-{name}-{stamp}"
    if not (folder / f"{name}.class").exists():
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["javac", "-d", str(folder), "-cp", classpath, str(source)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"javac {name}.java failed: {done.stderr.strip()[-2000:]}")
    return folder


def sensitive_environment(sensitive: str, l: str | None = None, t: float | None = None,
                          distance: str = "equal") -> dict:
    """The environment that gives ARX's runners a sensitive column and its model.

    ``l`` as ArxRun takes it (``"distinct:2"``, ``"entropy:2.0"``,
    ``"recursive:3.0,2"``); ``t`` with the ``distance`` ``"equal"`` (ArxRun),
    ``"ordered"`` or ``"hierarchical"`` (``java/ArxCloseness.java``).

    >>> sensitive_environment("cost", t=0.2, distance="ordered")
    {'ARX_SENSITIVE': 'cost', 'ARX_T': '0.2', 'ARX_T_DISTANCE': 'ordered'}
    """
    if distance not in ("equal", "ordered", "hierarchical"):
        raise ValueError(f"distance must be equal, ordered or hierarchical, not {distance!r}")
    env = {"ARX_SENSITIVE": sensitive}
    if l is not None:
        env["ARX_L"] = l
    if t is not None:
        env["ARX_T"] = str(t)
        if distance != "equal":
            env["ARX_T_DISTANCE"] = distance
    if l is not None and "ARX_T_DISTANCE" in env:
        raise ValueError("ArxCloseness runs t alone: l with an ordered or hierarchical t")
    return env


def run(mode: str, table: pd.DataFrame, schema, k: int, *, suppression: float = 0.0,
        warmup: int = 1, rounds: int = 1, build: Path | None = None,
        timeout: float | None = None, millis: int = 10_000,
        dp: tuple | None = None, sensitive: dict | None = None,
        sensitive_hierarchy=None) -> ArxResult:
    """Run ARX's ``local`` recoding, ``optimal`` search, ``dp`` (SafePub) or a best-effort search.

    ``dp`` is ``(epsilon, delta, search_budget, steps)`` for ``mode="dp"``
    (``k`` is then ignored: ARX derives it from epsilon and delta).

    One JVM: ``rounds`` measured runs follow ``warmup`` unmeasured ones (the
    JVM compiles as it goes); a run longer than ``timeout`` seconds raises
    RuntimeError. Only the quasi-identifiers are handed to ARX; every
    other column would be insensitive to it and costs nothing. ``flash``,
    ``genetic`` and ``heuristic`` (:data:`SEARCHES`) run Flash without ARX's
    lattice-size limit and ARX's best-effort searches (with a time limit of
    ``millis`` milliseconds), with the ``suppression`` limit.

    ``sensitive`` (``local`` only) is :func:`sensitive_environment`'s
    output: the sensitive column joins the table handed to ARX, and a
    t-closeness with the ordered or hierarchical distance runs
    ``java/ArxCloseness.java`` (with ``sensitive_hierarchy`` for the
    hierarchical one) instead of ArxRun.
    """
    build = build or build_folder()
    if build is None:
        raise SystemExit("set ARX_BUILD to an ARX build (../shared/arx/README.md)")
    qis = list(schema.quasi_identifiers)
    with tempfile.TemporaryDirectory(prefix="arx-") as tmp:
        folder = Path(tmp)
        column = (sensitive or {}).get("ARX_SENSITIVE")
        if column is not None and mode != "local":
            raise ValueError("a sensitive model is for mode 'local'")
        data = _write_inputs(folder, table, schema, column, sensitive_hierarchy)
        out = folder / "out.csv"
        args = [mode, str(data), ",".join(qis), str(folder / "hierarchies")]
        if mode == "dp":
            if dp is None:
                raise ValueError("mode 'dp' needs dp=(epsilon, delta, search_budget, steps)")
            args += [str(v) for v in dp]
        else:
            args.append(str(k))
        if mode in ("optimal", *SEARCHES):
            args.append(str(suppression))
        if mode in SEARCHES:
            args.append(str(int(millis)))
        args += [str(warmup), str(rounds), str(out)]
        classpath = (build / "classpath").read_text().strip()
        main_class = "ArxRun"
        if mode in SEARCHES:
            classpath = f"{_search_classes(classpath)}{os.pathsep}{classpath}"
            main_class = "ArxSearch"
        if "ARX_T_DISTANCE" in (sensitive or {}):
            classpath = f"{_search_classes(classpath, 'ArxCloseness')}{os.pathsep}{classpath}"
            main_class = "ArxCloseness"
            args = args[1:]                         # ArxRun local's arguments without the mode
        env = {key: value for key, value in os.environ.items()
               if key not in ("ARX_SENSITIVE", "ARX_L", "ARX_T", "ARX_T_DISTANCE")}
        env.update(sensitive or {})
        try:
            done = subprocess.run(["java", "-cp", classpath, main_class, *args],
                                  capture_output=True, text=True, check=False, timeout=timeout,
                                  env=env)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"ArxRun {mode} stopped after {timeout:.0f} s") from None
        if done.returncode != 0:
            raise RuntimeError(f"ArxRun {mode} failed ({done.returncode}): "
                               f"{done.stderr.strip()[-2000:]}")
        lines = [json.loads(line[5:]) for line in done.stdout.splitlines()
                 if line.startswith("JSON ")]
        if not out.exists():
            raise RuntimeError(f"ARX {mode} released no table (no transformation satisfies "
                               f"the model)")
        released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
        outliers = np.loadtxt(str(out) + ".outliers", dtype=int).astype(bool)
    # one line per run, in order: the warm-ups first (before this split, ``median`` took
    # them in with the measured runs)
    return ArxResult(lines[warmup:], released, outliers, warmups=lines[:warmup])


def score(table: pd.DataFrame, schema, result: ArxResult, k: int, **model) -> dict:
    """ARX's release scored with the suite's formula (mean per-attribute Loss).

    ``loss_geometric`` is the library's ``loss`` metric of the same release
    (ARX's combination, prod(1 + l_i)^(1/d) - 1), which the lattice searches
    minimise.

    The released table is checked by :func:`kanon_graph.evaluate` too: the
    returned ``achieved_k`` is its smallest class, recounted from the cells.
    ``model`` (``l``, ``diversity``, ``c``, ``t``, ``sensitive``: as for
    :func:`kanon_graph.evaluate`) adds ``achieved_l``, ``achieved_t`` and
    ``holds``, measured the library's way (t against the released records,
    where ARX measures against the whole input).
    """
    released = table.copy()
    for qi in schema.quasi_identifiers:
        released[qi] = result.released[qi].to_numpy()
    ev = kg.evaluate(table, released, schema, k=k, suppressed=result.outliers,
                     metrics=["loss"], **model)
    per = kg.metrics.arx_loss_per_attribute(ev.release)
    v = ev.verification
    return {"loss": float(np.mean(list(per.values()))), "per_attribute": per,
            "loss_geometric": float(ev.metrics["loss"]),
            "suppressed": int(result.outliers.sum()),
            "achieved_k": int(v.k_achieved), "achieved_l": v.l_achieved,
            "achieved_t": v.t_achieved, "holds": bool(v.holds)}


def t_input(values, class_of, ordered):
    """Largest EMD of a class (``class_of >= 0``) to the whole input's distribution of ``values``.

    ARX's reference distribution (suppressed records included): the same
    function for both tools' releases.

    >>> t_input(np.array([0, 0, 1, 1]), np.array([0, 0, 1, 1]), ordered=False)
    0.5
    """
    domain, codes = np.unique(values, return_inverse=True)
    m = len(domain)
    q = np.bincount(codes, minlength=m) / len(codes)
    keep = class_of >= 0
    if not keep.any() or m < 2:
        return 0.0
    counts = np.zeros((int(class_of.max()) + 1, m))
    np.add.at(counts, (class_of[keep], codes[keep]), 1)
    counts = counts[counts.sum(axis=1) > 0]
    diff = counts / counts.sum(axis=1, keepdims=True) - q
    emd = np.abs(np.cumsum(diff, axis=1)).sum(axis=1) / (m - 1) if ordered \
        else 0.5 * np.abs(diff).sum(axis=1)
    return float(emd.max())


def main(argv=None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import quality  # noqa: PLC0415  (benchmarks/quality.py: the suite's tables)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", default="adult", choices=list(quality.TABLES))
    parser.add_argument("--mode", default="local", choices=["local", "optimal"])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--suppression", type=float, default=0.0)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    table, schema = quality.TABLES[args.table]()
    res = run(args.mode, table, schema, args.k, suppression=args.suppression,
              rounds=args.rounds)
    s = score(table, schema, res, args.k)
    print(f"ARX 3.9.2 {args.mode} on {args.table} ({len(table)} rows), k={args.k}: "
          f"Loss {s['loss']:.4f} (our formula), suppressed {s['suppressed']}, "
          f"smallest class {s['achieved_k']}, wall {res.median('wall'):.2f} s, cpu {res.median('proc_cpu'):.2f} s, "
          f"load {os.getloadavg()[0]:.1f}")
    print("  per attribute: " + " ".join(f"{a}={v:.4f}" for a, v in s["per_attribute"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
