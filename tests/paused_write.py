"""``python tests/paused_write.py SECONDS kanon-graph-arguments...``: the CLI, held mid-publish.

The test seam of the publish tests (issue 21), kept out of the library: every
atomic write of :mod:`kanon_graph.io.write` (a file or a folder) waits
``SECONDS`` with its temporary complete and not yet synced nor renamed, so a
test can send a signal at that moment reliably. The wait wraps
:func:`kanon_graph.io.write.fsync_tree`, which runs exactly there.
"""

import sys
import time

from kanon_graph.cli import main
from kanon_graph.io import write


def pause_before_the_swap(seconds):
    """Make every atomic write wait ``seconds`` before it syncs and renames its temporary."""
    real = write.fsync_tree

    def paused(path):
        time.sleep(seconds)
        return real(path)

    write.fsync_tree = paused


if __name__ == "__main__":
    pause_before_the_swap(float(sys.argv[1]))
    sys.exit(main(sys.argv[2:]))
