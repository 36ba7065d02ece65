"""kanon_graph: k-anonymization of tabular microdata, built on three graphs.

* hierarchy trees, one per quasi-identifier (:mod:`kanon_graph.hierarchy`);
* the record distance graph and the clusterings that walk it;
* the generalization lattice and its searches.

Quick start::

    import kanon_graph as kg
    table = kg.datasets.make_census(1000, seed=0)
    res = kg.anonymize(table, kg.datasets.census_schema(), k=5, algorithm="datafly")
    print(res.summary())
"""

import importlib

from . import hierarchy, metrics, privacy, recoding, registry
from . import baselines  # noqa: F401  (registers the baseline algorithms)
from . import clustering  # noqa: F401  (registers "sensitive-clustering" and SD)
from . import constrained  # noqa: F401  (generalization boundaries; registers "boundaries")
from . import lattice  # noqa: F401  (the lattice and its searches; registers "optimal")
from . import records  # noqa: F401  (the record graph; registers "mst")
from .api import Violation, anonymize, apply_levels, constraint_violations
from .clustering import sd_value_distances
from .comparison import compare
from .encoding import EncodedTable, encode
from .exceptions import DataError, HierarchyError, PrivacyError, SchemaError
from .hierarchy import Hierarchy, load_hierarchies, read_hierarchy, write_hierarchy
from .metrics import evaluate, register_metric
from .registry import Partition, algorithms, register_algorithm
from .records import RecordGraph, register_distance
from .result import AnonymizationResult
from .schema import Schema

__version__ = "0.1.0"

#: Subpackages loaded on first use (``kg.viz``, ``kg.io.read_table``...): no algorithm
#: registers itself in them, and a plain ``import kanon_graph`` does not pay for them.
_LAZY_SUBPACKAGES = ("datasets", "experiments", "io", "report", "risk", "scale", "viz")


def __getattr__(name):
    if name in _LAZY_SUBPACKAGES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBPACKAGES))

__all__ = [
    "AnonymizationResult",
    "DataError",
    "EncodedTable",
    "Hierarchy",
    "HierarchyError",
    "Partition",
    "PrivacyError",
    "RecordGraph",
    "Schema",
    "SchemaError",
    "Violation",
    "algorithms",
    "anonymize",
    "apply_levels",
    "compare",
    "constraint_violations",
    "datasets",
    "encode",
    "experiments",
    "evaluate",
    "hierarchy",
    "io",
    "load_hierarchies",
    "metrics",
    "privacy",
    "read_hierarchy",
    "recoding",
    "records",
    "register_algorithm",
    "register_distance",
    "register_metric",
    "registry",
    "report",
    "risk",
    "sd_value_distances",
    "viz",
    "write_hierarchy",
]
