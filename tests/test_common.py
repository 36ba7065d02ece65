"""Common tests, run over every registered algorithm.

Whatever an algorithm does, its verified release must be k-anonymous, hold
every input record exactly once (released or counted as suppressed), never
release a value that does not cover the original, drop identifiers, and be
the same for the same seed. A newly registered algorithm is checked by these
tests without any edit here.
"""


import numpy as np
import pandas as pd
import pytest

import kanon_graph as kg
# the one cover rule and the same seeded table as the plugins' checks
from kanon_graph.testing._checks import _aggregates, _covers, anonymize_case, random_table
from kanon_graph.cells.kinds import parse_number
from kanon_graph.hierarchy import intervals, masking


def random_schema(with_hierarchies=True):
    hier = {}
    if with_hierarchies:
        hier = {
            "age": intervals(range(0, 100), widths=[5, 10, 20], name="age"),
            "zip": masking(["13053", "13068", "13075", "14850", "14853", "14860"],
                           levels=3, name="zip"),
            "sex": kg.Hierarchy.from_rows([["F", "*"], ["M", "*"]], name="sex"),
            "job": kg.Hierarchy.from_mapping({"*": {
                "office": ["clerk", "teacher"], "care": ["nurse", "driver"],
                "land": ["farmer", "land-other"]}}, name="job"),
        }
    return kg.Schema(quasi_identifiers=["age", "zip", "sex", "job"], sensitive=["disease"],
                     identifiers=["id"], categorical=["zip"], hierarchies=hier)


