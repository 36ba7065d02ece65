"""Compiled kernels that cost nothing until they are first called.

``import numba`` takes a tenth of a second and compiling (or loading from
the on-disk cache) every kernel takes more, so the modules that hold numba
kernels decorate them with :func:`njit` from here instead of numba's own. The
decorator returns a :class:`LazyKernel`: numba is imported, and the kernel
compiled, on the kernel's first call (or later: see below). Every kernel is compiled with
``cache=True``, so a second process loads the machine code numba wrote the
first time instead of compiling again.

A kernel that calls other kernels finds them as module globals (or closure
cells); numba can only type a call to one of its own dispatchers, so before a
kernel is compiled every lazy kernel it refers to is compiled first and the
reference rebound to the dispatcher (what an eager ``numba.njit`` would have
left there).

A first run compiles only what it must (issue 32). A kernel may declare
the *work* of a call (``@njit(work=lambda codes, ...: codes.size)``: about
how many steps of its inner loops the call takes). While the work a
declared kernel has run in this process stays within :data:`PYTHON_WORK`,
the call runs the kernel's plain-Python source (:attr:`LazyKernel.py_func`)
instead of compiling it, so a small table compiles only the kernels it calls
thousands of times (``kanon-graph demo``: the lattice search's four, not the
record graph's refinement, whose first compile alone takes seconds). The
first call that would take
the kernel past the budget compiles it, as before (a Python run ends where
compiling costs less than it would go on costing; the rule is a fixed count,
not a clock, so the same call takes the same path on every machine). A kernel
whose machine code numba's cache already holds (an earlier process compiled it)
is loaded at once instead: loading costs milliseconds. Both
paths run the same source on the same arrays and return the same values
(``tests/test_first_run.py`` runs every declared kernel both ways). A kernel
without a declared work always compiles; kernels that another kernel calls
while it runs as Python run as Python too (their work is part of the
caller's).

Where numba cannot cache (no writable cache directory for an installed
wheel), the kernel is compiled without a cache, silently: users see no
warning, only a recompilation in every new process.

Without numba installed, the kernels run as plain Python (slowly).

A run may forgo numba (:func:`numpy_only`): numba's import, its CPU target
and LLVM hold about 125 MiB of a process however small the kernel, more
than a streamed command line's whole data (issue 47). Inside the block
:func:`compiling` is False, so the searches that have a numpy path take it
(the lattice's frequency engine and node space), and a lazy kernel not yet
compiled runs as plain Python; numba is never imported.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import threading
import types
import warnings

__all__ = ["HAVE_NUMBA", "PYTHON_WORK", "LazyKernel", "njit", "kernels", "compiling",
           "numpy_only"]

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
"""Whether numba is installed (found without importing it)."""

PYTHON_WORK = 5_000_000
"""Steps of work a declared kernel runs as plain Python in a process before it is compiled.

