"""Paper 001 (Bhaladhare & Jinwala), section 5.3, Figures 1-6.

The proposed sensitive-attribute clustering (``sensitive-clustering``)
against Kabir, Wang & Bertino's systematic clustering (``systematic``; a
reconstruction, see its docs page) on Adult with the attributes the paper
retains (section 5.3): age, sex and native-country as quasi-identifiers
(native-country stands in for the zip code, which our Adult lacks) and
occupation as the sensitive attribute
(:func:`kanon_graph.baselines.paper_001_adult`). For k = 2 .. 10 on all
30,162 records (``quick``: 5000 rows, k in {2, 5, 10}) each run records the
seconds, the paper's own information loss (its section 5.1 pseudo code,
``paper001_il``), Byun et al.'s IL (``byun_il``), the number of clusters and
the spread of their sizes. Figures 1-2's six-record run uses Table 1 at
k = 3.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..baselines.systematic import paper_001_adult
from ..datasets import paper_001_table
from ..hierarchy import Hierarchy
from ..schema import Schema
from ._data import ExperimentData
from ._report import Claim, PaperReport
from ._runs import Step, figures, measure

RUNS = [("sensitive-clustering", "sensitive-clustering", {}),
        ("systematic", "systematic", {})]
PROPOSED, SYSTEMATIC = "sensitive-clustering", "systematic"
METRICS = ["paper001_il", "byun_il"]


def run(source: ExperimentData, *, quick: bool, rows: int | None, out: Path | None,
        step: Step) -> PaperReport:
    n = 5000 if quick else None
    if rows is not None:
        n = min(n or rows, rows)
    table, schema = paper_001_adult(source.sample(n))
    ks = [2, 5, 10] if quick else list(range(2, 11))
    records = []
    for label, algorithm, options in RUNS:
        for k in ks:
            step(f"001: {label}, k={k}")
            records.append({"algorithm": label, "k": k, **measure(
                table, schema, k, algorithm, METRICS, extra=_sizes, **options)})
    frame = pd.DataFrame(records)
    six = []
    tiny, tiny_schema = _table1()
    for label, algorithm, options in RUNS:
        step(f"001: Table 1, {label}, k=3")
        six.append({"algorithm": label, "k": 3, **measure(
            tiny, tiny_schema, 3, algorithm, METRICS, extra=_sizes, **options)})
    report = PaperReport("001", "Sensitive-attribute clustering against systematic "
                         "clustering (Fig. 1-6)",
                         f"{source.describe(len(table))}; age, sex, native-country, "
                         f"occupation (sensitive)", quick,
                         _claims(frame, pd.DataFrame(six)),
                         {"fig1to6": frame, "table1": pd.DataFrame(six)})
    if out is not None:
        report.files += figures(frame, out, "001", [("paper001_il", "IL (paper 001, 5.1)", "fig5"),
                                                    ("byun_il", "IL (Byun et al.)", "fig5_byun"),
                                                    ("seconds", "seconds", "fig1")])
    return report


def _sizes(res) -> dict:
    """The clusters of a run and the spread of their sizes (Fig. 6)."""
    sizes = np.array([len(c) for c in res.classes], dtype=float)
    return {"clusters": len(sizes), "size_cv": float(sizes.std() / sizes.mean()),
            "largest": int(sizes.max())}


def _table1():
    """Table 1 (six patients) with the hierarchies of the worked example."""
    gender = Hierarchy.from_rows([["Male", "Person"], ["Female", "Person"]], name="gender")
    zips = Hierarchy.from_rows([[z, "4433**"] for z in ("443350", "443351", "443352")],
                               name="zip")
    schema = Schema(quasi_identifiers=["age", "gender", "zip"], sensitive=["disease"],
                    identifiers=["name"], categorical=["zip"],
                    hierarchies={"gender": gender, "zip": zips})
    return paper_001_table(), schema


def _claims(frame: pd.DataFrame, six: pd.DataFrame) -> list[Claim]:
    claims = []
    tiny = six.set_index("algorithm")
    if {PROPOSED, SYSTEMATIC} <= set(tiny.index) and "clusters" in tiny:
        got = (tiny.loc[PROPOSED, "clusters"], tiny.loc[SYSTEMATIC, "clusters"])
        claims.append(Claim("Table 1's six records: the proposed method forms four clusters, "
                            "the systematic clustering two (5.3, Fig. 1-2)",
                            f"{got[0]:.0f} and {got[1]:.0f} (k = 3)",
                            bool(got == (4, 2))))
    ok = frame[frame["error"] == ""]
    wide = {m: ok.pivot_table(index="k", columns="algorithm", values=m)
            for m in ("seconds", "paper001_il", "byun_il", "size_cv")}
    if not {PROPOSED, SYSTEMATIC} <= set(wide["seconds"].columns):
        return claims
    for metric, text in (("seconds", "The proposed method takes less time at every k "
                                     "(Fig. 1)"),
                         ("paper001_il", "The proposed method loses less information at "
                                         "every k, by the paper's own IL (Fig. 2, 5)"),
                         ("byun_il", "... and by Byun et al.'s IL, the measure the paper "
                                     "builds on (4.1)")):
        both = wide[metric][[PROPOSED, SYSTEMATIC]].dropna()
        wins = int((both[PROPOSED] < both[SYSTEMATIC]).sum())
        ratio = (both[PROPOSED] / both[SYSTEMATIC]).median()
        claims.append(Claim(text, f"less at {wins} of {len(both)} k; median ratio "
                                  f"{ratio:.2f}", wins == len(both)))
    grows = all((wide["paper001_il"][a].dropna().diff().dropna() >= 0).all()
                for a in (PROPOSED, SYSTEMATIC))
    claims.append(Claim("Information loss grows with the cluster size k, for both "
                        "methods (Fig. 3-4)",
                        "non-decreasing in k for both" if grows else "not monotone in k",
                        grows))
    cv = wide["size_cv"][[PROPOSED, SYSTEMATIC]].dropna()
    wins = int((cv[PROPOSED] < cv[SYSTEMATIC]).sum())
    claims.append(Claim("The proposed clusters are of nearly equal size, the systematic "
                        "ones of different sizes (Fig. 6)",
                        f"smaller spread of sizes (coefficient of variation) at {wins} of "
                        f"{len(cv)} k", wins == len(cv)))
    return claims
