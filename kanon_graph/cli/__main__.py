"""``python -m kanon_graph.cli``: the ``kanon-graph`` command."""

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
