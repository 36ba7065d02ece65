"""How a model object shows itself in Jupyter without importing its own picture.

Jupyter calls an object's ``_repr_html_``. The model classes of the lower rooms
(:class:`~kanon_graph.hierarchy.Hierarchy`, :class:`~kanon_graph.lattice.Lattice`,
:class:`~kanon_graph.AnonymizationResult`) keep a one-line method that asks
:func:`html`; the pictures are drawn by :mod:`kanon_graph.viz.notebook`, which
registers a renderer per class (:func:`register_display`). A class is named by
its module and qualified name, so registering needs no import of the class.
The built-in renderers load on a first display, like the built-in algorithms
(:mod:`kanon_graph._plugins`); a class with no renderer shows its text repr.

Examples
--------
>>> class Box:
...     def _repr_html_(self):
...         return html(self)
>>> html(Box()) is None
True
>>> register_display(f"{Box.__module__}.{Box.__qualname__}", lambda box: "<b>box</b>")
>>> Box()._repr_html_()
'<b>box</b>'
>>> unregister_display(f"{Box.__module__}.{Box.__qualname__}")
"""

from __future__ import annotations

from typing import Any, Callable

from ._plugins import Registry

__all__ = ["register_display", "unregister_display", "html"]

_NOTEBOOK = ("kanon_graph.viz.notebook",)
_REGISTRY = Registry("display", builtins={
    "kanon_graph.hierarchy._tree.Hierarchy": _NOTEBOOK,
    "kanon_graph.lattice.lattice.Lattice": _NOTEBOOK,
    "kanon_graph.result.AnonymizationResult": _NOTEBOOK,
    "kanon_graph.viz.records.MSTSplitView": _NOTEBOOK,
})


def register_display(class_name: str, renderer: Callable[[Any], str], *,
                     replace: bool = False) -> None:
    """Show instances of the class ``"module.QualName"`` with ``renderer(obj) -> str``."""
    _REGISTRY.add(class_name, renderer, replace=replace)


def unregister_display(class_name: str) -> None:
    """Forget the renderer of ``class_name``."""
    _REGISTRY.remove(class_name)


def html(obj: Any) -> str | None:
    """The HTML display of ``obj`` by the renderer of its class (or a base class), or None."""
    for klass in type(obj).__mro__:
        renderer = _REGISTRY.find(f"{klass.__module__}.{klass.__qualname__}")
        if renderer is not None:
            return str(renderer(obj))
    return None
