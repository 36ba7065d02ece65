"""Beyond one machine: Dask input, frequency sets on Dask, and sharded local recoding.

Dask is optional (``pip install "kanon_graph[dask]"``); sharding a pandas
table needs nothing beyond the core dependencies. When a table is sharded:
:func:`plan_shards`, from the measurements in :data:`SHARD_EVIDENCE`.
"""

from ._cluster import client_for, dask_available, require_dask
from .shard_rule import SHARD_EVIDENCE, plan_shards
from .sharding import DEFAULT_SHARD_SIZE, run_sharded, shard_records

__all__ = ["client_for", "dask_available", "require_dask", "DEFAULT_SHARD_SIZE",
           "run_sharded", "shard_records", "SHARD_EVIDENCE", "plan_shards"]
