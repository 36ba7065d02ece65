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

and prints one line per run: the mean Loss (the suite's formula:
:func:`kanon_graph.metrics.arx_loss_per_attribute` averaged over the
quasi-identifiers, a suppressed cell costs 1), suppressed records, CPU and
wall seconds and the load average. A model the whole table fails is said so
and not run. ``--tables heldout`` runs the held-out tables of
:mod:`heldout` instead (to *report* the effect of a choice, never to make it).

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/tune_sensitive.py \\
        [--tables adult,fars,patients,clinic] [--models distinct-2,t-0.2] [--k 5,10]
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


def held_out():
    return dict(heldout.HELD_OUT)


def run(table, schema, k, model, how):
    """One release: ``how`` is "stepwise" or "trials" (auto as before the change)."""
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
    args = parser.parse_args(argv)
    builders = dict(TUNING)
    if args.tables == "heldout":
        builders = held_out()
        names = list(builders)
    else:
        names = args.tables.split(",")
    print("table\tmodel\tk\thow\tloss\tsuppressed\tcpu_s\twall_s\tload\tchose", flush=True)
    for name in names:
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


if __name__ == "__main__":
    main()
