"""The comparisons of papers 000 and 003, and a time / memory table, on Adult.

Usage::

    KANON_GRAPH_DATA=/path/to/shared/data python benchmarks/compare.py [--quick]
        [--out benchmarks/out] [--only fig45,fig79,timing,local] [--fig79-rows 5000]
        [--local-ks 2,5,10,20,50] [--local-skip "k-member:50;bottom-up:50"]

Writes CSV files (and PNG figures when matplotlib is installed) to ``--out``:

``paper000_fig45.csv``, ``paper000_fig4.png``, ``paper000_fig5.png``
    Paper 000 (Sarrafi Aghdam & Sonehara), Figures 4-5: total NCP and utility
    (1 - NCP / (d N)) against k in {2, 5, 10, ..., 50} for SD, Mondrian,
    Incognito and Datafly on Adult samples of 500, 1000, 3000 and 5000 rows
    (``DataFrame.sample(n, random_state=0)``), the 8 usual quasi-identifiers.
    SD runs without hierarchies (the paper's setting: numeric ranges,
    categorical value sets, NCP of a set = its values / the column's values)
    and, as ``sd+hierarchies``, with ARX's hierarchies like the others (a
    class released at its LCA, NCP = leaves under the LCA / all leaves);
    Mondrian, Incognito and Datafly with ARX's hierarchies (Incognito and
    Datafly need them). Datafly suppresses up to
    k records (Sweeney's rule, counted in NCP at full cost); the others
    suppress nothing.
``paper003_fig79.csv``, ``paper003_fig7.png`` (GCP), ``paper003_fig8.png``
    (discernibility), ``paper003_fig9.png`` (CAVG)
    Paper 003 (Venkata Ramana & Valli Kumari), Figures 7-9: against k in
    {3, 6, ..., 21} for MST, Mondrian and k-member, with the first 1 to 5 of
    the quasi-identifiers age, workclass, sex, education, occupation (the
    project's Adult hierarchies of the paper's Table 3 when present, else
    ARX's), on ``--fig79-rows`` rows (default 5000; 0 = all 30,162).
``timing.csv``
    Seconds and peak memory of every registered algorithm on the full Adult
    table (8 quasi-identifiers, ARX's hierarchies) at k = 5 and 10. Each run
    is a fresh subprocess: ``rss_before_mb`` is its resident set size just
    before ``anonymize`` (data loaded), ``peak_rss_mb`` the largest resident
    set size sampled every 5 ms during the call, so the difference is what
    the algorithm (with encoding, recoding, verification and metrics) added
    at its peak.
``local.csv``, ``local_loss.png``
    Issue 12's table (``benchmarks/compare_local.py``): every local-recoding
    algorithm and variant on full Adult (8 quasi-identifiers, ARX's
    hierarchies) at ``--local-ks``: mean per-attribute ARX Loss, seconds,
    GCP and discernibility, ARX 3.9.2's local-recoding figure as a constant
    row, and Loss against k. ``--local-skip LABEL:K,K;...`` leaves chosen
    runs out (each still gets a row saying so); nothing is skipped otherwise.

``--quick`` shrinks everything (samples of 500 and 1000 rows and four k for
Figures 4-5, 1000 rows and four k for 7-9, a 5000-row sample for the timing
table, a 3000-row sample and k = 5, 10 for ``local``). Algorithms that are
not registered are skipped with a note.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_local import local, parse_skip  # noqa: E402  (benchmarks/ is not a package)

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation"]
PAPER003_QIS = ["age", "workclass", "sex", "education", "occupation"]
FIG45_ALGORITHMS = ["sd", "mondrian", "incognito", "datafly"]
FIG79_ALGORITHMS = ["mst", "mondrian", "k-member"]
TIMEOUT = 1800


def data_dir(args):
    root = args.data or os.environ.get("KANON_GRAPH_DATA")
    if not root:
        sys.exit("set KANON_GRAPH_DATA (or --data) to the folder holding adult/")
    return Path(root) / "adult"


def load(adult):
    table = pd.read_csv(adult / "adult.csv", sep=";")
    return table, kg.load_hierarchies(adult)


def registered(names):
    known = kg.algorithms()
    for name in names:
        if name not in known:
            print(f"  note: algorithm {name!r} is not registered; skipped")
    return [n for n in names if n in known]


def run(table, schema, k, algorithm, metrics):
    started = time.perf_counter()
    try:
        res = kg.anonymize(table, schema, k=k, algorithm=algorithm, seed=0, metrics=metrics)
    except Exception as exc:  # a failed run is a data point, not a crash
        return {"error": f"{type(exc).__name__}: {exc}"[:200],
                "seconds": time.perf_counter() - started}
    out = {m: res.metrics[m] for m in metrics}
    out.update(seconds=time.perf_counter() - started, classes=len(res.classes),
               suppressed=res.suppressed, error="")
    return out


def write_csv(path, rows):
    columns = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    print(f"  wrote {path}")


# ------------------------------------------------------------------ paper 000
def fig45(args, table, hier):
    sizes = [500, 1000] if args.quick else [500, 1000, 3000, 5000]
    ks = [2, 10, 25, 50] if args.quick else [2] + list(range(5, 51, 5))
    with_h = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                       hierarchies=hier)
    free = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"])
    rows = []
    algorithms = registered(FIG45_ALGORITHMS)
    for n in sizes:
        sample = table.sample(n, random_state=0)
        for algorithm in algorithms:
            variants = [("sd", free), ("sd+hierarchies", with_h)] if algorithm == "sd" \
                else [(algorithm, with_h)]
            for label, schema in variants:
                for k in ks:
                    r = run(sample, schema, k, algorithm, ["ncp", "utility"])
                    rows.append({"rows": n, "algorithm": label, "k": k,
                                 "hierarchies": schema is with_h, **r})
                print(f"  fig45 n={n} {label}: NCP " + " ".join(
                    f"{row.get('ncp', float('nan')):.0f}" for row in rows[-len(ks):]),
                    flush=True)
    write_csv(args.out / "paper000_fig45.csv", rows)
    plot(args.out, rows, "rows", [("ncp", "total NCP", "paper000_fig4.png"),
                                  ("utility", "utility", "paper000_fig5.png")])
    return rows


# ------------------------------------------------------------------ paper 003
def fig79(args, table, hier):
    n = 1000 if args.quick else args.fig79_rows
    ks = [3, 9, 15, 21] if args.quick else list(range(3, 22, 3))
    sample = table if not n or n >= len(table) else table.sample(n, random_state=0)
    try:
        own = kg.datasets.adult_hierarchies(PAPER003_QIS)
        source = "project (paper 003 Table 3 heights)"
    except Exception:  # the project's hierarchies are optional here
        own, source = {c: hier[c] for c in PAPER003_QIS}, "ARX"
    print(f"  fig79: {len(sample)} rows, hierarchies: {source}")
    rows = []
    algorithms = registered(FIG79_ALGORITHMS)
    for q in range(1, 6):
        qis = PAPER003_QIS[:q]
        schema = kg.Schema(quasi_identifiers=qis, sensitive=["salary-class"],
                           hierarchies={c: own[c] for c in qis})
        for algorithm in algorithms:
            for k in ks:
                r = run(sample, schema, k, algorithm, ["gcp", "discernibility", "cavg"])
                rows.append({"qi_size": q, "algorithm": algorithm, "k": k, **r})
            print(f"  fig79 qi={q} {algorithm}: GCP " + " ".join(
                f"{row.get('gcp', float('nan')):.3f}" for row in rows[-len(ks):]), flush=True)
    write_csv(args.out / "paper003_fig79.csv", rows)
    plot(args.out, rows, "qi_size", [("gcp", "GCP", "paper003_fig7.png"),
                                     ("discernibility", "discernibility", "paper003_fig8.png"),
                                     ("cavg", "CAVG", "paper003_fig9.png")])
    return rows


# ------------------------------------------------------------------- timing
def one(args):
    """Subprocess body: one algorithm at one k; prints a JSON line."""
    table, hier = load(data_dir(args))
    if args.rows:
        table = table.sample(args.rows, random_state=0)
    schema = kg.Schema(quasi_identifiers=ADULT_QIS, sensitive=["salary-class"],
                       hierarchies=hier)
    before = _rss_mb()
    peak = [before]
    stop = threading.Event()

    def watch():
        while not stop.wait(0.005):
            peak[0] = max(peak[0], _rss_mb())

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    r = run(table, schema, args.k, args.one, ["ncp", "gcp", "loss"])
    stop.set()
    watcher.join()
    r.update(rss_before_mb=before, peak_rss_mb=max(peak[0], _rss_mb()))
    print(json.dumps(r))


def _rss_mb():
    """Current resident set size (Linux /proc; falls back to the peak so far)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timing(args):
    rows_n = 5000 if args.quick else 0
    rows = []
    for algorithm in kg.algorithms():
        for k in (5, 10):
            cmd = [sys.executable, __file__, "--one", algorithm, "--k", str(k),
                   "--rows", str(rows_n)] + (["--data", args.data] if args.data else [])
            started = time.perf_counter()
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
                line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
                r = json.loads(line) if line.startswith("{") else {
                    "error": done.stderr.strip().splitlines()[-1][:200]}
            except subprocess.TimeoutExpired:
                r = {"error": f"timeout after {TIMEOUT} s"}
            r.setdefault("seconds", time.perf_counter() - started)
            row = {"algorithm": algorithm, "k": k, "rows": rows_n or 30162, **r}
            rows.append(row)
            print(f"  timing {algorithm:22s} k={k:2d}: {row['seconds']:8.2f} s  "
                  f"peak {row.get('peak_rss_mb', float('nan')):7.0f} MB "
                  f"(+{row.get('peak_rss_mb', 0) - row.get('rss_before_mb', 0):.0f})  "
                  f"GCP {row.get('gcp', float('nan')):.4f}  {row.get('error', '')}", flush=True)
    write_csv(args.out / "timing.csv", rows)
    return rows


