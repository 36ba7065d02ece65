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

import importlib as _importlib

from ._version import __version__

#: Every public name and the module that defines it. ``import kanon_graph`` loads none
#: of them (nor pandas or numpy): each loads on first use, ``kg.anonymize`` included.
#: Algorithms register themselves when first looked up by name
#: (:data:`kanon_graph.registry.BUILTIN_ALGORITHMS`).
_LAZY_NAMES = {
    "Violation": "api", "anonymize": "api", "apply_levels": "api",
    "constraint_violations": "api",
    "sd_value_distances": "clustering",
    "compare": "comparison",
    "explore": "explorer",
    "EncodedTable": "encoding", "encode": "encoding",
    "DataError": "exceptions", "HierarchyError": "exceptions", "PrivacyError": "exceptions",
    "SchemaError": "exceptions",
    "Hierarchy": "hierarchy", "load_hierarchies": "hierarchy", "read_hierarchy": "hierarchy",
    "write_hierarchy": "hierarchy",
    "evaluate": "api", "register_metric": "metrics",
    "Partition": "registry", "algorithms": "registry", "register_algorithm": "registry",
    "RecordGraph": "records", "register_distance": "records",
    "AnonymizationResult": "result",
    "Schema": "schema",
}

#: Subpackages loaded on first use (``kg.viz``, ``kg.io.read_table``, ``kg.lattice``...).
_LAZY_SUBPACKAGES = ("baselines", "clustering", "constrained", "datasets", "experiments",
                     "explorer", "hierarchy", "io", "lattice", "metrics", "privacy", "recoding",
                     "records", "registry", "report", "risk", "scale", "viz")


def __getattr__(name):
    if name in _LAZY_SUBPACKAGES:
        module = _importlib.import_module(f".{name}", __name__)
    elif name in _LAZY_NAMES:
        module = getattr(_importlib.import_module(f".{_LAZY_NAMES[name]}", __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = module
    return module


def __dir__():
    return sorted(set(globals()) | set(_LAZY_SUBPACKAGES) | set(_LAZY_NAMES))

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
    "explore",
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
