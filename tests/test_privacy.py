"""Privacy criteria on hand-computed examples: k, l (three kinds), t (EMD), prosecutor risk."""

import math

import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
from kanon_graph.encoding import encode
from kanon_graph.privacy import (PrivacyModel, equivalence_classes, is_k_anonymous,
                                 k_anonymity, l_diversity, prosecutor_risk, t_closeness)
from kanon_graph.privacy import _measures as m
from kanon_graph.recoding import recode_partition

QIS = ["gender", "age", "zip"]
TABLE_1C = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2]


@pytest.fixture(scope="module")
def data():
    return encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())


@pytest.fixture(scope="module")
def released(data):
    """003 Table 1(c) as a released DataFrame."""
    return recode_partition(data, TABLE_1C).table()


# ---------------------------------------------------------------- equivalence classes
def test_equivalence_classes_ignore_suppressed_rows():
    t = pd.DataFrame({"a": ["x", "*", "x", "y", "*", "y", "y"],
                      "b": ["1", "*", "1", "2", "*", "2", "*"]})
    # row 6 has only one '*' cell: it is a released record, alone in its class
    assert [c.tolist() for c in equivalence_classes(t, ["a", "b"])] == [[0, 2], [3, 5], [6]]
    assert k_anonymity(t, ["a", "b"]) == 1
    assert k_anonymity(t.drop(index=6), ["a", "b"]) == 2
    assert is_k_anonymous(t.drop(index=6), ["a", "b"], 2)
    assert not is_k_anonymous(t.drop(index=6), ["a", "b"], 3)


