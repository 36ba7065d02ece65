"""The explorer: a local web page to see and edit hierarchies, run, walk the lattice, compare.

:func:`explore` (``kg.explore``) and ``kanon-graph explore`` start a server
on 127.0.0.1 behind a random token (optional extra ``kanon_graph[explore]``:
Starlette and uvicorn). Every view is computed on the server from counts;
the page never receives the rows. See docs/explore.md and
docs/reference/explore-api.md.

The package shares its name with the function: importing any of its modules
makes ``kanon_graph.explore`` this package, so the package itself is callable
and ``kg.explore(table, schema)`` works either way.
"""

import sys as _sys
import types as _types

from .server import Explorer, explore, serve

__all__ = ["Explorer", "explore", "serve"]


class _CallableModule(_types.ModuleType):
    def __call__(self, *args, **kwargs):
        return explore(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
