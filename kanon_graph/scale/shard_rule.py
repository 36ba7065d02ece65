"""When a local recoding runs in shards: the rule, and the measurements it rests on.

Sharding (:mod:`kanon_graph.scale.sharding`) bounds the cost of a local
recoding on many records, but a class never crosses a shard's border, so
the release can lose quality. Issue 41 asks that a table be sharded only
where the measurements show the shards' release within 1% of the whole
table's Loss at lower cost. :data:`SHARD_EVIDENCE` holds, per algorithm,
what ``benchmarks/bench_shards.py`` measured (whole table, ``shard_size=n``,
against median-cut shards; Loss is ``res.metrics["loss"]``, CPU seconds
under the load shown); :func:`plan_shards` reads it:

1. never sharded: an algorithm registered with ``shards=False``
   (``stepwise``, ``flat``) and one that is not a local recoding. A
   ``shard_size`` of the caller's does not change that; where it would have
   cut the table, the note says it was given and not applied;
2. otherwise a ``shard_size`` of the caller's wins (a table of more records
   runs in shards of at most that many); without one, a model that judges a
   class against the whole table (t-closeness) runs whole;
3. an algorithm with measurements: in shards of at most
   :data:`~kanon_graph.scale.sharding.DEFAULT_SHARD_SIZE` records when every
   measurement shows the shards within :data:`LOSS_TOLERANCE` of the whole
   table's Loss at lower CPU time (:attr:`ShardEvidence.pays`); otherwise
   whole, up to the largest table on which the whole run was measured
   (:attr:`ShardEvidence.whole_limit`; None: at any size) and in shards of
   at most ``DEFAULT_SHARD_SIZE`` beyond it, where the whole table was not
   seen to finish;
4. an algorithm without measurements (a plug-in registered with
   ``shards=True``): in shards of at most ``DEFAULT_SHARD_SIZE``, as
   registered.

Every plan for more than ``DEFAULT_SHARD_SIZE`` records, and every plan a
``shard_size`` of the caller's would have cut, carries a sentence for
``result.stats["sharding"]``, which ``result.summary()``, the command
line and the privacy report print: how the table ran and what sharding
measured for that algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .sharding import DEFAULT_SHARD_SIZE

if TYPE_CHECKING:
    from ..registry import AlgorithmInfo

__all__ = ["LOSS_TOLERANCE", "SHARD_COMMAND", "ShardCost", "ShardEvidence", "SHARD_EVIDENCE",
           "ShardPlan", "plan_shards", "sharded_text"]

#: Largest relative increase of Loss at which shards count as free (issue 41: 1%).
LOSS_TOLERANCE = 0.01

#: The command that measured :data:`SHARD_EVIDENCE` (its rows: docs/bench/shards.csv).
SHARD_COMMAND = "python benchmarks/bench_shards.py"


@dataclass(frozen=True)
class ShardCost:
    """One measured comparison: the whole table against shards, same rows, same k.

    ``table`` names the benchmark table (``census``: ``make_census(rows,
    seed=0)`` with its hierarchies; ``census-flat``: the same rows without;
    ``patients-flat``: the quality suite's continuous table), ``load`` the
    load average before the whole and the sharded run.
    """

    table: str
    rows: int
    k: int
    shard_size: int
    shards: int
    whole_loss: float
    sharded_loss: float
    whole_cpu: float
    sharded_cpu: float
    load: str

    @property
    def loss_change(self) -> float:
        """Relative change of Loss, sharded against whole (0.05: 5% more)."""
        return (self.sharded_loss - self.whole_loss) / self.whole_loss

    @property
    def cpu_change(self) -> float:
        """Relative change of CPU seconds, sharded against whole (-0.4: 40% less)."""
        return (self.sharded_cpu - self.whole_cpu) / self.whole_cpu

    @property
    def pays(self) -> bool:
        """Within :data:`LOSS_TOLERANCE` of the whole table's Loss, at lower CPU time."""
        return self.loss_change <= LOSS_TOLERANCE and self.sharded_cpu < self.whole_cpu

    def text(self) -> str:
        return (f"on {self.table} {self.rows:,} rows, k={self.k}, {self.shards} shards of "
                f"<={self.shard_size:,} cost {self.loss_change:+.1%} Loss "
                f"({self.whole_loss:.4f} whole, {self.sharded_loss:.4f} sharded) for "
                f"{self.cpu_change:+.0%} CPU ({SHARD_COMMAND}, load {self.load})")


@dataclass(frozen=True)
class ShardEvidence:
    """What sharding measured for one algorithm.

    ``costs[0]`` is the comparison a report cites (the largest census table
    at k = 10 in shards of the default size); ``whole_limit`` the largest
    table (records) on which the whole run was measured to finish, None when
    shards never saved a tenth of the whole run's CPU time (``mondrian``,
    whose cost grows as ``n log n``): then the whole table at any size.
    """

    costs: tuple[ShardCost, ...]
    whole_limit: int | None

    @property
    def pays(self) -> bool:
        """Sharding pays only where every measurement says so."""
        return all(c.pays for c in self.costs)


#: Per algorithm, what ``benchmarks/bench_shards.py`` measured, as printed by
#: ``python benchmarks/bench_shards.py --evidence`` from its rows in
#: docs/bench/shards.csv (``tests/scale/test_shard_rule.py`` checks the figures
#: against them): the whole table against shards of 50,000 (and of 25,000 at
#: 50,000 rows); the load is the whole run's / the sharded run's.
SHARD_EVIDENCE: dict[str, ShardEvidence] = {
    "mondrian": ShardEvidence((
        ShardCost("census", 200_000, 10, 50_000, 5, 0.053090, 0.064585, 0.9, 0.9,
                  "5.1-5.1 / 5.1-5.1"),
        ShardCost("census", 50_000, 10, 25_000, 3, 0.096679, 0.099498, 0.3, 0.2,
                  "4.1-4.1 / 4.1-4.1"),
        ShardCost("census", 50_000, 5, 25_000, 3, 0.054978, 0.059096, 0.4, 0.4,
                  "7.0-7.0 / 7.0-7.0"),
        ShardCost("census", 50_000, 20, 25_000, 3, 0.148932, 0.149243, 0.2, 0.2,
                  "8.9-8.9 / 9.1-9.1"),
        ShardCost("census-flat", 200_000, 10, 50_000, 5, 0.025356, 0.033499, 2.0, 2.2,
                  "4.4-4.4 / 4.5-4.4"),
        ShardCost("patients-flat", 200_000, 10, 50_000, 4, 0.001643, 0.003365, 2.1, 2.6,
                  "6.9-6.9 / 7.0-7.0"),
        ShardCost("census-flat", 50_000, 10, 25_000, 3, 0.043638, 0.050152, 0.6, 0.6,
                  "3.3-3.3 / 3.3-3.3"),
        ShardCost("patients-flat", 50_000, 10, 25_000, 2, 0.002727, 0.004829, 0.6, 0.6,
                  "4.2-4.4 / 4.4-4.4"),
        ShardCost("census-flat", 50_000, 5, 25_000, 3, 0.025482, 0.028970, 0.7, 0.7,
                  "6.5-6.5 / 6.5-6.5"),
        ShardCost("census-flat", 50_000, 20, 25_000, 3, 0.067589, 0.079142, 0.5, 0.6,
                  "11.6-11.6 / 11.6-11.8"),
        ShardCost("patients-flat", 50_000, 5, 25_000, 2, 0.001343, 0.002415, 0.8, 0.8,
                  "5.4-5.4 / 5.4-5.4"),
        ShardCost("patients-flat", 50_000, 20, 25_000, 2, 0.005130, 0.007656, 0.5, 0.6,
                  "8.5-8.5 / 8.5-8.5"),
    ), whole_limit=None),
    "mst": ShardEvidence((
        ShardCost("census", 500_000, 10, 50_000, 18, 0.023361, 0.030779, 113.1, 39.2,
                  "3.4-3.2 / 3.2-3.7"),
        ShardCost("census", 200_000, 10, 50_000, 5, 0.035886, 0.043796, 52.6, 28.4,
                  "4.4-4.8 / 5.8-5.6"),
        ShardCost("census", 50_000, 10, 25_000, 3, 0.064513, 0.069518, 10.9, 9.4,
                  "3.5-3.8 / 4.2-4.5"),
        ShardCost("census", 50_000, 5, 25_000, 3, 0.040583, 0.043768, 9.9, 6.9,
                  "7.0-7.0 / 7.0-7.0"),
        ShardCost("census", 50_000, 20, 25_000, 3, 0.095101, 0.101350, 15.0, 11.6,
                  "5.4-6.5 / 6.5-7.5"),
        ShardCost("census-flat", 500_000, 10, 50_000, 17, 0.012846, 0.016215, 170.0, 60.0,
                  "3.6-3.1 / 3.1-3.0"),
        ShardCost("census-flat", 200_000, 10, 50_000, 5, 0.019235, 0.022241, 75.1, 38.8,
                  "5.1-5.2 / 4.5-4.3"),
        ShardCost("patients-flat", 200_000, 10, 50_000, 4, 0.000993, 0.001566, 76.9, 40.5,
                  "4.4-5.8 / 7.9-7.9"),
        ShardCost("census-flat", 50_000, 10, 25_000, 3, 0.033148, 0.036422, 16.6, 12.0,
                  "4.1-3.8 / 3.6-3.5"),
        ShardCost("patients-flat", 50_000, 10, 25_000, 2, 0.002307, 0.004399, 13.7, 9.7,
                  "3.3-3.4 / 3.5-3.8"),
        ShardCost("census-flat", 50_000, 5, 25_000, 3, 0.017428, 0.019292, 14.2, 10.3,
                  "7.0-7.0 / 7.0-6.9"),
        ShardCost("census-flat", 50_000, 20, 25_000, 3, 0.055823, 0.060890, 25.0, 17.8,
                  "9.1-11.4 / 11.4-10.8"),
        ShardCost("patients-flat", 50_000, 5, 25_000, 2, 0.001015, 0.001904, 7.8, 6.2,
                  "6.5-6.3 / 6.3-5.8"),
        ShardCost("patients-flat", 50_000, 20, 25_000, 2, 0.004806, 0.007415, 9.8, 11.1,
                  "11.8-12.0 / 12.0-11.0"),
    ), whole_limit=500_000),
    "sd": ShardEvidence((
        ShardCost("census", 500_000, 10, 50_000, 18, 0.023817, 0.031796, 29.8, 21.1,
                  "2.9-3.0 / 3.0-3.1"),
        ShardCost("census", 200_000, 10, 50_000, 5, 0.036618, 0.045109, 17.2, 12.5,
                  "5.6-6.1 / 5.5-5.1"),
        ShardCost("census", 50_000, 10, 25_000, 3, 0.065923, 0.070357, 5.3, 4.7,
                  "4.5-4.3 / 4.2-4.1"),
        ShardCost("census", 50_000, 5, 25_000, 3, 0.041132, 0.044033, 3.5, 3.1,
                  "7.0-7.0 / 7.0-7.0"),
        ShardCost("census", 50_000, 20, 25_000, 3, 0.103237, 0.106562, 9.3, 8.4,
                  "7.5-8.9 / 8.9-8.9"),
        ShardCost("census-flat", 500_000, 10, 50_000, 17, 0.013479, 0.016526, 35.5, 29.6,
                  "3.1-2.6 / 2.6-2.0"),
        ShardCost("census-flat", 200_000, 10, 50_000, 5, 0.020067, 0.022705, 20.3, 18.3,
                  "4.3-4.2 / 4.2-4.4"),
        ShardCost("patients-flat", 200_000, 10, 50_000, 4, 0.001216, 0.002548, 61.7, 47.1,
                  "7.9-7.6 / 6.8-6.9"),
        ShardCost("census-flat", 50_000, 10, 25_000, 3, 0.033947, 0.037210, 6.2, 6.0,
                  "3.5-3.5 / 3.4-3.3"),
        ShardCost("patients-flat", 50_000, 10, 25_000, 2, 0.002399, 0.004616, 11.2, 11.0,
                  "3.8-4.0 / 4.2-4.2"),
        ShardCost("census-flat", 50_000, 5, 25_000, 3, 0.018072, 0.019669, 4.8, 4.5,
                  "6.9-6.6 / 6.6-6.5"),
        ShardCost("census-flat", 50_000, 20, 25_000, 3, 0.057338, 0.061794, 12.2, 10.7,
                  "10.8-11.0 / 11.0-11.3"),
        ShardCost("patients-flat", 50_000, 5, 25_000, 2, 0.001098, 0.002242, 7.5, 8.0,
                  "5.8-5.5 / 5.5-5.5"),
        ShardCost("patients-flat", 50_000, 20, 25_000, 2, 0.004896, 0.007513, 13.7, 14.7,
                  "11.0-9.6 / 9.6-8.5"),
    ), whole_limit=500_000),
}


@dataclass(frozen=True)
class ShardPlan:
    """How one run goes: ``shard_size`` None runs the whole table; ``note`` for the stats."""

    shard_size: int | None
    note: str | None = None


def plan_shards(info: AlgorithmInfo, n: int, *, shard_size: int | None = None,
                whole_table_model: bool = False) -> ShardPlan:
    """Whole table or shards for ``info`` on ``n`` records (the rule of the module docstring).

    Parameters
    ----------
    info : AlgorithmInfo
    n : int
        Records the algorithm runs on.
    shard_size : int, optional
        The caller's: it wins, except over an algorithm that never runs in
        shards (rule 1; the note then says it was not applied).
    whole_table_model : bool
        The model judges a class against the whole table (t-closeness).

    Returns
    -------
    ShardPlan

    Examples
    --------
    >>> from kanon_graph.registry import get_algorithm
    >>> plan_shards(get_algorithm("mondrian"), 200_000).shard_size is None
    True
    >>> plan_shards(get_algorithm("mondrian"), 200_000, shard_size=50_000).shard_size
    50000
    >>> plan = plan_shards(get_algorithm("stepwise"), 200_000, shard_size=50_000)
    >>> plan.shard_size, plan.note.startswith("shard_size=50,000 given, not applied")
    (None, True)
    """
    if info.recoding != "local" or not info.shards:
        if shard_size is None or n <= shard_size:
            return ShardPlan(None)
        why = ("registered shards=False, it never runs in shards" if info.recoding == "local"
               else f"a {info.recoding} recoding never runs in shards")
        return ShardPlan(None, f"shard_size={shard_size:,} given, not applied: {info.name} "
                               f"ran on the whole table ({why})")
    if shard_size is not None:
        if n <= shard_size:
            return ShardPlan(None)
        return ShardPlan(shard_size, f"shard_size={shard_size:,} given; for {info.name}, "
                                     + _measured(info.name))
    if whole_table_model or n <= DEFAULT_SHARD_SIZE:
        return ShardPlan(None)
    evidence = SHARD_EVIDENCE.get(info.name)
    if evidence is None:
        return ShardPlan(DEFAULT_SHARD_SIZE, f"{info.name} has no measurement of what "
                                             f"sharding costs it ({SHARD_COMMAND})")
    if evidence.pays:
        return ShardPlan(DEFAULT_SHARD_SIZE, "shards within "
                         f"{LOSS_TOLERANCE:.0%} of the whole table's Loss: "
                         + evidence.costs[0].text())
    if evidence.whole_limit is None or n <= evidence.whole_limit:
        return ShardPlan(None, f"whole table, not sharded: shards cost {info.name} Loss "
                               f"where measured, {evidence.costs[0].text()}")
    return ShardPlan(DEFAULT_SHARD_SIZE, f"more than {evidence.whole_limit:,} records, the "
                     f"largest whole table measured for {info.name}; "
                     + evidence.costs[0].text())


def _measured(name: str) -> str:
    evidence = SHARD_EVIDENCE.get(name)
    return evidence.costs[0].text() if evidence else f"no measurement for {name}"


def sharded_text(plan: ShardPlan, stats: dict) -> str | None:
    """The sentence for ``result.stats["sharding"]`` once the run is done, or None."""
    if plan.note is None:
        return None
    if plan.shard_size is None or "shards" not in stats:
        return plan.note
    return (f"sharded in {stats['shards']} shard{'s' if stats['shards'] != 1 else ''} of "
            f"<={plan.shard_size:,} records ({plan.note})")
