"""The checks behind :mod:`kanon_graph.testing`: plain functions that raise AssertionError."""

from __future__ import annotations

import os
import re
from typing import Callable, Iterable

import numpy as np
import pandas as pd

__all__ = ["CASES", "CHECKS", "check_algorithm", "check_experiment", "load_plugins",
           "random_schema", "random_table", "selected_algorithms"]


def random_table(n: int, seed: int) -> pd.DataFrame:
    """A small seeded table: numeric age, coded zip, two categoricals, an id, a disease."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": np.arange(n),
        "age": rng.integers(18, 70, n),
        "zip": rng.choice(["13053", "13068", "13075", "14850", "14853", "14860"], n),
        "sex": rng.choice(["F", "M"], n, p=[0.45, 0.55]),
        "job": rng.choice(["clerk", "nurse", "teacher", "farmer", "driver"], n),
        "disease": rng.choice(["flu", "cancer", "hiv", "none"], n),
    })


def random_schema():
    """The schema of :func:`random_table`, with a hierarchy for every quasi-identifier."""
    import kanon_graph as kg
    from kanon_graph.hierarchy import intervals, masking

    hier = {
        "age": intervals(range(0, 100), widths=[5, 10, 20], name="age"),
        "zip": masking(["13053", "13068", "13075", "14850", "14853", "14860"], levels=3,
                       name="zip"),
        "sex": kg.Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex"),
        "job": kg.Hierarchy.from_mapping({"*": {
            "office": ["clerk", "teacher"], "care": ["nurse", "driver"],
            "land": ["farmer", "land-other"]}}, name="job"),
    }
    return kg.Schema(quasi_identifiers=["age", "zip", "sex", "job"], sensitive=["disease"],
                     identifiers=["id"], categorical=["zip"], hierarchies=hier)


def _paper003():
    import kanon_graph as kg

    return kg.datasets.paper_003_table(), kg.datasets.paper_003_schema(), 3


#: name -> ``() -> (table, schema, k)``: paper 003's worked example and seeded tables.
CASES: dict[str, Callable] = {
    "paper003-k3": _paper003,
    "random200-k2": lambda: (random_table(200, 1), random_schema(), 2),
    "random120-k7": lambda: (random_table(120, 3), random_schema(), 7),
}


def _covers(hierarchy, kind, original, released) -> bool:
    if hierarchy is not None:
        return released in hierarchy.ancestors(original)
    if released == str(original):
        return True
    if kind == "numeric":
        match = re.fullmatch(r"\[(-?[\d.]+)-(-?[\d.]+)\]", released)
        return bool(match) and float(match.group(1)) <= float(original) <= float(match.group(2))
    from ..recoding._value_labels import read_members

    members = read_members(released)            # a set {a,b}, or a quoted value "a,b"
    return members is None or str(original) in {value for value, _ in members}


def _k_anonymous(name, table, schema, k, res):
    released = np.setdiff1d(np.arange(len(table)), res.suppressed_rows)
    qis = list(schema.quasi_identifiers)
    counts = res.table.iloc[released][qis].astype(str).value_counts()
    assert counts.empty or counts.min() >= k, f"a released class holds {counts.min()} < {k}"
    assert res.verification.holds and all(len(c) >= k for c in res.classes)


def _every_record_once(name, table, schema, k, res):
    positions = np.concatenate(list(res.classes) + [res.suppressed_rows]).astype(int)
    assert np.sort(positions).tolist() == list(range(len(table))), \
        "classes and suppressed rows do not hold every record exactly once"
    assert len(res.table) == len(table) and res.suppressed == len(res.suppressed_rows)


def _aggregates(table, schema, res, column) -> bool:
    """A microaggregated column: each class's value is one of its members' (categorical)
    or lies within their range (numeric); ``False`` when the column is not aggregated."""
    release = getattr(res, "release", None)
    if release is None or release.attributes[column].aggregated is None:
        return False
    numeric = schema.kind(column, table) == "numeric"
    for members in res.classes:
        original = table[column].to_numpy()[members]
        shown = res.table[column].to_numpy()[members]
        assert len(set(map(str, shown))) == 1, f"{column}: a class shows {set(shown)}"
        if numeric:
            assert min(original) <= float(shown[0]) <= max(original), \
                f"{column}: released {shown[0]!r} outside its class's [{min(original)}, " \
                f"{max(original)}]"
        else:
            assert str(shown[0]) in set(map(str, original)), \
                f"{column}: released {shown[0]!r} is none of its class's values"
    return True


def _values_cover(name, table, schema, k, res):
    kept = np.setdiff1d(np.arange(len(table)), res.suppressed_rows)
    for column in schema.quasi_identifiers:
        if _aggregates(table, schema, res, column):
            continue
        h, kind = schema.hierarchy(column), schema.kind(column, table)
        for original, released in zip(table[column].to_numpy()[kept],
                                      res.table[column].to_numpy()[kept]):
            assert _covers(h, kind, original, released), \
                f"{column}: released {released!r} does not cover {original!r}"


def _classes_share(name, table, schema, k, res):
    qis = list(schema.quasi_identifiers)
    for members in res.classes:
        assert len(res.table.iloc[members][qis].drop_duplicates()) == 1, \
            "a class's records are released with different values"


def _identifiers(name, table, schema, k, res):
    assert not set(schema.identifiers) & set(res.table.columns), "an identifier is released"
    # a withheld row (safepub's unreleased records) is '*' in every column
    withheld = (res.withheld_mask if res.withheld_mask is not None
                else np.zeros(len(table), dtype=bool))
    for column in schema.sensitive:
        released = res.table[column].to_numpy(dtype=object)
        assert released[~withheld].tolist() == table[column].to_numpy(dtype=object)[
            ~withheld].tolist(), f"sensitive column {column!r} changed"
        assert (released[withheld] == "*").all(), f"a withheld row shows its {column!r}"


#: Options for an algorithm that derives k itself (``derives_k``) on the small common
#: tables: safepub at delta 0.5 (no release should use it) derives k = 5, beta = 0.85.
DERIVED_K_OPTIONS = {"safepub": {"epsilon": 2.0, "delta": 0.5}}


def anonymize_case(name, table, schema, k, seed=7, **options):
    """``kg.anonymize`` of one common case; an algorithm deriving k gets its own options.

    Returns the result and the k its release must hold.
    """
    import kanon_graph as kg

    if kg.registry.get_algorithm(name).derives_k is not None:
        res = kg.anonymize(table, schema, algorithm=name, seed=seed,
                           **DERIVED_K_OPTIONS.get(name, {}), **options)
        return res, res.k
    return kg.anonymize(table, schema, k=k, algorithm=name, seed=seed, **options), k


def _same_seed(name, table, schema, k, res):
    again, _ = anonymize_case(name, table, schema, k)
    pd.testing.assert_frame_equal(again.table, res.table)


#: check name -> ``check(name, table, schema, k, result)``.
CHECKS: dict[str, Callable] = {
    "k_anonymous": _k_anonymous, "every_record_once": _every_record_once,
    "values_cover_originals": _values_cover, "classes_share_released_values": _classes_share,
    "identifiers_dropped": _identifiers, "same_seed_same_release": _same_seed,
}


def check_algorithm(name: str, *, cases: Iterable[str] | None = None,
                    checks: Iterable[str] | None = None) -> None:
    """Run the common checks on registered algorithm ``name``; raise AssertionError if one fails.

    Parameters
    ----------
    name : str
        A registered algorithm.
    cases : iterable of str, optional
        Names from :data:`CASES` (default all).
    checks : iterable of str, optional
        Names from :data:`CHECKS` (default all).
    """
    import kanon_graph as kg

    if name not in kg.algorithms():
        raise ValueError(f"check_algorithm: unknown algorithm {name!r}; registered: "
                         f"{', '.join(sorted(kg.algorithms()))}.")
    for case in cases or CASES:
        table, schema, k = CASES[case]()
        res, k = anonymize_case(name, table, schema, k)
        for check in checks or CHECKS:
            try:
                CHECKS[check](name, table, schema, k, res)
            except AssertionError as exc:
                raise AssertionError(f"{name} on {case}, {check}: {exc}") from None


def check_experiment(name: str, paper: str = "003", rows: int = 60) -> None:
    """Add ``name`` to a quick, capped run of ``paper``'s experiment and check that it
    appears in the run table and in the verdicts (not only in the CSVs)."""
    from kanon_graph.experiments import Run, reproduce

    label = f"{name} (added)"
    report = reproduce(paper, quick=True, rows=rows, extra_runs=[Run(label, name)])
    frame = next(iter(report.tables.values()))
    assert label in set(frame["algorithm"]), f"{name} is not in paper {paper}'s run table"
    shown = report.verdicts()
    assert shown.apply(lambda r: label in " ".join(map(str, r)), axis=1).any(), \
        f"{name} appears in no verdict of paper {paper}"


def load_plugins(specs: str | None = None) -> list[str]:
    """Import the plugins named in ``specs`` (default ``$KANON_GRAPH_PLUGINS``: module names
    or ``.py`` paths, comma-separated); return the algorithms they registered."""
    import importlib
    import importlib.util
    import sys
    from pathlib import Path

    import kanon_graph as kg

    before = set(kg.algorithms())
    for spec in filter(None, (s.strip() for s in (specs if specs is not None else
                                                  os.environ.get("KANON_GRAPH_PLUGINS",
                                                                 "")).split(","))):
        if spec.endswith(".py"):
            path = Path(spec).resolve()
            module_spec = importlib.util.spec_from_file_location(
                f"kanon_graph_test_plugin_{path.stem}", path)
            if module_spec is None or not path.is_file():
                raise FileNotFoundError(f"KANON_GRAPH_PLUGINS: no plugin file {spec!r}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[module_spec.name] = module
            module_spec.loader.exec_module(module)
        else:
            importlib.import_module(spec)
    return sorted(set(kg.algorithms()) - before)


def selected_algorithms() -> list[str]:
    """What ``pytest --pyargs kanon_graph.testing`` checks: ``$KANON_GRAPH_ALGORITHMS``
    (comma-separated), else every algorithm ``$KANON_GRAPH_PLUGINS`` registers, else
    ``mondrian`` (a self-test)."""
    added = load_plugins()
    named = [s.strip() for s in os.environ.get("KANON_GRAPH_ALGORITHMS", "").split(",")
             if s.strip()]
    return named or added or ["mondrian"]