At the speed of a loop over numpy arrays in Python, well under what compiling
the kernel would cost (0.2 to 3.3 s for the demo's kernels with their
callees, measured). 0 compiles every kernel on its first call.
"""

_COMPILING = threading.RLock()  # kernels called from threads compile once (recursive: callees)
_ACCOUNT = threading.Lock()     # the work run as Python, counted once per call
_PYTHON = threading.local()     # .depth > 0: inside a kernel running as Python
_KERNELS = []                   # every LazyKernel made, in the order of definition
_FORGONE = [0]                  # > 0: inside numpy_only() (nested blocks counted)


def compiling() -> bool:
    """Whether kernels may be compiled now: numba is installed and no :func:`numpy_only`
    block is running. A caller with a numpy path of its own takes it when this is False."""
    return HAVE_NUMBA and not _FORGONE[0]


@contextlib.contextmanager
def numpy_only():
    """A block that never imports numba: :func:`compiling` is False inside it, and a lazy
    kernel not compiled yet runs as plain Python (one compiled before keeps running
    compiled: its memory is paid already).

    >>> with numpy_only():
    ...     compiling()
    False
    """
    _FORGONE[0] += 1
    try:
        yield
    finally:
        _FORGONE[0] -= 1


class LazyKernel:
    """A function compiled by ``numba.njit`` on its first call.

    Parameters
    ----------
    function : callable
        The kernel's Python source, numba's nopython subset.
    options : dict
        Options for ``numba.njit``; ``cache`` defaults to True.
    work : callable, optional
        ``work(*args, **kwargs)``: about how many inner-loop steps a call
        takes. Given, the kernel runs as plain Python while the work it has
        run so far stays within :data:`PYTHON_WORK` (see the module
        docstring); omitted, it compiles on its first call.

    Attributes
    ----------
    python_work : int
        The declared work of the calls run as Python in this process.
    """

    def __init__(self, function, options, work=None):
        self.py_func = function
        self.options = {"cache": True, **options}
        self.work = work
        self.python_work = 0
        self._dispatcher = None
        self._candidate = None      # the dispatcher made (not compiled) to ask numba's cache
        self._warm = None
        functools.update_wrapper(self, function)
        _KERNELS.append(self)

    def compile(self):
        """Import numba, compile the kernel (or load it from the cache), and return it."""
        with _COMPILING:
            if self._dispatcher is None:
                if not HAVE_NUMBA:  # pragma: no cover - exercised only without numba
                    self._dispatcher = self.py_func
                    return self._dispatcher
                _bind_callees(self.py_func)
                self._dispatcher = self._candidate or _compile(self.py_func, self.options)
        return self._dispatcher

    @property
    def compiled(self) -> bool:
        """Whether the kernel has been compiled in this process."""
        return self._dispatcher is not None

    def __call__(self, *args, **kwargs):
        if self._dispatcher is not None:
            return self._dispatcher(*args, **kwargs)
        if _FORGONE[0] or self._as_python(args, kwargs):
            return self._run_python(args, kwargs)
        kernel = self.compile()
        with _quiet_cache():  # numba compiles (and saves to its cache) on the first call
            return kernel(*args, **kwargs)

    def _as_python(self, args, kwargs):
        """Whether this call runs as Python (and if so, its work is counted)."""
        if getattr(_PYTHON, "depth", 0):  # called by a kernel running as Python
            return True
        if self.work is None or not HAVE_NUMBA or self._cached():
            return False
        steps = int(self.work(*args, **kwargs))
        with _ACCOUNT:
            if self.python_work + steps > PYTHON_WORK:
                return False
            self.python_work += steps
        return True

    def _cached(self):
        """Whether numba's cache already holds this kernel's machine code (asked once).

        Loading it costs a few milliseconds, far less than a Python run of the
        budget: a CLI call on a table the last call compiled for spent 2.4 s CPU
        running kernels as Python against 0.6 s loading them (patients, 20,000
        rows, k = 5). The dispatcher made to ask is the one :meth:`compile` uses.
        """
        if self._warm is None:
            with _COMPILING:
                if self._candidate is None:
                    self._candidate = _compile(self.py_func, self.options)
                try:
                    index = self._candidate._cache._cache_file._index_path
                    self._warm = bool(self.options.get("cache")) and os.path.exists(index)
                except AttributeError:       # uncached, or another numba's layout
                    self._warm = False
        return self._warm

    def _run_python(self, args, kwargs):
        import numpy as np

        _PYTHON.depth = getattr(_PYTHON, "depth", 0) + 1
        try:  # as compiled: numba's integers wrap silently, numpy's scalars warn
            with np.errstate(over="ignore"):
                return self.py_func(*args, **kwargs)
        finally:
            _PYTHON.depth -= 1

    def __repr__(self):
        state = "compiled" if self.compiled else "not compiled yet"
        return f"<LazyKernel {self.py_func.__qualname__} ({state})>"


def njit(*args, work=None, **options):
    """Decorate a kernel for numba, compiled lazily (``@njit`` or ``@njit(**options)``).

    ``work``, a callable taking the kernel's arguments, declares about how
    many steps a call takes, so that small calls run as Python
    (:class:`LazyKernel`); every other option goes to ``numba.njit``.
    """
    if len(args) == 1 and callable(args[0]) and not options and work is None:
        return LazyKernel(args[0], {})
    if args:
        raise TypeError("njit takes the kernel, or keyword options only")
    return lambda function: LazyKernel(function, options, work)


def kernels():
    """Every lazy kernel defined so far (in the modules imported), in definition order."""
    return list(_KERNELS)


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
