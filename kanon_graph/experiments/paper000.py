"""Paper 000 (Sarrafi Aghdam & Sonehara), section 5, Figures 4-5.

Total NCP (eq. 2-3) and utility, 1 - NCP / (d N) (eq. 4), against k in
{2, 5, 10, ..., 50} on Adult samples of 500, 1000, 3000 and 5000 rows
(``DataFrame.sample(n, random_state=0)``), the 8 usual quasi-identifiers,
for SD, Mondrian, Incognito and Datafly.

SD runs without hierarchies, as the paper's does (numeric ranges and
categorical value sets; a set's NCP is its values over the column's values),
twice: ``sd (paper)`` is the paper's procedure (``variant="paper"``) and
``sd`` the library's default (``variant="graph"``). Mondrian, Incognito and
Datafly get the hierarchies (Incognito and Datafly need them; a node's NCP
is its leaves over all leaves), as the UTD toolbox the paper used gives them;
Datafly suppresses up to k records (Sweeney's rule) and the suppressed cells
count at full cost. ``quick`` uses 500 and 1000 rows and k in {2, 10, 25, 50}.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..schema import Schema
from ._data import ExperimentData
from ._report import Claim, PaperReport
from ._runs import Step, figures, measure

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]
RUNS = [("sd (paper)", "sd", False, {"variant": "paper"}), ("sd", "sd", False, {}),
        ("mondrian", "mondrian", True, {}), ("incognito", "incognito", True, {}),
        ("datafly", "datafly", True, {})]
OTHERS = ["mondrian", "incognito", "datafly"]


def run(source: ExperimentData, *, quick: bool, rows: int | None, out: Path | None,
        step: Step) -> PaperReport:
    sizes = [500, 1000] if quick else [500, 1000, 3000, 5000]
    ks = [2, 10, 25, 50] if quick else [2] + list(range(5, 51, 5))
    if rows is not None:
        sizes = sorted({min(n, rows) for n in sizes})
        ks = [k for k in ks if k <= min(sizes) // 2] or [2]
    free = Schema(quasi_identifiers=QIS, sensitive=["salary-class"])
    with_h = Schema(quasi_identifiers=QIS, sensitive=["salary-class"],
                    hierarchies={c: source.hierarchies[c] for c in QIS})
    records = []
    for n in sizes:
        sample = source.sample(n)
        for label, algorithm, hierarchies, options in RUNS:
            for k in ks:
                step(f"000: {n} rows, {label}, k={k}")
                row = measure(sample, with_h if hierarchies else free, k, algorithm,
                              ["ncp", "utility"], **options)
                records.append({"rows": n, "algorithm": label, "k": k, **row})
    frame = pd.DataFrame(records)
    report = PaperReport("000", "SD against Mondrian, Incognito and Datafly (Fig. 4-5)",
                         f"{source.source}; samples of {', '.join(map(str, sizes))} rows",
                         quick, _claims(frame), {"fig45": frame})
    if out is not None:
        report.files += figures(frame, out, "000", [("ncp", "total NCP", "fig4"),
                                                    ("utility", "utility", "fig5")], "rows")
    return report


def _claims(frame: pd.DataFrame) -> list[Claim]:
    ok = frame[frame["error"] == ""]
    table = ok.pivot_table(index=["rows", "k"], columns="algorithm", values="ncp")
    utility = ok.pivot_table(index=["rows", "k"], columns="algorithm", values="utility")
    others = [c for c in OTHERS if c in table]
    claims = []
    for sd in ("sd (paper)", "sd"):
        if sd not in table or not others:
            continue
        both = table[[sd] + others].dropna()
        wins = int((both[sd] < both[others].min(axis=1)).sum())
        claims.append(Claim(
            f"{sd}: total NCP below Mondrian's, Incognito's and Datafly's at every k "
            f"and table size (section 5, Fig. 4)",
            f"lowest at {wins} of {len(both)} (rows, k) points", wins == len(both)))
    if "sd (paper)" in utility and others:
        last = utility.reset_index()
        last = last[last["k"] == last["k"].max()].set_index("rows")
        gap = (last["sd (paper)"] - last[others].max(axis=1)).dropna()
        text = ", ".join(f"{n} rows {g:+.3f}" for n, g in gap.items())
        claims.append(Claim(
            "The advantage of SD (paper) grows with the table size, most at large k "
            "(Fig. 4(d)): utility gap to the best other algorithm at the largest k",
            text or "no data", len(gap) > 1 and gap.iloc[-1] > gap.iloc[0]))
    if "sd (paper)" in utility:
        curve = utility["sd (paper)"].dropna().reset_index()
        falls = all((g.sort_values("k")["sd (paper)"].diff().dropna() <= 1e-12).all()
                    for _, g in curve.groupby("rows"))
        spans = ", ".join(f"{n} rows {g['sd (paper)'].max():.3f} -> {g['sd (paper)'].min():.3f}"
                          for n, g in curve.groupby("rows"))
        claims.append(Claim("SD's utility falls as k grows: the privacy / utility trade-off "
                            "(Fig. 5)", spans, falls))
    return claims
