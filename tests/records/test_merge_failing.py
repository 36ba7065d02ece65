"""merge_failing_classes: the shared l / t merging step of the local algorithms."""

import numpy as np

from kanon_graph.records import merge_failing_classes


def _failing_below_two_values(values, n_classes):
    def failing(labels):
        keep = labels >= 0
        pairs = np.unique(np.column_stack([labels[keep], values[keep]]), axis=0)
        return np.bincount(pairs[:, 0], minlength=n_classes) < 2
    return failing


def test_merges_into_the_nearest_and_keeps_suppressed_rows():
    values = np.array([0, 0, 0, 1, 0, 1, 0])
    centre = np.array([0.0, 3.0, 1.0])
    labels, merges = merge_failing_classes(
        [0, 0, 1, 1, 2, 2, -1], _failing_below_two_values(values, 3),
        lambda c, others: np.abs(centre[others] - centre[c]))
    # class 0 (one value) joins class 2 at distance 1, not class 1 at distance 3
    assert labels.tolist() == [2, 2, 1, 1, 2, 2, -1] and merges == 1


def test_never_merges_across_cells():
    values = np.array([0, 0, 1, 1])
    seen = []
    labels, merges = merge_failing_classes(
        [0, 0, 1, 1], _failing_below_two_values(values, 2),
        lambda c, others: np.zeros(len(others)), cell=np.array([0, 1]),
        on_merge=lambda c, into: seen.append((c, into)))
    assert labels.tolist() == [0, 0, 1, 1] and merges == 0 and seen == []


def test_ties_go_to_the_lowest_class_and_merging_repeats_until_it_passes():
    values = np.array([0, 0, 0, 0, 0, 1])
    seen = []
    labels, merges = merge_failing_classes(
        [0, 0, 1, 1, 2, 2], _failing_below_two_values(values, 3),
        lambda c, others: np.ones(len(others)),
        on_merge=lambda c, into: seen.append((c, into)))
    # pass 1: 0 -> 1 (tie with 2: lowest index); 1 grew, so it waits; 2 passes.
    # pass 2: 1 still fails -> 2.
    assert seen == [(0, 1), (1, 2)] and merges == 2
    assert labels.tolist() == [2] * 6
