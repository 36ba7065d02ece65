"""The quality suite with sensitive columns (issue 40): l-diversity and t-closeness beside ARX.

Every table of the suite with its natural sensitive column, the tuning
tables (``adult``, ``fars``, ``patients``, ``clinic``) apart from the
held-out ones (``claims``, ``registry``, ``admissions`` and issue 40's
``screening`` and ``earnings``, :mod:`heldout`), under each privacy model of
:data:`MODELS` -- distinct l = 2 and 3, entropy l = 2, recursive (c = 3,
l = 2), t = 0.2 and 0.3 -- at each k:

adult: salary-class (ARX's usual sensitive column; two values, 75% / 25%);
fars: alcohol, **added by code** (:func:`fars`: FARS has no column besides
its 8 quasi-identifiers, whose rows are unchanged); patients: diagnosis
(eight values, uniform); clinic: cost (numeric, skewed); claims: kind (six
types, 40% outpatient); registry: benefit (five codes); admissions: ward
(seven); screening: result (skewed, ``negative`` in 70% of rows);
earnings: monthly (numeric).

t-closeness takes each table's natural distance, as the library chooses it:
ordered for a numeric sensitive column, equal otherwise. None of these
columns has a hierarchy, and the library has no hierarchical distance to
ask for; ``arx.py`` can run ARX's (``java/ArxCloseness.java``).

A model the **whole table** fails (it cannot hold on any release: on Adult,
distinct l = 3 of two values, entropy l = 2 and recursive (3, 2) of a
75 / 25 split) gets a row saying so, for both tools, and is not run.

Ours: ``default`` (``kg.anonymize`` with no algorithm named) and any
algorithm named by ``--algorithms``, each run in a forked child after a
warm-up in the parent on 300 rows, as :mod:`quality` does. ARX: with
``ARX_BUILD`` set, ARX 3.9.2's local recoding with the same model on the
same rows with the same hierarchy objects (:func:`arx.run`), one JVM per
(table, model, k) of ``--arx-warmups`` warm-ups (default 3) and one measured
run: its seconds are shown **after one warm-up** (the JVM's second run) and
**fully warm** (the measured run, after three). Both releases are scored
with one formula, the mean over the quasi-identifiers of
:func:`kanon_graph.metrics.arx_loss_per_attribute` (a suppressed cell
costs 1), and regrouped from their cells: ``holds`` is the library's check
(t against the released records), ``t_input`` the largest EMD of a class to
the whole input (ARX's reference), the same function for both.

Writes ``sensitive.csv`` (one row per run: Loss, per-attribute profile,
suppressed records, wall and CPU seconds, load average before and after,
achieved k / l / t) and ``sensitive.md`` (tuning, then held out; the ratio
default / ARX per run) into ``--out``; ``--from-csv`` redraws the markdown.

Usage::

    ARX_BUILD=/work/arx/build KANON_GRAPH_DATA=/work/shared/data \\
        python benchmarks/quality_sensitive.py [--tables patients,screening] \\
        [--models distinct-2,t-0.2] [--k 5,10] [--algorithms default] [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg
from kanon_graph.exceptions import InferenceWarning

# the suite's dates are ISO text taken as dates, as the k-only suite takes them: said once here
warnings.simplefilter("ignore", InferenceWarning)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import arx  # noqa: E402  (benchmarks/arx.py)
import heldout  # noqa: E402  (benchmarks/heldout.py)
import quality  # noqa: E402  (benchmarks/quality.py)

#: name -> (our keyword arguments, ARX's ARX_L or the t of ARX_T)
MODELS = {
    "distinct-2": ({"l": 2, "diversity": "distinct"}, "distinct:2"),
    "distinct-3": ({"l": 3, "diversity": "distinct"}, "distinct:3"),
    "entropy-2": ({"l": 2, "diversity": "entropy"}, "entropy:2.0"),
    "recursive-3-2": ({"l": 2, "diversity": "recursive", "c": 3.0}, "recursive:3.0,2"),
    "t-0.2": ({"t": 0.2}, 0.2),
    "t-0.3": ({"t": 0.3}, 0.3),
}
ALCOHOL = np.array(["not-tested", "negative", "positive-low", "positive-high"])


def fars():
    """The suite's FARS rows with a sensitive ``alcohol`` column added by code.

    FARS here has only its eight quasi-identifiers. ``alcohol`` (a test
    result: not tested, negative, positive below / above the limit) is drawn
    from ``numpy.random.default_rng(40)`` in row order, positive more often
    below the median ``iage``; the quasi-identifier rows are those of
    :func:`quality.fars`, so the k-only suite's figures stay comparable.
    """
    table, schema = quality.fars()
    rng = np.random.default_rng(40)
    young = table["iage"].to_numpy() < np.median(table["iage"])
    p = np.where(young[:, None], [0.40, 0.30, 0.10, 0.20], [0.50, 0.32, 0.08, 0.10])
    table["alcohol"] = ALCOHOL[(rng.random(len(table))[:, None] > p.cumsum(axis=1)).sum(axis=1)]
    return table, kg.Schema(quasi_identifiers=list(schema.quasi_identifiers),
                            sensitive=["alcohol"], hierarchies=dict(schema.hierarchies))


TABLES = {"adult": quality.adult, "fars": fars, "patients": quality.patients,
          "clinic": quality.clinic, **heldout.HELD_OUT}
GROUPS = {name: "held out" if name in heldout.HELD_OUT else "tuning" for name in TABLES}


def distance(table, schema):
    """t's ground distance for the sensitive column: ``ordered`` if numeric, else ``equal``."""
    column = table[schema.sensitive[0]]
    return "ordered" if pd.api.types.is_numeric_dtype(column.dtype) else "equal"


