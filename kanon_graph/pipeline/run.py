"""The steps of one anonymization, each a function of its own, and the options said once.

:func:`kanon_graph.anonymize` is :func:`run_pipeline` with ``auto``'s choice
handed in (:mod:`kanon_graph.auto.choice` sits above this module, with the other
composite algorithms); :mod:`kanon_graph.constrained` runs the same steps with
its own algorithm. The steps, in order:

1. :func:`check_input` -- the options, before any data is touched;
2. :func:`encode_input` -- cells to codes, and the privacy model bound to them;
3. the choice (``algorithm="auto"``), when the caller hands one in;
4. :func:`plan_run` and :func:`run_algorithm_step` -- on the distinct tuples
   or on the rows, within shards when large;
5. :func:`release_partition` -- recode, check the cover, verify the classes
   (a class released all ``*`` counted as suppressed);
6. :func:`verify_cells` -- k, l and t counted again on the very cells returned;
7. :func:`result_of` -- metrics, statistics, the boundary check: the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .arguments import DEFAULT_SEED, check_algorithm, check_seed
from .dispatch import run_algorithm
from .from_partition import (build_result, check_cover, check_release, recode_release,
                              collapse_notes, suppress_top_classes, warn_if_collapsed)
from .._progress import Reporter
from .tuples import for_algorithm
from ..encoding import encode
from ..exceptions import PrivacyError, SchemaError
from ..privacy.constraints import constraint_violations
from ..privacy.parameters import check_fraction, check_int, privacy_model
from ..privacy.distance import warn_inferred_distance
from ..privacy.reachability import check_reachable, check_values
from ..registry import AlgorithmInfo, Partition, algorithms, get_algorithm

if TYPE_CHECKING:
    import pandas as pd

    from ..encoding import EncodedTable
    from ..privacy import PrivacyModel, Verification
    from ..recoding import Release
    from ..result import AnonymizationResult
    from ..schema import Schema

__all__ = ["Options", "Plan", "run_pipeline", "check_input", "encode_input", "plan_run",
           "run_algorithm_step", "release_partition", "verify_cells", "result_of"]


@dataclass(frozen=True)
class Options:
    """Everything :func:`kanon_graph.anonymize` is asked, but the table and the schema.

    The fields are the keyword parameters of :func:`kanon_graph.anonymize`
    (documented there), ``extra`` its ``**options`` for the algorithm.
    """

    k: int | None
    algorithm: str = "auto"
    l: float | None = None
    diversity: str = "distinct"
    c: float = 1.0
    t: float | None = None
    sensitive: str | None = None
    suppression: float | None = None
    respect_boundaries: bool | None = None
    missing: str = "error"
    metrics: Sequence[str] | None = None
    seed: Any = 0
    shard_size: int | None = None
    scheduler: Any = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    record_seed: bool = True
    k_derived: bool = False


@dataclass(frozen=True)
class Plan:
    """The algorithm that runs, how, and on what (the rows or their distinct tuples)."""

    info: AlgorithmInfo
    options: Options
    work: EncodedTable
    back: Callable[[Release], Release]
    trial: Partition | None = None


def _k_and_seed(options: Options) -> Options:
    """k derived by an algorithm that sets it (``safepub``); the default seed resolved.

    An algorithm whose guarantee rests on secret randomness (``secret_randomness``)
    gets no seed unless the caller chose one: ``seed=None`` and no seed alike
    leave ``options.seed`` None and nothing is recorded. Any other algorithm
    takes 0 by default, and ``None`` draws a seed that is recorded (its
    guarantee does not depend on it, and the seed reproduces the release).
    """
    info = get_algorithm(options.algorithm) if options.algorithm != "auto" else None
    k, seed, record = options.k, options.seed, options.record_seed
    derived = False
    if info is not None and info.derives_k is not None:
        if k is not None:
            raise ValueError(f"The 'k' parameter of anonymize must be left unset for algorithm "
                             f"{info.name!r}: it derives k from its own options. Got {k!r}.")
        k = info.derives_k(dict(options.extra), "anonymize")
        derived = True
    elif k is None:
        raise ValueError(f"The 'k' parameter of anonymize must be an integer >= 1 (required "
                         f"for algorithm {options.algorithm!r}; only an algorithm like "
                         f"safepub derives its own). Got None.")
    if info is not None and info.secret_randomness and (seed is DEFAULT_SEED or seed is None):
        seed, record = None, False      # the OS's randomness, never recorded (rng=None)
    elif seed is DEFAULT_SEED:
        seed = 0
    return replace(options, k=k, seed=seed, record_seed=record, k_derived=derived)


def check_input(options: Options) -> Options:
    """Step 1: the options checked once (k derived when the algorithm sets it)."""
    if options.algorithm != "auto":         # its options and privacy models
        check_algorithm(get_algorithm(options.algorithm), options)
    options = _k_and_seed(options)
    suppression = check_fraction(options.suppression, "suppression", "anonymize")
    shard_size = options.shard_size
    if shard_size is not None:
        shard_size = check_int(shard_size, "shard_size", "anonymize", 1, 2**62)
    return options if (suppression, shard_size) == (options.suppression, options.shard_size) \
        else replace(options, suppression=suppression, shard_size=shard_size)


def encode_input(table: pd.DataFrame, schema: Schema, options: Options,
                 weights: Any = None) -> tuple[EncodedTable, PrivacyModel, Options]:
    """Step 2: the table encoded, the privacy model bound to it, the seed fixed."""
    data = encode(table, schema, missing=options.missing, where="anonymize", weights=weights)
    o = options
    # a derived k above the records is no error of the caller's: that algorithm withholds
    # every row (safepub warns); refusing would itself say something of the data
    most = max(data.records, o.k) if o.k_derived else data.records
    model = privacy_model(o.k, o.l, o.diversity, o.c, o.t, o.sensitive, most,
                          "anonymize").bind(data)
    check_values(model, data)           # said once, before auto's trials or any algorithm
    warn_inferred_distance(model, data, "anonymize")
    secret = options.seed is None and not options.record_seed      # the OS's, unrecorded
    return data, model, options if secret else replace(options, seed=check_seed(options.seed))


def plan_run(data: EncodedTable, model: PrivacyModel, options: Options,
             trial: Partition | None = None) -> Plan:
    """Step 4a: what runs on what, refused early when it cannot meet the model."""
    info = get_algorithm(options.algorithm)
    # an algorithm that counts by weight (global, or stepwise) runs on the distinct tuples
    work, back = for_algorithm(data, info.weighted and trial is None, options.algorithm,
                               sensitive=model.needs_sensitive)
    check_reachable(model, work, options.suppression, info, bool(options.respect_boundaries))
    if info.needs_hierarchies:
        lacking = [a.name for a in data.attributes if a.hierarchy is None]
        if lacking:
            raise SchemaError(f"algorithm {info.name!r} needs a hierarchy for every "
                              f"quasi-identifier; none is given for {lacking}: draft them with "
                              f"kg.hierarchy.suggest(table, schema), or on the command line "
                              f"'kanon-graph hierarchy suggest DATA.csv --qi ... -o DIR'")
    extra = dict(options.extra)
    if options.respect_boundaries is not None:
        if not info.supports_boundaries:
            if options.respect_boundaries:
                able = [n for n in algorithms() if get_algorithm(n).supports_boundaries]
                raise ValueError(f"algorithm {info.name!r} cannot respect generalization "
                                 f"boundaries; algorithms that can: {able}")
        else:
            extra["respect_boundaries"] = bool(options.respect_boundaries)
    return Plan(info, replace(options, extra=extra), work, back, trial)


def run_algorithm_step(plan: Plan, model: PrivacyModel, progress: Reporter) -> Partition:
    """Step 4b: the algorithm's partition (a whole-table trial of ``auto`` is reused)."""
    o = plan.options
    if plan.trial is not None:
        partition = plan.trial
    else:
        # rng=None: no seed of the caller's for secret randomness (``_k_and_seed``)
        rng = None if o.seed is None else np.random.default_rng(o.seed)
        partition = run_algorithm(plan.info, plan.work, model,
                                  rng=rng, suppression=o.suppression,
                                  options=dict(o.extra), shard_size=o.shard_size,
                                  scheduler=o.scheduler, progress=progress)
    if not isinstance(partition, Partition):
        raise PrivacyError(f"algorithm {o.algorithm!r} returned {type(partition).__name__}, "
                           f"not a kg.Partition")
    return partition


