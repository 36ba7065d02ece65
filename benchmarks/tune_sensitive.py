"""Tuning evidence for ``auto`` under l-diversity and t-closeness (issue 40, build item 3).

On the **tuning** tables of :mod:`quality` (``adult``, ``fars``, ``patients``,
``clinic``; never the held-out ones) with each table's natural sensitive
column -- adult: salary-class; fars: iinjury (injury severity, its other seven
columns the quasi-identifiers); patients: diagnosis; clinic: cost (numeric:
the ordered distance) -- under distinct l = 2 and 3, entropy l = 2, recursive
(c = 3, l = 2), t = 0.2 and 0.3, at k = 5 and 10, it runs

* ``stepwise`` (``kg.anonymize(..., algorithm="stepwise")``),
* ``trials``: ``auto``'s trials as they ran before ``stepwise`` took l and t
  (optimal, mondrian, sd and mst scored on the table or a 20,000-row sample,
  the winner released), and
* ``auto``: the default as it is now (``--how auto``),

* ``arx``: ARX 3.9.2's local recoding with the same model (with ``ARX_BUILD``
  set; :func:`quality_sensitive.arx_row`, one warm-up: only its Loss is used),

and prints one line per run: the mean Loss (the suite's formula:
:func:`kanon_graph.metrics.arx_loss_per_attribute` averaged over the
quasi-identifiers, a suppressed cell costs 1), suppressed records, CPU and
wall seconds and the load average. A model the whole table fails is said so
and not run. ``--tables heldout`` runs the held-out tables of
:mod:`heldout` instead (to *report* the effect of a choice, never to make it);
``--tables all`` both groups, tuning first, and the sensitive suite's FARS
(``fars-alcohol``, :func:`quality_sensitive.fars`) among the tuning tables.

``--merge A.tsv,B.tsv`` takes the lines earlier calls printed (e.g. ``--how
trials,arx`` and ``--how stepwise`` run apart) into the table; ``--how none``
runs nothing and only writes the table of the merged runs.

``--table FILE`` (issue 47 item 1) ends with a markdown table, written to FILE:
per run, stepwise-alone Loss, the trials' choice Loss and ARX's Loss,
tuning and held-out tables apart, each run marked where stepwise is above
either. Losses do not depend on the machine's load.

Usage::

    ARX_BUILD=/work/arx/build KANON_GRAPH_DATA=/work/shared/data \\
        python benchmarks/tune_sensitive.py --tables all \\
        --models distinct-2,distinct-3,entropy-2,recursive-3-2 --how stepwise,trials,arx \\
        --table docs/bench/sensitive-stepwise.md
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path
from unittest import mock

import numpy as np

import kanon_graph as kg
from kanon_graph.auto import choice as _auto

sys.path.insert(0, str(Path(__file__).resolve().parent))
import heldout  # noqa: E402  (benchmarks/heldout.py)
import quality  # noqa: E402  (benchmarks/quality.py)

MODELS = {
    "distinct-2": {"l": 2, "diversity": "distinct"},
    "distinct-3": {"l": 3, "diversity": "distinct"},
    "entropy-2": {"l": 2, "diversity": "entropy"},
    "recursive-3-2": {"l": 2, "diversity": "recursive", "c": 3},
    "t-0.2": {"t": 0.2},
    "t-0.3": {"t": 0.3},
}


def fars():
    """FARS (20,000 sampled rows, as in :mod:`quality`), iinjury sensitive."""
    table, schema = quality.fars()
    qis = [q for q in schema.quasi_identifiers if q != "iinjury"]
    return table, kg.Schema(quasi_identifiers=qis, sensitive=["iinjury"],
                            hierarchies={q: schema.hierarchies[q] for q in qis})


TUNING = {"adult": quality.adult, "fars": fars, "patients": quality.patients,
          "clinic": quality.clinic}
EXTRA = {"fars-alcohol": "fars"}      # the sensitive suite's FARS (alcohol added by code)


def held_out():
    return dict(heldout.HELD_OUT)


def _builders(which):
    import quality_sensitive

    tuning = {**TUNING, "fars-alcohol": quality_sensitive.fars}
    if which == "heldout":
        return held_out(), {}
    if which == "all":
        return {**tuning, **held_out()}, tuning
    names = which.split(",")
    every = {**tuning, **held_out()}
    return {n: every[n] for n in names}, tuning


def arx_loss(table, schema, k, model):
    """ARX's local recoding with ``model``: its Loss scored our way (one warm-up)."""
    import quality_sensitive

    row = quality_sensitive.arx_row(table, schema, k, model, quality_sensitive.distance(
        table, schema), 1, 1800.0)
    return {"loss": row["loss"], "suppressed": row["suppressed"], "cpu": row["cpu_seconds"],
            "wall": row["seconds"], "load": row["load_before"], "chose": "arx-local"}


def _fmt(value):
    return "—" if value is None else f"{value:.4f}"


