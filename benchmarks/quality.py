"""The quality suite of issue 22: every local algorithm on tables of different shapes.

Tables (all built by code in this repository with fixed seeds; Adult and
FARS read from ``$KANON_GRAPH_DATA``, never downloaded):

* ``adult`` -- ARX's Adult, 30,162 rows, 8 quasi-identifiers, ARX hierarchies;
* ``fars`` -- FARS (integer recoded), 20,000 rows drawn with
  ``DataFrame.sample(random_state=0)``, 8 quasi-identifiers, its hierarchies;
* ``patients`` -- 20,000 synthetic patients (:func:`tables.patients`) with
  builder-style hierarchies (:func:`tables.patients_builder_schema`: zip
  masked digit by digit, dob day / year / decade, income bands, sex);
* ``patients-flat`` -- the same rows without hierarchies (income numeric);
* ``clinic`` -- 20,000 visits (:func:`tables.clinic`: a date, a zip code, a
  weight, sex; the skewed sensitive cost) with ``hierarchy suggest``'s
  hierarchies;
* ``wide`` -- ``make_census(20_000)`` widened to 16 quasi-identifiers
  (:func:`tables.wide_census`);
* ``adult-flat``, ``fars-flat``, ``clinic-flat`` (and the held-out
  ``claims-flat``, ``registry-flat``, ``admissions-flat``) -- the same rows
  without hierarchies (:func:`flat`: numbers and dates declared, the rest
  categorical), where ``auto`` runs trials.

Those are the **tuning** tables: the defaults were chosen on them. The
**held-out** tables of :mod:`heldout` (its ``HELD_OUT``) never steer a
default; the markdown table shows the group of every table, and a default's
change is reported on both groups (with l and t: ``quality_sensitive.py``).

ARX: with ``ARX_BUILD`` set to an ARX 3.9.2 build (``../shared/arx/``), every
table and k gets an ``arx-local`` row from the same run: ARX's local recoding
on the same rows with the same hierarchy objects (:mod:`arx`), its released
table scored with the same formula as ours; its wall and CPU seconds are
ARX's own, of the median of ``--arx-rounds`` runs after a warm-up in the same
JVM. ``--algorithms`` may name ``default`` (``kg.anonymize`` with no
algorithm named).

Every local algorithm (``kg.algorithms()`` with ``recoding="local"``, those
needing hierarchies only where there are) runs at each k in a forked child
process, after a warm-up in the parent on 300 rows (so numba kernels are
compiled once, not timed). Measured per run: **Loss** -- the mean over the
quasi-identifiers of the per-attribute ARX Loss
(:func:`kanon_graph.metrics.arx_loss_per_attribute`; a suppressed cell costs
1), one formula for every algorithm -- with the per-attribute profile, GCP,
discernibility, wall and CPU seconds of the ``anonymize`` call (which
verifies the release from its cells), and the child's peak resident memory
(``ru_maxrss``; it includes the parent's memory at the fork, printed as the
baseline). The load average is printed before and after each run.

``bottom-up`` and ``k-member`` are slow references: ``--timeout`` (seconds,
default 120) stops any run that takes longer; a stopped run is a row that
says so.

Writes ``quality.csv``, ``quality.md`` (one markdown table) and
``quality.png`` (Loss against CPU seconds, one panel per table) into
``--out``; ``--from-csv`` redraws both from a ``quality.csv`` without
running anything. ``--include`` adds the rows of an earlier run's ``quality.csv``
(say, the slow references measured once) to the table and the figure; they
keep the load average they were measured under.

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/quality.py \
        [--tables adult,patients] [--algorithms mst,sd,mondrian] [--k 5,10] [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing as mp
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import arx  # noqa: E402  (benchmarks/arx.py)
import heldout  # noqa: E402  (benchmarks/heldout.py)
import tables as T  # noqa: E402  (benchmarks/tables.py)

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]
FARS_QIS = ["iage", "irace", "ideathmon", "ideathday", "isex", "ihispanic", "istatenum",
            "iinjury"]
ROWS = 20_000
SLOW = {"bottom-up", "k-member"}


def _data_root():
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        raise SystemExit("KANON_GRAPH_DATA is not set (the folder with adult/ and fars/)")
    return Path(root)


def adult():
    folder = _data_root() / "adult"
    table = pd.read_csv(folder / "adult.csv", sep=";")
    hier = kg.load_hierarchies(folder, columns=ADULT_QIS + ["salary-class"])
    return table, kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                            hierarchies={q: hier[q] for q in ADULT_QIS})


def fars():
    import warnings

    folder = _data_root() / "fars"
    table = pd.read_csv(folder / "fars_int.csv", sep=";").sample(ROWS, random_state=0)
    with warnings.catch_warnings():                 # iage's duplicate row (see data README)
        warnings.simplefilter("ignore")
        hier = kg.load_hierarchies(folder, columns=FARS_QIS)
    return table.reset_index(drop=True), kg.Schema(quasi_identifiers=FARS_QIS,
                                                   hierarchies=hier)


def patients():
    table = T.patients(ROWS)
    return table, T.patients_builder_schema(table)


def patients_flat():
    return T.patients(ROWS), T.patients_schema()


def clinic():
    table = T.clinic(ROWS)
    return table, T.clinic_schema(table)


def wide():
    return T.wide_census(16, n=ROWS)


def flat(builder, numeric=(), dates=()):
    """``builder``'s table without hierarchies: ``numeric`` and ``dates`` declared, the rest categorical.

    What ``auto`` meets on a table nobody wrote hierarchies for (it then
    runs trials): the ``-flat`` tables.
    """
    def build():
        table, schema = builder()
        qis = list(schema.quasi_identifiers)
        return table, kg.Schema(quasi_identifiers=qis, sensitive=list(schema.sensitive),
                                numeric=list(numeric), dates=list(dates),
                                categorical=[q for q in qis if q not in numeric and q not in dates])
    build.__name__ = f"{builder.__name__}_flat"
    return build


#: name -> builder returning ``(table, schema)``.
TABLES = {"adult": adult, "fars": fars, "patients": patients, "patients-flat": patients_flat,
          "clinic": clinic, "wide": wide, **heldout.HELD_OUT,
          # without hierarchies (``flat``): tuning, then held out
          "adult-flat": flat(adult, numeric=["age"]),
          "fars-flat": flat(fars, numeric=["iage", "ideathmon", "ideathday"]),
          "clinic-flat": flat(clinic, numeric=["weight"], dates=["visit"]),
          "claims-flat": flat(heldout.claims, numeric=["amount"], dates=["birth"]),
          "registry-flat": flat(heldout.registry),
          "admissions-flat": flat(heldout.admissions, dates=["admitted", "birth"])}

#: table -> "tuning" (may steer defaults) or "held out" (never does).
GROUPS = {name: "held out" if name.removesuffix("-flat") in heldout.HELD_OUT else "tuning"
          for name in TABLES}


def local_algorithms():
    """Every registered local algorithm: ``{name: needs_hierarchies}``."""
    from kanon_graph.registry import algorithms, get_algorithm

    infos = {name: get_algorithm(name) for name in algorithms()}   # loads the built-ins
    return {name: info.needs_hierarchies for name, info in infos.items()
            if info.recoding == "local"}


def applies(name, schema):
    """Why ``name`` cannot run on ``schema`` (``""`` when it can)."""
    if name == "default":
        return ""
    needs = local_algorithms()[name]
    if needs and any(schema.hierarchy(q) is None for q in schema.quasi_identifiers):
        return "needs hierarchies"
    if name == "sensitive-clustering" and not schema.sensitive:
        return "needs a sensitive attribute"
    return ""


def measure(table, schema, name, k):
    """One ``anonymize`` call in this process -> a dict of measures."""
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    named = {} if name == "default" else {"algorithm": name}
    res = kg.anonymize(table, schema, k=k, seed=0, metrics=["gcp", "discernibility"], **named)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    per = kg.metrics.arx_loss_per_attribute(res.release)
    return {"loss": float(np.mean(list(per.values()))), "gcp": float(res.metrics["gcp"]),
            "discernibility": float(res.metrics["discernibility"]), "seconds": wall,
            "cpu_seconds": cpu, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            / 1024, "classes": len(res.classes), "suppressed": int(res.suppressed),
            "load_before": load, "load_after": os.getloadavg()[0],
            "profile": " ".join(f"{a}={v:.4f}" for a, v in per.items()), "error": ""}


def _child(queue, table, schema, name, k):
    try:
        queue.put(measure(table, schema, name, k))
    except Exception as exc:  # a failed run is a data point
        queue.put({"error": f"{type(exc).__name__}: {exc}"[:200]})


def run_forked(table, schema, name, k, timeout):
    """:func:`measure` in a forked child, stopped after ``timeout`` seconds."""
    return forked(_child, (table, schema, name, k), timeout)


def forked(child, args, timeout):
    """``child(queue, *args)`` in a forked process: what it puts on the queue, or an error
    row when nothing came within ``timeout`` seconds."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=child, args=(queue, *args))
    started = time.perf_counter()
    proc.start()
    try:
        out = queue.get(timeout=timeout)
    except Exception:
        out = {"error": f"stopped after {timeout:.0f} s", "seconds": time.perf_counter() - started}
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    return out


