"""One notion of progress: the ``progress=`` value of a long call, turned into a reporter.

Every long call (``anonymize`` with ``mst``, ``sd``, ``k-member``,
``bottom-up``, ``optimal``, ``incognito``, sharded and Dask runs, and
:func:`kanon_graph.compare`) takes ``progress=``:

* ``None`` or ``False`` (default): nothing is reported, at no cost;
* ``True``: a `tqdm <https://tqdm.github.io>`_ bar on stderr;
* a callable ``progress(done, total, text)``: called at each step, ``done``
  never decreasing within one call and ending at ``total``.

The algorithms report at a coarse grain (a phase, a round of merges, a
lattice level, a shard), never per record inside a compiled loop. The CLI
passes the same kind of bar, shown only on a terminal and not with
``--quiet``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any, Union

__all__ = ["Reporter", "TqdmBar", "reporter", "ProgressLike"]

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

    def _open(self, total: int | None) -> Any:
        from tqdm import tqdm

        self.close()
        fmt = "{desc} [{elapsed}]" if total is None else None
        self._bar = tqdm(total=total, desc=self.desc, file=self.stream or sys.stderr,
                         leave=self.leave, bar_format=fmt, dynamic_ncols=True)
        return self._bar

    def phase(self, text: str) -> None:
        """Show ``text`` (what runs now) with the time elapsed, no bar."""
        if self.enabled:
            self.desc = f"kanon-graph: {text}"
            self._open(None)

    def __call__(self, done: int, total: int, text: str = "") -> None:
        """Move the bar to ``done`` of ``total``; ``text`` says which step."""
        if not self.enabled:
            return
        bar = self._bar
        if bar is None or bar.total != total:
            bar = self._open(total)
        bar.set_postfix_str(text, refresh=False)
        bar.update(done - bar.n)           # drawn at most every 0.1 s (tqdm's mininterval)
        if done >= total:
            bar.refresh()                  # but the finished state always

    step = __call__

    def close(self) -> None:
        """Close the bar (shown one last time when ``leave``)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


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