def infeasible(table, schema, model):
    """Why no release of ``table`` can satisfy ``model`` ("" when one may).

    l is monotone under merging: if the whole table, as one class, is not
    l-diverse, no release is (t is 0 there: always feasible).
    """
    ours = MODELS[model][0]
    if "l" not in ours:
        return ""
    whole = kg.privacy.l_diversity(table.assign(everyone=0), ["everyone"], schema.sensitive[0],
                                   kind=ours["diversity"], c=ours.get("c", 1.0))
    if whole + 1e-9 >= ours["l"]:
        return ""
    return f"infeasible: the whole table has l {whole:.3g}"


def _profile(per):
    return " ".join(f"{a}={v:.4f}" for a, v in per.items())


def measure(table, schema, name, k, model, ordered):
    """One ``anonymize`` call in this process -> (a dict of measures, the result)."""
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    named = {} if name == "default" else {"algorithm": name}
    res = kg.anonymize(table, schema, k=k, seed=0, **MODELS[model][0], **named)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    per = kg.metrics.arx_loss_per_attribute(res.release)
    class_of = np.full(len(table), -1)
    for i, rows in enumerate(res.classes):
        class_of[rows] = i
    v, values = res.verification, table[schema.sensitive[0]].to_numpy()
    return {"loss": float(np.mean(list(per.values()))), "profile": _profile(per),
            "suppressed": int(res.suppressed), "seconds": wall, "cpu_seconds": cpu,
            "load_before": load, "load_after": os.getloadavg()[0], "ran": res.algorithm,
            "achieved_k": v.k_achieved, "achieved_l": v.l_achieved, "achieved_t": v.t_achieved,
            "holds": bool(v.holds), "t_input": arx.t_input(values, class_of, ordered),
            "error": ""}, res


def _child(queue, *args):
    try:
        queue.put(measure(*args)[0])
    except Exception as exc:  # a failed run is a data point
        queue.put({"error": f"{type(exc).__name__}: {exc}"[:300]})


def run_forked(table, schema, name, k, model, ordered, timeout):
    """:func:`measure` in a forked child, stopped after ``timeout`` seconds."""
    return quality.forked(_child, (table, schema, name, k, model, ordered), timeout)


def arx_row(table, schema, k, model, dist, warmups, timeout):
    """ARX's local recoding with ``model``, scored our way, timed after 1 and all warm-ups."""
    ours, theirs = MODELS[model]
    column = schema.sensitive[0]
    env = arx.sensitive_environment(column, l=theirs if "l" in ours else None,
                                    t=theirs if "t" in ours else None, distance=dist)
    load = os.getloadavg()[0]
    res = arx.run("local", table, schema, k, warmup=warmups, rounds=1, timeout=timeout,
                  sensitive=env)
    s = arx.score(table, schema, res, k, **ours)
    released = res.released[list(schema.quasi_identifiers)]
    class_of = np.where(res.outliers, -1, released.groupby(list(released.columns)).ngroup())
    once = res.warmups[1] if len(res.warmups) > 1 else res.runs[0]
    return {"loss": s["loss"], "profile": _profile(s["per_attribute"]),
            "suppressed": s["suppressed"], "seconds": once["wall"],
            "cpu_seconds": once["proc_cpu"], "seconds_warm": res.median("wall"),
            "cpu_seconds_warm": res.median("proc_cpu"), "warmups": warmups,
            "load_before": load, "load_after": os.getloadavg()[0], "ran": "arx-local",
            "achieved_k": s["achieved_k"], "achieved_l": s["achieved_l"],
            "achieved_t": s["achieved_t"], "holds": s["holds"],
            "t_input": arx.t_input(table[column].to_numpy(), class_of, dist == "ordered"),
            "error": ""}


