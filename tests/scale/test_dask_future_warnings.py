"""The Dask release path raises no pandas FutureWarning (issue 39 item 11).

pandas 2 warned "factorize with argument that is not a Series, Index,
ExtensionArray, or np.ndarray is deprecated" for the release by value, which
factorized a column's ``.array`` (a NumpyExtensionArray), and "Downcasting
object dtype arrays on .fillna ... is deprecated" for the release by whole
tuple. Both paths run here with FutureWarning as an error, and every
``pd.factorize`` call is watched for a NumpyExtensionArray (which pandas 3
accepts silently, so the warning alone would not show it there).
"""

import warnings

import pandas as pd
import pytest

import kanon_graph as kg

dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not installed "
                                                  "(pip install \"kanon_graph[dask]\")")

pytestmark = [pytest.mark.dask, pytest.mark.filterwarnings("ignore::UserWarning")]


@pytest.mark.parametrize("path", ["by value", "by whole tuple"])
def test_the_dask_release_raises_no_future_warning(monkeypatch, path):
    table = kg.datasets.make_census(240, seed=3)        # age: int64, a numpy-backed column
    kwargs = {}
    if path == "by whole tuple":        # a row dropped for its missing value
        table.loc[7, "age"] = None
        kwargs["missing"] = "drop"
    arguments = []
    factorize = pd.factorize

    def watched(values, *args, **options):
        arguments.append(type(values).__name__)
        return factorize(values, *args, **options)

    monkeypatch.setattr(pd, "factorize", watched)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        res = kg.anonymize(dd.from_pandas(table, npartitions=3), kg.datasets.census_schema(),
                           k=4, algorithm="optimal", **kwargs)
        released = res.table.compute()
    assert len(released) == len(table) - (path == "by whole tuple")
    assert arguments and "NumpyExtensionArray" not in arguments, arguments
