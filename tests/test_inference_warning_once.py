"""Each InferenceWarning points at the user's own call and is said once per column per
``anonymize`` call; ``res.report()`` does not say it again (issue 30, item 6)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.exceptions import InferenceWarning


def _table(n=300, seed=3):
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 20_000, n)
    return pd.DataFrame({
        "born": (np.datetime64("1940-01-01") + days.astype("timedelta64[D]")).astype(str),
        "zip": np.char.zfill(rng.integers(100, 9_999, n).astype(str), 5),
        "sex": rng.choice(["F", "M"], n)})


SCHEMA = kg.Schema(quasi_identifiers=["born", "zip", "sex"])


def _per_column(seen):
    counts = {}
    for w in seen:
        if issubclass(w.category, InferenceWarning):
            column = str(w.message).split("column ")[1].split(" ")[0].strip("'")
            counts[column] = counts.get(column, 0) + 1
    return counts


@pytest.mark.parametrize("algorithm", ["mondrian", "mst", "auto"])
def test_inference_points_at_the_callers_line_once_per_column(algorithm):
    with pytest.warns(InferenceWarning) as seen:
        kg.anonymize(_table(), SCHEMA, k=5, algorithm=algorithm)
    inferred = [w for w in seen if issubclass(w.category, InferenceWarning)]
    assert _per_column(inferred) == {"born": 1, "zip": 1}
    for w in inferred:
        assert w.filename == __file__, (w.filename, str(w.message))


def test_report_of_the_result_does_not_say_it_again(tmp_path):
    with pytest.warns(InferenceWarning):
        res = kg.anonymize(_table(), SCHEMA, k=5, algorithm="mondrian")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        path = res.report(tmp_path / "report.json")
    assert not [w for w in seen if issubclass(w.category, InferenceWarning)]
    assert path.exists()
    # the filter is the report's own: an inference after it is said again
    with pytest.warns(InferenceWarning):
        kg.anonymize(_table(), SCHEMA, k=5, algorithm="mondrian")


def test_a_report_built_on_its_own_says_it_once_at_the_callers_line():
    table = _table()
    with pytest.warns(InferenceWarning):
        res = kg.anonymize(table, SCHEMA, k=5, algorithm="mondrian")
    with pytest.warns(InferenceWarning) as seen:
        kg.report.build_report(table, res.table.sort_index(), SCHEMA, k=5)
    inferred = [w for w in seen if issubclass(w.category, InferenceWarning)]
    assert _per_column(inferred) == {"born": 1, "zip": 1}
    assert all(w.filename == __file__ for w in inferred)
