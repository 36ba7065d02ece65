"""Benchmark of Mondrian (algorithm="mondrian") on full Adult, 8 quasi-identifiers.

For every k and every release (``free``: hierarchy-free, age numeric and the
seven others categorical value sets; ``arx``: ARX's Adult hierarchies) it
prints seconds end to end (``kg.anonymize``: encode, cut, recode, verify,
metrics) as wall clock and as this process's CPU time (the machine may be
shared: the load average is printed too), the peak of memory traced by
``tracemalloc`` during a second, identical call, the number of classes, GCP
(003 eq. 7; hierarchy-free a categorical set costs its distinct values over
the column's), total NCP, ARX's Loss (geometric, the ``loss`` metric) and the
arithmetic mean of ARX's per-attribute Loss (issue 12's table).

Usage::

    KANON_GRAPH_DATA=/path/to/data python benchmarks/bench_mondrian.py
        [--k 5 10] [--release free arx] [--option cut=strict --option order=codes]

``--option name=value`` passes a keyword to ``mondrian`` (repeatable), so the
variants can be compared on the same data.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg

QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
       "workclass", "occupation"]
KS = [2, 5, 10, 20, 50]


def schemas(folder):
    """The hierarchy-free and the ARX-hierarchy schema, as in bench_sd.py."""
    free = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"], numeric=["age"],
                     categorical=[q for q in QIS if q != "age"])
    arx = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"], numeric=["age"],
                    hierarchies=kg.load_hierarchies(folder))
    return {"free": free, "arx": arx}


def run(table, schema, k, options):
    def call():
        return kg.anonymize(table, schema, k=k, algorithm="mondrian",
                            metrics=["gcp", "ncp", "loss"], **options)
    wall, cpu = time.perf_counter(), time.process_time()
    res = call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tracemalloc.start()
    call()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    per = kg.metrics.arx_loss_per_attribute(res.release)
    return {"wall": wall, "cpu": cpu, "peak": peak, "classes": len(res.classes),
            "gcp": res.metrics["gcp"], "ncp": res.metrics["ncp"], "loss": res.metrics["loss"],
            "mean_loss": float(np.mean(list(per.values())))}


def parse_options(pairs):
    options = {}
    for pair in pairs or []:
        name, _, value = pair.partition("=")
        if not value:
            sys.exit(f"--option expects name=value, got {pair!r}")
        options[name] = value
    return options


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="*", default=KS)
    parser.add_argument("--release", nargs="*", default=["free", "arx"],
                        choices=["free", "arx"])
    parser.add_argument("--option", action="append", help="name=value for mondrian")
    args = parser.parse_args(argv)
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        sys.exit("set KANON_GRAPH_DATA to the folder holding adult/")
    folder = Path(root) / "adult"
    table = pd.read_csv(folder / "adult.csv", sep=";")
    options = parse_options(args.option)
    known = schemas(folder)
    kg.anonymize(table.head(100), known["free"], k=2, algorithm="mondrian", metrics=[])
    print(f"# full Adult ({len(table)} rows), 8 QIs; options {options or 'default'}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'release':<7} {'k':>3} {'wall_s':>7} {'cpu_s':>7} {'peak_MB':>7} {'classes':>7} "
          f"{'GCP':>7} {'NCP':>10} {'Loss':>7} {'meanLoss':>8}")
    for release in args.release:
        for k in args.k:
            r = run(table, known[release], k, options)
            print(f"{release:<7} {k:>3} {r['wall']:>7.3f} {r['cpu']:>7.3f} {r['peak']:>7.1f} "
                  f"{r['classes']:>7} {r['gcp']:>7.4f} {r['ncp']:>10.1f} {r['loss']:>7.4f} "
                  f"{r['mean_loss']:>8.4f}", flush=True)
    print(f"# load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
