"""SafePub's data-dependent search of the lattice: the exponential mechanism, step by step.

Bild, Kuhn and Prasser (2018), the SafePub algorithm: the search starts
at the lattice's top (every attribute at its root), and in each of ``steps``
steps adds the direct specializations of the current pivot to a set of
candidates, removes the pivot, and draws the next pivot from the candidates
with the exponential mechanism (McSherry and Talwar 2007). The node released
is drawn by the mechanism once more, among the pivots met (the top included),
by their scores. The budget is not split evenly: the pick spends ``PICK_SHARE``
(0.9) of ``epsilon_search``, and the ``steps`` draws of the walk share the
rest, ``0.1 epsilon_search / steps`` each (see docs/algorithms/safepub.md,
"Search and pick", for why and how the share was tuned). Both are floats
rounded down, so that the pick and the walk together spend at most
``epsilon_search``, exactly, by sequential composition. (The paper's
algorithm, as ARX's ``DataDependentEDDPAlgorithm`` implements it, releases
the best-scoring pivot: an argmax of the exact scores, which no draw of the
mechanism covers; see docs/algorithms/safepub.md.) Every draw is exact
(:mod:`~kanon_graph.lattice.safepub._random`), on exact rational scores and
the exact rational value of its float epsilon.

The score is the paper's Loss score (ARX's
``MetricMDNMLoss.getScore``): minus the summed per-record loss of the sample
anonymized by the node, every unsampled or suppressed record costing 1, a
released one the mean over the quasi-identifiers of (leaves under its value -
1) / (leaves of the hierarchy - 1) -- a cost read from the hierarchy alone,
never from the data (the mean per-cell Loss every benchmark of the library
reports; ARX counts leaves / all leaves instead, 1/N for an ungeneralized
value). Adding one record to the sample changes the sum by at most ``k - 1``
(a class of k - 1 suppressed records, cost k - 1, becomes k released ones,
cost 0 at best) and by at most 1 otherwise, so the score is divided by ``d
max(k - 1, 1)`` and has sensitivity 1 (Bild et al. 2018, the Loss row of
their sensitivity table). It is computed exactly, as a rational
(:meth:`SampleScores.exact_score`): the cost numerators summed in integers,
so no rounding can push the sensitivity above 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...encoding import combine_codes
from ..lattice import Lattice
from ._kernels import node_loss, node_loss_dense
from ._parameters import float_at_most
from ._random import as_randomness, exponential_mechanism

__all__ = ["em_probabilities", "SampleScores", "SearchResult", "search"]


def em_probabilities(scores, epsilon: float) -> np.ndarray:
    """The exponential mechanism's distribution: ``P(i) ~ exp(epsilon * score_i / 2)``.

    McSherry and Talwar 2007, for a score of sensitivity 1 (as Bild et al.
    2018 use it). Shifted by the largest exponent, so large scores
    neither overflow nor vanish. In floating point: the reference the tests
    hold the draws to; the draws themselves are exact
    (:func:`~kanon_graph.lattice.safepub._random.exponential_mechanism`).

    Examples
    --------
    >>> em_probabilities([0.0, 0.0], 1.0).tolist()
    [0.5, 0.5]
    """
    exponents = 0.5 * float(epsilon) * np.asarray(scores, dtype=np.float64)
    weights = np.exp(exponents - exponents.max())
    return weights / weights.sum()


class SampleScores:
    """The Loss score of every node on one sample, counted on its distinct tuples.

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier has a hierarchy.
    sampled : ndarray of bool, shape (n,)
        The records drawn into the sample.
    k : int
    """

    def __init__(self, data, sampled, k: int):
        self.k = int(k)
        self.d = len(data.attributes)
        self.records = int(data.n)
        rows = np.flatnonzero(sampled)
        self.sampled = len(rows)
        keys = data.group_keys([0] * self.d)[rows]
        _, first, counts = np.unique(keys, return_index=True, return_counts=True)
        reps = rows[first]
        self.weights = counts.astype(np.int64)
        self.codes = []     # codes[j][level]: the distinct tuples' codes at that level
        self.costs = []     # costs[j][level]: their cost numerator (leaves under - 1)
        self.spans = []     # spans[j]: the cost denominator (leaves of the hierarchy - 1)
        self.radix = []
        for attr in data.attributes:
            h = attr.hierarchy
            self.spans.append(max(int(h.n_leaves) - 1, 1))     # one leaf: every cost 0
            self.codes.append([attr.at_level(l)[reps] for l in range(attr.height + 1)])
            self.costs.append([(np.asarray(h.leaf_counts[l], dtype=np.int64) - 1)
                               [self.codes[-1][l]] for l in range(attr.height + 1)])
            self.radix.append([attr.n_at_level(l) for l in range(attr.height + 1)])
        self.cache: dict[tuple, Fraction] = {}
        self._pack()

    def _pack(self) -> None:
        """The codes and costs as (d, levels, tuples) arrays for the compiled kernel."""
        u, levels = len(self.weights), max(len(c) for c in self.codes)
        widths = np.zeros((self.d, levels), dtype=np.int64)
        self.packed = None
        for j, radix in enumerate(self.radix):
            widths[j, :len(radix)] = [max(int(r) - 1, 0).bit_length() for r in radix]
        if widths[:, 0].sum() > 62 or u == 0:     # keys would not fit: numpy's unique
            return
        codes = np.zeros((self.d, levels, u), dtype=np.int64)
        costs = np.zeros((self.d, levels, u), dtype=np.int64)
        for j in range(self.d):
            for l, (c, cost) in enumerate(zip(self.codes[j], self.costs[j])):
                codes[j, l] = c
                costs[j, l] = cost
        bits = max(int(2 * u - 1).bit_length(), 4)
        radices = np.ones((self.d, levels), dtype=np.int64)
        for j, radix in enumerate(self.radix):
            radices[j, :len(radix)] = radix
        self.packed = (codes, costs, widths, bits, radices)

    def released(self, node) -> np.ndarray:
        """Per distinct tuple: whether its class under ``node`` holds at least k records."""
        keys = combine_codes([self.codes[j][l] for j, l in enumerate(node)],
                             [self.radix[j][l] for j, l in enumerate(node)])
        _, inverse = np.unique(keys, return_inverse=True)
        sizes = np.bincount(inverse.reshape(-1), weights=self.weights)
        return sizes[inverse.reshape(-1)] >= self.k

    def sums(self, node) -> tuple[list[int], int]:
        """Per attribute the summed cost numerators of the released records; records released."""
        if self.packed is not None:
            codes, costs, widths, bits, radices = self.packed
            levels = np.asarray(node, dtype=np.int64)
            space = 1
            for j, l in enumerate(node):
                space *= int(radices[j, l])
            if space <= 2 * len(self.weights):      # few possible classes: count directly
                sums, kept = node_loss_dense(codes, costs, radices, levels, self.weights,
                                             self.k, space)
            else:
                sums, kept = node_loss(codes, costs, widths, levels, self.weights, self.k, bits)
            return [int(v) for v in sums], int(kept)
        keep = self.released(node)
        kept = self.weights[keep]
        sums = [int((kept * self.costs[j][l][keep]).sum()) for j, l in enumerate(node)]
        return sums, int(kept.sum())

    def exact_loss(self, node) -> Fraction:
        """Summed cell loss of the whole table, exactly: sampled records anonymized by
        ``node``, every record not sampled or suppressed costing 1 per attribute."""
        sums, kept = self.sums(node)
        return sum((Fraction(v, span) for v, span in zip(sums, self.spans)),
                   Fraction((self.records - kept) * self.d))

    def loss(self, node) -> float:
        """:meth:`exact_loss` as a float."""
        return float(self.exact_loss(node))

    def exact_score(self, node) -> Fraction:
        """The Loss score, sensitivity 1, as an exact rational: ``-loss / (d max(k - 1, 1))``."""
        node = tuple(int(l) for l in node)
        if node not in self.cache:
            self.cache[node] = -self.exact_loss(node) / (self.d * max(self.k - 1, 1))
        return self.cache[node]

    def score(self, node) -> float:
        """:meth:`exact_score` rounded to the nearest float."""
        return float(self.exact_score(node))


@dataclass
class SearchResult:
    """The node released, the path that found it, and the budget of each draw."""

    node: tuple
    score: float
    pivots: list = field(default_factory=list)
    steps_taken: int = 0
    nodes_scored: int = 0
    draws: int = 0
    epsilon_per_step: float = 0.0
    epsilon_pick: float = 0.0


#: The share of the search budget the pick of the node released spends (the walk's
#: ``steps`` draws share the rest). See docs/algorithms/safepub.md ("Search and pick").
PICK_SHARE = 0.9


def search(lattice: Lattice, scores: SampleScores, steps: int, epsilon_search: float,
           rng, pick_share: float | None = None) -> SearchResult:
    """Bild et al. 2018, the SafePub search, and the pick of the node released.

    ``steps`` draws of the exponential mechanism walk the lattice from its
    top; one more draw picks the node released among the pivots met (the top
    included), by their scores. The pick spends ``pick_share`` of
    ``epsilon_search`` (default :data:`PICK_SHARE`, 0.9) and each of the
    ``steps`` draws of the walk ``(1 - pick_share) epsilon_search / steps``,
    both rounded down to floats, so that by sequential composition the walk
    and the pick together spend at most ``epsilon_search`` (exactly, in
    rational arithmetic on the floats). (ARX 3.9.2 releases the best-scoring
    pivot instead, an argmax of exact scores that no draw covers.)
    ``steps=0`` releases the top, reading nothing. The walk stops early when
    no candidate is left (its unspent draws stay unspent). ``rng``: see
    :func:`~kanon_graph.lattice.safepub._random.as_randomness`.
    """
    source = as_randomness(rng)
    draws = steps + 1 if steps else 0
    share = PICK_SHARE if pick_share is None else float(pick_share)
    budget = Fraction(float(epsilon_search))
    pick = float_at_most(budget * Fraction(share)) if steps else 0.0
    per_draw = float_at_most((budget - Fraction(pick)) / steps) if steps else 0.0
    pivot = lattice.top
    candidates: dict[tuple, float] = {pivot: scores.score(pivot)}
    pivots = [pivot]
    taken = 0
    for _ in range(steps):
        for node in lattice.predecessors(pivot):
            if node not in candidates:
                candidates[node] = scores.score(node)
        del candidates[pivot]
        if not candidates:
            break
        nodes = list(candidates)
        pivot = nodes[exponential_mechanism([candidates[n] for n in nodes], per_draw, source,
                                            exact=lambda i: scores.exact_score(nodes[i]))]
        pivots.append(pivot)
        taken += 1
    released = pivots[0]
    if draws:
        released = pivots[exponential_mechanism([scores.score(p) for p in pivots], pick,
                                                source,
                                                exact=lambda i: scores.exact_score(pivots[i]))]
    return SearchResult(released, scores.score(released), pivots, taken, len(scores.cache),
                        draws, per_draw, pick)
