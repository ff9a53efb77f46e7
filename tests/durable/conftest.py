"""Fixtures of the durable-run tests: savers on real storage.

``storage`` gives a function that opens a *new* saver object on one storage each time
it is called (a restarted process opens its database again): SQLite on disk, or the
in-memory saver (one object: its storage is the object). The PostgreSQL server of
the session is ``postgres_url``, in tests/conftest.py (the CLI's tests use it too).
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from durable_support import World, sqlite_saver
from langgraph.checkpoint.memory import InMemorySaver


@pytest.fixture(autouse=True, scope="module")
def _quiet_heap() -> None:
    """Collect what earlier test modules left before these allocation-heavy tests run.

    A model client used under an earlier test's ``asyncio.run`` can leave sockets behind
    (see ``closes_async_clients`` in tests/conftest.py); whichever test then happens to
    trigger the garbage collector reports them as its own ResourceWarning. The property
    test allocates enough to be that test, so the heap is collected quietly first.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture(params=["sqlite", "memory"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Open a saver on the test's storage (a new object per call for SQLite)."""
    opened: list[Any] = []
    if request.param == "sqlite":

        def open_saver() -> Any:
            saver = sqlite_saver(tmp_path / "checkpoints.db")
            opened.append(saver)
            return saver

        yield open_saver
    else:
        memory = InMemorySaver()
        yield lambda: memory
    for saver in opened:
        saver.conn.close()
