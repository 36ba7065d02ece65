"""The node arrays of the exact search (kanon_graph.lattice.node_space)."""

import numpy as np

from kanon_graph.lattice import Lattice


def test_closed_fill_sets_what_the_plain_walk_sets():
    # the search's tags are closed (anonymous / dominated upwards, not anonymous downwards):
    # the pruned walk must leave the same arrays and report the same box sizes
    from kanon_graph.lattice.node_space import NodeSpace

    class Height:
        def lower_bound(self, nodes):
            return nodes.sum(axis=1).astype(float)

    rng = np.random.default_rng(0)
    for _ in range(200):
        heights = [int(h) for h in rng.integers(0, 4, size=int(rng.integers(1, 6)))]
        space = NodeSpace(Lattice(heights), Height())
        up_plain, up_closed = np.zeros(space.total, bool), np.zeros(space.total, bool)
        down_plain = np.zeros(space.total, np.int8)
        down_closed = down_plain.copy()
        for _ in range(10):
            i = int(rng.integers(space.total))
            own = up_closed[i]
            assert space.fill_above(i, up_plain, True) == space.fill_above(
                i, up_closed, True, closed=True)
            if rng.random() < 0.5:          # the dominated pattern: the origin keeps its own
                up_plain[i] = up_closed[i] = own
            assert space.fill_below(i, down_plain, 2) == space.fill_below(
                i, down_closed, 2, closed=True)
            assert (up_plain == up_closed).all() and (down_plain == down_closed).all()


def test_candidate_queue_pair_orders_by_bound_with_ties_in_index_order():
    # one sort gives both queues: lowest first, and highest first with equal bounds
    # still in index order (as the search's tie rule needs), on bounds full of ties
    from types import SimpleNamespace

    from kanon_graph.lattice.node_space import CandidateQueue

    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(0, 400))
        bound = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
        space = SimpleNamespace(bound=bound, total=n)
        high, low = CandidateQueue.pair(space)
        index = np.arange(n)
        assert high.highest and not low.highest
        assert high.order.tolist() == np.lexsort((index, -bound)).tolist()
        assert low.order.tolist() == np.lexsort((index, bound)).tolist()
        assert high.order.tolist() == CandidateQueue(space, highest=True).order.tolist()


def test_loss_bounds_of_the_whole_lattice_are_the_per_node_bounds_bit_for_bit():
    # NodeSpace takes the Loss bounds from outer products over the levels; they must be
    # the very floats lower_bound computes per node (ties in the queues depend on them)
    import pandas as pd

    import kanon_graph as kg
    from kanon_graph.lattice.node_metrics import node_metric
    from kanon_graph.lattice.node_space import NodeSpace, node_key

    rng = np.random.default_rng(3)
    rows = [[f"v{i}", f"p{i // 2}", f"q{i // 4}", "*"] for i in range(8)]
    for n_attr in (1, 3, 5):
        names = [f"a{j}" for j in range(n_attr)]
        hierarchies = {c: kg.Hierarchy.from_rows(rows, name=c) for c in names}
        table = pd.DataFrame({c: [f"v{i}" for i in rng.integers(0, 8, size=300)]
                              for c in names})
        data = kg.encode(table, kg.Schema(quasi_identifiers=names, hierarchies=hierarchies,
                                          categorical=names))
        metric = node_metric("loss", data, 0)
        space = NodeSpace(Lattice(data.heights), metric)
        assert space.bound.tobytes() == metric.lower_bound(space.nodes).astype(float).tobytes()
        grid = metric.lower_bound_grid(list(data.heights))       # in key order
        keys = node_key(space.nodes, space.radix)
        assert grid[keys].tobytes() == metric.lower_bound(space.nodes).tobytes()
