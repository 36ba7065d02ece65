"""Suggested hierarchies against the suite's hand-built ones (issue 42, item 3).

For every table of the quality suite that has hierarchies (``quality.TABLES``:
the tuning tables adult, fars, patients, clinic and the held-out claims,
registry, admissions), the default release (``kg.anonymize`` with no
algorithm named, ``seed=0``) is made twice at each k: once with the suite's
hierarchies ("hand": ARX's files for adult and fars, builder-made ones for
the others; clinic's, which the suite draws with ``suggest``, are rebuilt
here with the builders as ``suggest`` drew them before issue 42: dates
month / year / decade, the zip masked from the right, weight in bands of
width 5 / 10 / 20), once with ``kg.hierarchy.suggest``'s drafts for the
same quasi-identifiers, their kinds inferred from the data as a user would
get them.

Two figures per release:

* **Loss**: the mean over the quasi-identifiers of
  :func:`kanon_graph.metrics.arx_loss_per_attribute`, each release with its
  own hierarchies. The formula counts leaves under the released node, so
  the two Losses are measured on different yardsticks.
* **Loss on the hand-built hierarchy** (the yardstick shared by both, and
  the one the issue's target, within 10%, is judged by here): each released
  cell stands for the leaves under its label in the hierarchy it was
  released with; it is scored as the smallest node of the *hand-built*
  hierarchy holding all of them, (leaves under that node - 1) / (leaves - 1),
  a suppressed cell 1; the mean over rows, then over quasi-identifiers. For
  the hand release this equals its Loss.

* **Data loss** (issue 48 item 4, needs no hierarchy and no label parsing,
  so sets, intervals and masks are scored alike): a released cell costs
  (distinct original values among the records released with that same cell
  in that column - 1) / (distinct values of the column - 1); a suppressed
  cell, or one written only with ``*``, costs 1; the mean over records, then
  over quasi-identifiers (:func:`data_loss`).

The gap is ``(suggested - hand) / hand``. Also printed: the share of cells
at the hand-built hierarchy's root (``*``) in each release.

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/suggest_vs_builder.py [--tables adult,fars] [--k 5,10]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import quality  # noqa: E402  (benchmarks/quality.py)

TABLES = ["adult", "fars", "patients", "clinic", "claims", "registry", "admissions"]


def clinic_hand():
    """The clinic table with builder hierarchies (what ``suggest`` drew before issue 42)."""
    from kanon_graph.hierarchy import dates, intervals, masking

    table = quality.T.clinic(quality.ROWS)
    hierarchies = {
        "visit": dates(table["visit"], levels=("month", "year", "decade"), name="visit"),
        "zip": masking(table["zip"], name="zip"),
        "weight": intervals(table["weight"], widths=[5, 10, 20], name="weight"),
        "sex": kg.Hierarchy([[s, "*"] for s in sorted(set(table["sex"]))], name="sex"),
    }
    return table, kg.Schema(quasi_identifiers=quality.T.CLINIC_QIS, sensitive=["cost"],
                            hierarchies=hierarchies)


def hand_built(name):
    return clinic_hand() if name == "clinic" else quality.TABLES[name]()


def suggested(table, hand):
    """The same quasi-identifiers with ``suggest``'s drafts (kinds inferred)."""
    qis = list(hand.quasi_identifiers)
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=qis,
                                                 sensitive=list(hand.sensitive)))
    return kg.Schema(quasi_identifiers=qis, sensitive=list(hand.sensitive),
                     hierarchies={q: made[q][0] for q in qis}), {q: made[q][1] for q in qis}


def _covered(hierarchy, label):
    text = str(label)
    try:
        return hierarchy.leaves(text)
    except kg.exceptions.HierarchyError:
        return None


