"""Issue 48 item 3: bands that follow the data's spread; money and percent text as numbers."""

import warnings

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.cells.kinds import inferred_kind
from kanon_graph.cells.amounts import amount_reading
from kanon_graph.exceptions import InferenceWarning


def _euro(v):
    return f"{v:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".") + " EUR"


def _money(n=600, seed=4):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "pay": [f"${v:,.2f}" for v in rng.gamma(3, 900, n)],
        "rent": [_euro(v) for v in rng.gamma(4, 300, n)],
        "share": [f"{v}%" for v in rng.integers(0, 101, n)],
    })


@pytest.mark.parametrize("cells, number", [
    (["$1,234.50", "$12", "$980.25"], 1234.5),
    (["1.234,50 EUR", "12,5 EUR", "980 EUR"], 1234.5),
    (["12%", "7.5%", "100%"], 12),
])
def test_money_and_percent_text_read_as_numbers(cells, number):
    assert inferred_kind(pd.Series(cells)) == ("numeric", False)
    h = kg.hierarchy.intervals(cells, widths=[10, 100])
    assert h.leaf_labels[0] in cells            # the data's own text stays the leaf
    table = pd.DataFrame({"c": cells * 4})
    with pytest.warns(InferenceWarning, match=r"column 'c' holds .* taken as numbers"):
        encoded = kg.encode(table, kg.Schema(quasi_identifiers=["c"]))
    assert encoded is not None
    # grouped digits with no unit, or two units, stay text
    assert inferred_kind(pd.Series(["1,234", "12"]))[0] == "categorical"
    assert inferred_kind(pd.Series(["$12", "12 EUR"]))[0] == "categorical"
    assert amount_reading(cells).number(cells[0]) == number


def test_money_columns_get_bands_and_a_release_in_numbers():
    table = _money()
    made = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=list(table)))
    for column, (h, note) in made.items():
        assert note.startswith("numeric"), (column, note)
        assert set(h.leaf_labels) == set(table[column])
    # the draft says it read the text as numbers, as anonymize warns
    assert "amounts in $ written as text, read as numbers" in made["pay"][1]
    assert "amounts in EUR written as text" in made["rent"][1]
    assert "percentages written as text" in made["share"][1]
    plain = kg.hierarchy.suggest(pd.DataFrame({"n": np.arange(600) * 1.5}),
                                 kg.Schema(quasi_identifiers=["n"]))["n"][1]
    assert "written as text" not in plain
    assert made["pay"][0].ancestors(table["pay"][0])[1].startswith("[")
    schema = kg.Schema(quasi_identifiers=list(table),
                       hierarchies={c: h for c, (h, _) in made.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InferenceWarning)
        res = kg.anonymize(table, schema, k=10, seed=0)
    assert res.verification.holds
    for column in table:
        assert (res.table[column].astype(str) != "*").mean() >= 0.8


def test_bands_follow_the_bulk_not_a_few_large_values():
    rng = np.random.default_rng(7)
    income = np.round(rng.gamma(4, 12000, 3000), 2)
    income[:5] = [400000.0, 450000.5, 380000.0, 520000.0, 610000.25]   # a few large ones
    table = pd.DataFrame({"income": income})
    h, note = kg.hierarchy.suggest(table, kg.Schema(quasi_identifiers=["income"]))["income"]
    finest = float(note.split("width ")[1].split(",")[0])
    middle = np.subtract(*np.percentile(income, [95, 5]))
    assert finest <= middle / 10            # at least 10 bands over the middle 90% of rows
    assert h.ancestors(float(income[0]))[-1] == "*"