def markdown(results, tuning):
    """Per run: stepwise alone, the trials' choice, ARX; tuning and held out apart."""
    lines = []
    for group, names in (("tuning", [t for t in results if t[0] in tuning]),
                         ("held out", [t for t in results if t[0] not in tuning])):
        if not names:
            continue
        lines += ["", f"**{group}**", "",
                  "| table | model | k | stepwise | trials' choice | ARX local | stepwise <= both |",
                  "|---|---|---|---|---|---|---|"]
        for key in names:
            r = results[key]
            s, t, a = (r.get(h, {}).get("loss") for h in ("stepwise", "trials", "arx"))
            chose = r.get("trials", {}).get("chose", "")
            ok = all(s is not None and (o is None or s <= o + 1e-9) for o in (t, a))
            said = "(not all run)" if s is None else "**no**" if not ok \
                else "yes" if None not in (t, a) else "(not all run)"
            chose = f" ({chose})" if chose else ""
            lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {_fmt(s)} | {_fmt(t)}{chose} "
                         f"| {_fmt(a)} | {said} |")
    return "\n".join(lines)


def _read_runs(path, results):
    """The runs an earlier call printed to ``path`` (its tab-separated lines), into ``results``."""
    for line in path.read_text().splitlines():
        cells = line.split("\t")
        if len(cells) != 10 or cells[0] == "table":
            continue
        name, model, k, how, loss, suppressed, cpu, wall, load, chose = cells
        results.setdefault((name, model, int(k)), {})[how] = {
            "loss": float(loss), "suppressed": int(suppressed), "cpu": float(cpu),
            "wall": float(wall), "load": float(load), "chose": chose}


def run(table, schema, k, model, how):
    """One release: ``how`` is "stepwise", "trials" (auto without stepwise), "auto" or "arx"."""
    if how == "arx":
        return arx_loss(table, schema, k, model)
    load = os.getloadavg()[0]
    started, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "trials":
            with mock.patch.object(_auto, "taught", lambda *a, **kw: None), \
                    mock.patch.object(_auto, "SENSITIVE_TRIAL", "(none)"):
                res = kg.anonymize(table, schema, k=k, seed=0, **MODELS[model])
        elif how == "auto":
            res = kg.anonymize(table, schema, k=k, seed=0, **MODELS[model])
        else:
            res = kg.anonymize(table, schema, k=k, seed=0, algorithm=how, **MODELS[model])
    cpu, wall = time.process_time() - cpu, time.perf_counter() - started
    per = kg.metrics.arx_loss_per_attribute(res.release)
    chose = res.stats.get("auto", {}).get("chose", how)
    return {"loss": float(np.mean(list(per.values()))), "suppressed": int(res.suppressed),
            "cpu": cpu, "wall": wall, "load": (load + os.getloadavg()[0]) / 2,
            "chose": chose}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TUNING))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--k", default="5,10")
    parser.add_argument("--how", default="stepwise,trials")
    parser.add_argument("--table", default="", help="write the markdown comparison here")
    parser.add_argument("--merge", default="", help="earlier printed runs (files, comma-"
                        "separated) taken into the markdown table beside this run's")
    args = parser.parse_args(argv)
    builders, tuning = _builders(args.tables)
    names = list(builders)
    results = {}
    for path in filter(None, args.merge.split(",")):
        _read_runs(Path(path), results)
    print("table\tmodel\tk\thow\tloss\tsuppressed\tcpu_s\twall_s\tload\tchose", flush=True)
    for name in names if args.how != "none" else ():      # none: the --merge runs alone
        table, schema = builders[name]()
        for model in args.models.split(","):
            data = kg.encode(table, schema)
            try:
                kg.privacy.reachability.check_reachable(
                    kg.privacy.PrivacyModel(2, **MODELS[model]).bind(data), data, None,
                    None, False)
            except ValueError as exc:
                print(f"{name}\t{model}\t-\t-\tunreachable: {str(exc)[:80]}", flush=True)
                continue
            for k in [int(v) for v in args.k.split(",")]:
                for how in args.how.split(","):
                    try:
                        r = run(table, schema, k, model, how)
                    except Exception as exc:          # a refusal is a result too
                        print(f"{name}\t{model}\t{k}\t{how}\terror: {exc}", flush=True)
                        continue
                    print(f"{name}\t{model}\t{k}\t{how}\t{r['loss']:.4f}\t{r['suppressed']}\t"
                          f"{r['cpu']:.1f}\t{r['wall']:.1f}\t{r['load']:.1f}\t{r['chose']}",
                          flush=True)
                    results.setdefault((name, model, k), {})[how] = r
                if args.table:
                    text = markdown(results, tuning)
                    Path(args.table).write_text(text.lstrip() + "\n")
    if args.table:
        text = markdown(results, tuning)
        Path(args.table).write_text(text.lstrip() + "\n")
        print(text)


if __name__ == "__main__":
    main()
