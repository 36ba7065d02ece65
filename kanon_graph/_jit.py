"""Compiled kernels that cost nothing until they are first called.

``import numba`` takes a tenth of a second and compiling (or loading from
the on-disk cache) every kernel takes more, so the modules that hold numba
kernels decorate them with :func:`njit` from here instead of numba's own. The
decorator returns a :class:`LazyKernel`: numba is imported, and the kernel
compiled, on the kernel's first call. Every kernel is compiled with
``cache=True``, so a second process loads the machine code numba wrote the
first time instead of compiling again.

A kernel that calls other kernels finds them as module globals (or closure
cells); numba can only type a call to one of its own dispatchers, so before a
kernel is compiled every lazy kernel it refers to is compiled first and the
reference rebound to the dispatcher (what an eager ``numba.njit`` would have
left there).

Where numba cannot cache (no writable cache directory for an installed
wheel), the kernel is compiled without a cache, silently: users see no
warning, only a recompilation in every new process.

Without numba installed, the kernels run as plain Python (slowly).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import threading
import types
import warnings

__all__ = ["HAVE_NUMBA", "LazyKernel", "njit"]

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
"""Whether numba is installed (found without importing it)."""

_COMPILING = threading.RLock()  # kernels called from threads compile once (recursive: callees)


class LazyKernel:
    """A function compiled by ``numba.njit`` on its first call.

    Parameters
    ----------
    function : callable
        The kernel's Python source, numba's nopython subset.
    options : dict
        Options for ``numba.njit``; ``cache`` defaults to True.
    """

    def __init__(self, function, options):
        self.py_func = function
        self.options = {"cache": True, **options}
        self._dispatcher = None
        functools.update_wrapper(self, function)

    def compile(self):
        """Import numba, compile the kernel (or load it from the cache), and return it."""
        with _COMPILING:
            if self._dispatcher is None:
                if not HAVE_NUMBA:  # pragma: no cover - exercised only without numba
                    self._dispatcher = self.py_func
                    return self._dispatcher
                _bind_callees(self.py_func)
                self._dispatcher = _compile(self.py_func, self.options)
        return self._dispatcher

    @property
    def compiled(self) -> bool:
        """Whether the kernel has been compiled in this process."""
        return self._dispatcher is not None

    def __call__(self, *args, **kwargs):
        if self._dispatcher is not None:
            return self._dispatcher(*args, **kwargs)
        kernel = self.compile()
        with _quiet_cache():  # numba compiles (and saves to its cache) on the first call
            return kernel(*args, **kwargs)

    def __repr__(self):
        state = "compiled" if self.compiled else "not compiled yet"
        return f"<LazyKernel {self.py_func.__qualname__} ({state})>"


def njit(*args, **options):
    """Decorate a kernel for numba, compiled lazily (``@njit`` or ``@njit(**options)``)."""
    if len(args) == 1 and callable(args[0]) and not options:
        return LazyKernel(args[0], {})
    if args:
        raise TypeError("njit takes the kernel, or keyword options only")
    return lambda function: LazyKernel(function, options)


def _names(code):
    """Every global name a code object (and the code nested in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _bind_callees(function):
    """Compile the lazy kernels ``function`` calls and rebind its references to them."""
    module_globals = function.__globals__
    for name in _names(function.__code__):
        callee = module_globals.get(name)
        if isinstance(callee, LazyKernel):
            module_globals[name] = callee.compile()
    for cell in function.__closure__ or ():
        try:
            callee = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(callee, LazyKernel):
            cell.cell_contents = callee.compile()


@contextlib.contextmanager
def _quiet_cache():
    """Hide numba's warnings about its cache (numba then works uncached)."""
    from numba.core.errors import NumbaWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=NumbaWarning, message=".*[Cc]ach")
        yield


def _compile(function, options):
    """``numba.njit(**options)(function)``, without a cache where numba cannot keep one."""
    import numba

    if not options.get("cache"):
        return numba.njit(**options)(function)
    try:
        with _quiet_cache():
            return numba.njit(**options)(function)
    except RuntimeError as error:  # "cannot cache function ...: no locator available"
        if "cache" not in str(error):
            raise
        return numba.njit(**{**options, "cache": False})(function)
