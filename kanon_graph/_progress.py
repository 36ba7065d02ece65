"""One notion of progress: the ``progress=`` value of a long call, turned into a reporter.

Every long call (``anonymize`` with ``mst``, ``sd``, ``k-member``,
``bottom-up``, ``optimal``, ``incognito``, ``rv-global``, ``rv-hybrid``,
sharded and Dask runs, and
:func:`kanon_graph.compare`) takes ``progress=``:

* ``None`` or ``False`` (default): nothing is reported, at no cost;
* ``True``: a `tqdm <https://tqdm.github.io>`_ bar on stderr;
* a callable ``progress(done, total, text)``: called at each step, ``done``
  never decreasing within one call and ending at ``total``.

The algorithms report at a coarse grain (a phase, a round of merges, a
lattice level, a shard), never per record inside a compiled loop. A call
that runs in stages (``auto``'s trials, then the chosen algorithm) reports
each stage with its own ``total``; ``done`` rises within a stage. The CLI
passes the same kind of bar, shown only on a terminal and not with
``--quiet``.

The bar's line is redrawn every :data:`TICK` seconds while it is open, so the
elapsed time moves during a long step that reports nothing; a terminal that
reports no width (a pseudo-terminal opened without a window size) gets
:data:`FALLBACK_COLUMNS` columns, where tqdm would draw nothing.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import IO, Any, Union

__all__ = ["Reporter", "TqdmBar", "reporter", "ProgressLike", "TICK", "FALLBACK_COLUMNS",
           "write_line"]

#: Seconds between two redraws of an open bar (the elapsed time moves).
TICK = 1.0

#: The width of the bar on a terminal that reports none (0 columns; 24 lines then).
FALLBACK_COLUMNS = 80

#: What a ``progress=`` parameter accepts.
ProgressLike = Union[None, bool, Callable[[int, int, str], object]]


class TqdmBar:
    """A tqdm bar driven by ``(done, total, text)`` calls, with named phases.

    Parameters
    ----------
    stream : file, optional
        Where the bar is drawn (default ``sys.stderr`` at the time of each draw).
    enabled : bool
        False draws nothing (a quiet or piped command line).
    leave : bool
        Keep the last state of the bar on screen after :meth:`close`.
    prefix : str
        Shown before the bar until a :meth:`phase` names one.
    """

    def __init__(self, stream: IO[str] | None = None, *, enabled: bool = True,
                 leave: bool = True, prefix: str = "kanon-graph") -> None:
        self.stream = stream
        self.enabled = enabled
        self.leave = leave
        self.desc = prefix
        self._bar: Any = None
        self._lock = threading.RLock()
        self._ticker: threading.Thread | None = None
        self._stop = threading.Event()

    def _open(self, total: int | None) -> Any:
        from tqdm import tqdm

        self._close_bar()
        stream = self.stream or sys.stderr
        fmt = "{desc} [{elapsed}]" if total is None else None
        width = _columns(stream)
        with self._lock:
            self._bar = tqdm(total=total, desc=self.desc, file=stream, leave=self.leave,
                             bar_format=fmt, dynamic_ncols=width is None,
                             ncols=FALLBACK_COLUMNS if width == 0 else None,
                             nrows=24 if width == 0 else None)
        if self._ticker is None:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="kanon-graph-progress",
                                            daemon=True)
            self._ticker.start()
        return self._bar

    def _tick(self) -> None:
        """Redraw the open bar every :data:`TICK` seconds until :meth:`close`."""
        while not self._stop.wait(TICK):
            with self._lock:
                if self._bar is not None:
                    self._bar.refresh()

    def phase(self, text: str) -> None:
        """Show ``text`` (what runs now) with the time elapsed, no bar."""
        if self.enabled:
            self.desc = f"kanon-graph: {text}"
            self._open(None)

    def __call__(self, done: int, total: int, text: str = "") -> None:
        """Move the bar to ``done`` of ``total``; ``text`` says which step."""
        if not self.enabled:
            return
        with self._lock:
            bar = self._bar
            if bar is None or bar.total != total:
                bar = self._open(total)
            bar.set_postfix_str(text, refresh=False)
            bar.update(done - bar.n)       # drawn at most every 0.1 s (tqdm's mininterval)
            if done >= total:
                bar.refresh()              # but the finished state always

    step = __call__

    def _close_bar(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    def close(self) -> None:
        """Close the bar (shown one last time when ``leave``) and stop its redraws."""
        self._close_bar()
        if self._ticker is not None and threading.current_thread() is not self._ticker:
            self._stop.set()
            self._ticker.join()
            self._ticker = None


def write_line(text: str, stream: IO[str] | None = None) -> None:
    """Write ``text`` as a line of its own on ``stream`` (default ``sys.stderr``).

    An open bar on the same terminal is cleared first and drawn again
    below the line (tqdm's ``write``), so a warning printed during a long
    step does not land on the bar's line. Without tqdm loaded no bar is
    open, and the line is simply printed.
    """
    stream = stream if stream is not None else sys.stderr
    tqdm = sys.modules.get("tqdm")
    if tqdm is None:
        print(text, file=stream)
    else:
        tqdm.tqdm.write(text, file=stream)


def _columns(stream: Any) -> int | None:
    """The terminal width of ``stream``: None when it is no terminal (tqdm decides)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None


class Reporter:
    """What an algorithm reports to: call it with ``(done, total, text)``.

    A reporter made from ``None`` / ``False`` is falsy and does nothing, so
    ``if report:`` guards any work done only to report.
    """

    def __init__(self, callback: Callable[[int, int, str], object] | None = None, *,
                 owned: TqdmBar | None = None) -> None:
        self._callback = callback
        self._owned = owned

    def __bool__(self) -> bool:
        return self._callback is not None

    def __call__(self, done: int, total: int, text: str = "") -> None:
        if self._callback is not None:
            self._callback(int(done), int(total), str(text))

    def close(self) -> None:
        """Close the tqdm bar this reporter made for ``progress=True`` (if any)."""
        if self._owned is not None:
            self._owned.close()

    def __enter__(self) -> Reporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def reporter(progress: Any, where: str) -> Reporter:
    """Turn the ``progress=`` value of ``where`` into a :class:`Reporter`.

    Parameters
    ----------
    progress : None, bool, callable or Reporter
        See the module docstring. A :class:`Reporter` is returned as it is,
        so a call can hand its own reporter on to the calls it makes.
    where : str
        The public function, named in the error for a bad value.

    Returns
    -------
    Reporter

    Raises
    ------
    ValueError
        For any other value, naming the parameter and the value.

    Examples
    --------
    >>> seen = []
    >>> report = reporter(lambda done, total, text: seen.append((done, total)), "anonymize")
    >>> report(1, 2, "half"); report(2, 2, "done"); seen
    [(1, 2), (2, 2)]
    >>> bool(reporter(None, "anonymize"))
    False
    """
    if isinstance(progress, Reporter):
        return progress
    if progress is None or progress is False:
        return Reporter()
    if progress is True:
        bar = TqdmBar()
        return Reporter(bar, owned=bar)
    if callable(progress) and not isinstance(progress, (str, bytes)):
        return Reporter(progress)
    raise ValueError(f"The 'progress' parameter of {where} must be None, True, False or a "
                     f"callable progress(done, total, text). Got {progress!r}.")
