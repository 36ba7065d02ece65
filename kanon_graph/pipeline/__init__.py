"""The run of one algorithm behind the facade, step by step.

:func:`.run.run_pipeline` reads as the facade's pipeline: the options are checked
(:mod:`.arguments`), the table is encoded and, for an algorithm that works on
distinct tuples, counted (:mod:`.tuples`); the algorithm runs, in shards where
the shard rule says so (:mod:`.dispatch`); its partition or levels become a
release that is checked from its released cells (:mod:`.from_partition`).
:mod:`.evaluate` sends the facade's ``evaluate`` to pandas or Dask.
"""

__all__: list[str] = []     # its modules are the house's own; nothing is re-exported
