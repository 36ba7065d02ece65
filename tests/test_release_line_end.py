"""A bare carriage return in a released quasi-identifier label is quoted (CRLF file).

Released quasi-identifiers are categoricals (codes and labels); the writer's
choice of line end must look at their labels too, or a label the algorithm
left as it was, holding ``\\r``, goes out unquoted and splits its row.
"""

from __future__ import annotations

import pandas as pd

from kanon_graph.cli import main
from kanon_graph.io import read as reader
from kanon_graph.io.tables import CRLF, _line_end

CR = chr(13)


def test_a_released_label_with_a_carriage_return_reads_back(tmp_path):
    src = tmp_path / "in.csv"
    rows = ["q,a"] + [f'"x{CR}y",{20 + i % 2}' for i in range(10)]
    src.write_bytes(("\n".join(rows) + "\n").encode())
    out = tmp_path / "out.csv"
    assert main(["anonymize", str(src), "--qi", "q,a", "-k", "5", "--algorithm", "mondrian",
                 "-o", str(out), "--keep-order", "-q"]) == 0
    back = reader.read_text_table(out).frame
    assert back["q"].tolist() == [f"x{CR}y"] * 10
    assert out.read_bytes().count(CRLF.encode()) == 11


def test_line_end_reads_the_labels_in_use_of_a_categorical():
    used = pd.DataFrame({"q": pd.Categorical([f"a{CR}b", "c"])})
    unused = pd.DataFrame({"q": pd.Categorical(["c"], categories=["c", f"a{CR}b"])})
    plain = pd.DataFrame({"q": pd.Categorical(["c", None])})
    assert (_line_end(used), _line_end(unused), _line_end(plain)) == (CRLF, "\n", "\n")