def release_partition(plan: Plan, partition: Partition,
                      model: PrivacyModel) -> tuple[Release, Verification]:
    """Step 5: the partition recoded, every record covered, its classes verified.

    A class released with every quasi-identifier ``*`` is then counted as
    suppressed (:func:`~kanon_graph.pipeline.from_partition.suppress_top_classes`),
    and the release verified again as the reader of its cells sees it.
    """
    release = recode_release(plan.work, partition, plan.options.algorithm)
    check_cover(release)
    verification = model.verify(release.class_of, plan.work)
    if verification.holds:      # else step 6 refuses the algorithm's release as it came
        release = suppress_top_classes(release, model, plan.work)
        verification = model.verify(release.class_of, plan.work)
    return plan.back(release), verification


def verify_cells(release: Release, verification: Verification, model: PrivacyModel,
                 options: Options, records: int) -> pd.DataFrame:
    """Step 6: k, l and t counted again on the cells of the very table returned."""
    table = release.table()
    check_release(model, release, table, verification, options.algorithm)
    suppression = options.suppression
    if suppression is not None and release.suppressed > np.floor(suppression * records):
        top = (f" ({release.at_top} of them released with every quasi-identifier '*', which "
               f"counts as suppressed{', with the classes that then failed t' if model.t else ''})"
               if release.at_top else "")
        raise PrivacyError(f"algorithm {options.algorithm!r} suppressed {release.suppressed} "
                           f"records{top}, more than the allowed {suppression:.2%} of "
                           f"{records}; it is not returned")
    return table