def arx_rows(tname, table, schema, ks, rounds):
    """ARX's local recoding of ``table`` at each k, scored with the suite's formula."""
    out = []
    for k in ks:
        row = {"table": tname, "algorithm": "arx-local", "k": k, "rows": len(table)}
        load = os.getloadavg()[0]
        try:
            res = arx.run("local", table, schema, k, warmup=1, rounds=rounds)
            s = arx.score(table, schema, res, k)
            row.update({"loss": s["loss"], "seconds": res.median("wall"),
                        "cpu_seconds": res.median("proc_cpu"), "suppressed": s["suppressed"],
                        "load_before": load, "load_after": os.getloadavg()[0],
                        "profile": " ".join(f"{a}={v:.4f}" for a, v in
                                            s["per_attribute"].items()), "error": ""})
        except (RuntimeError, SystemExit) as exc:
            row["error"] = str(exc)[:200]
        out.append(row)
        print(f"  {'arx-local':22s} k={k:<3d} Loss {_fmt(row.get('loss'), '.4f'):>7} "
              f"{_fmt(row.get('seconds'), '.2f'):>7} s (cpu {_fmt(row.get('cpu_seconds'), '.2f')})"
              f" load {load:.1f}  {row.get('error', '')}", flush=True)
    return out


def _fmt(value, spec):
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else format(value, spec)


