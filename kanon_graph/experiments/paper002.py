"""Paper 002 (Hussien, Darwish & Hefny), section 3.3 and Table 7.

Query 1 of section 3.2 on Adult: a synthetic ``name`` column is added, the
request is name, marital-status, age, race, sex and salary with weights
name 6, sex 2, marital-status 3, race 4, age 5 and threshold 6, k = 2 and
distinct 2-diversity on the salary class. The *proposed model* is
:func:`~kanon_graph.constrained.sensitivity_release` (generalization within
the MAGVal boundaries, in ascending weight). The *old model* is k-anonymity
without boundaries and without weights; we take Datafly (Sweeney's
heuristic: generalize the attribute with the most distinct values first) on
the same columns, k and l, which is our reading of "automatic detection of
sensitive attribute without generalization boundaries".

Age is compared original against released as in sections 3.3.2-3.3.4:
each released node is read as the range of the ages it covers (its
hierarchy leaves' least and greatest, not its label: ARX's Adult age
hierarchy labels age 40 ``35-39``), and becomes a number by a uniform
integer draw within that range (seed 0,
:func:`~kanon_graph.metrics.distribution.released_numbers`), then
the Kolmogorov-Smirnov, Welch t and F tests and the largest ECDF difference.
Table 7's question, whether the tests grow more significant as the age
interval widens, is answered with Age released at each level of its
hierarchy on its own (5-, 10-, 20-year bands in ARX's hierarchy).
``quick`` uses 5000 rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..api import apply_levels
from ..constrained import sensitivity_release
from ..metrics.distribution import distribution_tests, ecdf_distance, released_numbers
from ..schema import Schema
from ._data import ExperimentData
from ._report import Claim, PaperReport
from ._runs import Step

QIS = ["sex", "marital-status", "race", "age"]
WEIGHTS = {"name": 6, "sex": 2, "marital-status": 3, "race": 4, "age": 5}
REQUEST = ["name", "marital-status", "age", "race", "sex", "salary-class"]


def run(source: ExperimentData, *, quick: bool, rows: int | None, out: Path | None,
        step: Step) -> PaperReport:
    n = 5000 if quick else None
    if rows is not None:
        n = min(n or rows, rows)
    table = source.sample(n).reset_index(drop=True)
    table.insert(0, "name", [f"person-{i}" for i in range(len(table))])
    schema = Schema(quasi_identifiers=QIS, identifiers=["name"], sensitive=["salary-class"],
                    hierarchies={c: source.hierarchies[c] for c in QIS})
    age = table["age"].to_numpy(dtype=float)
    step("002: proposed model (boundaries)")
    proposed = sensitivity_release(table, schema, REQUEST, weights=WEIGHTS, threshold=6,
                                   k=2, l=2)
    step("002: old model (datafly)")
    from ..api import anonymize  # the facade, for the old model's plain k-anonymity

    old = anonymize(table, schema, k=2, algorithm="datafly", l=2, seed=0)
    releases = {"proposed": proposed.table["age"], "old": old.table["age"]}
    height = schema.hierarchies["age"].height
    for level in range(1, height):
        step(f"002: age alone at level {level}")
        levels = [0] * len(QIS)
        levels[QIS.index("age")] = level
        releases[f"age level {level}"] = apply_levels(table, schema, levels).table["age"]
    records = []
    hierarchy = schema.hierarchies["age"]
    for label, cells in releases.items():
        numbers = released_numbers(_ranges(cells, hierarchy), age, method="uniform", seed=0)
        tests = distribution_tests(age, numbers)
        largest, mean = ecdf_distance(age, numbers)
        width = float(np.mean([_width(c) for c in pd.unique(_ranges(cells, hierarchy))]))
        records.append({"release": label, "mean_interval_width": width,
                        "ks_statistic": tests.ks_statistic, "ks_pvalue": tests.ks_pvalue,
                        "t_statistic": tests.t_statistic, "t_pvalue": tests.t_pvalue,
                        "f_statistic": tests.f_statistic, "f_pvalue": tests.f_pvalue,
                        "ecdf_largest": largest, "ecdf_mean": mean})
    frame = pd.DataFrame(records)
    steps = " -> ".join(f"{a} {lv}" for a, lv in proposed.result.stats["steps"])
    report = PaperReport("002", "Generalization boundaries keep Age's distribution (3.3)",
                         f"{source.describe(len(table))}; proposed steps: {steps}; "
                         f"old model levels {old.levels}", quick, _claims(frame),
                         {"age_tests": frame})
    if out is not None:
        path = _figure(age, _ranges(releases["proposed"], hierarchy), out / "paper002_age.png")
        if path is not None:
            report.files.append(path)
    return report


def _ranges(cells, hierarchy) -> pd.Series:
    """Each released age cell as ``[least-greatest]`` of the leaves it covers (``*`` kept)."""
    spans = {}
    for cell in pd.unique(cells):
        text = str(cell)
        if text == "*":
            spans[cell] = text
            continue
        ages = [float(v) for v in hierarchy.leaves(text)]
        low, high = min(ages), max(ages)
        spans[cell] = f"{low:g}" if low == high else f"[{low:g}-{high:g}]"
    return pd.Series(cells).map(spans)


def _width(cell) -> float:
    text = str(cell)
    for sep in ("-", ","):
        parts = text.strip("[]()").split(sep)
        if len(parts) == 2:
            try:
                return float(parts[1]) - float(parts[0])
            except ValueError:
                pass
    return 0.0 if text.replace(".", "").isdigit() else float("nan")


def _claims(frame: pd.DataFrame) -> list[Claim]:
    row = frame.set_index("release")
    p, o = row.loc["proposed"], row.loc["old"]
    claims = [
        Claim("Proposed model: Age keeps its mean, Welch t-test p > 0.05 (3.3.3: p = 0.7278)",
              f"p = {p.t_pvalue:.4g}", bool(p.t_pvalue > 0.05)),
        Claim("Proposed model: Age keeps its variance, F-test p > 0.05 (3.3.3: p = 0.9857)",
              f"p = {p.f_pvalue:.4g}", bool(p.f_pvalue > 0.05)),
        Claim("Proposed model: the KS test still tells the distributions apart, p < 0.05 "
              "(3.3.3: p = 0.0138)", f"D = {p.ks_statistic:.4f}, p = {p.ks_pvalue:.4g}",
              bool(p.ks_pvalue < 0.05)),
        Claim("Old model: Age's mean changes, t-test p < 0.05, and the KS test rejects "
              "strongly, p < 2.2e-16 (3.3.4)",
              f"t p = {o.t_pvalue:.3g}, KS p = {o.ks_pvalue:.3g}",
              bool(o.t_pvalue < 0.05 and o.ks_pvalue < 2.2e-16)),
        Claim("The proposed model's Age ECDF is closer to the original's than the old "
              "model's (3.3.2, Fig. 14-16)",
              f"largest ECDF difference {p.ecdf_largest:.4f} vs {o.ecdf_largest:.4f}",
              bool(p.ecdf_largest < o.ecdf_largest)),
    ]
    bands = frame[frame["release"].str.startswith("age level")].sort_values(
        "mean_interval_width")
    if len(bands) > 1:
        d = bands["ks_statistic"].to_numpy()
        text = ", ".join(f"{w:g} years D = {s:.4f}" for w, s in
                         zip(bands["mean_interval_width"].round(1), d))
        claims.append(Claim("The narrower the age interval, the less significant the "
                            "tests (Table 7)", text, bool(np.all(np.diff(d) >= 0))))
    return claims


def _figure(age, proposed, path: Path) -> Path | None:
    try:
        from ..viz.distribution import distribution_figure
        fig = distribution_figure(age, released_numbers(proposed, age, method="uniform",
                                                        seed=0),
                                  attribute="age")
    except ImportError:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path
