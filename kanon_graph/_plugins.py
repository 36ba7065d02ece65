"""The one registry base: algorithms, metrics, risk models, distances, starts, displays.

Every open registry of the package is a :class:`Registry`: a dict from a
name to what was registered under it, with the same three rules.

* Registering a taken name is a ``ValueError`` unless ``replace=True``.
* An unknown name is a ``ValueError`` that lists the known ones.
* A registry may name its *built-in plug-ins*: the modules that register
  into it (``builtins={"sd": ("kanon_graph.clustering.sd.graph_distances",)}``).
  They are loaded by name on the first lookup that needs them, so a room
  lower in the house never imports the room above that plugs into it, and
  ``import kanon_graph`` loads none of them. This is the only place a module
  is loaded by its name (see docs/architecture.md).

Examples
--------
>>> shapes = Registry("shape")
>>> shapes.add("square", 4)
>>> shapes.get("square"), shapes.names()
(4, ['square'])
>>> shapes.get("circle")
Traceback (most recent call last):
...
ValueError: Unknown shape 'circle'. Known shapes: ['square'].
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

__all__ = ["Registry"]


class Registry:
    """Named plug-ins of one kind.

    Parameters
    ----------
    kind : str
        What is registered, in the messages (``"metric"``, ``"risk model"``).
    plural : str, optional
        Its plural (default ``kind + "s"``).
    builtins : mapping of str to tuple of str, optional
        Each built-in name and the module(s) that register it.
    """

    def __init__(self, kind: str, plural: str | None = None, *,
                 builtins: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.kind = kind
        self.plural = plural or f"{kind}s"
        self.builtins: Mapping[str, tuple[str, ...]] = builtins if builtins is not None else {}
        #: The registrations themselves (tests may patch an entry).
        self.entries: dict[str, Any] = {}

    def load_builtin(self, name: str) -> None:
        """Import the module(s) that register the built-in ``name`` (if it is one)."""
        for module in self.builtins.get(name, ()):
            importlib.import_module(module)

    def load_builtins(self) -> None:
        """Import every built-in plug-in module."""
        for name in self.builtins:
            self.load_builtin(name)

    def add(self, name: str, entry: Any, *, replace: bool = False,
            builtin_first: bool = False) -> None:
        """Register ``entry`` as ``name``.

        ``builtin_first``: a plug-in taking a built-in's name meets the
        built-in first (so that it needs ``replace=True``, as it would had
        the built-in been loaded already).
        """
        if builtin_first and name not in self.entries:
            self.load_builtin(name)
        if name in self.entries and not replace:
            article = "An" if self.kind[:1] in "aeiou" else "A"
            raise ValueError(f"{article} {self.kind} named {name!r} is already registered; "
                             f"pass replace=True to replace it.")
        self.entries[name] = entry

    def remove(self, name: str) -> None:
        """Forget ``name`` (nothing happens when it is not registered)."""
        self.entries.pop(name, None)

    def get(self, name: Any) -> Any:
        """The entry registered as ``name``; an unknown name lists the known ones."""
        try:
            return self.entries[name]
        except (KeyError, TypeError):
            pass
        if isinstance(name, str) and name in self.builtins:
            self.load_builtin(name)
            if name in self.entries:
                return self.entries[name]
        self.load_builtins()
        try:
            return self.entries[name]
        except (KeyError, TypeError):
            raise ValueError(f"Unknown {self.kind} {name!r}. Known {self.plural}: "
                             f"{sorted(self.entries)}.") from None

    def find(self, name: str) -> Any:
        """The entry registered as ``name`` (its built-in loaded first), or None."""
        if name not in self.entries:
            self.load_builtin(name)
        return self.entries.get(name)

    def names(self) -> list[str]:
        """Every registered name (built-ins included), sorted."""
        self.load_builtins()
        return sorted(self.entries)

    def items(self) -> dict[str, Any]:
        """Every registration (built-ins included), as a new dict."""
        self.load_builtins()
        return dict(self.entries)
