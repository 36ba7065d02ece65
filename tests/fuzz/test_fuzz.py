"""Fuzz every registered algorithm and check each release independently (issue 11).

The short run (``CASES_PER_ALGORITHM`` seeded cases per algorithm) is part of
the normal test command and is deterministic. ``KANON_GRAPH_FUZZ=5000`` (or
``pytest --fuzz 5000 -s``) runs that many cases per algorithm instead and
prints the totals; the same long
run with a failure table and reproducers is ``python -m tests.fuzz.run``.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import registry

from .check import check_release, parse_range, suppressed_positions
from .generate import AUTO, Case, make_case
from .public import public_findings
from .run import FAILURES, REFUSAL, impossible, report, run_case


def _editable(table):
    """A copy of a release whose cells take any value (released text is categorical)."""
    return table.astype({c: object for c in table.columns
                         if isinstance(table[c].dtype, pd.CategoricalDtype)})

CASES_PER_ALGORITHM = 60
LONG = int(os.environ.get("KANON_GRAPH_FUZZ", "0") or 0)


@pytest.mark.parametrize("algorithm", [*kg.algorithms(), AUTO])
def test_fuzz_every_release_checks_out(algorithm, request):
    """No violation, missed refusal, self-rejection or crash on the seeded cases."""
    long = request.config.getoption("--fuzz") or LONG
    count = long or CASES_PER_ALGORITHM
    outcomes = [run_case(make_case(seed, algorithm)) for seed in range(count)]
    if long:
        report(outcomes, shrink_budget=0)
    failed = [o for o in outcomes if o.kind in FAILURES]
    summary = {}
    for o in failed:
        summary.setdefault(o.category, []).append(o.case.seed)
    assert not failed, (
        f"{len(failed)} of {count} cases failed for {algorithm!r}; by category "
        f"(seeds for make_case(seed, {algorithm!r})): {summary}; first: {failed[0].detail}")


# -- the checker itself must catch what it claims to -----------------------------------
def _sound(algorithm="datafly", seed=None):
    """A case and its release that pass every check (found among the seeds)."""
    for s in range(200) if seed is None else [seed]:
        case = make_case(s, algorithm)
        if impossible(case) or case.n < 4 or case.k < 2 or case.respect_boundaries:
            continue
        try:
            res = kg.anonymize(case.table, case.schema(), case.k, **case.kwargs())
        except (ValueError, kg.PrivacyError):
            continue
        info = registry.get_algorithm(algorithm)
        if not check_release(case, res, recoding=info.recoding,
                             supports_suppression=info.supports_suppression):
            return case, res, info
    raise AssertionError(f"no sound release among the first seeds for {algorithm!r}")


def _categories(case, res, info):
    return {f.category for f in check_release(case, res, recoding=info.recoding,
                                              supports_suppression=info.supports_suppression)}


def _tampered(res, **changes):
    import dataclasses
    if "suppressed_rows" in changes:      # keep the mask in step with the forged rows
        mask = res.table.index.isin(changes["suppressed_rows"])
        changes.setdefault("suppressed_mask", mask)
    return dataclasses.replace(res, **changes)


@pytest.mark.parametrize("algorithm", ["datafly", "mondrian"])
def test_checker_flags_a_changed_insensitive_cell(algorithm):
    case, res, info = _sound(algorithm)
    table = _editable(res.table)
    table.iloc[0, table.columns.get_loc("note")] = "forged"
    assert "non-QI cell changed" in _categories(case, _tampered(res, table=table), info)


@pytest.mark.parametrize("algorithm", ["datafly", "mondrian"])
def test_checker_flags_a_class_below_k(algorithm):
    for seed in range(200):
        try:
            case, res, info = _sound(algorithm, seed=seed)
        except AssertionError:      # not a sound release at this seed
            continue
        table = _editable(res.table)
        released = np.setdiff1d(np.arange(case.n), suppressed_positions(res))
        original = case.table[list(case.qis)].astype(str).to_numpy()
        cells = table[list(case.qis)].astype(str).to_numpy()
        # a released record whose cells are not all its original values: giving it
        # its original values takes it out of its class (below k)
        moved = [r for r in released if (cells[r] != original[r]).any()
                 and not (original == original[r]).all(axis=1)[released].sum() >= case.k]
        if moved:
            break
    row = moved[0]
    for j, q in enumerate(case.qis):
        table.iloc[row, table.columns.get_loc(q)] = original[row, j]
    cats = _categories(case, _tampered(res, table=table), info)
    assert "k broken" in cats or any("mismatch" in c for c in cats)


def test_checker_flags_a_value_outside_its_release():
    case, res, info = _sound("mondrian")
    q = next(q for q in case.qis if case.kinds[q] in ("cat_h", "num_h", "num", "cat"))
    table = _editable(res.table)
    released = np.setdiff1d(np.arange(case.n), suppressed_positions(res))
    row = released[0]
    forged = {"num": "[1e300-2e300]", "cat": "{nothing}"}.get(case.kinds[q], "not-a-node")
    table.iloc[row, table.columns.get_loc(q)] = forged
    cats = _categories(case, _tampered(res, table=table), info)
    assert cats & {"released value not an ancestor", "interval does not contain value",
                   "set does not contain value"}


def test_checker_flags_lost_records_and_hidden_suppression():
    case, res, info = _sound("datafly")
    assert "records lost" in _categories(case, _tampered(res, table=res.table.iloc[1:]), info)
    table = _editable(res.table)
    released = np.setdiff1d(np.arange(case.n), suppressed_positions(res))
    for q in case.qis:
        table.iloc[released[0], table.columns.get_loc(q)] = "*"
    # one released record starred but not listed in suppressed_rows: its cells no longer
    # cover it (hierarchy-free columns) or it leaves its class (k, class count)
    assert _categories(case, _tampered(res, table=table), info)


def test_checker_flags_a_wrong_metric():
    case, res, info = _sound("datafly")
    for name in ("discernibility", "ncp", "loss"):
        metrics = dict(res.metrics)
        metrics[name] = metrics[name] * 1.5 + 1
        assert f"metric {name} mismatch" in _categories(case, _tampered(res, metrics=metrics),
                                                         info)


def test_checker_flags_a_suppression_over_budget():
    case, res, info = _sound("datafly")
    case = case.__class__(**{**case.__dict__, "suppression": 0.0})
    rows = res.table.index[[0]]
    table = _editable(res.table)
    for q in case.qis:
        table.iloc[0, table.columns.get_loc(q)] = "*"
    cats = _categories(case, _tampered(res, table=table, suppressed_rows=rows,
                                       suppressed=1), info)
    assert "suppression over budget" in cats


def test_parse_range_reads_negative_and_exponent_bounds_exactly():
    assert parse_range("[-561.816--427.291]") == (parse_range("-561.816")[0],
                                                  parse_range("-427.291")[0])
    lo, hi = parse_range("[-1e-05-2.5E+3]")
    assert float(lo) == -1e-05 and float(hi) == 2500.0
    assert parse_range("9007199254740993")[0] == 2 ** 53 + 1
    assert parse_range("{a,b}") is None


def test_impossible_requests_are_refused_before_the_algorithm():
    """k = n + 1 must end in a ValueError raised before any algorithm runs."""
    case = make_case(3, "datafly")
    case = case.__class__(**{**case.__dict__, "k": case.n + 1, "l": None, "t": None})
    outcome = run_case(case)
    assert outcome.kind == REFUSAL, outcome.detail


# -- hand-computed releases (issue 11, item 4's table) ---------------------------------
_ROWS = {"a": ["a", "AB", "*"], "b": ["b", "AB", "*"], "c": ["c", "CD", "*"],
         "d": ["d", "CD", "*"]}


def _hand_case(**request):
    table = pd.DataFrame({"q": list("cdada"), "s": [50, 2, 3, 2, 3],
                          "note": [f"r{i}" for i in range(5)]})
    base = dict(seed=-1, table=table, qis=("q",), kinds={"q": "cat_h"}, rows={"q": _ROWS},
                marks={"q": set()}, sensitive="s", sensitive_numeric=True,
                algorithm="datafly", k=2)
    return Case(**{**base, **request})


def _hand_release(case, cells, suppressed=()):
    out = case.table.drop(columns=[]).copy()
    out["q"] = cells
    rows = out.index[np.array(sorted(suppressed), dtype=np.int64)]
    groups = {}
    for i, c in enumerate(cells):
        if i not in suppressed:
            groups.setdefault(c, []).append(i)
    return SimpleNamespace(table=out, suppressed_rows=rows, suppressed=len(rows),
                           levels=None, metrics={}, classes=list(groups.values()))


def _hand_categories(case, res):
    return {f.category for f in check_release(case, res, recoding="local",
                                              supports_suppression=True)}


def test_checker_measures_ordered_t_by_hand():
    """Level-1 release: ordered EMD 0.2 (CD) and 0.3 (AB) against Q = (2/5, 2/5, 1/5)."""
    cells = ["CD", "CD", "AB", "CD", "AB"]
    assert "t broken" not in _hand_categories(_hand_case(t=0.3), _hand_release(
        _hand_case(t=0.3), cells))
    assert "t broken" in _hand_categories(_hand_case(t=0.29), _hand_release(
        _hand_case(t=0.29), cells))


def test_checker_measures_t_on_released_records_only():
    """Row 0 (50) suppressed: Q = (1/2, 1/2) over {2, 3}, class CD = {2, 2} is at EMD 0.5."""
    case = _hand_case(t=0.4, suppression=0.5)
    res = _hand_release(case, ["*", "CD", "AB", "CD", "AB"], suppressed={0})
    assert "t broken" in _hand_categories(case, res)
    case = _hand_case(t=0.5, suppression=0.5)
    assert "t broken" not in _hand_categories(case, _hand_release(
        case, ["*", "CD", "AB", "CD", "AB"], suppressed={0}))


def test_checker_flags_a_value_above_its_magval():
    case = _hand_case(marks={"q": {"AB"}}, respect_boundaries=True, k=1)
    assert "beyond MAGVal" in _hand_categories(case, _hand_release(
        case, ["CD", "CD", "*", "CD", "*"]))
    assert "beyond MAGVal" not in _hand_categories(case, _hand_release(
        case, ["CD", "CD", "AB", "CD", "AB"]))


def test_checker_flags_distinct_l_by_hand():
    case = _hand_case(l=2.0)
    assert "l broken" in _hand_categories(case, _hand_release(case, ["c", "d", "a", "d", "a"]))
    assert "l broken" in _hand_categories(case, _hand_release(      # AB holds 3, 3
        case, ["CD", "CD", "AB", "CD", "AB"]))
    assert "l broken" not in _hand_categories(case, _hand_release(case, ["*"] * 5))


# -- issue 46 item 5: one reading of a release, the facade's and kg.privacy's -----------
@pytest.mark.parametrize("algorithm", ["datafly", "mondrian", "stepwise"])
def test_a_release_at_the_top_is_suppressed_for_every_reader(algorithm):
    """k = n on "cdada": the only class is the top ('*'); every reader counts it suppressed."""
    case = _hand_case(algorithm=algorithm, k=5)
    res = kg.anonymize(case.table, case.schema(), case.k, **case.kwargs())
    assert res.suppressed == 5 and (res.table["q"] == "*").all()
    assert public_findings(case, res) == []
    assert _hand_categories(case, res) == set()


def test_public_check_flags_a_verification_that_differs():
    case = _hand_case(t=0.5, suppression=0.5)
    res = kg.anonymize(case.table, case.schema(), case.k, **case.kwargs())
    assert public_findings(case, res) == []
    import dataclasses
    v = res.verification
    forged = dataclasses.replace(res, verification=dataclasses.replace(
        v, k_achieved=v.k_achieved + 1, t_achieved=v.t_achieved + 0.25))
    found = {f.category for f in public_findings(case, forged)}
    assert found == {"public k differs from the verification",
                     "public t differs from the verification"}
    assert {"verified k differs from the released cells",
            "verified t differs from the released cells"} <= _hand_categories(case, forged)


def test_top_class_over_the_budget_is_a_refusal_not_a_release():
    """With a budget, a release at the top (all suppressed) is refused by the facade."""
    case = _hand_case(algorithm="datafly", k=5, suppression=0.2)
    outcome = run_case(case)
    assert outcome.kind == REFUSAL and "top class over the budget" in outcome.category
