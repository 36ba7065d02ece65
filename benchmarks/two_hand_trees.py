"""Two hand-built hierarchies of one table, each scored on the other's trees (issue 48).

Issue 48's "today's" yardstick scores a released cell on *one* hand-built
hierarchy (the smallest node of that tree holding the cell's values,
:func:`suggest_vs_builder.rescored`). How much of a gap by it comes from the
release's quality, and how much from its tree not being that one? Adult has
two hand-built sets of hierarchies for the same eight quasi-identifiers:
ARX's published files (``$KANON_GRAPH_DATA/adult``, the suite's "hand") and
the project's own (:func:`kanon_graph.datasets.adult_hierarchies`, truthfully
labelled ages, its own occupation and education trees). The default release
(``kg.anonymize``, no algorithm named, ``seed=0``; every release checked) is
made with each, and with ``hierarchy suggest``'s drafts, and each release is
scored on both hand-built sets by today's yardstick and once by the
hierarchy-independent data yardstick (:func:`suggest_vs_builder.data_loss`).
A gap is against the release made with the trees it is scored on.

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/two_hand_trees.py [--k 5,10] [--per-qi]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suggest_vs_builder as svb  # noqa: E402  (benchmarks/suggest_vs_builder.py)


def schemas():
    """The Adult table and its three schemas: ARX's trees, the project's, the drafts."""
    table, arx = svb.hand_built("adult")
    qis = list(arx.quasi_identifiers)
    own = kg.Schema(quasi_identifiers=qis, sensitive=list(arx.sensitive),
                    hierarchies=kg.datasets.adult_hierarchies(qis))
    drafted, _ = svb.suggested(table, arx)
    return table, {"ARX's files": arx, "the project's": own, "suggested": drafted}


def measured(table, made, k):
    """``{release: {"on ARX's files": {qi: loss}, "on the project's": ..., "data": ...}}``."""
    qis = list(made["ARX's files"].quasi_identifiers)
    out = {}
    for label, schema in made.items():
        res = kg.anonymize(table, schema, k=k, seed=0)
        assert res.verification.holds, (label, k)
        out[label] = {
            "on ARX's files": {q: v[0] for q, v in
                               svb.rescored(res, schema, made["ARX's files"]).items()},
            "on the project's": {q: v[0] for q, v in
                                 svb.rescored(res, schema, made["the project's"]).items()},
            "data": svb.data_loss(table, res.table, qis, res.suppressed_mask),
        }
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", default="5,10")
    parser.add_argument("--per-qi", action="store_true",
                        help="also print each quasi-identifier's loss")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():            # ARX's one-off age labels: said in the doc
        warnings.simplefilter("ignore", kg.exceptions.HierarchyWarning)
        table, made = schemas()
    base = {"on ARX's files": "ARX's files", "on the project's": "the project's"}
    print("| k | release made with | today's on ARX's files | gap | today's on the "
          "project's | gap | data | gap to ARX's files |")
    print("|---" * 8 + "|")
    for k in (int(v) for v in args.k.split(",")):
        figures = measured(table, made, k)
        mean = {label: {yard: float(np.mean(list(per.values())))
                        for yard, per in yards.items()} for label, yards in figures.items()}
        for label, yards in mean.items():
            cells = []
            for yard in ("on ARX's files", "on the project's"):
                ref = mean[base[yard]][yard]
                cells += [f"{yards[yard]:.4f}", f"{(yards[yard] - ref) / ref:+.1%}"]
            ref = mean["ARX's files"]["data"]
            print(f"| {k} | {label} | {' | '.join(cells)} | {yards['data']:.4f} "
                  f"| {(yards['data'] - ref) / ref:+.1%} |")
        if args.per_qi:
            for label, yards in figures.items():
                for yard, per in yards.items():
                    text = ", ".join(f"{q} {v:.3f}" for q, v in per.items())
                    print(f"    k={k} {label}, {yard}: {text}")


if __name__ == "__main__":
    main()