def markdown(rows):
    """One table: a line per (table, algorithm), Loss / GCP / DM / s / MB per k."""
    ks = sorted({r["k"] for r in rows})
    head = "| group | table | algorithm | " + " | ".join(
        f"k={k} Loss | k={k} GCP | k={k} DM | k={k} s (cpu) | k={k} MB" for k in ks) + " |"
    lines = [head, "|---|---|---|" + "---|" * (5 * len(ks))]
    by = {(r["table"], r["algorithm"], r["k"]): r for r in rows}
    order = sorted(dict.fromkeys(r["table"] for r in rows),
                   key=lambda t: GROUPS.get(t, "") == "held out")
    for table in order:
        best = {k: min((r["loss"] for r in rows if r["table"] == table and r["k"] == k
                        and not r.get("error")), default=math.nan) for k in ks}
        for name in dict.fromkeys(r["algorithm"] for r in rows if r["table"] == table):
            cells = []
            for k in ks:
                r = by.get((table, name, k), {})
                if r.get("error"):
                    cells += [r["error"][:40], "", "", "", ""]
                    continue
                loss = _fmt(r.get("loss"), ".4f")
                if r.get("loss") is not None and r["loss"] <= best[k] + 1e-12:
                    loss = f"**{loss}**"
                cells += [loss, _fmt(r.get("gcp"), ".4f"), _fmt(r.get("discernibility"), ".3g"),
                          f"{_fmt(r.get('seconds'), '.2f')} ({_fmt(r.get('cpu_seconds'), '.2f')})",
                          _fmt(r.get("peak_mb"), ".0f")]
            lines.append(f"| {GROUPS.get(table, '?')} | {table} | {name} | " + " | ".join(cells)
                         + " |")
    return "\n".join(lines)


