"""The ``local`` section of ``benchmarks/compare.py``: issue 12's table of local recoders.

Every local-recoding algorithm on Adult (8 quasi-identifiers, ARX's
hierarchies) against k: the mean per-attribute ARX Loss of the release
(:func:`kanon_graph.metrics.arx_loss_per_attribute`, averaged over the
quasi-identifiers; lower is better), the seconds of ``anonymize`` end to end
(encoding, clustering, recoding, verification and metrics; wall clock, with
the process CPU seconds beside it in the CSV and the printed lines, which a
busy machine inflates less), and beside them
the geometric ``loss`` of the library, GCP and discernibility.

The variants are :data:`VARIANTS`: ``bottom-up``, ``k-member``, ``mondrian``,
``mst`` (default split and ``split="paper"``), ``sd`` (default variant and
``variant="paper"``) and ``sensitive-clustering`` (it applies: Adult has the
sensitive ``salary-class``). Each variant is warmed up once on 200 rows at
k = 2 before it is timed, so one-off imports and compilation are not counted
in the first k.

ARX's rows are constants from a separate run (issue 22: ARX 3.9.2 local
recoding on full Adult, same hierarchies, its released table scored with
*our* formula -- the mean per-attribute ARX Loss, a suppressed cell 1 --
0.0569 at k = 5 and 0.0790 at k = 10; 2.69 s wall at k = 5 on a quiet
machine, k = 10 not timed). They apply to full Adult only (``--quick``
samples 3,000 rows, so there they are context, not a comparison). ARX's own
summary, 1 - granularity, reads 0.0623 / 0.0859 on that release: it
normalizes after averaging, which weights each attribute by ``1 - 1/N``
(``N`` the hierarchy's rows) and reads about 9% higher than our mean on the
same release. That figure is kept in its own column (``arx_granularity``)
and never set beside our mean as if it were the same measure.

Writes ``local.csv`` (one row per variant and k, plus ARX's rows, with an
``error`` column: a failed run is a data point, and a run left out by
``--local-skip`` is a row saying so) and ``local_loss.png`` (Loss against k,
when matplotlib is installed), and prints the table.
"""

from __future__ import annotations

import math
import time

import numpy as np

import kanon_graph as kg

#: (label, registered algorithm, options) of every local variant compared.
VARIANTS = [
    ("bottom-up", "bottom-up", {}),
    ("k-member", "k-member", {}),
    ("mondrian", "mondrian", {}),
    ("mst", "mst", {}),
    ("mst split=paper", "mst", {"split": "paper"}),
    ("sd", "sd", {}),
    ("sd variant=paper", "sd", {"variant": "paper"}),
    ("sensitive-clustering", "sensitive-clustering", {}),
]
ARX_LABEL = "ARX 3.9.2 local (reference)"
#: ARX 3.9.2 local recoding on full Adult, a separate run quoted in issue 22:
#: k -> (our mean per-attribute Loss of ARX's release, ARX's own 1 - granularity of it,
#: wall seconds or nan).
ARX_REFERENCE = {5: (0.0569, 0.0623, 2.69), 10: (0.0790, 0.0859, math.nan)}
METRICS = ["loss", "gcp", "discernibility"]
FULL_KS = [2, 5, 10, 20, 50]
QUICK_KS = [5, 10]
QUICK_ROWS = 3000


def parse_skip(text):
    """``"k-member:20,50;bottom-up:50"`` -> ``{"k-member": {20, 50}, "bottom-up": {50}}``.

    Raises ``ValueError`` naming ``--local-skip`` and the offending entry.
    """
    skip = {}
    labels = {label for label, _, _ in VARIANTS}
    for entry in filter(None, (e.strip() for e in (text or "").split(";"))):
        label, sep, ks = entry.rpartition(":")
        if not sep or label not in labels:
            raise ValueError(f"--local-skip: entry {entry!r} must be LABEL:K[,K...] with LABEL "
                             f"one of {sorted(labels)}")
        try:
            skip[label] = {int(k) for k in ks.split(",") if k.strip()}
        except ValueError:
            raise ValueError(f"--local-skip: entry {entry!r} has a k that is not an "
                             f"integer") from None
    return skip


def run_one(table, schema, k, algorithm, options):
    """One timed ``anonymize`` call -> a row of measures (``error`` set if it failed)."""
    started, cpu = time.perf_counter(), time.process_time()
    try:
        res = kg.anonymize(table, schema, k=k, algorithm=algorithm, seed=0,
                           metrics=METRICS, **options)
    except Exception as exc:  # a failed run is a data point, not a crash
        return {"seconds": time.perf_counter() - started,
                "cpu_seconds": time.process_time() - cpu,
                "error": f"{type(exc).__name__}: {exc}"[:200]}
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    per = kg.metrics.arx_loss_per_attribute(res.release)
    return {"loss_mean": float(np.mean(list(per.values()))),
            "seconds": seconds, "cpu_seconds": cpu,
            **{m: float(res.metrics[m]) for m in METRICS},
            "classes": len(res.classes), "suppressed": res.suppressed, "error": ""}


