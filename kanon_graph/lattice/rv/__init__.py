"""The research-value (RV) searches of Morton et al. (2012).

* :mod:`~kanon_graph.lattice.rv.values` -- the research value of every level
  (section 4), with its data-constraint rules (:mod:`~kanon_graph.lattice.rv.rules`)
  and correlation weights (:mod:`~kanon_graph.lattice.rv.weights`);
* :mod:`~kanon_graph.lattice.rv.prepruning` -- the pre-pruning step (Figure 3);
* :mod:`~kanon_graph.lattice.rv.search_common` -- what every search shares;
* the searches :func:`rv_global` (Figure 4), :func:`rv_local` (Figure 5),
  :func:`rv_hybrid` (5.3.4) and :func:`rv_distributed` (5.3.5), registered as
  ``"rv-global"``, ``"rv-local"``, ``"rv-hybrid"`` and ``"rv-distributed"``
  when their module is first imported (the registry does that on first lookup).

:mod:`kanon_graph.lattice` re-exports the public names.
"""

import importlib

# "prepruning" names both a function and its submodule: imported here, so the package
# attribute is the function whatever imports the submodule later
from .prepruning import PrePruning, prepruning

#: Every other public name and the submodule that defines it, loaded on first use.
_NAMES = {
    "ResearchValues": "values", "Rule": "values", "categorical_rv": "values",
    "correlation_weights": "values", "numeric_rv": "values", "research_values": "values",
    "rule_ratio": "values",
    "rv_global": "search_global", "rv_local": "search_local", "rv_hybrid": "search_hybrid",
    "rv_distributed": "search_distributed",
}


def __getattr__(name):
    if name not in _NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_NAMES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))


__all__ = ["PrePruning", "ResearchValues", "Rule", "categorical_rv", "correlation_weights",
           "numeric_rv", "prepruning", "research_values", "rule_ratio", "rv_distributed",
           "rv_global", "rv_hybrid", "rv_local"]
