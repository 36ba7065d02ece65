"""A second starting partition for the graph refinement: Mondrian's cuts.

The graph algorithms (``mst`` and ``sd``, default variants) grow classes from
single tuples by least-cost merging along graph edges, then refine them by
moving tuples along the same edges. Least-cost merging overshoots: two
classes of ``k - 1`` records become one of ``2k - 2``, and single-tuple
moves cannot split it again. Mondrian's median cuts (LeFevre et al. 2006)
give classes of ``k`` to ``2k - 1`` records that are boxes in every
attribute. Started from them, the same refinement lowers the loss further,
as ARX's local recoding starts from its global optimum and improves it.
A start other than the graph's own is a *start strategy*: a function
``start(data, node_of, n_nodes, model, rng) -> labels or None`` giving one
label per graph node, registered here by the algorithm room that owns it
(:func:`register_start`). Mondrian's (``"mondrian"``,
:func:`kanon_graph.baselines.mondrian.mondrian_seed`) is registered by
:mod:`kanon_graph.baselines.mondrian`: the record graph never imports the
algorithm families built on it; the registry loads the built-in by name on
its first lookup (:mod:`kanon_graph._plugins`). The caller merges what falls
below ``k`` and refines, and keeps whichever of the two starts ends lower
(``start="best"``).

Measured (issue 22's quality suite, ``benchmarks/quality.py``): see
docs/algorithms/mst.md, "Why the graph lost off Adult".

References
----------
LeFevre, DeWitt & Ramakrishnan, "Mondrian multidimensional k-anonymity" (2006).
"""

from __future__ import annotations

from typing import Any, Callable

from .._plugins import Registry

__all__ = ["STARTS", "get_start", "register_start", "start_names", "unregister_start"]

STARTS = ("best", "graph", "mondrian")
"""``start`` values of the graph variants: both starts (keep the lower loss), or one."""

_REGISTRY = Registry("start", builtins={"mondrian": ("kanon_graph.baselines.mondrian",)})


def register_start(name: str, function: Callable[..., Any], *, replace: bool = False) -> None:
    """Register ``function(data, node_of, n_nodes, model, rng) -> labels or None`` as a start.

    ``labels`` is one class per graph node (``None``: the start does not
    apply to this table or model, and the graph's own start is used).

    Examples
    --------
    >>> import numpy as np
    >>> register_start("one-class", lambda data, node_of, n, model, rng: np.zeros(n, int))
    >>> get_start("one-class")(None, None, 3, None, None).tolist()
    [0, 0, 0]
    >>> unregister_start("one-class")
    """
    _REGISTRY.add(name, function, replace=replace)


def unregister_start(name: str) -> None:
    """Forget the start ``name``."""
    _REGISTRY.remove(name)


def get_start(name: str) -> Callable[..., Any]:
    """The start strategy registered as ``name``; an unknown name lists the known ones.

    Examples
    --------
    >>> get_start("mondrian").__module__
    'kanon_graph.baselines.mondrian'
    """
    return _REGISTRY.get(name)


def start_names() -> list[str]:
    """Names of the registered start strategies, sorted."""
    return _REGISTRY.names()
