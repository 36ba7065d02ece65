"""The public entry points: anonymize, apply_levels, evaluate, constraint_violations.

:func:`anonymize` gathers its options once (:class:`kanon_graph.pipeline.run.Options`)
and runs the named steps of :mod:`kanon_graph.pipeline.run`: check the input,
encode, choose (``auto``, :mod:`kanon_graph.auto.choice`), run (on tuples or rows),
release, verify from the cells, return. Validation happens there, once;
algorithms receive clean encoded data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Union

import numpy.typing as npt
import pandas as pd

from .pipeline.arguments import DEFAULT_SEED, check_algorithm
from .auto.choice import AUTO_LATTICE_LIMIT, choose
from .auto.counted import choose_counted
from .pipeline.from_partition import apply_levels_counted, levels_result
from .pipeline.run import Options, run_pipeline
from ._progress import Reporter, reporter
from .pipeline.evaluate import _on_dask, evaluate, is_dask_frame
from .privacy.constraints import Violation, constraint_violations
from .registry import get_algorithm
from .result import AnonymizationResult

if TYPE_CHECKING:
    from .schema import Schema

Progress = Callable[[int, int, str], object]
ProgressArg = Union[None, bool, Progress, Reporter]

__all__ = ["anonymize", "apply_levels", "evaluate", "constraint_violations", "Violation",
           "AUTO_LATTICE_LIMIT"]


def anonymize(table: pd.DataFrame | Any, schema: Schema, k: int | None = None, *,
              algorithm: str = "auto",
              l: float | None = None, diversity: str = "distinct", c: float = 1.0,
              t: float | None = None, sensitive: str | None = None,
              suppression: float | None = None, respect_boundaries: bool | None = None,
              missing: str = "error", metrics: Sequence[str] | None = None,
              seed: int | None = DEFAULT_SEED, shard_size: int | None = None,
              scheduler: Any = None, progress: ProgressArg = None,
              **options: Any) -> AnonymizationResult:
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
        partition by partition into its distinct tuples and never collected;
        it takes the algorithms that count records by weight (the global
        ones and the local ``stepwise``), and ``result.table`` is then a
        lazy Dask DataFrame of the release (``classes``, ``suppressed_rows``
        and ``suppressed_mask`` are None), checked for k, l and t from its
        released cells, again by ``result.write``. See :mod:`kanon_graph.scale.dask_input`.
    schema : Schema
    k : int
        Every released equivalence class holds at least ``k`` records. Required,
        except for ``algorithm="safepub"`` (derived from ``epsilon`` and ``delta``).
    algorithm : str, default "auto"
        A registered algorithm (:func:`kanon_graph.algorithms` lists them),
        or ``"auto"``, which runs what the quality suite taught where it
        settles the choice (:mod:`kanon_graph.auto.choice`): under k, l and
        t, ``stepwise`` when every quasi-identifier has a hierarchy
        (lattice of at most 100,000 nodes), ``flat`` when none has one (k
        alone), without trials. Elsewhere the candidates that fit
        (``optimal`` with 2% suppression, ``mondrian``,
        ``sd``, ``mst``) run on the table or 20,000 of its records and the
        least mean ARX Loss wins. A Dask table runs ``stepwise`` without
        trials (with l too) and refuses a quasi-identifier without a
        hierarchy (:mod:`kanon_graph.auto.counted`).
        A model the algorithm does not declare (``models`` in the registry) is
        refused before anything runs. ``result.stats["auto"]`` says why, with
        each trial's loss and seconds; a warning, when most quasi-identifiers
        of the release are (almost) all ``*``.
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
        An algorithm whose guarantee rests on its randomness staying secret
        (``secret_randomness`` in the registry: ``algorithm="safepub"``) is
        the exception: without a seed of the caller's (no seed, or
        ``None``) it draws from the operating system's cryptographic source
        and nothing is recorded (``result.stats["seed"]`` is None; the
        summary and report name no seed). An integer seed reproduces its
        release: for tests only, never for a release that leaves the building.
    shard_size : int, optional
        A local recoding algorithm on more records than this runs inside
        shards of at most this many records, cut at medians of the
        quasi-identifiers; classes never cross shards and the release is
        verified as a whole (:mod:`kanon_graph.scale.sharding`). Default:
        the rule of :mod:`kanon_graph.scale.shard_rule` -- the whole table
        wherever shards were measured to cost Loss (``mst``, ``sd`` and
        ``mondrian`` up to the largest table measured whole), shards of
        50,000 beyond; ``result.stats["sharding"]`` says which, with the
        measured cost. An algorithm that never runs in shards (``stepwise``,
        ``flat``, a global one) ignores it, and ``stats["sharding"]`` says so.
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
        Passed to the algorithm. ``algorithm="safepub"`` takes ``epsilon``
        (default 1.0), ``delta`` (1e-5), ``search_budget`` (0.1) and
        ``steps`` (300); see docs/algorithms/safepub.md.

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
    asked = Options(k, algorithm=algorithm, l=l, diversity=diversity, c=c, t=t,
                    sensitive=sensitive, suppression=suppression,
                    respect_boundaries=respect_boundaries, missing=missing, metrics=metrics,
                    seed=seed, shard_size=shard_size, scheduler=scheduler, extra=options)
    with reporter(progress, "anonymize") as report:
        if is_dask_frame(table):
            return _anonymize_dask(table, schema, asked, report)
        return run_pipeline(table, schema, asked, progress=report, choose=choose)


def _anonymize_dask(table: Any, schema: Schema, options: Options,
                    report: Reporter) -> AnonymizationResult:
    """A Dask table: counted on Dask, anonymized on its distinct tuples, released on Dask."""
    if options.algorithm != "auto":        # refused before the table is counted
        check_algorithm(get_algorithm(options.algorithm), options, on_dask=True)
    # "auto" is chosen on the counted tuples, without trials (_auto_counted.choose_counted)
    return _on_dask(_anonymize_counted, table, schema, "anonymize", options.scheduler, report,
                    algorithm=options.algorithm, missing=options.missing, options=options)


def _anonymize_counted(table: pd.DataFrame, schema: Schema, *, weights: Any, options: Options,
                       **_: Any) -> AnonymizationResult:
    """:func:`anonymize` on a Dask table's distinct tuples, ``weights`` records each."""
    return run_pipeline(table, schema, replace(options, scheduler=None),
                        progress=reporter(None, "anonymize"), weights=weights,
                        choose=choose_counted)


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
