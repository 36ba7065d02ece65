"""An open registry of information-loss metrics.

A metric is a plain function ``metric(release, k) -> float`` that declares,
when registered, whether lower is better and whether it is monotone under
generalization (never decreases when any value is generalized further; the
lattice searches prune only with monotone metrics). A metric that needs more
than the release declares it (``needs=("target",)``): it is then called as
``metric(release, k, target=...)``, and :func:`compute_metrics` computes it
only when that is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .._plugins import Registry

__all__ = ["MetricInfo", "register_metric", "get_metric", "metrics", "compute_metrics"]


@dataclass(frozen=True)
class MetricInfo:
    """A registered metric and what it declares about itself."""

    name: str
    function: Callable
    lower_is_better: bool
    monotone: bool
    description: str
    needs: tuple = ()
    applies: Callable | None = None

    def __call__(self, release, k, **context):
        missing = [n for n in self.needs if context.get(n) is None]
        if missing:
            raise ValueError(f"Metric {self.name!r} needs {' and '.join(missing)}: pass "
                             f"{', '.join(f'{n}=...' for n in missing)}.")
        return float(self.function(release, k, **{n: context[n] for n in self.needs}))


_REGISTRY = Registry("metric")
_METRICS: dict[str, MetricInfo] = _REGISTRY.entries


def register_metric(name, function=None, *, lower_is_better=True, monotone=True,
                    description=None, needs=(), applies=None, replace=False):
    """Register ``function`` as metric ``name`` (usable as a decorator).

    Parameters
    ----------
    name : str
    function : callable ``(release, k) -> float``
    lower_is_better : bool
    monotone : bool
        Whether the value never improves when the release is generalized
        further (full-domain: raising any level).
    description : str, optional
        One line; defaults to the first line of the docstring.
    needs : tuple of str
        What else the metric needs, passed as keywords: ``("target",)``
        for a metric of a class column (``function(release, k, target=...)``).
        :func:`compute_metrics` skips it unless it is given.
    applies : callable, optional
        ``applies(release) -> bool``: whether the metric measures this kind
        of release (the SSE / SST of a microaggregation has no meaning for a
        generalized one); :func:`compute_metrics` skips it by default where
        it does not apply. ``None``: every release.
    replace : bool
        Allow replacing an existing registration.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> @kg.register_metric("classes", lower_is_better=False, monotone=True)
    ... def n_classes(release, k):
    ...     "Number of equivalence classes."
    ...     return release.n_classes
    >>> "classes" in kg.metrics.metric_names()
    True
    >>> kg.metrics.unregister_metric("classes")
    """
    def decorate(fn):
        doc = description or (fn.__doc__ or name).strip().splitlines()[0]
        _REGISTRY.add(name, MetricInfo(name, fn, lower_is_better, monotone, doc, tuple(needs),
                                       applies), replace=replace)
        return fn

    return decorate if function is None else decorate(function)


def unregister_metric(name):
    """Remove a registered metric."""
    _REGISTRY.remove(name)


def get_metric(name):
    """The :class:`MetricInfo` registered as ``name``; unknown names list the known ones."""
    return _REGISTRY.get(name)


def metric_names():
    """Names of all registered metrics, sorted."""
    return _REGISTRY.names()


def metrics():
    """All registered metrics as ``{name: MetricInfo}``."""
    return _REGISTRY.items()


def compute_metrics(release, k, names=None, *, target=None):
    """``{name: value}`` for ``names``.

    The default is every registered metric whose needs are given and that
    applies to ``release``: a metric that needs a ``target`` is computed
    only when ``target`` is passed. Naming such a metric without what it
    needs is an error.
    """
    context = {"target": target}
    if names is None:
        names = [n for n in metric_names()
                 if all(context.get(need) is not None for need in _METRICS[n].needs)
                 and (_METRICS[n].applies is None or _METRICS[n].applies(release))]
    return {name: get_metric(name)(release, k, **context) for name in names}
