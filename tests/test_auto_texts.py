"""What kg.anonymize's docstring and `anonymize --help` say auto does, against what it does
(issue 39 item 11: both said auto runs trials, or picks optimal else mondrian)."""

import re

import pytest

import kanon_graph as kg
from kanon_graph.cli import build_parser

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _flat(text):
    """One line, without the reST quotes."""
    return re.sub(r"\s+", " ", text).replace("``", "")


def _docstring_of_algorithm():
    doc = _flat(kg.anonymize.__doc__)
    return doc[doc.index("algorithm : str"):doc.index("l : float")]


def _help_of_algorithm():
    parser = build_parser("anonymize")
    sub = next(a for a in parser._actions if a.dest == "command").choices["anonymize"]
    return _flat(next(a for a in sub._actions if "--algorithm" in a.option_strings).help)


def _chosen(table, schema, **kwargs):
    res = kg.anonymize(table, schema, k=3, **kwargs)
    return res.algorithm, res.stats["auto"]["tried"]


@pytest.fixture
def tables():
    table = kg.datasets.paper_003_table()
    hierarchical = kg.datasets.paper_003_schema()
    flat = kg.Schema(quasi_identifiers=list(hierarchical.quasi_identifiers),
                     sensitive=list(hierarchical.sensitive))
    return table, hierarchical, flat


def test_the_texts_name_what_auto_runs_without_trials(tables):
    """k alone with hierarchies -> stepwise, without -> mst, no trials: the texts say so."""
    table, hierarchical, flat = tables
    with_hierarchies, tried = _chosen(table, hierarchical)
    assert tried == []
    without, tried_flat = _chosen(table, flat)
    assert tried_flat == []
    for text in (_docstring_of_algorithm(), _help_of_algorithm()):
        said = text[text.index("auto"):]
        rule = said[:said.index("otherwise" if "otherwise" in said else "Elsewhere")]
        assert f"{with_hierarchies} when every quasi-identifier has a hierarchy" in rule, text
        assert f"{without} when none has one" in rule, text
        assert "else mondrian" not in text


def test_the_texts_name_the_trials_auto_runs_with_l(tables):
    """With l and no hierarchy, auto tries candidates: the texts list the ones it tried; with
    every hierarchy it runs stepwise alone (issue 47) and the texts say so for l too."""
    table, hierarchical, flat = tables
    chosen, tried = _chosen(table, flat, l=2)
    names = [t["algorithm"] for t in tried]
    assert chosen in names and len(names) > 1
    for text in (_docstring_of_algorithm(), _help_of_algorithm()):
        for name in names:
            assert name in text, (name, text)
    assert _chosen(table, hierarchical, l=2) == ("stepwise", [])
    assert "under k, l and t, stepwise when every" in _docstring_of_algorithm()
    assert "with --l and --t too" in _help_of_algorithm()


@pytest.mark.dask
def test_a_dask_table_takes_what_the_texts_say(tables):
    dd = pytest.importorskip("dask.dataframe", reason="the optional Dask extra is not "
                                                      "installed (pip install \"kanon_graph[dask]\")")
    table, hierarchical, _ = tables
    res = kg.anonymize(dd.from_pandas(table, npartitions=2), hierarchical, k=3)
    assert res.algorithm == "stepwise"
    assert f"A Dask table runs {res.algorithm} without trials" in _flat(kg.anonymize.__doc__)
    assert f"--engine dask runs {res.algorithm} without trials" in _help_of_algorithm()
    # with l as well: as in memory, stepwise without trials
    res = kg.anonymize(dd.from_pandas(table, npartitions=2), hierarchical, k=3, l=2)
    assert res.algorithm == "stepwise" and res.stats["auto"]["tried"] == []
    assert "as in memory" in res.stats["auto"]["reason"]
    assert "trials (with l too)" in _docstring_of_algorithm()
