"""An open registry of re-identification risk models.

A risk model is a plain function ``model(classes) -> dict`` of a
:class:`~kanon_graph.risk.RiskClasses` (the table's class sizes and what is
known of the population), returning named numbers. It declares what it needs
beyond the class sizes (``needs=("sampling_fraction",)``); :func:`assess`
computes it only when that is given, as :mod:`kanon_graph.metrics` does for a
metric that needs a target.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .._plugins import Registry

__all__ = ["RiskModelInfo", "register_risk", "unregister_risk", "get_risk", "risk_names",
           "risk_models", "compute_risks"]


@dataclass(frozen=True)
class RiskModelInfo:
    """A registered risk model and what it declares about itself."""

    name: str
    function: Callable
    description: str
    needs: tuple = ()

    def available(self, classes) -> bool:
        """Whether ``classes`` carries everything the model needs."""
        return all(getattr(classes, need, None) is not None for need in self.needs)

    def __call__(self, classes):
        missing = [n for n in self.needs if getattr(classes, n, None) is None]
        if missing:
            raise ValueError(f"Risk model {self.name!r} needs {' and '.join(missing)}: pass "
                             f"{', '.join(f'{n}=...' for n in missing)}.")
        return self.function(classes)


_REGISTRY = Registry("risk model")
_MODELS: dict[str, RiskModelInfo] = _REGISTRY.entries


def register_risk(name, function=None, *, description=None, needs=(), replace=False):
    """Register ``function`` as risk model ``name`` (usable as a decorator).

    Parameters
    ----------
    name : str
    function : callable ``(RiskClasses) -> dict``
    description : str, optional
        One line; defaults to the first line of the docstring.
    needs : tuple of str
        Attributes of :class:`~kanon_graph.risk.RiskClasses` that must not be
        None (``("sampling_fraction",)``).
    replace : bool
        Allow replacing an existing registration.

    Examples
    --------
    >>> import kanon_graph as kg
    >>> @kg.risk.register_risk("pairs")
    ... def pairs(classes):
    ...     "Share of records in classes of exactly two."
    ...     return {"share": float((classes.sizes == 2).sum() * 2 / classes.records)}
    >>> kg.risk.get_risk("pairs")(kg.risk.RiskClasses.from_sizes([1, 2, 3]))
    {'share': 0.3333333333333333}
    >>> kg.risk.unregister_risk("pairs")
    """
    def decorate(fn):
        doc = description or (fn.__doc__ or name).strip().splitlines()[0]
        _REGISTRY.add(name, RiskModelInfo(name, fn, doc, tuple(needs)), replace=replace)
        return fn

    return decorate if function is None else decorate(function)


def unregister_risk(name):
    """Remove a registered risk model."""
    _REGISTRY.remove(name)


def get_risk(name):
    """The :class:`RiskModelInfo` registered as ``name``; unknown names list the known ones."""
    return _REGISTRY.get(name)


def risk_names():
    """Names of all registered risk models, sorted."""
    return _REGISTRY.names()


def risk_models():
    """All registered risk models as ``{name: RiskModelInfo}``."""
    return _REGISTRY.items()


def compute_risks(classes, names=None):
    """``{name: result}`` for ``names`` (default: every model whose needs are met)."""
    if names is None:
        names = [n for n in risk_names() if _MODELS[n].available(classes)]
    return {name: get_risk(name)(classes) for name in names}
