"""The public entry points: anonymize, apply_levels, evaluate, constraint_violations.

Validation happens here, once; algorithms receive clean encoded data.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ._arguments import check_options, check_seed
from ._auto import AUTO_LATTICE_LIMIT, AUTO_SUPPRESSION, measure, warn_if_collapsed
from ._dispatch import run_algorithm
from ._from_partition import (apply_levels_counted, build_result, check_cover,
                              check_release, levels_result, recode_release)
from ._progress import Reporter, reporter
from ._tuples import for_algorithm
from .encoding import encode
from .exceptions import PrivacyError, SchemaError
from .privacy.constraints import Violation, constraint_violations
from .privacy.parameters import check_fraction as _check_fraction
from .privacy.parameters import check_int as _check_int
from .privacy.parameters import privacy_model as _model
from .privacy.reachability import check_reachable as _check_reachable
from .registry import Partition, get_algorithm
from .registry import algorithms as algorithm_names
from .result import AnonymizationResult

if TYPE_CHECKING:
    from .metrics.evaluate import Evaluation
    from .schema import Schema

Progress = Callable[[int, int, str], object]
ProgressArg = Union[None, bool, Progress, Reporter]

__all__ = ["anonymize", "apply_levels", "evaluate", "constraint_violations", "Violation",
           "AUTO_LATTICE_LIMIT"]


def is_dask_frame(table: Any) -> bool:
    """A Dask DataFrame? (Dask, and the module that runs on it, load only for one.)"""
    if type(table).__module__.split(".")[0] not in ("dask", "dask_expr"):
        return False
    from .scale.dask_input import is_dask_frame as dask_frame

    return bool(dask_frame(table))


def _on_dask(*args: Any, **kwargs: Any) -> AnonymizationResult:
    from .scale.dask_input import run_on_dask

    return cast(AnonymizationResult, run_on_dask(*args, **kwargs))


def anonymize(table: pd.DataFrame | Any, schema: Schema, k: int, *, algorithm: str = "auto",
              l: float | None = None, diversity: str = "distinct", c: float = 1.0,
              t: float | None = None, sensitive: str | None = None,
              suppression: float | None = None, respect_boundaries: bool | None = None,
              missing: str = "error", metrics: Sequence[str] | None = None,
              seed: int | None = 0, shard_size: int | None = None, scheduler: Any = None,
              progress: ProgressArg = None, **options: Any) -> AnonymizationResult:
    """Anonymize ``table`` so that it is k-anonymous (and l-diverse / t-close when asked).

    The release is verified before it is returned: its equivalence classes
    are recomputed from the released values themselves, and a
    :class:`~kanon_graph.exceptions.PrivacyError` is raised if any
    requested criterion fails, if a record is lost, or if a released value
    does not cover the original one.

    Parameters
    ----------
    table : DataFrame or dask.dataframe.DataFrame
        A Dask DataFrame (optional extra ``kanon_graph[dask]``) is counted
        partition by partition and never collected; it takes the global
        algorithms, and ``result.table`` is then a lazy Dask DataFrame of
        the release (``classes``, ``suppressed_rows`` and ``suppressed_mask``
        are None). See :mod:`kanon_graph.scale.dask_input`.
    schema : Schema
    k : int
        Every released equivalence class holds at least ``k`` records.
    algorithm : str, default "auto"
        A registered algorithm (:func:`kanon_graph.algorithms` lists them),
        or ``"auto"``: every candidate that fits the data (``optimal`` with
        a 2% suppression budget when every quasi-identifier has a
        hierarchy, ``mondrian``, ``sd``, ``mst``) runs on the table, or on a
        seeded sample of 20,000 records, and the one with the lowest ARX Loss
        runs (see :mod:`kanon_graph._auto`). ``result.algorithm`` names it;
        ``result.stats["auto"]`` lists what was tried, with the measured
        loss and seconds of each. A warning says so when most
        quasi-identifiers of the chosen release are (almost) all ``*``.
    l : float, optional
        Required l-diversity of the sensitive attribute.
    diversity : {"distinct", "entropy", "recursive"}
    c : float
        The constant of recursive (c, l)-diversity.
    t : float, optional
        Required t-closeness (largest EMD) of the sensitive attribute.
    sensitive : str, optional
        The sensitive attribute for l and t (default: the schema's first).
    suppression : float, optional
        Fraction of records that may be suppressed (``None``: the
        algorithm's default). Suppressed records stay in the released table
        with ``*`` quasi-identifiers and are counted in ``result.suppressed``.
    respect_boundaries : bool, optional
        Never generalize a value beyond its MAGVal (constrained k-anonymity,
        Hussien et al. 2016, Definition 6). Only algorithms that declare
        ``supports_boundaries`` accept it; ``None`` keeps the algorithm's
        default. A release made within boundaries is checked to have no
        constraint violation.
    missing : {"error", "drop", "keep"}
        Rows with missing values: raise, drop and count them, or keep them:
        a missing cell is then a value of its own (released as
        ``(missing)``, or ``[20-29] or (missing)`` in a class that mixes it
        with numbers), generalized like any other and counted in
        ``result.stats["missing_kept"]`` (ARX's behaviour). A missing
        sensitive cell counts toward k, never toward l or t (see
        docs/privacy.md). On a Dask table too.
    metrics : list of str, optional
        Metrics to compute (default: every registered metric).
    seed : int or None, default 0
        Seed of the random generator of algorithms that use randomness
        (k-member's first record). The default makes every release
        reproducible: the same input and parameters give the same release.
        ``None`` asks for randomness: a fresh seed is drawn from the
        operating system's entropy. Either way the seed used is recorded in
        ``result.stats["seed"]``, so passing it back reproduces the release.
    shard_size : int, optional
        A local recoding algorithm on more records than this (default
        50,000) runs inside shards of at most this many records, cut at
        medians of the quasi-identifiers; classes never cross shards and
        the release is verified as a whole (:mod:`kanon_graph.scale.sharding`).
    scheduler : None, str or distributed.Client
        Where distributed work runs: a Dask table's partitions, the shards
        above as Dask tasks, and ``rv-distributed``'s subsets. ``None``:
        shards in this process, and a Dask table on the current Client (or
        ``dask.config``'s), else on threads in this process; ``"local"``
        starts a LocalCluster of worker processes; an address
        (``"tcp://host:8786"``) or a Client uses that cluster (optional
        extra ``pip install "kanon_graph[dask]"``).
    progress : None, bool or callable
        Report progress: ``True`` draws a tqdm bar on stderr, a callable is
        called as ``progress(done, total, text)`` with ``done`` rising to
        ``total``. What a step is: a shard of a sharded run, a partition of
        a Dask table, else the algorithm's own steps (phases of ``mst``,
        ``sd`` and ``k-member``, rounds of ``bottom-up``, lattice levels of
        ``optimal`` and ``incognito``). Other algorithms ignore it
        (``kg.registry.get_algorithm(name).reports_progress()`` tells). Off
        (``None``, the default) it costs nothing.
    **options
        Passed to the algorithm.

    Returns
    -------
    AnonymizationResult

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.make_census(500, seed=1)
    >>> res = kg.anonymize(table, kg.datasets.census_schema(), k=5)
    >>> res.verification.k_achieved >= 5
    True
    """
    with reporter(progress, "anonymize") as report:
        if is_dask_frame(table):
            auto = algorithm == "auto"    # a Dask table takes global algorithms: optimal
            if auto and suppression is None:
                suppression = AUTO_SUPPRESSION
            res = _on_dask(_anonymize_counted, table, schema, "anonymize", scheduler, report, k,
                           algorithm="optimal" if auto else algorithm, l=l, diversity=diversity,
                           c=c, t=t, sensitive=sensitive, suppression=suppression,
                           respect_boundaries=respect_boundaries, missing=missing,
                           metrics=metrics, seed=seed, shard_size=shard_size, **options)
            if auto:
                res.stats["auto"] = {"chose": "optimal", "tried": [], "reason": (
                    f"a Dask table takes the global algorithms only; optimal with "
                    f"suppression {suppression:g}")}
            return res
        return _anonymize(table, schema, k, algorithm=algorithm, l=l, diversity=diversity, c=c,
                          t=t, sensitive=sensitive, suppression=suppression,
                          respect_boundaries=respect_boundaries, missing=missing,
                          metrics=metrics, seed=seed, shard_size=shard_size,
                          scheduler=scheduler, progress=report, options=options)


def _anonymize_counted(table: pd.DataFrame, schema: Schema, k: int, *, weights: Any,
                       algorithm: str, l: float | None, diversity: str, c: float,
                       t: float | None, sensitive: str | None, suppression: float | None,
                       respect_boundaries: bool | None, missing: str,
                       metrics: Sequence[str] | None, seed: int | None,
                       shard_size: int | None, **options: Any) -> AnonymizationResult:
    """:func:`anonymize` on a Dask table's distinct tuples, ``weights`` records each."""
    return _anonymize(table, schema, k, algorithm=algorithm, l=l, diversity=diversity, c=c,
                      t=t, sensitive=sensitive, suppression=suppression,
                      respect_boundaries=respect_boundaries, missing=missing,
                      metrics=metrics, seed=seed, shard_size=shard_size, scheduler=None,
                      progress=reporter(None, "anonymize"), options=options, weights=weights)


def _anonymize(table: pd.DataFrame, schema: Schema, k: int, *, algorithm: str,
               l: float | None, diversity: str, c: float, t: float | None,
               sensitive: str | None, suppression: float | None,
               respect_boundaries: bool | None, missing: str,
               metrics: Sequence[str] | None, seed: int | None, shard_size: int | None,
               scheduler: Any, progress: Reporter, options: dict[str, Any],
               weights: Any = None) -> AnonymizationResult:
    """:func:`anonymize` on a pandas table, ``progress`` already a reporter.

    ``weights``: records per row, when the rows are a Dask table's counted
    tuples (:mod:`kanon_graph.scale.dask_input`); the release is then one
    of the tuples.
    """
    started = time.perf_counter()
    auto = algorithm == "auto"
    if not auto:
        info = get_algorithm(algorithm)
        check_options(info, options)
    suppression = _check_fraction(suppression, "suppression", "anonymize")
    if shard_size is not None:
        shard_size = _check_int(shard_size, "shard_size", "anonymize", 1, 2**62)
    data = encode(table, schema, missing=missing, where="anonymize", weights=weights)
    model = _model(k, l, diversity, c, t, sensitive, data.records, "anonymize").bind(data)
    seed = check_seed(seed)
    choice = None
    if auto:                    # try the candidates that fit, keep the lowest loss (_auto.py)
        choice = measure(data, model, seed=seed, suppression=suppression,
                         respect_boundaries=respect_boundaries, options=options,
                         shard_size=shard_size, scheduler=scheduler)
        algorithm, suppression = choice.algorithm, choice.suppression
        info = get_algorithm(algorithm)
        options = {n: v for n, v in options.items() if n in info.options()
                   or info.accepts_any_option()}
    trial = choice.partition if choice is not None else None    # a trial on the whole table
    # a global algorithm that counts by weight runs on the distinct tuples
    work, back = for_algorithm(data, info.weighted and trial is None, algorithm,
                               sensitive=model.needs_sensitive)
    _check_reachable(model, work, suppression, info, bool(respect_boundaries))
    if info.needs_hierarchies:
        lacking = [a.name for a in data.attributes if a.hierarchy is None]
        if lacking:
            raise SchemaError(f"algorithm {algorithm!r} needs a hierarchy for every "
                              f"quasi-identifier; none is given for {lacking}: draft them with "
                              f"kg.hierarchy.suggest(table, schema), or on the command line "
                              f"'kanon-graph hierarchy suggest DATA.csv --qi ... -o DIR'")
    if respect_boundaries is not None:
        if not info.supports_boundaries:
            if respect_boundaries:
                able = [n for n in algorithm_names() if get_algorithm(n).supports_boundaries]
                raise ValueError(f"algorithm {algorithm!r} cannot respect generalization "
                                 f"boundaries; algorithms that can: {able}")
        else:
            options["respect_boundaries"] = bool(respect_boundaries)
    rng = np.random.default_rng(seed)
    if trial is not None:
        partition = trial
    else:
        partition = run_algorithm(info, work, model, rng=rng, suppression=suppression,
                                  options=options, shard_size=shard_size, scheduler=scheduler,
                                  progress=progress)
    if not isinstance(partition, Partition):
        raise PrivacyError(f"algorithm {algorithm!r} returned {type(partition).__name__}, "
                           f"not a kg.Partition")
    release = recode_release(work, partition, algorithm)
    check_cover(release)
    verification = model.verify(release.class_of, work)
    release = back(release)
    table_out = release.table()
    # k, l and t counted again on the cells of the very table the user receives
    check_release(model, release, table_out, verification, algorithm)
    if suppression is not None and release.suppressed > np.floor(suppression * data.records):
        raise PrivacyError(f"algorithm {algorithm!r} suppressed {release.suppressed} records, "
                           f"more than the allowed {suppression:.2%} of {data.records}")
    stats = dict(partition.stats, seed=seed)
    if data.missing_kept:
        stats["missing_kept"] = dict(data.missing_kept)
    if choice is not None:
        stats["auto"] = dict(choice.stats)
        warn_if_collapsed(release, stats["auto"], model.k)
    result = build_result(data, release, verification, algorithm=algorithm, k=model.k,
                     metrics=metrics, stats=stats, table=table_out)
    if respect_boundaries or partition.capped:
        broken = constraint_violations(result)
        if broken:
            raise PrivacyError(f"algorithm {algorithm!r} generalized {len(broken)} value(s) "
                               f"beyond their MAGVal, e.g. {broken[0]}; it is not returned")
    stats["seconds"] = time.perf_counter() - started
    return result




def apply_levels(table: pd.DataFrame | Any, schema: Schema,
                 levels: Sequence[int] | Mapping[str, int], *, k: int = 1,
                 suppress: npt.ArrayLike | None = None, respect_boundaries: bool = False,
                 missing: str = "error", metrics: Sequence[str] | None = None,
                 scheduler: Any = None) -> AnonymizationResult:
    """Full-domain generalization of ``table`` to ``levels``.

    The result has the same type as :func:`anonymize`'s but is not required
    to be k-anonymous: ``result.verification`` says what it achieves for
    ``k`` (which also sets the threshold of the discernibility and CAVG
    metrics).

    Parameters
    ----------
    table : DataFrame or dask.dataframe.DataFrame
        A Dask DataFrame is handled as in :func:`anonymize`.
    schema : Schema
    levels : sequence of int or dict
        One level per quasi-identifier, in schema order or by name.
    k : int
    suppress : array of bool, optional
        Records to suppress.
    respect_boundaries : bool
        Stop every value at its MAGVal when that lies below the requested
        level (Hussien et al. 2016): the release then has no constraint
        violation.
    scheduler : None, str or distributed.Client
        For a Dask DataFrame ``table``: the cluster that counts its
        partitions (see :func:`anonymize`).

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table = kg.datasets.paper_003_table()
    >>> rel = kg.apply_levels(table, kg.datasets.paper_003_schema(), [0, 3, 2], k=3)
    >>> rel.table["age"].unique().tolist(), len(rel.classes)
    (['[20-40]'], 2)
    """
    if is_dask_frame(table):
        if suppress is not None:
            raise ValueError("The 'suppress' parameter of apply_levels needs a pandas table "
                             "(one flag per row); a Dask DataFrame's rows are not collected")
        return _on_dask(apply_levels_counted, table, schema, "apply_levels", scheduler, None, levels,
                        k=k, respect_boundaries=respect_boundaries, missing=missing,
                        metrics=metrics)
    return levels_result(table, schema, levels, k=k, suppress=suppress,
                         respect_boundaries=respect_boundaries, missing=missing,
                         metrics=metrics)


def evaluate(original: pd.DataFrame | Any, released: pd.DataFrame | Any, schema: Schema,
             k: int = 1, *, l: float | None = None, diversity: str = "distinct",
             c: float = 1.0, t: float | None = None, sensitive: str | None = None,
             metrics: Sequence[str] | None = None, suppressed: npt.ArrayLike | None = None,
             target: str | None = None, missing: str = "error") -> Evaluation:
    """Privacy and information loss of ``released``, a release of ``original``.

    Two pandas DataFrames are measured by :func:`kanon_graph.metrics.evaluate`;
    two Dask DataFrames are counted partition by partition, without collecting
    their records, and then measured the same way
    (:func:`kanon_graph.scale.dask_evaluate.evaluate_dask`).

    Parameters
    ----------
    original, released : DataFrame or dask.dataframe.DataFrame
        The table before anonymization and its release, row-aligned (Dask:
        partition by partition, and ``missing`` must be ``"error"``).
    schema, k, l, diversity, c, t, sensitive, metrics, suppressed, target, missing
        As for :func:`kanon_graph.metrics.evaluate`.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> import kanon_graph as kg
    >>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    >>> res = kg.anonymize(table, schema, k=3, algorithm="mst")
    >>> ev = kg.evaluate(table, res.table, schema, k=3)
    >>> ev.metrics == res.metrics, ev.verification.k_achieved >= 3
    (True, True)
    """
    if is_dask_frame(original) or is_dask_frame(released):     # counted on Dask, then pandas
        if missing != "error":
            raise ValueError("The 'missing' parameter of evaluate must be 'error' on Dask "
                             "DataFrames (rows are aligned partition by partition). Got "
                             f"{missing!r}.")
        from .scale.dask_evaluate import evaluate_dask

        return cast("Evaluation", evaluate_dask(
            original, released, schema, k, l=l, diversity=diversity, c=c, t=t,
            sensitive=sensitive, metrics=metrics, suppressed=suppressed, target=target))
    from .metrics.evaluate import evaluate as evaluate_pandas

    return evaluate_pandas(original, released, schema, k, l=l, diversity=diversity, c=c, t=t,
                           sensitive=sensitive, metrics=metrics, suppressed=suppressed,
                           target=target, missing=missing)
