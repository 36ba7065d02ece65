"""The fuzz cases as CSV files, through the pandas engine and the Dask engine (issue 21).

Each seeded case of a global algorithm is written as CSV: one file for the
pandas engine, the same rows split over two files for the Dask engine. Both
are read with the command line's readers (the same cell rules) and
anonymized with the case's request; the outcome must be the same: both
refuse with the same kind of error, or both release the same rows at the
same levels.
"""

from __future__ import annotations

import argparse

import pytest

import kanon_graph as kg
from kanon_graph.cli._common import _missing_as_nan, check_cells
from kanon_graph.io import read_input_table

from .generate import make_case

pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                             "(pip install \"kanon_graph[dask]\")")

ALGORITHMS = ("boundaries", "datafly", "incognito", "optimal")
SEEDS = range(3)


def _outcome(run):
    try:
        res = run()
    except (ValueError, kg.PrivacyError) as error:
        return type(error).__name__, None
    table = res.table.compute() if hasattr(res.table, "compute") else res.table
    rows = sorted(map(tuple, table.astype(str).to_numpy().tolist()))
    return res.levels, rows


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fuzz_case_as_csv_same_outcome_on_both_engines(tmp_path, dask_client, algorithm, seed):
    from kanon_graph.cli._dask_input import read_dask_table

    case = make_case(seed, algorithm, max_rows=120)
    schema = case.schema()
    whole = tmp_path / "case.csv"
    case.table.to_csv(whole, index=False)
    (tmp_path / "parts").mkdir()
    half = len(case.table) // 2 or 1
    case.table.iloc[:half].to_csv(tmp_path / "parts" / "a.csv", index=False)
    if len(case.table) > half:
        case.table.iloc[half:].to_csv(tmp_path / "parts" / "b.csv", index=False)
    rules = argparse.Namespace(schema=None, missing="error", na_values=[])
    checked = list(schema.quasi_identifiers) + list(schema.sensitive)

    def pandas_engine():
        text = read_input_table(whole)
        table = check_cells(_missing_as_nan(text, checked, rules), text, schema, rules,
                            list(schema.numeric))
        return kg.anonymize(table, schema, case.k, **case.kwargs())

    def dask_engine():
        ddf = read_dask_table(tmp_path / "parts", schema=schema, args=rules)
        return kg.anonymize(ddf, schema, case.k, **case.kwargs())

    plain, lazy = _outcome(pandas_engine), _outcome(dask_engine)
    assert lazy == plain, case.describe()