def rescored(res, used, hand):
    """``{qi: (mean cell loss on hand's hierarchy, share of cells at hand's root)}``."""
    out = {}
    rows = len(res.table)
    for q in hand.quasi_identifiers:
        h_used, h_hand = used.hierarchy(q), hand.hierarchy(q)
        root = h_hand.height
        n = h_hand.n_leaves
        counts = res.table[q].astype(str).value_counts()
        total, at_root = 0.0, 0
        for label, count in counts.items():
            leaves = _covered(h_used, label)
            if leaves is None:                       # suppressed or not a node: the root
                cost, top = 1.0, True
            else:
                codes = np.array([h_hand.leaf_index(v) for v in leaves])
                level = h_hand.lca_level(codes)
                node = h_hand.level_map[level][codes[0]]
                under = int((h_hand.level_map[level] == node).sum())
                cost, top = (under - 1) / (n - 1) if n > 1 else 0.0, level == root
            total += cost * count
            at_root += count if top else 0
        out[q] = (total / rows, at_root / rows)
    return out


def data_loss(original, released, qis, suppressed=None):
    """``{qi: mean cell cost}`` of a release, from the data alone (no hierarchy).

    ``original`` and ``released`` are aligned row by row (``released`` is
    ``AnonymizationResult.table``); ``suppressed`` marks suppressed rows.
    A cell released as the label ``L`` costs (distinct original values among
    the rows released as ``L`` - 1) / (distinct values of the column - 1); a
    suppressed cell, or one written only with ``*`` (a root, a full mask),
    costs 1. A column with one value costs 0.
    """
    if len(original) != len(released):
        raise ValueError(f"data_loss: the release has {len(released)} rows, the original "
                         f"{len(original)}")
    out = {}
    for q in qis:
        orig = original[q].astype(str).to_numpy()
        rel = released[q].astype(str).to_numpy()
        frame = pd.DataFrame({"orig": orig, "rel": rel})
        distinct = frame["orig"].nunique()
        if distinct < 2:
            out[q] = 0.0
            continue
        together = frame.groupby("rel")["orig"].transform("nunique").to_numpy()
        cost = (together - 1) / (distinct - 1)
        hidden = np.char.strip(rel.astype(str), "*") == ""
        if suppressed is not None:
            hidden |= np.asarray(suppressed, dtype=bool)
        cost[hidden] = 1.0
        out[q] = float(cost.mean())
    return out


def run(table, schema, k):
    started = time.process_time()
    res = kg.anonymize(table, schema, k=k, seed=0)
    cpu = time.process_time() - started
    loss = float(np.mean(list(kg.metrics.arx_loss_per_attribute(res.release).values())))
    return res, loss, cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--k", default="5,10")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.k.split(",")]
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("| table | k | Loss hand | Loss suggested | gap | on hand: hand | on hand: suggested "
          "| gap on hand | data loss: hand | data loss: suggested | gap on data "
          "| at * hand | at * suggested | CPU s hand / suggested |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.tables.split(","):
        table, hand = hand_built(name)
        mine, how = suggested(table, hand)
        print(f"<!-- {name}: " + "; ".join(f"{q}: {h}" for q, h in how.items()) + " -->")
        for k in ks:
            res_h, loss_h, cpu_h = run(table, hand, k)
            res_s, loss_s, cpu_s = run(table, mine, k)
            on_h = rescored(res_h, hand, hand)
            on_s = rescored(res_s, mine, hand)
            mean_h = float(np.mean([v[0] for v in on_h.values()]))
            mean_s = float(np.mean([v[0] for v in on_s.values()]))
            root_h = float(np.mean([v[1] for v in on_h.values()]))
            root_s = float(np.mean([v[1] for v in on_s.values()]))
            qis = list(hand.quasi_identifiers)
            data_h = float(np.mean(list(data_loss(table, res_h.table, qis,
                                                  res_h.suppressed_mask).values())))
            data_s = float(np.mean(list(data_loss(table, res_s.table, qis,
                                                  res_s.suppressed_mask).values())))
            print(f"| {name} | {k} | {loss_h:.4f} | {loss_s:.4f} | {(loss_s - loss_h) / loss_h:+.1%} "
                  f"| {mean_h:.4f} | {mean_s:.4f} | {(mean_s - mean_h) / mean_h:+.1%} "
                  f"| {data_h:.4f} | {data_s:.4f} | {(data_s - data_h) / data_h:+.1%} "
                  f"| {root_h:.1%} | {root_s:.1%} | {cpu_h:.1f} / {cpu_s:.1f} |", flush=True)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
