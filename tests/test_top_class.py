"""Issue 46, item 5: a record whose quasi-identifiers are all ``*`` is suppressed, everywhere.

A class generalized to ``*`` in every quasi-identifier reads, in the written file,
exactly like suppressed rows. The facade used to count it as released while
``kg.privacy``'s measures left it out, so a certified release failed the library's
own public check (k 0 against a verified k; a t above the verified one). Now the
facade counts it as suppressed (docs/privacy.md, "What each criterion is measured
on"), and for every registered algorithm the public measures on the written release
give the verification's figures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph import privacy
from kanon_graph.cli import main
from kanon_graph.hierarchy import write_hierarchy
from kanon_graph.testing._checks import anonymize_case, random_schema, random_table

H = kg.Hierarchy.from_rows([["a", "AB", "*"], ["b", "AB", "*"],
                            ["c", "CD", "*"], ["d", "CD", "*"]], name="q")
#: class 0 (a, a, b, b: AB) holds x x x x; class 1 (c, c) holds y y; class 2 (a, d)
#: has '*' as its only common ancestor and holds y y
T_TABLE = pd.DataFrame({"q": list("aabbccad"), "s": list("xxxxyyyy")})
T_CLASSES = np.array([0, 0, 0, 0, 1, 1, 2, 2])


@pytest.fixture
def registered():
    names = []

    def register(name, function, **kwargs):
        kg.register_algorithm(name, function, **kwargs)
        names.append(name)

    yield register
    for name in names:
        kg.registry.unregister_algorithm(name)


def _written(res, tmp_path, **kwargs):
    path = tmp_path / "release.csv"
    res.write(path, seed=5, **kwargs)
    return pd.read_csv(path)


def test_a_release_that_is_one_top_class_is_all_suppressed(tmp_path):
    table, schema = random_table(40, 1), random_schema()
    qis = list(schema.quasi_identifiers)
    res = kg.anonymize(table, schema, k=40, algorithm="optimal")
    back = _written(res, tmp_path)
    assert (back[qis] == "*").all(axis=None)
    # the public measure and the facade agree: nothing released, 40 suppressed
    assert privacy.k_anonymity(back, qis) == res.verification.k_achieved == 0
    assert res.suppressed == 40 and res.verification.suppressed == 40
    assert res.classes == [] and res.suppressed_mask.all()
    assert "40 suppressed" in res.summary()


def _top_partition(data, model, *, rng, suppression=None):
    return kg.Partition(T_CLASSES.copy())


def test_t_is_measured_without_the_top_class(registered, tmp_path):
    """The verified t used to count the top class in the reference distribution Q.

    Q over all 8 records is x 1/2, y 1/2: every class at EMD 0.5, certified for
    t = 0.5. Read from the cells, class 2 is suppressed and Q over the other 6 is
    x 2/3, y 1/3, so class 1 (y y) is at 2/3: the public check failed the certified
    release. Now class 2 counts as suppressed, class 1 then fails t against the
    released records and is suppressed too, and both figures are 0.
    """
    registered("test-top-class", _top_partition, recoding="local")
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    res = kg.anonymize(T_TABLE, schema, k=2, t=0.5, algorithm="test-top-class")
    back = _written(res, tmp_path, keep_order=True)
    public = privacy.t_closeness(back, ["q"], "s")
    assert public == pytest.approx(res.verification.t_achieved) and public <= 0.5
    assert back["q"].tolist() == ["AB"] * 4 + ["*"] * 4
    assert res.suppressed == 4 and res.verification.released == 4
    assert res.stats["suppressed_at_top"] == 4
    # kg.evaluate (what `evaluate --check` runs) reads the same figures from the file
    ev = kg.evaluate(T_TABLE, back, schema, k=2, t=0.5)
    assert ev.verification.t_achieved == pytest.approx(res.verification.t_achieved)
    assert ev.verification.holds and ev.suppressed == res.suppressed


def test_top_class_beyond_the_budget_is_refused(registered):
    """The rule: what is counted as suppressed, the top class and what t then
    suppresses, is held to ``suppression=``; beyond it the release is refused."""
    registered("test-top-class", _top_partition, recoding="local")
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    with pytest.raises(kg.PrivacyError, match=r"suppressed 4 records \(4 of them released "
                                              r"with every quasi-identifier '\*', which counts "
                                              r"as suppressed, with the classes that then "
                                              r"failed t\), more than the allowed 25\.00% of 8"):
        kg.anonymize(T_TABLE, schema, k=2, t=0.5, algorithm="test-top-class",
                     suppression=0.25)
    res = kg.anonymize(T_TABLE, schema, k=2, t=0.5, algorithm="test-top-class",
                       suppression=0.5)
    assert res.suppressed == 4
    # k alone: only the top class is suppressed, and two records fit a budget of 25%
    res = kg.anonymize(T_TABLE, schema, k=2, algorithm="test-top-class", suppression=0.25)
    assert res.suppressed == 2 and res.table["q"].tolist() == ["AB"] * 4 + ["c"] * 2 + ["*"] * 2


def test_evaluate_check_passes_the_certified_release(registered, tmp_path, capsys):
    registered("test-top-class", _top_partition, recoding="local")
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    res = kg.anonymize(T_TABLE, schema, k=2, t=0.5, algorithm="test-top-class")
    (tmp_path / "h").mkdir()
    write_hierarchy(H, tmp_path / "h" / "q.csv")
    T_TABLE.to_csv(tmp_path / "in.csv", index=False)
    res.write(tmp_path / "out.csv", keep_order=True)
    code = main(["evaluate", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"), "--qi", "q",
                 "--hierarchies", str(tmp_path / "h"), "--sensitive", "s", "-k", "2",
                 "--t", "0.5", "--check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"largest EMD {res.verification.t_achieved:.4f}" in out and "4 suppressed" in out


def test_evaluate_counts_an_all_star_row_as_suppressed_whatever_the_mask_says():
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    released = T_TABLE.assign(q=["AB"] * 4 + ["CD"] * 2 + ["*"] * 2)
    ev = kg.evaluate(T_TABLE, released, schema, k=2, suppressed=np.zeros(8, dtype=bool))
    assert ev.suppressed == 2 and ev.verification.classes == 2


# -- every registered algorithm: the written release, measured in public --------------
#: (table seed, k, l, t) on a 60-record table: large classes that end at the top, small
#: ones with l and t, and a t that stepwise met only with its top class in Q
REQUESTS = {"k": (4, 20, None, None), "k-l-t": (4, 8, 2, 0.3), "k-t": (0, 5, None, 0.25)}


def _public_figures(back, qis, with_l, with_t):
    k = privacy.k_anonymity(back, qis)
    l = privacy.l_diversity(back, qis, "disease") if with_l else None
    t = privacy.t_closeness(back, qis, "disease", ordered=False) if with_t else None
    return k, l, t


@pytest.mark.parametrize("request_name", sorted(REQUESTS))
@pytest.mark.parametrize("name", kg.algorithms())
def test_public_measures_on_the_written_release_equal_the_verification(name, request_name,
                                                                        tmp_path):
    seed, k, l, t = REQUESTS[request_name]
    table, schema = random_table(60, seed), random_schema()
    qis = list(schema.quasi_identifiers)
    try:
        res, k = anonymize_case(name, table, schema, k, l=l, t=t, sensitive="disease",
                                seed=seed)
    except ValueError as refused:      # an algorithm that declares it meets k only
        assert (l, t) != (None, None) and name in str(refused) and "\n" not in str(refused)
        res, k = anonymize_case(name, table, schema, k, seed=seed)
        l = t = None
    back = _written(res, tmp_path)
    v = res.verification
    public_k, public_l, public_t = _public_figures(back, qis, l is not None, t is not None)
    starred = int((back[qis] == "*").all(axis=1).sum())
    # withheld rows (safepub) are not written; every other suppressed row is, all '*'
    # (safepub's class at the top too: suppressed by definition, not withheld)
    withheld = 0 if res.withheld_mask is None else int(res.withheld_mask.sum())
    assert starred == res.suppressed - withheld
    if v.released == 0:       # nothing released: the public measures say 0, the facade None
        assert (public_k, public_l or 0.0, public_t or 0.0) == (0, 0.0, 0.0)
        assert v.l_achieved is None and v.t_achieved is None
    else:
        assert public_k == v.k_achieved
        if l is not None:
            assert public_l == pytest.approx(v.l_achieved)
        if t is not None:
            assert public_t == pytest.approx(v.t_achieved)
    assert v.holds
    if len(back) == len(table):        # row-aligned: kg.evaluate reads the same figures
        in_order = _written(res, tmp_path, keep_order=True)
        ev = kg.evaluate(table, in_order, schema, k=k, l=l, t=t, sensitive="disease",
                         aggregate=res.stats.get("aggregate"))      # mdav's operators
        assert (ev.verification.k_achieved, ev.suppressed) == (v.k_achieved, res.suppressed)
        assert ev.verification.holds


def test_the_report_reads_the_certified_figures(registered):
    from kanon_graph.report._result import content_of_result

    registered("test-top-class", _top_partition, recoding="local")
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": H})
    res = kg.anonymize(T_TABLE, schema, k=2, t=0.5, algorithm="test-top-class")
    content = content_of_result(res)
    assert content["summary"]["suppressed"] == res.suppressed == 4
    assert content["privacy"]["holds"]
    assert content["privacy"]["t_achieved"] == pytest.approx(res.verification.t_achieved)
    assert content["privacy"]["k_achieved"] == res.verification.k_achieved