def versus_arx(rows):
    """One line per (table, k): ARX's local recoding beside the default and the best of ours."""
    lines = ["| group | table | k | ARX local: Loss (wall / CPU s) | default: Loss (wall / CPU s) "
             "| default vs ARX | lowest of ours (CPU s) |", "|---|---|---|---|---|---|---|"]
    by = {(r["table"], r["algorithm"], r["k"]): r for r in rows if not r.get("error")}
    tables = sorted(dict.fromkeys(r["table"] for r in rows),
                    key=lambda t: GROUPS.get(t, "") == "held out")
    for table in tables:
        for k in sorted({r["k"] for r in rows if r["table"] == table}):
            arx_row, ours = by.get((table, "arx-local", k)), by.get((table, "default", k))
            if arx_row is None or ours is None:
                continue
            mine = [r for (t, a, kk), r in by.items() if t == table and kk == k
                    and a not in ("arx-local", "default")]     # default is one of them
            best = min(mine, key=lambda r: r["loss"])
            change = 100 * (ours["loss"] / arx_row["loss"] - 1)
            lines.append(
                f"| {GROUPS.get(table, '?')} | {table} | {k} | {arx_row['loss']:.4f} "
                f"({arx_row['seconds']:.2f} / {arx_row['cpu_seconds']:.2f}) | {ours['loss']:.4f} "
                f"({ours['seconds']:.2f} / {ours['cpu_seconds']:.2f}) "
                f"| {change:+.1f}% | {best['algorithm']} {best['loss']:.4f} "
                f"({best['cpu_seconds']:.2f}) |")
    return "\n".join(lines) if len(lines) > 2 else ""


def plot(path, rows):
    """Loss against CPU seconds, one panel per table, a marker per algorithm and k.

    CPU seconds, not wall: the suite runs on a shared machine, where the wall
    clock measures the other jobs as much as the algorithm.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  matplotlib is not installed: no figure")
        return False
    names = list(dict.fromkeys(r["table"] for r in rows))
    cols = min(3, len(names))
    fig, axes = plt.subplots(math.ceil(len(names) / cols), cols, squeeze=False,
                             figsize=(4.2 * cols, 3.4 * math.ceil(len(names) / cols)))
    algos = sorted({r["algorithm"] for r in rows})
    colors = {a: plt.cm.tab10(i % 10) for i, a in enumerate(algos)}
    marks = {k: m for k, m in zip(sorted({r["k"] for r in rows}), "os^Dv")}
    for ax, table in zip(axes.flat, names):
        for r in rows:
            if r["table"] == table and not r.get("error"):
                ax.scatter(r["cpu_seconds"], r["loss"], color=colors[r["algorithm"]],
                           marker=marks.get(r["k"], "o"), s=28)
        ax.set_xscale("log")
        ax.set_title(table, fontsize=9)
        ax.set_xlabel("CPU seconds (log)", fontsize=8)
        ax.set_ylabel("mean per-attribute Loss", fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    handles = [plt.Line2D([], [], color=colors[a], marker="o", ls="", label=a) for a in algos]
    handles += [plt.Line2D([], [], color="gray", marker=m, ls="", label=f"k={k}")
                for k, m in marks.items()]
    fig.legend(handles=handles, loc="lower center", ncol=min(8, len(handles)), fontsize=7)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"wrote {path}")
    return True


def write_csv(path, rows):
    keys = list(dict.fromkeys(key for r in rows for key in r))
    with open(path, "w", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=keys)
        out.writeheader()
        out.writerows(rows)


def read_csv(path):
    """Rows of a ``quality.csv``, numbers parsed back."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for key, value in list(r.items()):
            if key in ("table", "algorithm", "profile", "error"):
                continue
            try:
                r[key] = int(value) if key in ("k", "rows", "classes", "suppressed") \
                    else float(value)
            except (TypeError, ValueError):
                r[key] = math.nan
    return rows