# -------------------------------------------------------------------- plots
def plot(out, rows, panel, measures):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  matplotlib is not installed: no figures (pip install kanon_graph[plot])")
        return
    frame = pd.DataFrame([r for r in rows if not r.get("error")])
    if frame.empty:
        return
    panels = sorted(frame[panel].unique())
    for column, label, name in measures:
        fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.4), squeeze=False)
        for ax, value in zip(axes[0], panels):
            part = frame[frame[panel] == value]
            for algorithm, curve in part.groupby("algorithm"):
                curve = curve.sort_values("k")
                ax.plot(curve["k"], curve[column], marker="o", ms=3, label=algorithm)
            ax.set_title(f"{panel.replace('_', ' ')} = {value}")
            ax.set_xlabel("k")
            ax.set_ylabel(label)
        axes[0][0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        print(f"  wrote {out / name}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out"))
    parser.add_argument("--data", default=None)
    parser.add_argument("--only", default="fig45,fig79,timing,local")
    parser.add_argument("--local-ks", default="2,5,10,20,50",
                        help="k values of the local section (full mode)")
    parser.add_argument("--local-skip", default="",
                        help='runs the local section leaves out, e.g. "k-member:50;bottom-up:50"')
    parser.add_argument("--fig79-rows", type=int, default=5000)
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--k", type=int, default=5, help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        parse_skip(args.local_skip)
    except ValueError as exc:
        parser.error(str(exc))
    if args.one:
        return one(args)
    args.out = Path(args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    table, hier = load(data_dir(args))
    parts = set(args.only.split(","))
    if "fig45" in parts:
        print("paper 000, Figures 4-5")
        fig45(args, table, hier)
    if "fig79" in parts:
        print("paper 003, Figures 7-9")
        fig79(args, table, hier)
    if "timing" in parts:
        print("full Adult, seconds and peak memory" + (" (quick: 5000 rows)" if args.quick else ""))
        timing(args)
    if "local" in parts:
        print("local recoding on Adult, 8 QIs (issue 12)"
              + (" (quick)" if args.quick else ""))
        local(args, table, hier, ADULT_QIS, write_csv)


if __name__ == "__main__":
    main()
