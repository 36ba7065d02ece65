"""The explorer: a local web page to see and edit hierarchies, run, walk the lattice, compare.

:func:`explore` (``kg.explore``) and ``kanon-graph explore`` start a server
on 127.0.0.1 behind a random token (optional extra ``kanon_graph[explore]``:
Starlette and uvicorn). Every view is computed on the server from counts;
the page never receives the rows. See docs/explore.md and
docs/reference/explore-api.md.

The package is ``explorer`` and the function ``explore``: importing the
package never shadows ``kg.explore``.
"""

from .server import Explorer, explore, serve

__all__ = ["Explorer", "explore", "serve"]

