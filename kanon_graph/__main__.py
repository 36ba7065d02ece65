"""``python -m kanon_graph``: the ``kanon-graph`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
