"""Paper 002's worked flow: sensitivity weights, a threshold, generalization boundaries.

Hussien, Darwish & Hefny (2016), section 3.2, Query 1 on Adult with an added
synthetic "Name" column: weights Name 6, Sex 2, Marital-status 3, Race 4,
Age 5, threshold 6, k = 2 and 2-diversity on the salary class. Then, as in
section 3.3.3, the KS, Welch t and F tests of Age, original against released.

Run:  python examples/paper_002_boundaries.py [ADULT_FOLDER] [--plot age.png]
ADULT_FOLDER holds ARX's adult.csv and adult_hierarchy_*.csv (default:
$KANON_GRAPH_DATA/adult); without it the synthetic census table is used with
the project's own Adult hierarchies.
"""

import argparse
import os
from pathlib import Path

import kanon_graph as kg
from kanon_graph.constrained import sensitivity_release
from kanon_graph.metrics.distribution import (distribution_tests, ecdf_distance,
                                              released_numbers)

WEIGHTS = {"name": 6, "sex": 2, "marital-status": 3, "race": 4, "age": 5}
REQUEST = ["name", "marital-status", "age", "race", "sex", "salary-class"]


def load(folder):
    if folder is not None and (Path(folder) / "adult.csv").exists():
        return kg.datasets.load_adult(folder), kg.load_hierarchies(folder), f"Adult ({folder})"
    table = kg.datasets.make_census(30162, seed=0)
    return table, kg.datasets.adult_hierarchies(), "synthetic census (make_census)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("KANON_GRAPH_DATA")
    parser.add_argument("folder", nargs="?",
                        default=str(Path(default) / "adult") if default else None)
    parser.add_argument("--plot", help="write the Age histogram / ECDF figure here (PNG)")
    args = parser.parse_args(argv)

    table, hierarchies, source = load(args.folder)
    table.insert(0, "name", [f"person-{i}" for i in range(len(table))])
    schema = kg.Schema(quasi_identifiers=["sex", "marital-status", "race", "age"],
                       identifiers=["name"], sensitive=["salary-class"],
                       hierarchies=hierarchies)
    out = sensitivity_release(table, schema, REQUEST, weights=WEIGHTS, threshold=6, k=2, l=2)
    d = out.decision
    print(f"data: {source}, {len(table)} records")
    print(f"request {list(d.request)}: total weight {d.total_weight:g} > threshold "
          f"{d.threshold:g}: anonymize={d.anonymize}; withheld {list(d.withheld)}")
    print("generalization order:", " -> ".join(out.result.stats["order"]))
    for number, (attribute, level) in enumerate(out.result.stats["steps"], start=1):
        print(f"  step {number}: {attribute} to level {level}")
    print(out.result.verification.describe())

    age = table["age"].to_numpy()
    released = released_numbers(out.table["age"], age, method="uniform", seed=0)
    tests = distribution_tests(age, released)
    largest, mean = ecdf_distance(age, released)
    print(f"Age, original against released (uniform draw within each interval):")
    print(f"  KS  D = {tests.ks_statistic:.4f}  p = {tests.ks_pvalue:.4g}")
    print(f"  t   t = {tests.t_statistic:.4f}  p = {tests.t_pvalue:.4g}")
    print(f"  F   F = {tests.f_statistic:.4f}  p = {tests.f_pvalue:.4g}")
    print(f"  ECDF difference: largest {largest:.4f}, mean {mean:.4f}")
    if args.plot:
        from kanon_graph.viz.distribution import distribution_figure

        distribution_figure(age, released, attribute="age").savefig(args.plot, dpi=100)
        print(f"figure written to {args.plot}")


if __name__ == "__main__":
    main()
