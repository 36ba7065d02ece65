"""Checks of the facade's own arguments (the privacy parameters are checked by
:mod:`kanon_graph.privacy.parameters`): the level vector of
:func:`kanon_graph.apply_levels`, and the seed and algorithm options of
:func:`kanon_graph.anonymize`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..exceptions import SchemaError
from ..privacy.parameters import check_int as _check_int
from ..registry import MODELS, algorithms, asked_models, get_algorithm

if TYPE_CHECKING:
    from ..encoding import EncodedTable
    from ..registry import AlgorithmInfo

__all__ = ["level_vector", "check_seed", "check_options", "check_models", "check_algorithm",
           "DEFAULT_SEED"]


class _DefaultSeed:
    """The seed ``anonymize`` uses when none is passed: 0, or none for a DP algorithm."""

    def __repr__(self) -> str:
        return "0"

    def __reduce__(self) -> str:
        return "DEFAULT_SEED"


#: ``anonymize``'s default seed: 0 (a reproducible release), except for an algorithm that
#: declares ``secret_randomness`` (``safepub``), which draws from the operating system's
#: cryptographic source and records nothing (``pipeline.run._k_and_seed``).
DEFAULT_SEED: Any = _DefaultSeed()


def level_vector(levels: Sequence[int] | Mapping[str, int], data: EncodedTable,
                 where: str) -> tuple[int, ...]:
    """One checked level per quasi-identifier, in schema order (``levels`` by position or name)."""
    names = data.names
    if isinstance(levels, Mapping):
        unknown = sorted(set(levels) - set(names))
        if unknown:
            raise SchemaError(f"{where}: levels given for {unknown}, which are not "
                              f"quasi-identifiers {names}")
        missing = [a for a in names if a not in levels]
        if missing:
            raise SchemaError(f"{where}: no level given for quasi-identifier(s) {missing}")
        levels = [levels[a] for a in names]
    levels = list(levels)
    if len(levels) != len(names):
        raise ValueError(f"The 'levels' parameter of {where} must give one level per "
                         f"quasi-identifier ({len(names)}: {names}). Got {len(levels)}.")
    return tuple(_check_int(l, f"levels[{a.name!r}]", where, 0, a.height)
                 for l, a in zip(levels, data.attributes))


def check_seed(seed: int | None) -> int:
    """``seed`` as a non-negative int; ``None`` draws one from the OS's entropy."""
    if seed is None:            # randomness asked for: draw a seed, and record it
        seed = int(cast(int, np.random.SeedSequence().entropy))  # a fresh draw is an int
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"The 'seed' parameter of anonymize must be a non-negative integer "
                         f"or None. Got {seed!r}.")
    return int(seed)


def check_options(info: AlgorithmInfo, options: dict[str, Any]) -> None:
    """Refuse an option the algorithm does not take, naming the ones it does."""
    if not options or info.accepts_any_option():
        return
    known = info.options()
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"Unknown option(s) {unknown} for algorithm {info.name!r}; "
                         f"it accepts {known or 'no options'}.")


def check_models(info: AlgorithmInfo, *, l: Any = None, diversity: str = "distinct",
                 t: Any = None) -> None:
    """Refuse a privacy model the algorithm does not declare it takes, naming those that do.

    An algorithm registered without ``models`` (a plug-in that did not
    declare them) takes every model here and refuses itself what it cannot meet.
    """
    asked = [m for m in asked_models(l=l, diversity=diversity, t=t,
                                     derives_k=info.derives_k is not None) if m in MODELS]
    if info.takes(asked):
        return
    assert info.models is not None
    lacking = [m for m in asked if m not in info.models]
    able = [n for n in algorithms() if get_algorithm(n).models is not None
            and get_algorithm(n).takes(lacking)]
    takes = ", ".join(MODELS[m] for m in MODELS if m in info.models)
    raise ValueError(f"algorithm {info.name!r} does not take "
                     f"{' with '.join(MODELS[m] for m in lacking)} (it takes {takes}); "
                     f"algorithms that do: {able}")


def check_algorithm(info: AlgorithmInfo, options: Any, *, on_dask: bool = False) -> None:
    """What the named algorithm is asked, checked before anything runs: its options, its
    privacy models (:func:`check_models`), and a Dask table for one that samples records."""
    check_options(info, dict(options.extra))
    check_models(info, l=options.l, diversity=options.diversity, t=options.t)
    if on_dask and info.samples_records:
        raise ValueError(f"algorithm {info.name!r} draws records one by one at random: it "
                         f"needs a pandas table (one row per record), not a Dask DataFrame; "
                         f"compute() it first if it fits in memory")