def result_of(data: EncodedTable, release: Release, verification: Verification,
              table: pd.DataFrame, stats: dict[str, Any], options: Options, k: int,
              capped: bool) -> AnonymizationResult:
    """Step 7: the result, its metrics measured; a value above its MAGVal refuses it."""
    result = build_result(data, release, verification, algorithm=options.algorithm, k=k,
                          metrics=options.metrics, stats=stats, table=table)
    if options.respect_boundaries or capped:
        broken = constraint_violations(result)
        if broken:
            raise PrivacyError(f"algorithm {options.algorithm!r} generalized {len(broken)} "
                               f"value(s) beyond their MAGVal, e.g. {broken[0]}; it is not "
                               f"returned")
    return result


def run_pipeline(table: pd.DataFrame, schema: Schema, options: Options, *,
                 progress: Reporter, weights: Any = None,
                 choose: Callable[..., Any] | None = None) -> AnonymizationResult:
    """Anonymize a pandas table (``weights``: a Dask table's counted tuples), step by step.

    ``choose(data, model, options, progress)`` picks the algorithm of
    ``algorithm="auto"`` (reporting its trials) and returns its ``AutoChoice`` (:mod:`kanon_graph.auto.choice`, handed in by the
    facade); without it ``options.algorithm`` must name a registered algorithm.
    """
    started = time.perf_counter()
    options = check_input(options)                                      # 1. check the input
    data, model, options = encode_input(table, schema, options, weights)  # 2. encode
    choice = None
    if options.algorithm == "auto":                                     # 3. choose
        if choose is None:
            raise ValueError("algorithm='auto' is chosen by kanon_graph.anonymize; name a "
                             "registered algorithm here")
        choice = choose(data, model, options, progress)
        info = get_algorithm(choice.algorithm)
        options = replace(options, algorithm=choice.algorithm, suppression=choice.suppression,
                          extra={n: v for n, v in options.extra.items()
                                 if n in info.options() or info.accepts_any_option()})
    plan = plan_run(data, model, options, choice.partition if choice else None)   # 4. run
    partition = run_algorithm_step(plan, model, progress)
    release, verification = release_partition(plan, partition, model)   # 5. release
    table_out = verify_cells(release, verification, model, options, data.records)  # 6. verify
    stats = dict(partition.stats, seed=options.seed if options.record_seed else None)
    if release.at_top:          # counted as suppressed from the released cells
        stats["suppressed_at_top"] = release.at_top
    if data.missing_kept:
        stats["missing_kept"] = dict(data.missing_kept)
    if model.t is not None:             # the ground distance t was measured with
        stats["t_distance"] = model.t_distance(data)
    formats = {a.name: a.date_format or "ISO 8601" for a in data.attributes if a.date}
    if formats:                         # the format each date column was read in
        stats["date_formats"] = formats
    if choice is not None:
        stats["auto"] = dict(choice.stats)
        choice.warn(release, stats["auto"], model.k)
        stats["collapsed_notes"] = collapse_notes(release)   # as every algorithm's
    else:                                   # every algorithm says so, not only auto
        warn_if_collapsed(release, options.algorithm, model.k, stats)
    result = result_of(data, release, verification, table_out, stats, options, model.k,
                       partition.capped)                                # 7. return
    stats["seconds"] = time.perf_counter() - started
    return result
