"""The signals that end a command: Ctrl-C, and what ``timeout``, ``docker stop`` and a closed terminal send.

::

    with handled(restore=False):     # main(): SIGTERM and SIGHUP raise Stopped from here on
        ...                          # every `except KeyboardInterrupt` stops the run
    settle()                         # the result is stored: no signal changes it now
    status(), said()                 # 143, "stopped by SIGTERM" (130, "interrupted" for ^C)

SIGINT raises Python's own ``KeyboardInterrupt``; SIGTERM and SIGHUP raise
:class:`Stopped`, a ``KeyboardInterrupt`` too, at the same place, so everything a run
does on Ctrl-C it does on them: the step in flight is abandoned, the store is closed
(SQLite folds its ``-wal`` file back), the command that resumes the run is printed,
and the exit status is 128 plus the signal's number, as shells report it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["Stopped", "handled", "said", "settle", "status"]

#: The signals that stop a run as Ctrl-C does (SIGHUP does not exist on Windows).
_STOPPING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_received: list[int] = []


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where Ctrl-C's ``KeyboardInterrupt`` would be."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _stop(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise Stopped(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def handled(*, restore: bool) -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Stopped` while open; ``restore``: the caller's
    handlers (SIGINT's too, which :func:`settle` may have changed) come back at the end."""
    if not _main_thread():  # only the main thread may set handlers; Ctrl-C still works
        yield
        return
    _received.clear()
    kept: dict[int, Any] = {s: signal.getsignal(s) for s in (signal.SIGINT, *_STOPPING)}
    for signum in _STOPPING:
        signal.signal(signum, _stop)
    try:
        yield
    finally:
        if restore:
            for signum, handler in kept.items():
                if handler is not None:
                    signal.signal(signum, handler)


def settle() -> None:
    """The run's result is in hand (and stored, for a checkpointed run): from here on no
    signal changes it, so the command prints the result and exits by it.

    :func:`handled` restores the handlers for a caller that gave ``main`` its ``argv``; as
    the process's command it leaves them ignored, so a signal during the interpreter's
    exit cannot turn a finished run into a death by signal.
    """
    if _main_thread():
        for signum in (signal.SIGINT, *_STOPPING):
            signal.signal(signum, signal.SIG_IGN)


def _last(exc: BaseException | None) -> int:
    if isinstance(exc, Stopped):
        return exc.signum
    return _received[-1] if _received else int(signal.SIGINT)


def status(exc: BaseException | None = None) -> int:
    """The exit status of a command a signal stopped: 130 (Ctrl-C), 143 (SIGTERM), 129
    (SIGHUP)."""
    return 128 + _last(exc)


def said(exc: BaseException | None = None) -> str:
    """How the command says it was stopped: ``interrupted`` (Ctrl-C), ``stopped by SIGTERM``."""
    signum = _last(exc)
    return "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
