"""Individual risk (Benedetti-Franconi) beside the expansion estimate 1 / F (issue 34, item 3).

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/risk_individual.py [--runs 5]

It prints

* the hand-computed case of ``docs/privacy.md`` (a 10% sample: a unique, a
  pair and a class of five) under both population models;
* the largest relative error of the approximation ``p / (f - (1-p))`` used
  for ``f >= 3`` against the series ``sum_h P(F = h | f) / h`` summed term by
  term, over ``f`` in 3..40 and ``p`` in 0.001..0.999;
* on ARX's Adult (30,162 records; quasi-identifiers sex, age, race,
  marital-status, education, native-country, workclass, occupation), before
  and after ``optimal`` at k = 5 with ARX's hierarchies, for sampling
  fractions 0.01 and 0.1: journalist highest and average and marketer risk
  under ``individual`` and ``expansion``, and the median seconds of one
  ``kg.risk.assess`` call (every model) of ``--runs`` runs, with the load
  average (the machine is shared: timings are indicative).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import numpy as np

import kanon_graph as kg
from kanon_graph import risk

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]


def series(f, p):
    """E[1/F | f] summed term by term (the negative binomial posterior)."""
    total = 0.0
    h, mode = f, (f - 1) / p + 1                  # the terms fall after the mode
    while True:
        term = math.exp(math.lgamma(h) - math.lgamma(f) - math.lgamma(h - f + 1)
                        + f * math.log(p) + (h - f) * math.log1p(-p))
        total += term / h
        if h > mode and term < 1e-17 * total:
            return total
        h += 1


def hand_case():
    print("hand case: f = (1, 2, 5), pi = 0.1 (F^ = 10, 20, 50)")
    for model in ("individual", "expansion"):
        rc = risk.RiskClasses.from_sizes([1, 2, 5], sampling_fraction=0.1,
                                         population_model=model)
        print(f"  {model:10s} record risks {np.round(rc.record_risks(), 6).tolist()}  "
              f"journalist highest {risk.journalist(rc)['highest']:.6f}  "
              f"marketer {risk.marketer(rc)['average']:.6f}")


def approximation_error():
    worst = (0.0, None, None)
    for f in range(3, 41):
        for p in (0.001, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9, 0.999):
            exact = series(f, p)
            approx = float(risk.individual_risk([f], [f / p])[0])
            error = (approx - exact) / exact
            assert error > -1e-12, (f, p, error)
            worst = max(worst, (error, f, p))
    print(f"approximation p/(f-(1-p)) for f >= 3: never below the series; largest relative "
          f"error {worst[0]:.2%} at f = {worst[1]}, p = {worst[2]}")


def adult(runs):
    root = os.environ.get("KANON_GRAPH_DATA")
    if not root:
        print("Adult: KANON_GRAPH_DATA is not set; skipped")
        return
    table = kg.datasets.load_adult(Path(root) / "adult")
    schema = kg.Schema(quasi_identifiers=QIS, sensitive=["salary-class"],
                       hierarchies=kg.datasets.adult_hierarchies(QIS))
    res = kg.anonymize(table, schema, k=5, algorithm="optimal")
    print(f"Adult: {len(table)} records; optimal k=5 released {len(table) - res.suppressed}")
    for name, frame, mask in (("original", table, None),
                              ("k=5 release", res.table, res.suppressed_mask)):
        for pi in (0.01, 0.1):
            row = []
            for model in ("individual", "expansion"):
                times = []
                for _ in range(runs):
                    start = time.perf_counter()
                    out = risk.assess(frame, QIS, sampling_fraction=pi, suppressed=mask,
                                      population_model=model)
                    times.append(time.perf_counter() - start)
                j, m = out["journalist"], out["marketer"]
                row.append(f"{model}: journalist highest {j['highest']:.4g} average "
                           f"{j['average']:.4g} marketer {m['average']:.4g} "
                           f"({np.median(times):.3f} s)")
            print(f"  {name:12s} pi = {pi:<5g} " + " | ".join(row))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    hand_case()
    approximation_error()
    adult(args.runs)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
