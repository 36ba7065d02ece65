"""A hierarchy file without quotes is split by ``str.split`` (``_rows._plain_rows``), the
same rows, line numbers and MAGVal marks as the quote-aware walk (``_quoted_rows``)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from kanon_graph.hierarchy import read_hierarchy
from kanon_graph.hierarchy._rows import _plain_rows, _quoted_rows

TEXTS = st.text(alphabet=list("ab9*;,\t -\n\r"), max_size=80)


@settings(max_examples=400, deadline=None)
@given(text=TEXTS, sep=st.sampled_from([";", ",", "\t"]))
def test_plain_rows_are_the_quote_aware_rows(text, sep):
    assert _plain_rows(text, sep) == _quoted_rows(text, sep)


def test_a_plain_file_reads_marks_blank_lines_and_masks_as_before(tmp_path):
    path = tmp_path / "zip.csv"
    path.write_text("02139-4307; 02139-****;*Boston*;0****;*****\n;;\n"
                    "02139;02139-****;*Boston*;0****;*****\n 02140 ;02140-****;Boston;0****;*****\n")
    h = read_hierarchy(path)
    assert h.magval("02139") == "Boston" and h.magval("02139-4307") == "Boston"
    assert h.generalize("02140", 1) == "02140-****" and h.height == 4