def test_k_anonymity_of_table_1c(released):
    assert [c.tolist() for c in equivalence_classes(released, QIS)] == [
        [0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
    assert k_anonymity(released, QIS) == 3


def test_all_suppressed():
    t = pd.DataFrame({"a": ["*", "*"], "s": ["x", "y"]})
    assert equivalence_classes(t, ["a"]) == []
    assert k_anonymity(t, ["a"]) == 0
    assert prosecutor_risk(t, ["a"]) == (0.0, 0.0)
    assert l_diversity(t, ["a"], "s") == 0.0
    assert t_closeness(t, ["a"], "s") == 0.0


# -------------------------------------------------------------------- l-diversity
def test_distinct_l_of_table_1c(released):
    # every class of Table 1(c) holds 3 different diseases
    assert l_diversity(released, QIS, "disease") == 3


def test_entropy_l_of_table_1c(released):
    # class {4,5,6,7} holds Heart, Cancer, Flu, Flu: H = 1.5 ln 2, so exp(H) = 2^1.5;
    # the others hold three different values: exp(H) = 3
    assert l_diversity(released, QIS, "disease", kind="entropy") == pytest.approx(2 ** 1.5)


def test_recursive_l_of_table_1c(released):
    # counts (2, 1, 1) in class {4..7}: r1 = 2 < c (r2 + r3) = 2c holds for c = 2 (l = 2),
    # but 2 < c r3 = 2 fails (l = 3); classes with counts (1, 1, 1) reach l = 3 for c = 2
    assert l_diversity(released, QIS, "disease", kind="recursive", c=2) == 2
    # c = 1: (2,1,1) only l = 1 (2 < 4; 2 < 2 fails); (1,1,1): l = 2 (1 < 2; 1 < 1 fails)
    assert l_diversity(released, QIS, "disease", kind="recursive", c=1) == 1


def test_entropy_l_by_hand():
    cls = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    val = np.array([0, 0, 1, 1, 0, 0, 0, 1])
    p = np.array([0.75, 0.25])
    expected = math.exp(-(p * np.log(p)).sum())
    assert m.entropy_l(cls, val) == pytest.approx([2.0, expected])


def test_recursive_cl_by_hand():
    # one class with counts 3, 1, 1
    cls = np.zeros(5, dtype=int)
    val = np.array([0, 0, 0, 1, 2])
    assert m.recursive_l(cls, val, c=1).tolist() == [1]      # 3 < 5; 3 < 2 fails
    assert m.recursive_l(cls, val, c=2).tolist() == [2]      # 3 < 4; 3 < 2 fails
    assert m.recursive_l(cls, val, c=4).tolist() == [3]      # 3 < 8; 3 < 4
    assert m.recursive_cl_holds(cls, val, 2, 2).tolist() == [True]
    assert m.recursive_cl_holds(cls, val, 2, 3).tolist() == [False]
    assert m.recursive_cl_holds(cls, val, 9, 4).tolist() == [False]   # only 3 values


def test_distinct_values_skip_suppressed():
    cls = np.array([0, 0, -1, 1, 1])
    val = np.array([0, 1, 2, 2, 2])
    assert m.distinct_values(cls, val).tolist() == [2, 1]
    assert m.class_sizes(cls).tolist() == [2, 2]


# -------------------------------------------------------------------- t-closeness
def test_t_closeness_equal_distance_of_table_1c(released):
    # table: Flu .3, HIV .2, Heart .2, Cancer .2, Obesity .1
    # {1,2,3}: Flu, HIV, Heart -> 1/2 (.0333 + .1333 + .1333 + .2 + .1) = .3
    # {4..7}:  Heart, Cancer, Flu, Flu -> 1/2 (.2 + .05 + .05 + .2 + .1) = .3
    # {8,9,10}: HIV, Cancer, Obesity -> 1/2 (.1333 + .1333 + .2333 + .3 + .2) = .5
    assert t_closeness(released, QIS, "disease") == pytest.approx(0.5)
    emd = m.emd_to_table(TABLE_1C, encode(kg.datasets.paper_003_table(),
                                          kg.datasets.paper_003_schema()).sensitive["disease"],
                         5, ordered=False)
    assert emd == pytest.approx([0.3, 0.3, 0.5])


def test_t_closeness_ordered_distance_uses_numeric_order():
    # values 2 < 3 < 10; class A = {10, 10, 2}, class B = {3, 3, 3}
    # q = (1/6, 3/6, 2/6); p_A = (1/3, 0, 2/3): cumulative differences (1/6, -1/3, 0)
    # EMD = (1/6 + 1/3) / (m - 1) = 1/4; the same for B.
    t = pd.DataFrame({"g": ["a", "a", "a", "b", "b", "b"], "s": [10, 10, 2, 3, 3, 3]})
    assert t_closeness(t, ["g"], "s") == pytest.approx(0.25)
    # sorted as text ("10" < "2" < "3") the answer would be 5/12
    as_text = t.assign(s=t["s"].astype(str))
    assert t_closeness(as_text, ["g"], "s", ordered=True) == pytest.approx(5 / 12)
    # equal distance: 1/2 (|1/3 - 1/6| + |0 - 1/2| + |2/3 - 1/3|) = 1/2
    assert t_closeness(t, ["g"], "s", ordered=False) == pytest.approx(0.5)


def test_t_closeness_identical_distributions_is_zero():
    t = pd.DataFrame({"g": ["a", "a", "b", "b"], "s": [1, 2, 1, 2]})
    assert t_closeness(t, ["g"], "s") == 0.0


def test_emd_table_distribution_excludes_suppressed():
    cls = np.array([0, 0, -1, -1])
    val = np.array([0, 1, 0, 0])
    # released records alone: q = (1/2, 1/2) = p, so EMD 0
    assert m.emd_to_table(cls, val, 2, ordered=False).tolist() == [0.0]


def test_emd_many_classes_chunked():
    rng = np.random.default_rng(0)
    n_classes = 5000                               # more than one chunk of 4096 classes
    cls = np.repeat(np.arange(n_classes), 3)
    val = rng.integers(0, 4, size=cls.size)
    fast = m.emd_to_table(cls, val, 4, ordered=True)
    q = np.bincount(val, minlength=4) / val.size
    for c in [0, 4095, 4096, 4999]:
        p = np.bincount(val[cls == c], minlength=4) / 3
        assert fast[c] == pytest.approx(np.abs(np.cumsum(p - q)).sum() / 3)


# ---------------------------------------------------------------- prosecutor risk
def test_prosecutor_risk():
    t = pd.DataFrame({"a": ["x", "x", "y", "y", "y", "*"]})
    highest, average = prosecutor_risk(t, ["a"])
    assert highest == pytest.approx(1 / 2)
    assert average == pytest.approx(2 / 5)      # classes / released records


def test_prosecutor_risk_of_table_1c(released):
    assert prosecutor_risk(released, QIS) == pytest.approx((1 / 3, 3 / 10))


# ------------------------------------------------------------------- PrivacyModel
def test_model_failing_per_class(data):
    assert PrivacyModel(3).failing(TABLE_1C, data).tolist() == [False, False, False]
    assert PrivacyModel(4).failing(TABLE_1C, data).tolist() == [True, False, True]
    model = PrivacyModel(3, l=3).bind(data)
    assert model.sensitive == "disease"
    assert model.failing(TABLE_1C, data).tolist() == [False, False, False]
    entropy = PrivacyModel(3, l=2.9, diversity="entropy").bind(data)
    assert entropy.failing(TABLE_1C, data).tolist() == [False, True, False]
    recursive = PrivacyModel(3, l=3, diversity="recursive", c=2).bind(data)
    assert recursive.failing(TABLE_1C, data).tolist() == [False, True, False]
    close = PrivacyModel(3, t=0.4).bind(data)
    assert close.failing(TABLE_1C, data).tolist() == [False, False, True]
    # entropy l exactly reached counts as reached (float tolerance)
    exact = PrivacyModel(3, l=2 ** 1.5, diversity="entropy").bind(data)
    assert not exact.failing(TABLE_1C, data).any()


def test_model_verify(data):
    model = PrivacyModel(3, l=2, t=0.5).bind(data)
    v = model.verify(TABLE_1C, data)
    assert v.holds
    assert (v.k_achieved, v.l_achieved, v.classes, v.released, v.suppressed) == (3, 3, 3, 10, 0)
    assert v.t_achieved == pytest.approx(0.5)
    assert v.describe().startswith("holds: k=3 (smallest class 3), distinct l=2 (achieved 3)")
    v = PrivacyModel(4, t=0.4).bind(data).verify(TABLE_1C, data)
    assert not v.holds and v.describe().startswith("FAILS: ")


def test_model_verify_ignores_suppressed_rows(data):
    class_of = np.array([0, 0, 0, -1, -1, -1, -1, 1, 1, 1])
    v = PrivacyModel(3).verify(class_of, data)
    assert v.holds and v.suppressed == 4 and v.released == 6 and v.classes == 2
    v = PrivacyModel(3).verify(np.full(10, -1), data)
    assert v.holds and v.classes == 0 and v.k_achieved == 0


def test_describe_when_nothing_is_released(data):
    v = PrivacyModel(3, l=2, t=0.2).bind(data).verify(np.full(10, -1), data)
    assert v.holds and v.l_achieved is None and v.t_achieved is None
    assert v.describe() == ("holds: k=3 (smallest class 0), distinct l=2 (achieved none "
                            "released), t=0.2 (equal distance, largest EMD none released), 10 "
                            "suppressed")


def test_model_and_dataframe_checks_agree(data, released):
    model = PrivacyModel(1, l=1, diversity="entropy", t=1.0).bind(data)
    v = model.verify(TABLE_1C, data)
    assert v.l_achieved == pytest.approx(l_diversity(released, QIS, "disease", kind="entropy"),
                                         rel=1e-6)
    assert v.t_achieved == pytest.approx(t_closeness(released, QIS, "disease"))


@pytest.mark.parametrize("seed", range(25))
def test_measures_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, n_values = int(rng.integers(5, 50)), int(rng.integers(2, 6))
    cls = rng.integers(-1, 4, n)
    cls[0] = 0
    val = rng.integers(0, n_values, n)
    n_classes = int(cls.max()) + 1
    c = float(rng.choice([0.5, 1, 2, 3]))
    q = np.bincount(val[cls >= 0], minlength=n_values) / (cls >= 0).sum()
    distinct = m.distinct_values(cls, val, n_classes)
    entropy = m.entropy_l(cls, val, n_classes)
    recursive = m.recursive_l(cls, val, c, n_classes)
    ordered = m.emd_to_table(cls, val, n_values, ordered=True, n_classes=n_classes)
    equal = m.emd_to_table(cls, val, n_values, ordered=False, n_classes=n_classes)
    for k in range(n_classes):
        counts = np.bincount(val[cls == k], minlength=n_values)
        if not counts.sum():
            continue
        assert distinct[k] == (counts > 0).sum()
        p = counts[counts > 0] / counts.sum()
        assert entropy[k] == pytest.approx(math.exp(-(p * np.log(p)).sum()))
        r = sorted(counts[counts > 0], reverse=True)
        holds = [r[0] < c * sum(r[l - 1:]) for l in range(1, len(r) + 1)]
        assert recursive[k] == (holds.index(False) if False in holds else len(r))
        p = counts / counts.sum()
        assert equal[k] == pytest.approx(0.5 * np.abs(p - q).sum())
        # the ordered distance steps over the values the released records hold
        held = np.unique(val[cls >= 0])
        steps = max(len(held) - 1, 1)
        assert ordered[k] == pytest.approx(np.abs(np.cumsum(p[held] - q[held])).sum() / steps)


# --------------------------------------------- reachability with suppression (issue 11)
_H = kg.Hierarchy.from_rows([["a", "AB", "*"], ["b", "AB", "*"], ["c", "CD", "*"],
                             ["d", "CD", "*"]], name="q")
_GLOBAL = ["datafly", "incognito", "optimal", "rv-global", "rv-local", "rv-hybrid",
           "rv-distributed"]


def _skewed():
    """s = x*8, y, z: entropy l 1.89 on the whole table, 2.38 once 4 x's are gone."""
    table = pd.DataFrame({"q": list("abcdabcdab"), "s": list("xxxxxxxxyz")})
    return table, kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": _H})


@pytest.mark.parametrize("algorithm", _GLOBAL)
def test_suppression_can_raise_entropy_l_so_it_is_not_refused(algorithm):
    table, schema = _skewed()
    res = kg.anonymize(table, schema, k=2, l=2, diversity="entropy", algorithm=algorithm,
                       suppression=0.8)
    released = res.table.loc[~res.suppressed_mask, "s"]
    p = released.value_counts(normalize=True).to_numpy()
    assert res.verification.holds and math.exp(-(p * np.log(p)).sum()) >= 2


def test_suppression_can_raise_recursive_l_so_it_is_not_refused():
    # recursive (1, 2): r1 = 8 >= 1 * (1 + 1) on the whole table; suppressing class 'a'
    # (7 x's) leaves x, y, z, where 1 < 1 * (1 + 1)
    table = pd.DataFrame({"q": list("aaaaaaabbb"), "s": list("xxxxxxxxyz")})
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": _H})
    res = kg.anonymize(table, schema, k=3, l=2, diversity="recursive", c=1.0,
                       algorithm="datafly", suppression=0.7)
    assert res.verification.holds and res.verification.l_achieved >= 2
    assert res.suppressed == 7


@pytest.mark.parametrize("suppression,refused", [(0.0, True), (0.1, True), (0.2, False)])
def test_entropy_l_is_refused_only_beyond_the_budget(suppression, refused):
    # dropping 1 x leaves entropy l 1.98 (refused up front), dropping 2 leaves 2.09:
    # class 'a' holds two x's and can be suppressed, class 'b' is x*6, y, z
    table = pd.DataFrame({"q": list("aabbbbbbbb"), "s": list("xxxxxxxxyz")})
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": _H})
    run = lambda: kg.anonymize(table, schema, k=2, l=2, diversity="entropy",  # noqa: E731
                               algorithm="datafly", suppression=suppression)
    if refused:
        with pytest.raises(ValueError, match=r"entropy l=2 cannot be reached on sensitive "
                                             r"attribute 's'"):
            run()
    else:
        res = run()
        assert res.verification.holds and res.suppressed == 2


@pytest.mark.parametrize("diversity,l", [("distinct", 4), ("entropy", 3.01), ("recursive", 4)])
@pytest.mark.parametrize("algorithm", ["optimal", "mondrian", "mst"])
def test_more_diversity_than_values_is_refused_even_with_full_suppression(diversity, l,
                                                                          algorithm):
    # 3 distinct values bound every class, whatever is suppressed
    table, schema = _skewed()
    with pytest.raises(ValueError, match=f"{diversity} l={l:g} cannot be reached"):
        kg.anonymize(table, schema, k=2, l=l, diversity=diversity, algorithm=algorithm,
                     suppression=1.0)


@pytest.mark.parametrize("algorithm", kg.algorithms())
def test_every_algorithm_releases_or_says_why(algorithm):
    # a request that suppression makes reachable: a release that holds, or a clear
    # ValueError / PrivacyError (never another exception)
    table, schema = _skewed()
    try:
        res = kg.anonymize(table, schema, k=2, l=2, diversity="entropy", algorithm=algorithm,
                           suppression=0.8)
    except (ValueError, kg.PrivacyError) as err:
        assert len(str(err).splitlines()) == 1 and ("l" in str(err) or "privacy" in str(err))
    else:
        assert res.verification.holds


@pytest.mark.parametrize("algorithm", ["mondrian", "mst", "sd"])
def test_local_algorithms_refuse_up_front_an_l_only_suppression_could_meet(algorithm):
    # the whole table reaches entropy l 1.9 < 2; only suppressing x's would reach 2, and
    # local recodings do not suppress to reach l: refused before the algorithm runs,
    # naming the global algorithms that can (was a PrivacyError after the run)
    table, schema = _skewed()
    with pytest.raises(ValueError, match="does not suppress records to reach it"):
        kg.anonymize(table, schema, k=2, l=2, diversity="entropy", algorithm=algorithm,
                     suppression=0.8)


def test_the_default_budget_is_the_algorithms_own():
    # entropy l of the whole table is 1.75; keeping 7 of 8 records would reach 1.82, but
    # 'boundaries' suppresses nothing unless asked: refused up front (was a refusal from
    # inside the algorithm, after an up-front check that assumed a budget of k records)
    table = pd.DataFrame({"q": ["a"] * 8, "s": ["x"] * 2 + ["y"] * 6})
    schema = kg.Schema(quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": _H})
    assert kg.registry.get_algorithm("boundaries").default_budget(1, 8) == 0
    assert kg.registry.get_algorithm("datafly").default_budget(3, 8) == 3
    with pytest.raises(ValueError, match="whole table as one class achieves only 1.75"):
        kg.anonymize(table, schema, k=1, l=1.8, diversity="entropy", algorithm="boundaries")