def local_rows(table, schema, ks, skip=None):
    """Every variant at every k (and ARX's constant rows), printed as they finish."""
    skip = skip or {}
    nan3 = (math.nan, math.nan, math.nan)
    rows = [{"algorithm": ARX_LABEL, "k": k, "rows": len(table),
             "loss_mean": ARX_REFERENCE.get(k, nan3)[0],
             "arx_granularity": ARX_REFERENCE.get(k, nan3)[1],
             "seconds": ARX_REFERENCE.get(k, nan3)[2],
             "error": "" if k in ARX_REFERENCE else "not measured (constants from issue 22)"}
            for k in ks]
    known = kg.algorithms()
    warm = table.sample(min(200, len(table)), random_state=1)
    for label, algorithm, options in VARIANTS:
        if algorithm not in known:
            print(f"  note: algorithm {algorithm!r} is not registered; {label} skipped")
            rows += [{"algorithm": label, "k": k, "rows": len(table),
                      "error": "not registered"} for k in ks]
            continue
        run_one(warm, schema, 2, algorithm, options)
        for k in ks:
            if k in skip.get(label, ()):
                r = {"error": "skipped by --local-skip"}
            else:
                r = run_one(table, schema, k, algorithm, options)
            rows.append({"algorithm": label, "k": k, "rows": len(table), **r})
            print("  " + row_line(rows[-1]), flush=True)
    return rows


def _fmt(value, spec):
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else format(value, spec)


def row_line(row):
    """One printed line: label, k, mean Loss, seconds, loss, GCP, DM, error."""
    get = row.get
    return (f"{get('algorithm'):28s} k={get('k'):<3d} Loss {_fmt(get('loss_mean'), '.4f'):>6} "
            f"{_fmt(get('seconds'), '.2f'):>7} s (cpu {_fmt(get('cpu_seconds'), '.2f')})  "
            f"geom {_fmt(get('loss'), '.4f'):>6}  GCP {_fmt(get('gcp'), '.4f'):>6}  "
            f"DM {_fmt(get('discernibility'), '.0f'):>10}  {get('error', '')}")


def markdown(rows, ks):
    """Issue 12's table: a line per algorithm, ``Loss`` / ``s`` / ``GCP`` / ``DM`` per k.

    ``Loss`` is our mean per-attribute ARX Loss for every row, ARX's included;
    ARX's own 1 - granularity follows the table as a note.
    """
    head = "| algorithm | " + " | ".join(
        f"k={k} Loss | k={k} s | k={k} GCP | k={k} DM" for k in ks) + " |"
    lines = [head, "|---|" + "---|" * (4 * len(ks))]
    by = {(r["algorithm"], r["k"]): r for r in rows}
    for label in [ARX_LABEL] + [v[0] for v in VARIANTS]:
        cells = []
        for k in ks:
            r = by.get((label, k), {})
            cells += [_fmt(r.get("loss_mean"), ".4f"), _fmt(r.get("seconds"), ".2f"),
                      _fmt(r.get("gcp"), ".4f"), _fmt(r.get("discernibility"), ".0f")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    ref = [f"k={k}: {ARX_REFERENCE[k][1]:.4f}" for k in ks if k in ARX_REFERENCE]
    if ref:
        lines.append(f"\nARX's row: its release scored with the same formula (full Adult, a "
                     f"separate run); ARX's own 1 - granularity of it, a different measure: "
                     f"{', '.join(ref)}.")
    return "\n".join(lines)


def plot_loss(path, rows):
    """Mean per-attribute Loss against k, a line per variant, ARX as a marker."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("  matplotlib is not installed: no figure (pip install kanon_graph[plot])")
        return False
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for label in [v[0] for v in VARIANTS]:
        curve = sorted((r["k"], r["loss_mean"]) for r in rows
                       if r["algorithm"] == label and not r.get("error"))
        if curve:
            ax.plot(*zip(*curve), marker="o", ms=3, label=label)
    ref = sorted(ARX_REFERENCE.items())
    ax.plot([k for k, _ in ref], [v[0] for _, v in ref], "k*", ms=10,
            label=ARX_LABEL + ", full Adult, same formula")
    ks = sorted({r["k"] for r in rows})
    ax.set_xscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.minorticks_off()
    ax.set_xlabel("k")
    ax.set_ylabel("mean per-attribute ARX Loss")
    ax.set_title(f"Adult, 8 QIs, {rows[0]['rows']} rows: local recoding")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"  wrote {path}")
    return True


def local(args, table, hier, adult_qis, write_csv):
    """The section: run, write ``local.csv`` and ``local_loss.png``, print the table."""
    ks = QUICK_KS if args.quick else [int(k) for k in args.local_ks.split(",") if k.strip()]
    sample = table.sample(QUICK_ROWS, random_state=0) if args.quick else table
    schema = kg.Schema(quasi_identifiers=adult_qis, sensitive=["salary-class"],
                       hierarchies=hier)
    skip = parse_skip(args.local_skip)
    print(f"  {len(sample)} rows, k = {ks}" + (f", skipped: {args.local_skip}" if skip else ""))
    rows = local_rows(sample, schema, ks, skip)
    write_csv(args.out / "local.csv", rows)
    plot_loss(args.out / "local_loss.png", rows)
    print(markdown(rows, ks))
    return rows