CASES = {
    "paper003-k3": (kg.datasets.paper_003_table, kg.datasets.paper_003_schema, 3),
    "random200-k2": (lambda: random_table(200, 1), random_schema, 2),
    "random300-k5": (lambda: random_table(300, 2), random_schema, 5),
    "random120-k7": (lambda: random_table(120, 3), random_schema, 7),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    make_table, make_schema, k = CASES[request.param]
    return make_table(), make_schema(), k


@pytest.fixture(scope="module", params=kg.algorithms())
def run(request, case):
    table, schema, k = case
    res, k = anonymize_case(request.param, table, schema, k)   # safepub derives its k
    return request.param, table, schema, k, res


def test_release_is_k_anonymous(run):
    name, table, schema, k, res = run
    released = np.setdiff1d(np.arange(len(table)), res.suppressed_rows)
    qis = list(schema.quasi_identifiers)
    # recomputed from the released values of the released rows (a class generalized to
    # '*' in every quasi-identifier is suppressed, and so not among them)
    counts = res.table.iloc[released][qis].astype(str).value_counts()
    # an empty release (safepub's pick can withhold every row) holds k vacuously, as
    # kanon_graph.testing's own check says
    assert counts.empty or counts.min() >= k
    assert res.verification.holds and (counts.empty or res.verification.k_achieved >= k)
    assert all(len(c) >= k for c in res.classes)


def test_every_record_exactly_once(run):
    name, table, schema, k, res = run
    positions = np.concatenate(res.classes + [res.suppressed_rows])
    assert np.sort(positions).tolist() == list(range(len(table)))
    assert len(res.table) == len(table)
    starred = (res.table[list(schema.quasi_identifiers)] == "*").all(axis=1).to_numpy()
    # the suppressed rows are exactly the rows that show '*' in every quasi-identifier (a
    # class generalized to roots labelled '*' reads the same, so it is suppressed too)
    assert res.suppressed == len(res.suppressed_rows)
    assert np.array_equal(starred, np.asarray(res.suppressed_mask, dtype=bool))


def test_released_values_cover_originals(run):
    name, table, schema, k, res = run
    kept = np.setdiff1d(np.arange(len(table)), res.suppressed_rows)
    for column in schema.quasi_identifiers:
        if _aggregates(table, schema, res, column):   # a microaggregation: the class's value
            continue
        h = schema.hierarchy(column)
        kind = schema.kind(column, table)
        for original, released in zip(table[column].to_numpy()[kept],
                                      res.table[column].to_numpy()[kept]):
            assert _covers(h, kind, original, released), (name, column, original, released)


def test_classes_share_their_released_values(run):
    name, table, schema, k, res = run
    qis = list(schema.quasi_identifiers)
    for members in res.classes:
        assert len(res.table.iloc[members][qis].drop_duplicates()) == 1


def test_identifiers_are_gone(run):
    name, table, schema, k, res = run
    for column in schema.identifiers:
        assert column not in res.table.columns
    withheld = (res.withheld_mask if res.withheld_mask is not None
                else np.zeros(len(table), bool))
    for column in schema.sensitive:    # a withheld row (safepub) is '*' in every column
        released = res.table[column].to_numpy(dtype=object)
        assert released[~withheld].tolist() == table[column].to_numpy(dtype=object)[
            ~withheld].tolist()
        assert (released[withheld] == "*").all()


def test_same_seed_same_result(run):
    name, table, schema, k, res = run
    again, _ = anonymize_case(name, table, schema, k)
    pd.testing.assert_frame_equal(again.table, res.table)
    assert again.metrics == res.metrics


def test_metrics_are_finite_and_in_range(run):
    name, table, schema, k, res = run
    assert 0.0 <= res.metrics["gcp"] <= 1.0
    assert 0.0 <= res.metrics["loss"] <= 1.0
    assert res.metrics["discernibility"] >= len(table) * k - 1e-9 or res.suppressed
    assert res.stats["seconds"] >= 0


#: the algorithms that take the user's k (safepub derives its own from epsilon and delta)
TAKES_K = [n for n in kg.algorithms() if kg.registry.get_algorithm(n).derives_k is None]


@pytest.mark.parametrize("name", TAKES_K)
def test_k_equal_n_gives_one_class(name):
    table = random_table(40, 11)
    res = kg.anonymize(table, random_schema(), k=40, algorithm=name, seed=0)
    assert len(res.classes) + (1 if res.suppressed else 0) >= 1
    assert all(len(c) == 40 for c in res.classes) and res.suppressed in (0, 40)


BOUNDED = [n for n in kg.algorithms() if kg.registry.get_algorithm(n).supports_boundaries]


@pytest.mark.parametrize("name", BOUNDED)
@pytest.mark.parametrize("k", [2, 5])
def test_boundaries_are_respected(name, k):
    """Definition 6 of Hussien et al.: no released value beyond its MAGVal."""
    table = random_table(300, 4)
    schema = random_schema()
    schema.hierarchies["job"].mark_magval("office").mark_magval("care")
    schema.hierarchies["age"].mark_magval("[40-59]")
    res = kg.anonymize(table, schema, k=k, algorithm=name, respect_boundaries=True,
                       suppression=0.2, seed=1)
    assert kg.constraint_violations(res) == []
    assert res.verification.k_achieved >= k
    office = table["job"].isin(["clerk", "teacher"]).to_numpy()
    kept = np.setdiff1d(np.flatnonzero(office), res.suppressed_rows)
    assert set(res.table["job"].to_numpy()[kept]) <= {"clerk", "teacher", "office"}


def test_algorithms_without_boundaries_refuse_the_option():
    """An algorithm that does not declare the capability never sees the option."""
    seen = []

    def plain(data, model, *, rng, suppression=None):
        seen.append(True)
        return kg.Partition(np.zeros(data.n, dtype=int))

    kg.register_algorithm("plain-test", plain, recoding="local")
    try:
        with pytest.raises(ValueError, match="cannot respect generalization boundaries; "
                                             "algorithms that can: .*'datafly'"):
            kg.anonymize(random_table(50, 0), random_schema(), k=2, algorithm="plain-test",
                         respect_boundaries=True)
        assert not seen
        res = kg.anonymize(random_table(50, 0), random_schema(), k=2, algorithm="plain-test",
                           respect_boundaries=False)
        assert seen and res.verification.holds
    finally:
        kg.registry.unregister_algorithm("plain-test")


LOCAL_BOUNDED = [n for n in BOUNDED if kg.registry.get_algorithm(n).recoding == "local"]


@pytest.mark.parametrize("name", LOCAL_BOUNDED)
def test_boundaries_suppressing_every_record(name):
    """Every MAGVal cell too small and a budget of 1.0: all suppressed, no numpy crash.

    mst, sd and sensitive-clustering used to fail on the empty remainder
    ("zero-size array to reduction operation", "need at least one array to
    concatenate").
    """
    table = random_table(6, 3)
    schema = random_schema()
    schema.hierarchies["job"].mark_magval("office").mark_magval("care").mark_magval("land")
    res = kg.anonymize(table, schema, k=6, algorithm=name, respect_boundaries=True,
                       suppression=1.0, seed=0)
    assert res.suppressed == 6 and res.classes == []
    assert sorted(res.suppressed_rows.tolist()) == list(range(6))
    assert (res.table[list(schema.quasi_identifiers)] == "*").all(axis=None)
    assert res.table["disease"].tolist() == table["disease"].tolist()


def _edge_tables():
    one = random_table(1, 8)
    identical = pd.concat([random_table(1, 3)] * 7, ignore_index=True)
    return {
        "n1-k1": (one, random_schema(), 1),
        "n2-k2": (random_table(2, 8), random_schema(), 2),
        "n3-k3-flat": (random_table(3, 8), random_schema(False), 3),
        "identical-k3": (identical, random_schema(), 3),
        "identical-k7-flat": (identical, random_schema(False), 7),
        "single-numeric-qi": (random_table(25, 2),
                              kg.Schema(quasi_identifiers=["age"], sensitive=["disease"],
                                        identifiers=["id"]), 4),
        "single-categorical-qi": (random_table(25, 2),
                                  kg.Schema(quasi_identifiers=["sex"], sensitive=["disease"],
                                            identifiers=["id"]), 4),
    }


LOCAL = [n for n in kg.algorithms()
         if kg.registry.get_algorithm(n).recoding in ("local", "microaggregation")]


@pytest.mark.parametrize("name", LOCAL)
@pytest.mark.parametrize("case_name", sorted(_edge_tables()))
def test_degenerate_tables(name, case_name):
    """Tiny tables, n == k, one distinct tuple, a single quasi-identifier: a verified release."""
    table, schema, k = _edge_tables()[case_name]
    lacking = [q for q in schema.quasi_identifiers if schema.hierarchy(q) is None]
    if kg.registry.get_algorithm(name).needs_hierarchies and lacking:
        with pytest.raises(kg.exceptions.SchemaError, match="needs a hierarchy"):
            kg.anonymize(table, schema, k=k, algorithm=name, seed=0)
        return
    res = kg.anonymize(table, schema, k=k, algorithm=name, seed=0)
    assert res.verification.holds
    # a local recoding suppresses nothing by choice; a class it generalizes to '*' in every
    # quasi-identifier is suppressed by definition (n == k tables often end there)
    starred = (res.table[list(schema.quasi_identifiers)].astype(str) == "*").all(axis=1)
    assert np.array_equal(res.suppressed_mask, starred.to_numpy())
    assert res.suppressed == int(starred.sum())
    assert sorted(np.concatenate(res.classes + [res.suppressed_rows]).tolist()) == \
        list(range(len(table)))
    assert all(len(c) >= k for c in res.classes)


@pytest.mark.parametrize("name", [n for n in kg.algorithms()
                                  if not kg.registry.get_algorithm(n).samples_records])
def test_default_seed_is_reproducible(name):
    """Without a seed, the same input gives the same release, and the seed is recorded.

    k-member used to draw its first record from fresh entropy when no seed
    was given (seed=None was the default), so releases differed run to run.
    """
    table, schema = random_table(120, 5), random_schema()
    first = kg.anonymize(table, schema, k=4, algorithm=name)
    for _ in range(3):
        again = kg.anonymize(table, schema, k=4, algorithm=name)
        pd.testing.assert_frame_equal(again.table, first.table)
    assert first.stats["seed"] == 0


def test_seed_none_is_drawn_and_recorded():
    """seed=None asks for randomness; the drawn seed reproduces the release."""
    table, schema = random_table(120, 5), random_schema()
    drawn = [kg.anonymize(table, schema, k=4, algorithm="k-member", seed=None)
             for _ in range(4)]
    seeds = [r.stats["seed"] for r in drawn]
    assert len(set(seeds)) == 4 and all(isinstance(s, int) and s >= 0 for s in seeds)
    for res in drawn:
        again = kg.anonymize(table, schema, k=4, algorithm="k-member", seed=res.stats["seed"])
        pd.testing.assert_frame_equal(again.table, res.table)
        assert again.stats["first_record"] == res.stats["first_record"]


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_bad_seed_is_refused(seed):
    with pytest.raises(ValueError, match=r"The 'seed' parameter of anonymize must be a "
                                         r"non-negative integer or None\. Got "):
        kg.anonymize(random_table(20, 0), random_schema(), k=2, algorithm="k-member", seed=seed)


def _with_gaps(table, seed, share=0.06):
    """``table`` with about ``share`` of its quasi-identifier / sensitive cells missing."""
    rng = np.random.default_rng(seed)
    table = table.astype({"age": float})
    for column in ("age", "zip", "sex", "job", "disease"):
        table.loc[rng.random(len(table)) < share, column] = None
    return table


def _covers_missing(released):
    """Whether a released cell stands for a missing original (missing='keep')."""
    gap = kg.encoding.MISSING
    return (released in (gap, "*") or released.endswith(f" or {gap}")
            or (released.startswith("{") and gap in released[1:-1].split(",")))


KEEP_CASES = [(name, True) for name in kg.algorithms()] + [
    (name, False) for name in kg.algorithms()
    if not kg.registry.get_algorithm(name).needs_hierarchies]


@pytest.mark.parametrize("name, hierarchies", KEEP_CASES,
                         ids=[f"{n}-{'hierarchies' if h else 'free'}" for n, h in KEEP_CASES])
def test_missing_keep_releases_every_row(name, hierarchies):
    """missing='keep' (issue 23): a missing cell is a value, generalized like any other."""
    table, k = _with_gaps(random_table(160, 9), 9), 4
    schema = random_schema(with_hierarchies=hierarchies)
    if kg.registry.get_algorithm(name).recoding == "microaggregation":
        # a missing age has no mean: refused, naming the attribute and the way out
        with pytest.raises(ValueError, match=r"cannot average a missing numeric cell "
                                             r"\(\['age'\].*missing='drop'"):
            kg.anonymize(table, schema, k=k, algorithm=name, missing="keep", seed=3)
        return
    res, k = anonymize_case(name, table, schema, k, seed=3, missing="keep")
    assert len(res.table) == len(table) and res.dropped == 0
    # a release at the top (rv-local's here) is every record suppressed: k holds vacuously
    v = res.verification
    assert v.holds and (v.released == 0 or v.k_achieved >= k)
    positions = np.concatenate(res.classes + [res.suppressed_rows])
    assert np.sort(positions).tolist() == list(range(len(table)))
    kept = np.setdiff1d(np.arange(len(table)), res.suppressed_rows)
    qis = list(schema.quasi_identifiers)
    assert not len(kept) or res.table.iloc[kept][qis].astype(str).value_counts().min() >= k
    gaps = {c: int(table[c].isna().sum()) for c in qis + ["disease"] if table[c].isna().any()}
    assert res.stats["missing_kept"] == gaps
    for column in qis:
        h = schema.hierarchy(column)
        kind = "numeric" if column == "age" else "categorical"
        for original, released in zip(table[column].to_numpy()[kept],
                                      res.table[column].to_numpy()[kept]):
            if pd.isna(original):
                assert _covers_missing(released), (name, column, released)
            elif h is None and kind == "numeric":    # '[20-29]', '20', '[20-29] or (missing)'
                shown = released.split(" or ")[0]
                number = parse_number(shown)
                assert (number == original if number is not None
                        else _covers(None, kind, original, shown)), (name, original, released)
            else:
                assert _covers(h, kind, original, released), (name, column, original, released)
    again = kg.evaluate(table, res.table, schema, k, missing="keep",
                        suppressed=res.suppressed_mask)
    assert again.verification.k_achieved == res.verification.k_achieved
