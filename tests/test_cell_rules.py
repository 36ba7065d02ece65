"""One rule for what a cell is (kanon_graph.cells.kinds): missing cells, numeric sensitive order."""

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import encode
from kanon_graph.io import is_number_text, numeric_columns


def test_a_question_mark_is_a_category_not_a_missing_value():
    table = pd.DataFrame({"code": ["?", "?", "a", "a"], "x": [1, 2, 3, 4]})
    res = kg.anonymize(table, kg.Schema(quasi_identifiers=["code"]), k=2, algorithm="mondrian")
    assert res.table["code"].tolist() == ["?", "?", "a", "a"] and res.dropped == 0
    with pytest.raises(kg.DataError, match=r"column 'code' has 1 missing value.*row 2"):
        encode(table.assign(code=["?", "?", None, "a"]), kg.Schema(quasi_identifiers=["code"]))


def test_a_numeric_sensitive_column_given_as_text_is_ordered_by_value():
    """Ordered t-closeness ranks "10" after "9" (it used to sort the texts)."""
    salary = [str(v) for v in (2, 9, 10, 10, 2, 9, 10, 2)]
    table = pd.DataFrame({"g": list("aaaabbbb"), "salary": salary})
    schema = kg.Schema(quasi_identifiers=["g"], sensitive=["salary"])
    data = encode(table, schema)
    assert data.sensitive_domain["salary"] == ["2", "9", "10"]
    assert data.sensitive_kinds["salary"] == "numeric"
    as_ints = table.assign(salary=[int(v) for v in salary])
    by_text = kg.apply_levels(table, schema, [0]).release
    by_int = kg.apply_levels(as_ints, schema, [0]).release
    model = kg.privacy.PrivacyModel(1, t=1.0, sensitive="salary")
    t_text = model.verify(by_text.class_of, by_text.data).t_achieved
    t_int = model.verify(by_int.class_of, by_int.data).t_achieved
    assert t_text == pytest.approx(t_int) and t_text > 0


def test_io_and_encoder_share_the_number_rule():
    """io.numeric_columns and the encoder agree cell by cell (one rule, one place)."""
    cells = ["1.50", "02139", "1_000", "inf", " 12 ", "-3e2", "+.5", "0", "0.5", "abc"]
    for cell in cells:
        frame = pd.DataFrame({"c": [cell, cell]})
        io_numeric = numeric_columns(frame) == ["c"]
        kind = kg.Schema(quasi_identifiers=["c"]).kind("c", frame)
        assert io_numeric == (kind == "numeric") == is_number_text(cell), cell


def test_kg_io_is_there_in_a_fresh_interpreter():
    """getting-started's kg.io.read_table failed unless something imported kanon_graph.io."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import kanon_graph as kg; kg.io.read_table"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