def _fmt(value, spec):
    return quality._fmt(value, spec)


def _loss(row):
    if row is None:
        return "—"
    if row.get("error"):
        return row["error"][:60]
    mark = "" if row.get("holds") in (True, "True") else " †"
    return f"{row['loss']:.4f} ({row['suppressed']:,}){mark}"


def _secs(row, wall="seconds", cpu="cpu_seconds"):
    if row is None or row.get("error"):
        return ""
    return f"{_fmt(row.get(wall), '.2f')} / {_fmt(row.get(cpu), '.2f')}"


def markdown(rows):
    """Per (table, model, k): ARX's and the default's Loss (suppressed), seconds, their ratio.

    Tuning tables first, then held out. † marks a release the library's
    check does not pass (t measured against the released records).
    """
    by = {(r["table"], r["model"], r["k"], r["algorithm"]): r for r in rows}
    keys = list(dict.fromkeys((r["table"], r["model"], r["k"]) for r in rows))
    keys.sort(key=lambda key: GROUPS.get(key[0], "") == "held out")
    sensitive = {r["table"]: r.get("sensitive", "") for r in rows}
    lines = ["| group | table (sensitive) | model | k | ARX Loss (suppressed) "
             "| ARX wall / CPU s, 1 warm-up | ARX wall / CPU s, warm | default Loss (suppressed) "
             "| default wall / CPU s | default / ARX | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for table, model, k in keys:
        theirs, ours = by.get((table, model, k, "arx-local")), by.get((table, model, k, "default"))
        ratio = ""
        if theirs and ours and not theirs.get("error") and not ours.get("error"):
            ratio = f"{ours['loss'] / theirs['loss']:.2f}" if theirs["loss"] > 0 else "—"
        load = next((r.get("load_before") for r in (ours, theirs) if r and not r.get("error")),
                    None)
        lines.append(f"| {GROUPS.get(table, '?')} | {table} ({sensitive[table]}) | {model} "
                     f"| {k} | {_loss(theirs)} | {_secs(theirs)} "
                     f"| {_secs(theirs, 'seconds_warm', 'cpu_seconds_warm')} | {_loss(ours)} "
                     f"| {_secs(ours)} | {ratio} | {_fmt(load, '.1f')} |")
    named = [r for r in rows if r["algorithm"] not in ("default", "arx-local")]
    if named:
        lines += ["", "| group | table | model | k | algorithm | Loss (suppressed) "
                  "| wall / CPU s | / ARX |", "|---|---|---|---|---|---|---|---|"]
        for r in sorted(named, key=lambda r: GROUPS.get(r["table"], "") == "held out"):
            theirs = by.get((r["table"], r["model"], r["k"], "arx-local"))
            ratio = f"{r['loss'] / theirs['loss']:.2f}" if theirs and not theirs.get("error") \
                and not r.get("error") and theirs["loss"] > 0 else ""
            lines.append(f"| {GROUPS.get(r['table'], '?')} | {r['table']} | {r['model']} "
                         f"| {r['k']} | {r['algorithm']} | {_loss(r)} | {_secs(r)} | {ratio} |")
    return "\n".join(lines)


TEXT = ("table", "group", "sensitive", "model", "distance", "algorithm", "ran", "profile",
        "error", "holds")


def read_csv(path):
    """Rows of a ``sensitive.csv``, numbers parsed back."""
    import csv

    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for key, value in list(r.items()):
            if key in TEXT:
                r[key] = value if key != "holds" else value == "True"
                continue
            try:
                r[key] = int(value) if key in ("k", "rows", "suppressed", "achieved_k",
                                               "warmups") else float(value)
            except (TypeError, ValueError):
                r[key] = math.nan
    return rows


def _line(r):
    print(f"  {r['algorithm']:12s} {r['model']:14s} k={r['k']:<3d} Loss "
          f"{_fmt(r.get('loss'), '.4f'):>7} supp {_fmt(r.get('suppressed'), 'd'):>6} "
          f"{_fmt(r.get('seconds'), '.2f'):>7} s (cpu {_fmt(r.get('cpu_seconds'), '.2f')}) "
          f"load {_fmt(r.get('load_before'), '.1f')} {r.get('ran', '')} "
          f"{r.get('error', '')}", flush=True)


def run_table(tname, names, models, ks, args):
    """Every (model, k) on one table: ours in forked children, then ARX."""
    table, schema = TABLES[tname]()
    column, dist = schema.sensitive[0], distance(table, schema)
    print(f"\n{tname}: {len(table)} rows, {len(schema.quasi_identifiers)} QIs, sensitive "
          f"{column!r} ({table[column].nunique()} values; t: {dist} distance); load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    warm = table.sample(min(300, len(table)), random_state=1)
    rows = []
    use_arx = arx.build_folder() is not None and not args.no_arx
    for model in models:
        why = infeasible(table, schema, model)
        for name in [] if why else names:          # compiles the kernels the runs call
            try:
                named = {} if name == "default" else {"algorithm": name}
                kg.anonymize(warm, schema, k=2, seed=0, **MODELS[model][0], **named)
            except Exception:
                pass
        for k in ks:
            for name in names + (["arx-local"] if use_arx else []):
                row = {"table": tname, "group": GROUPS[tname], "sensitive": column,
                       "model": model, "distance": dist if model.startswith("t") else "",
                       "k": k, "algorithm": name, "rows": len(table)}
                if why:
                    row["error"] = why
                elif name == "arx-local":
                    try:
                        row.update(arx_row(table, schema, k, model, dist, args.arx_warmups,
                                           args.arx_timeout))
                    except (RuntimeError, SystemExit) as exc:
                        row["error"] = str(exc)[:300]
                else:
                    row.update(run_forked(table, schema, name, k, model, dist == "ordered",
                                          args.timeout))
                rows.append(row)
                _line(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES), help=", ".join(TABLES))
    parser.add_argument("--models", default=",".join(MODELS), help=", ".join(MODELS))
    parser.add_argument("--algorithms", default="default",
                        help="comma list: default and any local algorithm")
    parser.add_argument("--k", default="5,10", help="comma list of k")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds after which a run of ours is stopped")
    parser.add_argument("--arx-warmups", type=int, default=3,
                        help="ARX's warm-up runs before the measured one (>= 1)")
    parser.add_argument("--arx-timeout", type=float, default=1800.0,
                        help="seconds after which ARX's JVM is stopped")
    parser.add_argument("--no-arx", action="store_true", help="ours only, even with ARX_BUILD")
    parser.add_argument("--out", default="", help="output folder (default sensitive_out; "
                        "with --from-csv the table is only printed)")
    parser.add_argument("--from-csv", default="", help="only redraw sensitive.md from this CSV")
    args = parser.parse_args(argv)
    if args.from_csv:
        text = markdown(read_csv(args.from_csv))
        if args.out:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            (Path(args.out) / "sensitive.md").write_text(text + "\n")
        print(text)
        return 0
    out = Path(args.out or "sensitive_out")
    out.mkdir(parents=True, exist_ok=True)
    tables, models = args.tables.split(","), args.models.split(",")
    names = [a for a in args.algorithms.split(",") if a]
    known = {**quality.local_algorithms(), "default": False}
    bad = [t for t in tables if t not in TABLES] + [m for m in models if m not in MODELS] \
        + [a for a in names if a not in known]
    if bad or args.arx_warmups < 1:
        parser.error(f"unknown table, model or algorithm {bad} (tables {list(TABLES)}, models "
                     f"{list(MODELS)}, algorithms {list(known)}); --arx-warmups at least 1")
    ks = [int(k) for k in args.k.split(",") if k]
    from kanon_graph import _jit
    _jit.PYTHON_WORK = 0          # the warm-ups compile every kernel (see quality.py)
    started = time.perf_counter()
    print(f"# load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the start")
    rows = []
    for tname in tables:
        began = time.perf_counter()
        rows += run_table(tname, names, models, ks, args)
        quality.write_csv(out / "sensitive.csv", rows)
        print(f"  ({tname}: {time.perf_counter() - began:.0f} s)", flush=True)
    text = markdown(rows)
    (out / "sensitive.md").write_text(text + "\n")
    print("\n" + text)
    print(f"\n# {time.perf_counter() - started:.0f} s in all; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
