"""SafePub's data-dependent search of the lattice: the exponential mechanism, step by step.

Bild, Kuhn and Prasser (2018), the SafePub algorithm: the search starts
at the lattice's top (every attribute at its root), and in each of ``steps``
steps adds the direct specializations of the current pivot to a set of
candidates, removes the pivot, and draws the next pivot from the candidates
with the exponential mechanism (McSherry and Talwar 2007) at
``epsilon_search / steps``; by sequential composition the whole search spends
``epsilon_search``. The release uses the pivot of best score met on the way
(the top included), as the paper's algorithm and ARX's
``DataDependentEDDPAlgorithm`` do.

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
their sensitivity table).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...encoding import combine_codes
from ..lattice import Lattice
from ._kernels import node_loss, node_loss_dense

__all__ = ["exponential_mechanism", "em_probabilities", "SampleScores", "SearchResult",
           "search"]


def em_probabilities(scores, epsilon: float) -> np.ndarray:
    """The exponential mechanism's distribution: ``P(i) ~ exp(epsilon * score_i / 2)``.

    McSherry and Talwar 2007, for a score of sensitivity 1 (as Bild et al.
    2018 use it). Shifted by the largest exponent, so large scores
    neither overflow nor vanish.

    Examples
    --------
    >>> em_probabilities([0.0, 0.0], 1.0).tolist()
    [0.5, 0.5]
    """
    exponents = 0.5 * float(epsilon) * np.asarray(scores, dtype=np.float64)
    weights = np.exp(exponents - exponents.max())
    return weights / weights.sum()


def exponential_mechanism(scores, epsilon: float, rng: np.random.Generator) -> int:
    """Draw one index with the exponential mechanism (:func:`em_probabilities`)."""
    p = em_probabilities(scores, epsilon)
    return int(min(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right"),
                   len(p) - 1))


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
        self.costs = []     # costs[j][level]: their cell loss at that level
        self.radix = []
        for attr in data.attributes:
            h = attr.hierarchy
            leaves = h.n_leaves
            self.codes.append([attr.at_level(l)[reps] for l in range(attr.height + 1)])
            self.costs.append([((np.asarray(h.leaf_counts[l], dtype=np.float64) - 1)
                                / (leaves - 1) if leaves > 1
                                else np.zeros(len(h.leaf_counts[l])))[self.codes[-1][l]]
                               for l in range(attr.height + 1)])
            self.radix.append([attr.n_at_level(l) for l in range(attr.height + 1)])
        self.cache: dict[tuple, float] = {}
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
        costs = np.zeros((self.d, levels, u), dtype=np.float64)
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

    def loss(self, node) -> float:
        """Summed cell loss of the whole table: sampled records anonymized by ``node``."""
        if self.packed is not None:
            codes, costs, widths, bits, radices = self.packed
            levels = np.asarray(node, dtype=np.int64)
            space = 1
            for j, l in enumerate(node):
                space *= int(radices[j, l])
            if space <= 2 * len(self.weights):      # few possible classes: count directly
                released_loss, kept = node_loss_dense(codes, costs, radices, levels,
                                                      self.weights, self.k, space)
            else:
                released_loss, kept = node_loss(codes, costs, widths, levels, self.weights,
                                                self.k, bits)
            return float(released_loss) + (self.records - int(kept)) * self.d
        keep = self.released(node)
        cells = np.zeros(len(self.weights))
        for j, l in enumerate(node):
            cells += self.costs[j][l]
        kept = self.weights[keep]
        released_loss = float((kept * cells[keep]).sum())
        withheld = self.records - int(kept.sum())      # unsampled and suppressed records
        return released_loss + withheld * self.d

    def score(self, node) -> float:
        """The Loss score, sensitivity 1: ``-loss / (d max(k - 1, 1))``."""
        node = tuple(int(l) for l in node)
        if node not in self.cache:
            self.cache[node] = -self.loss(node) / (self.d * max(self.k - 1, 1))
        return self.cache[node]


@dataclass
class SearchResult:
    """The node released and the path that found it."""

    node: tuple
    score: float
    pivots: list = field(default_factory=list)
    steps_taken: int = 0
    nodes_scored: int = 0


def search(lattice: Lattice, scores: SampleScores, steps: int, epsilon_search: float,
           rng: np.random.Generator) -> SearchResult:
    """Bild et al. 2018, the SafePub search: ``steps`` draws of the exponential mechanism.

    Each draw spends ``epsilon_search / steps``. The search stops early when
    no candidate is left (the whole lattice has been a pivot).
    """
    per_step = float(epsilon_search) / steps if steps else 0.0
    pivot = lattice.top
    best, best_score = pivot, scores.score(pivot)
    candidates: dict[tuple, float] = {pivot: best_score}
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
        pivot = nodes[exponential_mechanism([candidates[n] for n in nodes], per_step, rng)]
        pivots.append(pivot)
        taken += 1
        if candidates[pivot] > best_score:
            best, best_score = pivot, candidates[pivot]
    return SearchResult(best, best_score, pivots, taken, len(scores.cache))

