"""The open registry of anonymization algorithms.

An algorithm is a plain function::

    def my_algorithm(data, model, *, rng, suppression=None, **options) -> Partition

``data`` is an :class:`~kanon_graph.encoding.EncodedTable`, ``model`` a
:class:`~kanon_graph.privacy.PrivacyModel` (``model.k``, and
``model.failing(class_of, data)`` for l / t), ``rng`` a seeded
``numpy.random.Generator`` and ``suppression`` the fraction of records the
user allows to be suppressed (``None``: the algorithm's own default). It
returns a :class:`Partition`; :func:`kanon_graph.anonymize` recodes it,
verifies it and measures it. Register it with :func:`register_algorithm`
from any module, and ``kg.anonymize(..., algorithm="name")`` finds it.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ._plugins import Registry

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Partition", "AlgorithmInfo", "register_algorithm", "get_algorithm", "algorithms",
           "MODELS", "K_L_T", "asked_models"]

RECODINGS = ("global", "local", "microaggregation")

#: The privacy models an algorithm may declare it takes (``register_algorithm(...,
#: models=...)``): the caller's k-anonymity, l-diversity of each kind, t-closeness, and
#: differential privacy with a k the algorithm derives itself (``safepub``).
MODELS = {"k": "k-anonymity", "distinct-l": "distinct l-diversity",
          "entropy-l": "entropy l-diversity", "recursive-l": "recursive (c, l)-diversity",
          "t": "t-closeness", "dp": "(epsilon, delta)-differential privacy"}

#: What an algorithm that enforces k, l of every kind and t declares.
K_L_T = ("k", "distinct-l", "entropy-l", "recursive-l", "t")


def asked_models(*, l: Any = None, diversity: str = "distinct", t: Any = None,
                 derives_k: bool = False) -> tuple[str, ...]:
    """The kinds of :data:`MODELS` a request asks for.

    Examples
    --------
    >>> asked_models(l=2, diversity="entropy")
    ('k', 'entropy-l')
    """
    kinds = ["dp" if derives_k else "k"]
    if l is not None:
        kinds.append(f"{diversity}-l")
    if t is not None:
        kinds.append("t")
    return tuple(kinds)


@dataclass(frozen=True)
class Partition:
    """What an algorithm returns.

    Attributes
    ----------
    class_of : ndarray of int, shape (n,)
        A class label per record; ``-1`` suppresses the record.
    levels : tuple of int, optional
        For a global (full-domain) recoding: the level of every
        quasi-identifier. Classes then follow from the levels, and
        ``class_of`` only marks suppressed records.
    stats : dict
        Anything the algorithm wants to report (merged into ``result.stats``).
    capped : bool
        With ``levels``: every value stops at its MAGVal when that lies below
        its attribute's level (generalization boundaries).
    aggregate : dict of str to str, optional
        For a microaggregation (``recoding="microaggregation"``): how each
        quasi-identifier's class is released, ``"mean"`` or ``"median"``
        (numeric), ``"median"`` (ordinal: the lower median in domain order)
        or ``"mode"`` (nominal); see
        :func:`kanon_graph.recoding.recode_aggregate`. ``None``: the classes
        are generalized.
    withheld : bool
        A suppressed record releases ``*`` in every column, its insensitive
        and sensitive cells too, not only in its quasi-identifiers
        (``safepub``: a record not sampled must say nothing of itself).
    """

    class_of: np.ndarray
    levels: tuple | None = None
    stats: dict = field(default_factory=dict)
    capped: bool = False
    aggregate: dict | None = None
    withheld: bool = False


@dataclass(frozen=True)
class AlgorithmInfo:
    """A registered algorithm and what it declares about itself."""

    name: str
    function: Callable
    recoding: str
    needs_hierarchies: bool
    supports_suppression: bool
    description: str
    supports_boundaries: bool = False
    default_suppression: float | str | None = None
    weighted: bool = False
    derives_k: Callable[..., int] | None = None
    samples_records: bool = False
    secret_randomness: bool = False
    shards: bool = True
    models: frozenset[str] | None = None

    def takes(self, kinds: Any) -> bool:
        """Does it take every one of ``kinds`` (:data:`MODELS`)? Undeclared: yes, all."""
        return self.models is None or set(kinds) <= self.models

    def default_budget(self, k: int, n: int) -> int:
        """Records the algorithm may suppress when the user gives no ``suppression``."""
        if not self.supports_suppression or self.default_suppression is None:
            return 0
        if self.default_suppression == "k":
            return min(int(k), int(n))
        return int(math.floor(float(self.default_suppression) * n + 1e-9))

    def options(self) -> list[str]:
        """Names of the keyword options the function accepts beyond the protocol."""
        # past (data, model): keyword-only options, or plain ones when the author left out '*'
        params = list(inspect.signature(self.function).parameters.values())[2:]
        return [p.name for p in params
                if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.name not in ("rng", "suppression", "respect_boundaries", "progress")]

    def reports_progress(self) -> bool:
        """Does the function report progress (a ``progress`` keyword of its own)?

        ``anonymize(..., progress=...)`` hands its reporter to such a
        function and runs the others without it.
        """
        return "progress" in inspect.signature(self.function).parameters

    def accepts_any_option(self) -> bool:
        return any(p.kind == p.VAR_KEYWORD
                   for p in inspect.signature(self.function).parameters.values())


#: The built-in algorithms and the module that registers each. They register on first
#: use (:func:`get_algorithm`, :func:`algorithms`, or a registration under the same
#: name), so ``import kanon_graph`` loads none of them. The record-graph algorithms also
#: load :mod:`kanon_graph.clustering`, which registers the ``"sd"`` record distance.
BUILTIN_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "bottom-up": ("kanon_graph.baselines.bottom_up",),
    "boundaries": ("kanon_graph.constrained.boundaries",),
    "datafly": ("kanon_graph.baselines.datafly",),
    "flat": ("kanon_graph.flat",),
    "incognito": ("kanon_graph.baselines.incognito",),
    "k-member": ("kanon_graph.baselines.kmember",),
    "mondrian": ("kanon_graph.baselines.mondrian",),
    "mdav": ("kanon_graph.clustering.microaggregation",),
    "mst": ("kanon_graph.records", "kanon_graph.clustering"),
    "optimal": ("kanon_graph.lattice.optimal",),
    "rv-distributed": ("kanon_graph.lattice.rv.search_distributed",),
    "rv-global": ("kanon_graph.lattice.rv.search_global",),
    "rv-hybrid": ("kanon_graph.lattice.rv.search_hybrid",),
    "rv-local": ("kanon_graph.lattice.rv.search_local",),
    "safepub": ("kanon_graph.lattice.safepub",),
    "sd": ("kanon_graph.records", "kanon_graph.clustering"),
    "sensitive-clustering": ("kanon_graph.records", "kanon_graph.clustering"),
    "stepwise": ("kanon_graph.stepwise",),
    "systematic": ("kanon_graph.baselines.systematic",),
}


_REGISTRY = Registry("algorithm", builtins=BUILTIN_ALGORITHMS)
_ALGORITHMS: dict[str, AlgorithmInfo] = _REGISTRY.entries


def register_algorithm(name: str, function: Callable[..., Partition] | None = None, *,
                       recoding: str, needs_hierarchies: bool = False,
                       supports_suppression: bool = False, supports_boundaries: bool = False,
                       default_suppression: Any = None, description: str | None = None,
                       weighted: bool = False, derives_k: Callable[..., int] | None = None,
                       samples_records: bool = False, secret_randomness: bool = False,
                       shards: bool = True, models: Any = None,
                       replace: bool = False) -> Any:
    """Register ``function`` as algorithm ``name`` (usable as a decorator).

    Parameters
    ----------
    name : str
    function : callable
        ``function(data, model, *, rng, suppression=None, **options) -> Partition``.
    recoding : {"global", "local", "microaggregation"}
        Whether it releases one level per attribute, per-class generalized
        values, or per-class aggregates (means, medians, modes: its
        :class:`Partition` names them in ``aggregate``).
    needs_hierarchies : bool
        Whether every quasi-identifier must have a hierarchy.
    supports_suppression : bool
        Whether it may suppress records.
    supports_boundaries : bool
        Whether it takes a ``respect_boundaries`` keyword and then never
        generalizes a value beyond its MAGVal (Hussien et al. 2016,
        Definition 6).
    default_suppression : {None, "k"} or float
        What it suppresses when the user passes no ``suppression``: nothing
        (``None``), up to ``k`` records (``"k"``, Sweeney's Datafly), or a
        fraction of the records.
    weighted : bool
        Whether it counts records by ``data.weights`` (records per row) when
        that is set: it then runs on a table's distinct tuples instead of
        its rows (:mod:`kanon_graph.pipeline.tuples`), and a Dask table's counted
        tuples reach it without being repeated into rows. A global recoding
        can declare it, and so can a local recoding whose release may be a
        function of the (quasi-identifier[, sensitive]) tuple: run on the
        tuples it releases every copy of a tuple alike (``stepwise``, whose
        steps, cuts and moves take whole tuples). A microaggregation cannot
        (its aggregates are per record).
    derives_k : callable, optional
        ``derives_k(options, where) -> int``: the algorithm sets k itself from
        its own options (``safepub``: the k that epsilon and delta imply);
        ``anonymize`` then refuses a ``k`` of the user's and verifies the
        release for the derived one.
    samples_records : bool
        It draws records one by one (``safepub``): it runs on a pandas
        table's rows only, not a Dask table's counted tuples.
    secret_randomness : bool
        Its guarantee rests on its randomness staying secret (``safepub``'s
        differential privacy). Unless the caller passes a seed of their own
        (an integer), the function is called with ``rng=None`` and must draw
        from the operating system's cryptographic source (``secrets``), and
        no seed is recorded anywhere (``result.stats["seed"]`` is None), for
        ``seed=None`` as for no seed at all.
    shards : bool
        Whether a local recoding may run inside shards of a large table
        (:mod:`kanon_graph.scale.sharding`); ``False``: it always runs on
        the whole table (``stepwise``, whose steps count distinct tuples).
    models : iterable of str, optional
        The privacy models it takes, among :data:`MODELS`: ``"k"``,
        ``"distinct-l"``, ``"entropy-l"``, ``"recursive-l"``, ``"t"``,
        ``"dp"`` (:data:`K_L_T` for all but ``"dp"``). ``anonymize`` refuses
        any other before anything runs, naming the algorithms that take it.
        ``None`` (the default, undeclared): every model reaches the function,
        which must refuse itself what it cannot meet.
    replace : bool
        Allow replacing an existing registration.

    Examples
    --------
    >>> import numpy as np, kanon_graph as kg
    >>> @kg.register_algorithm("one-class", recoding="local")
    ... def one_class(data, model, *, rng, suppression=None):
    ...     "Put every record in a single class."
    ...     return kg.Partition(np.zeros(data.n, dtype=int))
    >>> "one-class" in kg.algorithms()
    True
    >>> kg.registry.unregister_algorithm("one-class")
    """
    if recoding not in RECODINGS:
        raise ValueError(f"The 'recoding' parameter of register_algorithm must be one of "
                         f"{list(RECODINGS)}. Got {recoding!r}.")
    declared = None if models is None else frozenset(
        (models,) if isinstance(models, str) else models)
    if declared is not None and (not declared or declared - set(MODELS)):
        raise ValueError(f"The 'models' parameter of register_algorithm must name one or more "
                         f"of {list(MODELS)}. Got {sorted(declared)!r}.")
    if weighted and recoding == "microaggregation":
        raise ValueError("The 'weighted' parameter of register_algorithm needs "
                         "recoding='global' or 'local' (a local recoding that releases "
                         "every copy of a tuple alike): a microaggregation releases "
                         "per-record aggregates")

    def decorate(fn: Callable[..., Partition]) -> Callable[..., Partition]:
        doc = description or (fn.__doc__ or name).strip().splitlines()[0]
        # a plug-in taking a built-in's name meets the built-in first
        info = AlgorithmInfo(name=name, function=fn, recoding=recoding,
                             needs_hierarchies=needs_hierarchies,
                             supports_suppression=supports_suppression, description=doc,
                             supports_boundaries=supports_boundaries,
                             default_suppression=default_suppression, weighted=bool(weighted),
                             derives_k=derives_k, samples_records=bool(samples_records),
                             secret_randomness=bool(secret_randomness), shards=bool(shards),
                             models=declared)
        _REGISTRY.add(name, info,
                      replace=replace,
                      builtin_first=not str(fn.__module__).startswith("kanon_graph."))
        return fn

    return decorate if function is None else decorate(function)


def unregister_algorithm(name: str) -> None:
    """Remove a registered algorithm."""
    _REGISTRY.remove(name)


def get_algorithm(name: str) -> AlgorithmInfo:
    """The :class:`AlgorithmInfo` registered as ``name``; unknown names list the known ones."""
    info: AlgorithmInfo = _REGISTRY.get(name)
    return info


def algorithms() -> list[str]:
    """Names of the registered algorithms, sorted."""
    return _REGISTRY.names()
