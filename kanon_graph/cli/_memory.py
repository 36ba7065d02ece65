"""The command line's memory between phases: freed pages given back, Arrow on glibc's heap.

A large run reads, counts, searches and writes in turn; what one phase
freed should not stay resident under the next one's peak (issue 47: the
1M-row streamed run's peak is the sum of what every phase left behind).
"""

from __future__ import annotations

import sys

__all__ = ["give_back_free_memory", "arrow_on_system_heap"]

_TRIM = None


def give_back_free_memory():
    """Return the heap's free pages to the system (glibc's ``malloc_trim``; else nothing).

    Parsing a large file frees many small blocks between the columns it
    keeps; glibc holds them for reuse, so the resident set stays as high as
    the parse's peak. Called between phases (read, anonymize, write), the
    next phase starts from what is live, not from the last phase's peak.
    """
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            import ctypes
            import ctypes.util

            try:
                _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
            except (OSError, AttributeError):     # not glibc (musl): nothing to give back
                _TRIM = False
    if _TRIM:
        _TRIM(0)


def arrow_on_system_heap():
    """Allocate Arrow's buffers (pandas' ``str`` columns) with the system's ``malloc``.

    pandas 3 keeps text columns in Arrow buffers, from Arrow's default pool
    (mimalloc or jemalloc), which keeps freed pages for reuse where
    :func:`give_back_free_memory` cannot reach them: the 1M-row streamed run
    held 10 MiB more after its count, and peaked 12 MiB higher, with the
    same release and CPU. Buffers already allocated stay valid (each is
    freed to the pool that made it). A run that set ``ARROW_DEFAULT_MEMORY_POOL``
    keeps its choice; without pyarrow, nothing happens.
    """
    import os

    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    try:
        import pyarrow
    except ImportError:
        return
    pyarrow.set_memory_pool(pyarrow.system_memory_pool())
