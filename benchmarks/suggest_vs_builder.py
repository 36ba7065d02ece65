"""Suggested hierarchies and no hierarchies (``flat``) against the suite's hand-built ones.

For every table of the quality suite that has hierarchies (``quality.TABLES``:
the tuning tables adult, fars, patients, clinic and the held-out claims,
registry, admissions, screening, earnings), the default release
(``kg.anonymize`` with no algorithm named, ``seed=0``) is made three times at
each k: with the suite's hierarchies ("hand": ARX's files for adult and fars,
builder-made ones for the others; clinic's, which the suite draws with
``suggest``, are rebuilt here with the builders as ``suggest`` drew them
before issue 42: dates month / year / decade, the zip masked from the right,
weight in bands of width 5 / 10 / 20), with ``kg.hierarchy.suggest``'s drafts
for the same quasi-identifiers ("suggested", kinds inferred from the data as
a user would get them), and with no hierarchy at all ("flat": ``auto`` then
runs ``flat``'s local recoding). Every release is checked
(``res.verification.holds``).

Two yardsticks (issue 48 item 4):

* **today's**, on the hand-built hierarchy: each released cell stands for
  the leaves under its label in the hierarchy it was released with (for a
  flat release, the hand-built leaves between the smallest and largest
  original of the records released with it when it is a range, those
  originals otherwise, :func:`flat_scored`); it is scored as the smallest
  node of the *hand-built* hierarchy holding all of them, (leaves under that
  node - 1) / (leaves - 1), a suppressed cell 1; the mean over rows, then
  over quasi-identifiers. For the hand release this equals its ARX Loss.
* **data** (needs no hierarchy and no label parsing, so sets, intervals and
  masks are scored alike): a released cell costs (distinct original values
  among the records released with that same cell in that column - 1) /
  (distinct values of the column - 1); a suppressed cell, or one written
  only with ``*``, costs 1; the mean over records, then over
  quasi-identifiers (:func:`data_loss`).

A gap is ``(other - hand) / hand``; the last column is the share of cells at
the hand-built hierarchy's root (``*``). Tuning and held-out tables are
printed apart. No timing is taken (loss figures do not depend on load).

Usage::

    KANON_GRAPH_DATA=/work/shared/data python benchmarks/suggest_vs_builder.py \\
        [--tables adult,fars] [--k 5,10] [-o docs/bench/suggest_vs_builder.md]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import kanon_graph as kg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import quality  # noqa: E402  (benchmarks/quality.py)

TABLES = ["adult", "fars", "patients", "clinic", "claims", "registry", "admissions",
          "screening", "earnings"]
#: table -> "tuning" (may steer suggest's defaults) or "held out" (reported only).
GROUPS = {name: quality.GROUPS[name] for name in TABLES}


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


def span_loss(original, released, qis, suppressed=None):
    """``{qi: mean cell cost}`` from the data alone, a range costing its whole span.

    As :func:`data_loss`, except that a cell written as a range (``[17-21]``,
    ``[2021-05-03, 2022-05-14]``, ``[15000-20000)``) costs (distinct values of
    the column between the smallest and largest original released with it - 1)
    / (distinct values - 1): a local recoding's range shared by ten records
    still hides every value it spans. For a global recoding the two agree.
    """
    out = {}
    for q in qis:
        orig = original[q].astype(str)
        numbers = pd.to_numeric(original[q], errors="coerce")
        numeric = bool(numbers.notna().all())
        key = numbers.to_numpy(dtype=float) if numeric else orig.to_numpy()
        domain = np.unique(key)
        rel = released[q].astype(str).to_numpy()
        frame = pd.DataFrame({"key": key, "rel": rel})
        if len(domain) < 2:
            out[q] = 0.0
            continue
        grouped = frame.groupby("rel")["key"]
        lo, hi, distinct = grouped.min(), grouped.max(), grouped.nunique()
        covers = {}
        for label in distinct.index:
            if label.startswith("["):
                covers[label] = int(np.searchsorted(domain, hi[label], side="right")
                                    - np.searchsorted(domain, lo[label], side="left"))
            else:
                covers[label] = int(distinct[label])
        cost = (pd.Series(rel).map(covers).to_numpy(dtype=float) - 1) / (len(domain) - 1)
        hidden = np.char.strip(rel.astype(str), "*") == ""
        if suppressed is not None:
            hidden |= np.asarray(suppressed, dtype=bool)
        cost[hidden] = 1.0
        out[q] = float(cost.mean())
    return out


def flat_scored(table, res, hand):
    """``{qi: (mean cell loss on hand's hierarchy, share at hand's root)}`` of a release
    made without hierarchies (``flat``): its cells are written as the values, sets or
    ranges of their records, so a cell stands for the hand-built leaves between the
    smallest and largest original value of the records released with it when it is a
    range (``[17-21]``), for those originals otherwise; scored as :func:`rescored` does."""
    out = {}
    rows = len(res.table)
    for q in hand.quasi_identifiers:
        h = hand.hierarchy(q)
        n = h.n_leaves
        leaves = [str(v) for v in h.leaf_labels]
        numbers = pd.to_numeric(pd.Series(leaves), errors="coerce")
        frame = pd.DataFrame({"orig": table[q].astype(str).to_numpy(),
                              "rel": res.table[q].astype(str).to_numpy()})
        hidden = np.asarray(res.suppressed_mask, dtype=bool)
        total, at_root = float(hidden.sum()), int(hidden.sum())
        for label, group in frame[~hidden].groupby("rel"):
            count = len(group)
            if label.strip("*") == "":
                total, at_root = total + count, at_root + count
                continue
            seen = sorted(set(group["orig"]))
            if label.startswith("[") and numbers.notna().all():
                values = pd.to_numeric(pd.Series(seen))
                inside = (numbers >= values.min()) & (numbers <= values.max())
                seen = [leaves[i] for i in np.flatnonzero(inside.to_numpy())]
            elif label.startswith("["):
                seen = [v for v in leaves if seen[0] <= v <= seen[-1]]
            codes = np.array([h.leaf_index(v) for v in seen])
            level = h.lca_level(codes)
            node = h.level_map[level][codes[0]]
            under = int((h.level_map[level] == node).sum())
            total += count * ((under - 1) / (n - 1) if n > 1 else 0.0)
            at_root += count if level == h.height else 0
        out[q] = (total / rows, at_root / rows)
    return out


def without_hierarchies(hand):
    """The same quasi-identifiers and sensitive columns, no hierarchy (kinds inferred)."""
    return kg.Schema(quasi_identifiers=list(hand.quasi_identifiers),
                     sensitive=list(hand.sensitive))


def measured(name, k):
    """One row of figures: the hand-built, suggested and flat releases of table ``name``."""
    table, hand = hand_built(name)
    mine, how = suggested(table, hand)
    qis = list(hand.quasi_identifiers)
    row = {"table": name, "group": GROUPS[name], "k": k, "how": how}
    for label, schema in (("hand", hand), ("suggested", mine),
                          ("flat", without_hierarchies(hand))):
        res = kg.anonymize(table, schema, k=k, seed=0)
        assert res.verification.holds, (name, label, k)
        on = (flat_scored(table, res, hand) if label == "flat"
              else rescored(res, schema, hand))
        row[f"today {label}"] = float(np.mean([v[0] for v in on.values()]))
        row[f"root {label}"] = float(np.mean([v[1] for v in on.values()]))
        row[f"data {label}"] = float(np.mean(list(
            data_loss(table, res.table, qis, res.suppressed_mask).values())))
        row[f"span {label}"] = float(np.mean(list(
            span_loss(table, res.table, qis, res.suppressed_mask).values())))
        row[f"algorithm {label}"] = res.stats.get("auto", {}).get("chose", "?")
    return row


HEADER = ("| table | k | today's: hand | suggested | flat | gap suggested | gap flat "
          "| data: hand | suggested | flat | gap suggested | gap flat "
          "| span: hand | suggested | flat | gap suggested | gap flat "
          "| at * hand / suggested / flat |\n" + "|---" * 18 + "|")


def line(row):
    """One markdown row of :func:`measured`'s figures."""
    def gap(yard, label):
        base = row[f"{yard} hand"]
        return f"{(row[f'{yard} {label}'] - base) / base:+.1%}" if base else "n/a"
    return (f"| {row['table']} | {row['k']} | {row['today hand']:.4f} "
            f"| {row['today suggested']:.4f} | {row['today flat']:.4f} "
            f"| {gap('today', 'suggested')} | {gap('today', 'flat')} "
            f"| {row['data hand']:.4f} | {row['data suggested']:.4f} | {row['data flat']:.4f} "
            f"| {gap('data', 'suggested')} | {gap('data', 'flat')} "
            f"| {row['span hand']:.4f} | {row['span suggested']:.4f} | {row['span flat']:.4f} "
            f"| {gap('span', 'suggested')} | {gap('span', 'flat')} "
            f"| {row['root hand']:.1%} / {row['root suggested']:.1%} / {row['root flat']:.1%} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--k", default="5,10")
    parser.add_argument("-o", "--output", metavar="FILE.md",
                        help="also write the tables (markdown) here")
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.k.split(",")]
    names = args.tables.split(",")
    unknown = [n for n in names if n not in TABLES]
    if unknown:
        parser.error(f"--tables: unknown {unknown}; known {TABLES}")
    out = [f"<!-- python benchmarks/suggest_vs_builder.py --tables {args.tables} "
           f"--k {args.k} -->"]
    for group in ("tuning", "held out"):
        chosen = [n for n in names if GROUPS[n] == group]
        if not chosen:
            continue
        out += ["", f"**{group}**", "", HEADER]
        print("\n".join(out[-4:]), flush=True)
        for name in chosen:
            for k in ks:
                row = measured(name, k)
                if k == ks[0]:
                    note = "; ".join(f"{q}: {h}" for q, h in row["how"].items())
                    print(f"<!-- {name}: {note} -->", flush=True)
                out.append(line(row))
                print(out[-1], flush=True)
    if args.output:
        Path(args.output).write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
