"""Every algorithm declares the privacy models it takes (issue 46 item 13), and the
declaration matches what it does: a model it declares runs and holds, one it does not is
refused by the facade before anything runs, with one message naming those that take it."""

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph.registry import MODELS, get_algorithm

#: A request for each kind of model (k is the facade's argument, added below).
REQUESTS = {"distinct-l": {"l": 2}, "entropy-l": {"l": 1.5, "diversity": "entropy"},
            "recursive-l": {"l": 2, "diversity": "recursive", "c": 3.0}, "t": {"t": 0.5}}
#: sensitive-clustering's classes hold one sensitive value: it takes l only at l = 1 (and
#: recursive c > 1), the documented limit it checks itself
ONE_VALUE = {"distinct-l": {"l": 1}, "entropy-l": {"l": 1, "diversity": "entropy"},
             "recursive-l": {"l": 1, "diversity": "recursive", "c": 2.0}}


@pytest.fixture(scope="module")
def census():
    return kg.datasets.make_census(200, seed=1), kg.datasets.census_schema()


def _base(info):
    if info.derives_k is not None:
        return {"epsilon": 2.0, "delta": 0.1, "seed": 1}
    return {"k": 3}


def test_every_built_in_declares_its_models():
    for name in kg.algorithms():
        info = get_algorithm(name)
        assert info.models is not None and info.models <= set(MODELS), name
        assert ("dp" in info.models) == (info.derives_k is not None), name


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", kg.algorithms())
def test_the_declaration_matches_what_the_algorithm_does(name, census):
    table, schema = census
    info = get_algorithm(name)
    base = "dp" if info.derives_k is not None else "k"
    assert base in info.models
    res = kg.anonymize(table, schema, algorithm=name, **_base(info))
    assert res.verification.holds
    # a cell the encoder refuses (missing="error"): only a check made before encoding
    # can answer first
    broken = table.copy()
    broken.loc[0, schema.quasi_identifiers[0]] = np.nan
    for kind, request in REQUESTS.items():
        if kind in info.models:
            request = ONE_VALUE.get(kind, request) if name == "sensitive-clustering" \
                else request
            res = kg.anonymize(table, schema, algorithm=name, **_base(info), **request)
            assert res.verification.holds, (name, kind)
        else:
            able = sorted(n for n in kg.algorithms() if kind in get_algorithm(n).models)
            with pytest.raises(ValueError) as refused:
                kg.anonymize(broken, schema, algorithm=name, **_base(info), **request)
            message = str(refused.value)
            assert message.startswith(f"algorithm {name!r} does not take {MODELS[kind]}")
            assert f"algorithms that do: {able}" in message and "\n" not in message


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_plug_in_that_declares_nothing_gets_every_model(census):
    """Today's behaviour for an undeclared plug-in: every model reaches the function."""
    table, schema = census
    seen = []

    @kg.register_algorithm("one-class-any", recoding="local")
    def one_class(data, model, *, rng, suppression=None):
        seen.append((model.l, model.t))
        return kg.Partition(np.zeros(data.n, dtype=int))

    try:
        assert get_algorithm("one-class-any").models is None
        res = kg.anonymize(table, schema, k=3, t=0.9, algorithm="one-class-any")
        assert seen == [(None, 0.9)] and res.verification.holds
    finally:
        kg.registry.unregister_algorithm("one-class-any")


def test_a_plug_in_that_declares_k_is_refused_l(census):
    table, schema = census

    @kg.register_algorithm("one-class-k", recoding="local", models=["k"])
    def one_class(data, model, *, rng, suppression=None):
        raise AssertionError("never called")

    try:
        with pytest.raises(ValueError, match="algorithm 'one-class-k' does not take distinct "
                                             r"l-diversity \(it takes k-anonymity\)"):
            kg.anonymize(table, schema, k=3, l=2, algorithm="one-class-k")
    finally:
        kg.registry.unregister_algorithm("one-class-k")


@pytest.mark.parametrize("models", [[], ["k", "l"], "x"])
def test_a_declaration_names_known_models(models):
    with pytest.raises(ValueError, match="The 'models' parameter of register_algorithm"):
        kg.register_algorithm("bad-models", lambda data, model, *, rng: None,
                              recoding="local", models=models)
