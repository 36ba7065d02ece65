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

Two readings. Figure 4(d)'s claim, that SD's advantage grows with the table
size, is judged *literally* on total NCP (the quantity Figure 4 plots: the
best other algorithm's total NCP minus SD's at the largest k) and, in *our*
reading, on the utility of eq. 4 (total NCP normalized by d N), which takes
the table size out. The other claims read the same in both. Runs added with
``extra_runs`` join Mondrian, Incognito and Datafly as methods SD must beat.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..schema import Schema
from ._data import ExperimentData
from ._report import FAILS, SETUP, Claim, PaperReport
from ._runs import Run, Step, figures, measure

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]
RUNS = [Run("sd (paper)", "sd", {"variant": "paper"}, hierarchies=False, role="proposed"),
        Run("sd", "sd", {}, hierarchies=False, role="proposed"),
        Run("mondrian", "mondrian", role="baseline"),
        Run("incognito", "incognito", role="baseline"),
        Run("datafly", "datafly", role="baseline")]
OTHERS = ["mondrian", "incognito", "datafly"]


def run(source: ExperimentData, *, quick: bool, rows: int | None, out: Path | None,
        step: Step, extra: list[Run] = ()) -> PaperReport:
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
        for r in [*RUNS, *extra]:
            for k in ks:
                step(f"000: {n} rows, {r.label}, k={k}")
                row = measure(sample, with_h if r.hierarchies else free, k, r.algorithm,
                              ["ncp", "utility"], **r.options)
                records.append({"rows": n, "algorithm": r.label, "k": k, **row})
    frame = pd.DataFrame(records)
    report = PaperReport("000", "SD against Mondrian, Incognito and Datafly (Fig. 4-5)",
                         f"{source.source}; samples of {', '.join(map(str, sizes))} rows",
                         quick, _claims(frame, [r.label for r in extra]),
                         {"fig45": frame})
    if out is not None:
        report.files += figures(frame, out, "000", [("ncp", "total NCP", "fig4"),
                                                    ("utility", "utility", "fig5")], "rows")
    return report


def claims_from(tables: dict) -> list[Claim]:
    """The claims judged from the tables a run wrote (``fig45``)."""
    frame = tables["fig45"].copy()
    frame["error"] = frame["error"].astype(object).fillna("")
    known = {r.label for r in RUNS}
    return _claims(frame, [a for a in dict.fromkeys(frame["algorithm"]) if a not in known])


def _gap_text(gap: pd.Series, digits: str) -> str:
    return ", ".join(f"{n} rows {g:+{digits}}" for n, g in gap.items()) or "no data"


def _grows(gap: pd.Series) -> bool:
    return len(gap) > 1 and bool(gap.iloc[-1] > gap.iloc[0])


def _claims(frame: pd.DataFrame, extra: list[str] = ()) -> list[Claim]:
    ok = frame[frame["error"] == ""]
    table = ok.pivot_table(index=["rows", "k"], columns="algorithm", values="ncp")
    utility = ok.pivot_table(index=["rows", "k"], columns="algorithm", values="utility")
    others = [c for c in [*OTHERS, *extra] if c in table]
    beaten = ", ".join(others)
    claims = []
    for sd in ("sd (paper)", "sd"):
        if sd not in table or not others:
            continue
        both = table[[sd] + others].dropna()
        wins = int((both[sd] < both[others].min(axis=1)).sum())
        holds = wins == len(both)
        claims.append(Claim(
            f"{sd}: total NCP below Mondrian's, Incognito's and Datafly's at every k "
            f"and table size (section 5, Fig. 4)",
            f"lowest at {wins} of {len(both)} (rows, k) points against {beaten}", holds,
            attribution="" if holds else f"{FAILS}: another algorithm releases less NCP "
            f"at {len(both) - wins} points"))
    if "sd (paper)" in utility and others:
        def gap_at_largest_k(values):
            last = values.reset_index()
            last = last[last["k"] == last["k"].max()].set_index("rows")
            return last, (last["sd (paper)"] - last[others].max(axis=1)).dropna()

        _, gap = gap_at_largest_k(utility)
        last, _ = gap_at_largest_k(table)
        ncp_gap = (last[others].min(axis=1) - last["sd (paper)"]).dropna()
        literal, ours = _grows(ncp_gap), _grows(gap)
        why = ""
        if not ours and literal:
            why = (f"{SETUP}: our figure is the utility gap (eq. 4: total NCP / (d N)), which "
                   f"takes the table size out; Figure 4(d) plots total NCP, whose gap grows "
                   f"with N")
        elif not literal:
            why = f"{FAILS}: the total-NCP gap at the largest k does not grow with the table size"
        claims.append(Claim(
            "The advantage of SD (paper) grows with the table size, most at large k "
            "(Fig. 4(d)): the gap to the best other algorithm at the largest k",
            f"utility gap {_gap_text(gap, '.3f')}", ours,
            literal=f"total-NCP gap {_gap_text(ncp_gap, ',.0f')}", literal_holds=literal,
            attribution=why))
    if "sd (paper)" in utility:
        curve = utility["sd (paper)"].dropna().reset_index()
        falls = all((g.sort_values("k")["sd (paper)"].diff().dropna() <= 1e-12).all()
                    for _, g in curve.groupby("rows"))
        spans = ", ".join(f"{n} rows {g['sd (paper)'].max():.3f} -> {g['sd (paper)'].min():.3f}"
                          for n, g in curve.groupby("rows"))
        claims.append(Claim("SD's utility falls as k grows: the privacy / utility trade-off "
                            "(Fig. 5)", spans, falls,
                            attribution="" if falls else f"{FAILS}: SD's utility rises "
                            f"somewhere as k grows"))
    return claims
