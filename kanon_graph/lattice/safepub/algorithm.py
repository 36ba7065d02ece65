"""SafePub, registered as algorithm ``"safepub"``: (epsilon, delta)-differential privacy.

Bild, Kuhn and Prasser, "SafePub: A Truthful Data Anonymization Algorithm
With Strong Privacy Guarantees", PoPETs 2018 (1); building on
Li, Qardaji and Su, "On sampling, anonymization, and differential privacy
or, k-anonymization meets differential privacy", ASIACCS 2012.

1. every record is drawn into a sample with probability ``beta``, the
   largest float found at most ``1 - exp(-epsilon_anon)``, ``epsilon_anon``
   being ``epsilon - search_budget`` rounded down
   (:func:`~kanon_graph.lattice.safepub.dp_parameters`);
2. the exponential mechanism walks the generalization lattice from its top
   for ``steps`` steps, and draws once more the node released among the
   pivots met: the pick on 0.9 of ``search_budget``, each step of the walk on
   ``0.1 search_budget / steps``, both rounded down
   (:func:`~kanon_graph.lattice.safepub.search`);
3. the sample is generalized to that node, and every class of fewer than
   ``k`` sampled records is suppressed.

Every input row stays in ``result.table`` (the custodian's view, aligned with
the input): a record not sampled, or sampled and suppressed, is a withheld
row -- every released column ``*``, its insensitive and sensitive cells too
(``Partition.withheld``), so that a withheld row says nothing of its record.
``result.stats["dp"]`` counts both. The publication (``result.write``, the
command line's output) leaves withheld rows out by default (``withheld``).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from ...registry import Partition, register_algorithm
from ..lattice import Lattice
from ._parameters import DPParameters, dp_parameters
from ._random import as_randomness
from ._search import SampleScores, search

__all__ = ["safepub", "derive_k", "check_dp", "DEFAULTS"]

#: The defaults of the options (ARX's Example 37 spends 0.1 of epsilon on the search; 300
#: steps is the configuration ``benchmarks/bench_safepub.py`` gives both ARX and us).
DEFAULTS = {"epsilon": 1.0, "delta": 1e-5, "search_budget": 0.1, "steps": 300}


def _real(value, name, where):
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"The {name!r} parameter of {where} must be a finite real number. "
                         f"Got {value!r}.")
    return float(value)


def check_dp(epsilon=DEFAULTS["epsilon"], delta=DEFAULTS["delta"],
             search_budget=DEFAULTS["search_budget"], steps=DEFAULTS["steps"],
             where="anonymize") -> tuple[DPParameters, int]:
    """The options checked, and the sampling probability and k they imply."""
    epsilon = _real(epsilon, "epsilon", where)
    delta = _real(delta, "delta", where)
    search_budget = _real(search_budget, "search_budget", where)
    if epsilon <= 0:
        raise ValueError(f"The 'epsilon' parameter of {where} must be a real number > 0. "
                         f"Got {epsilon!r}.")
    if not 0 < delta < 1:
        raise ValueError(f"The 'delta' parameter of {where} must be a real number in (0, 1). "
                         f"Got {delta!r}.")
    if not 0 <= search_budget < epsilon:
        raise ValueError(f"The 'search_budget' parameter of {where} must be a real number in "
                         f"[0, epsilon={epsilon:g}) (the part of epsilon the search spends). "
                         f"Got {search_budget!r}.")
    if isinstance(steps, bool) or not isinstance(steps, Integral) or steps < 0:
        raise ValueError(f"The 'steps' parameter of {where} must be an integer >= 0. "
                         f"Got {steps!r}.")
    if steps > 0 and search_budget == 0:
        raise ValueError(f"The 'search_budget' parameter of {where} must be > 0 when steps > 0 "
                         f"(the search spends it); pass steps=0 to release the lattice's top "
                         f"without a search. Got search_budget=0 and steps={steps}.")
    return dp_parameters(epsilon, delta, search_budget), int(steps)


#: What the publication holds of a withheld row: nothing (``"drop"``, the default: the
#: guarantee as stated) or a row of ``*`` (``"star"``: every input row, the count n with it).
WITHHELD = ("drop", "star")


def check_withheld(withheld, where="anonymize") -> str:
    """The ``withheld`` option checked."""
    if not isinstance(withheld, str) or withheld not in WITHHELD:
        raise ValueError(f"The 'withheld' parameter of {where} must be one of {list(WITHHELD)} "
                         f"(leave withheld rows out of the publication, or write them as "
                         f"'*' rows). Got {withheld!r}.")
    return withheld


def derive_k(options: dict, where: str = "anonymize") -> int:
    """The k that ``options``' (epsilon, delta) imply (the registry's ``derives_k`` hook)."""
    check_withheld(options.get("withheld", "drop"), where)
    params, _ = check_dp(**{n: options[n] for n in DEFAULTS if n in options}, where=where)
    return params.k


def safepub(data, model, *, rng, suppression=None, epsilon=DEFAULTS["epsilon"],
            delta=DEFAULTS["delta"], search_budget=DEFAULTS["search_budget"],
            steps=DEFAULTS["steps"], withheld="drop"):
    """SafePub: sampling, a full-domain node chosen by the exponential mechanism, k-anonymity.

    Bild, Kuhn and Prasser 2018; the sampling probability and k from Li,
    Qardaji and Su 2012 (``dp_parameters``).

    Parameters
    ----------
    data : EncodedTable
        Every quasi-identifier has a hierarchy; one row per record.
    model : PrivacyModel
        ``model.k`` is the k that (epsilon, delta) imply (the facade derives
        it); l and t are refused.
    rng : None or numpy.random.Generator
        The source of the sampling and of the mechanism's draws. None (what
        ``kg.anonymize`` passes unless the caller gives a seed): the
        operating system's cryptographic source (``secrets``), kept and
        recorded nowhere. A seeded generator reproduces a release: for tests
        only. Every draw is exact either way (:mod:`._random`).
    suppression : None or 1.0
        SafePub suppresses every class below k and every unsampled record;
        a smaller limit would break the guarantee and is refused.
    epsilon, delta : float
        The guarantee: (epsilon, delta)-differential privacy.
    search_budget : float
        The part of epsilon the search spends (ARX's example: 0.1).
    steps : int
        The exponential mechanism's walk; 0 releases the lattice's top.
    withheld : {"drop", "star"}
        What the publication (``result.write``, the command line's output)
        holds of a withheld row: nothing (``"drop"``, default: only the
        released rows, whose guarantee is (epsilon, delta) for adding or
        removing one record), or a row of ``*`` (``"star"``: every input
        row, so the count of records is published too; see
        docs/algorithms/safepub.md for what that form guarantees).
        ``result.table`` holds every row either way.

    Returns
    -------
    Partition
        Levels of the node released; ``-1`` for every record not sampled
        or suppressed, with ``withheld=True``; ``stats["dp"]``.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.make_census(3000, seed=2)
    >>> res = kg.anonymize(table, kg.datasets.census_schema(), algorithm="safepub",
    ...                    epsilon=2.0, delta=1e-4, seed=7)
    >>> dp = res.stats["dp"]
    >>> dp["k"], round(dp["beta"], 3), dp["not_sampled"] + dp["suppressed"] == res.suppressed
    (73, 0.85, True)
    """
    params, steps = check_dp(epsilon, delta, search_budget, steps, where="safepub")
    withheld = check_withheld(withheld, "safepub")
    source = as_randomness(rng)     # None: the OS's cryptographic source, kept nowhere
    if model.k != params.k:
        raise ValueError(f"safepub releases k={params.k}, the k that epsilon={epsilon:g} and "
                         f"delta={delta:g} imply; the model asks k={model.k} (leave k unset)")
    if model.l is not None or model.t is not None:
        raise ValueError("safepub's guarantee is (epsilon, delta)-differential privacy; it "
                         "takes no l or t")
    if suppression is not None and suppression < 1:
        raise ValueError(f"The 'suppression' parameter of safepub must be None or 1 (it "
                         f"suppresses every class below k and every unsampled record; a limit "
                         f"would break the guarantee). Got {suppression!r}.")
    if getattr(data, "weights", None) is not None:
        raise ValueError("safepub samples records one by one: it needs a pandas table, one "
                         "row per record (not a Dask table's counted tuples)")
    sampled = source.bernoulli_each(Fraction(params.beta), data.n)    # exactly beta each
    scores = SampleScores(data, sampled, params.k)
    lattice = Lattice(data.heights, data.names)
    if data.n < params.k:           # no class can reach k: every row withheld, no search
        warnings.warn(f"safepub: the table has {data.n} records, fewer than k = {params.k} "
                      f"that epsilon={epsilon:g} and delta={delta:g} imply, so every row is "
                      f"withheld (nothing released); a larger epsilon or delta gives a "
                      f"smaller k", UserWarning, stacklevel=2)
        found = search(lattice, scores, 0, params.search_budget, source)
    else:
        found = search(lattice, scores, steps, params.search_budget, source)
    keep = np.zeros(data.n, dtype=bool)
    rows = np.flatnonzero(sampled)
    if len(rows):
        keys = data.group_keys(found.node)[rows]
        _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        keep[rows] = counts[inverse.reshape(-1)] >= params.k
    n_sampled = int(sampled.sum())
    dp = {"epsilon": params.epsilon, "delta": params.delta, "beta": params.beta,
          "k": params.k, "delta_k": params.delta_k, "search_budget": params.search_budget,
          "epsilon_anon": params.epsilon_anon, "steps": steps,
          "steps_taken": found.steps_taken, "nodes_scored": found.nodes_scored,
          "draws": found.draws, "epsilon_per_step": found.epsilon_per_step,
          "epsilon_pick": found.epsilon_pick,
          "sampled": n_sampled, "not_sampled": int(data.n - n_sampled),
          "suppressed": int(n_sampled - keep.sum()), "released": int(keep.sum()),
          "node": tuple(int(l) for l in found.node), "score": found.score,
          "withheld_rows": withheld}
    return Partition(np.where(keep, 0, -1).astype(np.int64), levels=found.node,
                     stats={"dp": dp}, withheld=True)


register_algorithm("safepub", safepub, recoding="global", models=("dp",), needs_hierarchies=True,
                   supports_suppression=True, default_suppression=1.0, derives_k=derive_k,
                   samples_records=True, secret_randomness=True,
                   description="SafePub: (epsilon, delta)-differential privacy by sampling, "
                               "a search by the exponential mechanism and k-anonymity "
                               "(Bild et al. 2018)")
