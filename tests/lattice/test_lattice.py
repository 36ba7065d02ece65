"""The implicit lattice, the StatusMap frontier and the DOT / networkx exports."""

import itertools
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from kanon_graph.lattice import MAX_NODES, Lattice, StatusMap, chain_up, lattice_dot

REFDATA = Path(__file__).parent / "refdata"


def test_shape_and_relations():
    lat = Lattice([1, 4, 2])
    assert lat.size == 2 * 5 * 3
    nodes = list(lat.nodes())
    assert len(nodes) == lat.size == len(set(nodes))
    assert nodes[0] == lat.bottom and nodes[-1] == lat.top
    assert [lat.height(n) for n in nodes] == sorted(lat.height(n) for n in nodes)
    for node in nodes:
        for succ in lat.successors(node):
            assert node in lat.predecessors(succ)
            assert lat.height(succ) == lat.height(node) + 1
            assert lat.is_more_general(succ, node) and not lat.is_more_general(node, succ)
        assert len(lat.successors(node)) == sum(v < h for v, h in zip(node, lat.heights))


def test_refuses_huge_lattices_but_stays_usable():
    lat = Lattice([2] * 30)
    assert lat.size == 3 ** 30 > MAX_NODES
    with pytest.raises(ValueError, match="more than the"):
        next(lat.nodes())
    with pytest.raises(ValueError, match="more than the"):
        lat.to_networkx()
    node = (1,) * 30
    assert len(lat.successors(node)) == 30 and len(lat.predecessors(node)) == 30
    assert chain_up(lat, lat.bottom)[-1] == lat.top
    assert len(chain_up(lat, lat.bottom)) == lat.max_height + 1


def test_bad_input():
    with pytest.raises(ValueError, match="'heights'"):
        Lattice([1, -1])
    with pytest.raises(ValueError, match="'names'"):
        Lattice([1, 1], names=["a"])
    with pytest.raises(ValueError, match="not a node"):
        Lattice([1, 1]).check((0, 2))


def test_networkx_is_the_hasse_diagram():
    lat = Lattice([2, 1, 2])
    g = lat.to_networkx()
    assert g.number_of_nodes() == lat.size
    assert nx.is_directed_acyclic_graph(g)
    # the Hasse diagram is the transitive reduction of the order
    closure = nx.DiGraph()
    closure.add_nodes_from(g)
    closure.add_edges_from((a, b) for a in g for b in g
                           if a != b and lat.is_more_general(b, a))
    assert set(nx.transitive_reduction(closure).edges) == set(g.edges)


def _random_monotone(heights, rng):
    """A random monotone predicate: anonymous iff above one of a few random nodes."""
    seeds = [tuple(int(rng.integers(0, h + 1)) for h in heights) for _ in range(3)]
    return lambda node: any(Lattice.is_more_general(node, s) for s in seeds)


@pytest.mark.parametrize("seed", range(5))
def test_status_map_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    heights = [int(h) for h in rng.integers(1, 4, size=4)]
    lat = Lattice(heights)
    truth = _random_monotone(heights, rng)
    all_nodes = list(lat.nodes())
    checked = [all_nodes[i] for i in rng.choice(len(all_nodes), size=12, replace=False)]
    status = StatusMap(lat)
    for node in checked:
        status.mark(node, truth(node))
    passed = [c for c in checked if truth(c)]
    failed = [c for c in checked if not truth(c)]
    arr = lat.array()
    codes = status.is_anonymous_many(arr)
    for node, code in zip(all_nodes, codes):
        expected = (True if any(lat.is_more_general(node, p) for p in passed)
                    else False if any(lat.is_more_general(f, node) for f in failed) else None)
        assert status.is_anonymous(node) is expected
        assert code == {True: 1, False: 0, None: -1}[expected]
    # the stored frontiers are antichains of checked nodes
    for frontier in (status.minimal_anonymous, status.maximal_not_anonymous):
        for a, b in itertools.permutations(frontier, 2):
            assert not lat.is_more_general(a, b)
        assert set(frontier) <= set(checked)


def test_status_map_refuses_contradictions_and_keeps_tags():
    status = StatusMap(2)
    status.mark_anonymous((1, 1))
    with pytest.raises(ValueError, match="monotone"):
        status.mark_not_anonymous((2, 1))
    status.mark_not_anonymous((0, 3))
    with pytest.raises(ValueError, match="monotone"):
        status.mark_anonymous((0, 2))
    status.tag((2, 2), "chosen")
    assert status.status((2, 2)) == "chosen" and status.status((2, 1)) == "anonymous"
    assert status.status((0, 1)) == "not-anonymous" and status.status((1, 0)) is None


def test_dot_matches_golden_file():
    lat = Lattice([1, 2], names=["sex", "age"])
    status = StatusMap(lat)
    status.mark_not_anonymous((1, 0))
    status.mark_anonymous((0, 2))
    status.tag((1, 1), "pruned")
    status.tag((0, 2), "chosen")
    text = lattice_dot(lat, status)
    assert text == (REFDATA / "lattice_sex1_age2.dot").read_text()
    assert text == lat.to_dot(status=status)
    assert text.count("->") == lat.to_networkx().number_of_edges()