def merge(rows, extra, tables):
    """``rows`` plus the ``extra`` rows of the same tables not measured in ``rows``."""
    have = {(r["table"], r["algorithm"], r["k"]) for r in rows}
    add = [r for r in extra if r["table"] in tables and (r["table"], r["algorithm"], r["k"])
           not in have]
    order = {t: i for i, t in enumerate(tables)}
    return sorted(rows + add, key=lambda r: (order[r["table"]], r["algorithm"], r["k"]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES), help="comma list of " +
                        ", ".join(TABLES))
    parser.add_argument("--algorithms", default="", help="comma list (default: every local one)")
    parser.add_argument("--k", default="5,10", help="comma list of k")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds after which a run is stopped")
    parser.add_argument("--skip-slow", action="store_true",
                        help="leave out the slow references (bottom-up, k-member)")
    parser.add_argument("--arx-rounds", type=int, default=3,
                        help="ARX's measured runs per table and k (with ARX_BUILD set)")
    parser.add_argument("--out", default="quality_out", help="output folder")
    parser.add_argument("--from-csv", default="",
                        help="only redraw quality.md / quality.png from this quality.csv")
    parser.add_argument("--include", default="",
                        help="an earlier run's quality.csv whose rows join the table")
    args = parser.parse_args(argv)
    known = {**local_algorithms(), "default": False}
    names = [a for a in args.algorithms.split(",") if a] or list(known)
    bad = [a for a in names if a not in known] + [t for t in args.tables.split(",")
                                                   if t not in TABLES]
    if bad:
        parser.error(f"unknown table or local algorithm {bad}; tables {list(TABLES)}, "
                     f"algorithms {list(known)}")
    if args.skip_slow:
        names = [a for a in names if a not in SLOW]
    ks = [int(k) for k in args.k.split(",") if k]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.from_csv:
        rows = read_csv(args.from_csv)
        (out / "quality.md").write_text(markdown(rows) + "\n")
        if versus_arx(rows):
            (out / "arx.md").write_text(versus_arx(rows) + "\n")
            print(versus_arx(rows))
        plot(out / "quality.png", rows)
        return 0
    # the warm-up compiles every kernel it calls: kernels that run small calls as plain
    # Python first (kanon_graph._jit.PYTHON_WORK) compile at once here, not in a timed run
    from kanon_graph import _jit
    _jit.PYTHON_WORK = 0
    rows = []
    for tname in args.tables.split(","):
        table, schema = TABLES[tname]()
        warm = table.sample(min(300, len(table)), random_state=1)
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\n{tname}: {len(table)} rows, {len(schema.quasi_identifiers)} QIs; parent "
              f"RSS {base:.0f} MB", flush=True)
        for name in names:
            why = applies(name, schema)
            for k in ks:
                row = {"table": tname, "algorithm": name, "k": k, "rows": len(table)}
                if why:
                    row["error"] = why
                else:
                    try:
                        kg.anonymize(warm, schema, k=2, algorithm=name, seed=0)
                    except Exception:
                        pass
                    row.update(run_forked(table, schema, name, k, args.timeout))
                rows.append(row)
                r = row
                print(f"  {name:22s} k={k:<3d} Loss {_fmt(r.get('loss'), '.4f'):>7} "
                      f"GCP {_fmt(r.get('gcp'), '.4f'):>7} {_fmt(r.get('seconds'), '.2f'):>7} s "
                      f"(cpu {_fmt(r.get('cpu_seconds'), '.2f')}) "
                      f"{_fmt(r.get('peak_mb'), '.0f')} MB load {_fmt(r.get('load_before'), '.1f')}"
                      f"  {r.get('error', '')}", flush=True)
            if why:
                rows = [r for r in rows if not (r["table"] == tname and r["algorithm"] == name)]
        if arx.build_folder() is not None:
            rows += arx_rows(tname, table, schema, ks, args.arx_rounds)
        write_csv(out / "quality.csv", rows)
    if args.include:
        rows = merge(rows, read_csv(args.include), args.tables.split(","))
        write_csv(out / "quality.csv", rows)
    text = markdown(rows)
    (out / "quality.md").write_text(text + "\n")
    print("\n" + text)
    against = versus_arx(rows)
    if against:
        (out / "arx.md").write_text(against + "\n")
        print("\n" + against)
    plot(out / "quality.png", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
