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

Two readings of "the released age": *literal*, each range read as its
midpoint (one number per released value, the default of
:func:`~kanon_graph.metrics.distribution.released_numbers`; the paper runs
its R tests on released values and does not describe a draw), and *ours*, a
uniform integer draw within the range (seed 0), which spreads the released
values back over the range. Runs added with ``extra_runs`` are released
like the old model (same k and l) and compared with the proposed model's
ECDF.
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
from ._report import FAILS, SETUP, Claim, PaperReport, pair
from ._runs import Run, Step

QIS = ["sex", "marital-status", "race", "age"]
WEIGHTS = {"name": 6, "sex": 2, "marital-status": 3, "race": 4, "age": 5}
REQUEST = ["name", "marital-status", "age", "race", "sex", "salary-class"]
#: The runs besides the proposed model (``sensitivity_release``, not a registered algorithm).
RUNS = [Run("old", "datafly", {"l": 2}, role="baseline")]
#: How a released age range becomes a number: the literal reading, then ours.
READINGS = {"literal": "midpoint", "ours": "uniform"}


def run(source: ExperimentData, *, quick: bool, rows: int | None, out: Path | None,
        step: Step, extra: list[Run] = ()) -> PaperReport:
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
    from ..api import anonymize  # the facade, for the old model's plain k-anonymity

    releases, errors, old = {"proposed": proposed.table["age"]}, {}, None
    for r in [*RUNS, *extra]:
        step(f"002: {r.label} ({r.algorithm})")
        options = {"l": 2, **r.options}
        try:
            res = anonymize(table, schema, k=2, algorithm=r.algorithm, seed=0, **options)
        except Exception as exc:  # noqa: BLE001  (an added run may refuse l = 2: a row)
            errors[r.label] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        releases[r.label] = res.table["age"]
        old = res if r.label == "old" else old
    height = schema.hierarchies["age"].height
    for level in range(1, height):
        step(f"002: age alone at level {level}")
        levels = [0] * len(QIS)
        levels[QIS.index("age")] = level
        releases[f"age level {level}"] = apply_levels(table, schema, levels).table["age"]
    records = []
    hierarchy = schema.hierarchies["age"]
    for label, cells in releases.items():
        ranges = _ranges(cells, hierarchy)
        width = float(np.mean([_width(c) for c in pd.unique(ranges)]))
        for reading, method in READINGS.items():
            numbers = released_numbers(ranges, age, method=method, seed=0)
            tests = distribution_tests(age, numbers)
            largest, mean = ecdf_distance(age, numbers)
            records.append({"release": label, "reading": reading, "numbers": method,
                            "mean_interval_width": width,
                            "ks_statistic": tests.ks_statistic, "ks_pvalue": tests.ks_pvalue,
                            "t_statistic": tests.t_statistic, "t_pvalue": tests.t_pvalue,
                            "f_statistic": tests.f_statistic, "f_pvalue": tests.f_pvalue,
                            "ecdf_largest": largest, "ecdf_mean": mean, "error": ""})
    records += [{"release": label, "error": error} for label, error in errors.items()]
    frame = pd.DataFrame(records)
    steps = " -> ".join(f"{a} {lv}" for a, lv in proposed.result.stats["steps"])
    report = PaperReport("002", "Generalization boundaries keep Age's distribution (3.3)",
                         f"{source.describe(len(table))}; proposed steps: {steps}; "
                         f"old model levels {old.levels if old is not None else 'failed'}",
                         quick, _claims(frame, [r.label for r in extra]),
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


def claims_from(tables: dict) -> list[Claim]:
    """The claims judged from the tables a run wrote (``age_tests``)."""
    frame = tables["age_tests"].copy()
    frame["error"] = frame["error"].astype(object).fillna("")
    known = {"proposed", *(r.label for r in RUNS)}
    return _claims(frame, [a for a in dict.fromkeys(frame["release"])
                           if a not in known and not str(a).startswith("age level")])


def _claims(frame: pd.DataFrame, extra: list[str] = ()) -> list[Claim]:
    ok = frame[frame["error"] == ""]
    by = {reading: ok[ok["reading"] == reading].set_index("release") for reading in READINGS}
    if "old" not in by["ours"].index:
        return [Claim("The old model could be released", "it failed", False,
                      attribution=f"{SETUP}: Datafly refused the request")]
    draw = ("our figure draws each released age uniformly within its range, which spreads "
            "the values back over the range; read as midpoints (the paper runs its tests on "
            "the released values) the verdict is the paper's")

    def claim(text, judge, fails):
        (lit_text, lit), (our_text, ours) = judge(by["literal"]), judge(by["ours"])
        why = ("" if lit and ours else f"{SETUP}: {draw}" if lit else f"{FAILS}: {fails}")
        return Claim(text, our_text, ours, literal=lit_text, literal_holds=lit,
                     attribution=why)

    claims = [
        claim("Proposed model: Age keeps its mean, Welch t-test p > 0.05 (3.3.3: p = 0.7278)",
              lambda r: (f"p = {r.loc['proposed', 't_pvalue']:.4g}",
                         bool(r.loc["proposed", "t_pvalue"] > 0.05)),
              "the t-test tells the means apart"),
        claim("Proposed model: Age keeps its variance, F-test p > 0.05 (3.3.3: p = 0.9857)",
              lambda r: (f"p = {r.loc['proposed', 'f_pvalue']:.4g}",
                         bool(r.loc["proposed", "f_pvalue"] > 0.05)),
              "the F-test tells the variances apart"),
        claim("Proposed model: the KS test still tells the distributions apart, p < 0.05 "
              "(3.3.3: p = 0.0138)",
              lambda r: (f"D = {r.loc['proposed', 'ks_statistic']:.4f}, "
                         f"p = {r.loc['proposed', 'ks_pvalue']:.4g}",
                         bool(r.loc["proposed", "ks_pvalue"] < 0.05)),
              "the KS test does not reject"),
        claim("Old model: Age's mean changes, t-test p < 0.05, and the KS test rejects "
              "strongly, p < 2.2e-16 (3.3.4)",
              lambda r: (f"t p = {r.loc['old', 't_pvalue']:.3g}, "
                         f"KS p = {r.loc['old', 'ks_pvalue']:.3g}",
                         bool(r.loc["old", "t_pvalue"] < 0.05
                              and r.loc["old", "ks_pvalue"] < 2.2e-16)),
              "Datafly's release keeps Age's mean or its distribution"),
    ]
    for other in ["old", *[e for e in extra if e in by["ours"].index]]:
        name = "the old model's" if other == "old" else f"{other}'s (added run)"
        claims.append(claim(
            f"The proposed model's Age ECDF is closer to the original's than {name} "
            f"(3.3.2, Fig. 14-16)",
            lambda r, o=other: ("largest ECDF difference " + pair(
                r.loc["proposed", "ecdf_largest"], r.loc[o, "ecdf_largest"], "against"),
                bool(r.loc["proposed", "ecdf_largest"] < r.loc[o, "ecdf_largest"] - 1e-12)),
            f"{other}'s release is as close or closer"))

    def bands(r):
        b = r[r.index.str.startswith("age level")].sort_values("mean_interval_width")
        d = b["ks_statistic"].to_numpy()
        text = ", ".join(f"{w:g} years D = {s:.4f}" for w, s in
                         zip(b["mean_interval_width"].round(1), d))
        return text, bool(len(d) > 1 and np.all(np.diff(d) >= 0))

    if (by["ours"].index.str.startswith("age level")).sum() > 1:
        claims.append(claim("The narrower the age interval, the less significant the "
                            "tests (Table 7)", bands, "a wider band gives a smaller KS D"))
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
