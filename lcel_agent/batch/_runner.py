"""``run_batch``: run an agent over many inputs, resumably, locally or on a Ray cluster.

::

    from lcel_agent.batch import run_batch

    summary = run_batch("myproject.agents:make_agent", tasks, out="results.jsonl",
                        executor="ray", workers=8, rpm=500)
    print(summary)

The driver streams the inputs, skips the ids already in ``out``, keeps at most
``slots`` runs in flight (``max_in_flight`` per worker), lets a new run start only
while the rate limiter has room, writes each line as its run finishes, and runs an
item again when its worker was lost. It alone writes ``out``: one line per id.

Each item carries a checkpoint thread named after the job's results file and its id
(:func:`thread_of`): with an agent built with a checkpointer that every worker
reaches, an item run again after its worker died resumes that run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import inspect
import os
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, ParamSpec, Protocol, runtime_checkable

from ..errors import ConfigurationError
from ..rules.numbers import positive_int
from ._items import AgentFactory, Item, check_factory, iter_items
from ._limiter import check_rate
from ._local import Executor, LocalExecutor, WorkerLost
from ._progress import Display, make_display
from ._store import ResultStore
from ._summary import BatchSummary
from ._tally import Tally
from .errors import BatchError, BatchInterrupted, BatchRunError

__all__ = ["arun_batch", "run_batch", "thread_of"]

ExecutorName = Literal["local", "ray"]
P = ParamSpec("P")

#: Times one item may lose its worker before the job gives up on it.
MAX_LOST = 5


@dataclass(frozen=True)
class _Job:
    make_agent: AgentFactory
    inputs: Iterable[Any]
    out: Path
    executor: ExecutorName
    address: str | None
    workers: int | None
    max_in_flight: int
    rpm: float | None
    tpm: float | None
    progress: bool
    total: int | None


def thread_of(out: Path, key: str) -> str:
    """The checkpoint thread of item ``key`` in the job writing ``out`` (same job, same
    thread: a job started again on its results file resumes its unfinished runs too)."""
    job = hashlib.sha256(str(out.resolve()).encode("utf-8")).hexdigest()[:12]
    return f"lcel-agent-batch:{job}:{key}"


def _job(
    make_agent: AgentFactory,
    inputs: Iterable[Any],
    out: str | os.PathLike[str],
    executor: str,
    address: str | None,
    workers: int | None,
    max_in_flight: int,
    rpm: float | None,
    tpm: float | None,
    progress: bool,
) -> _Job:
    """Check every argument before anything runs or any file is touched."""
    check_factory(make_agent)
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__iter__"):
        raise TypeError(f"inputs must be an iterable of tasks, not {type(inputs).__name__}")
    if not isinstance(out, (str, os.PathLike)):
        raise TypeError(f"out must be a file path, not {type(out).__name__}")
    if executor not in ("local", "ray"):
        raise ConfigurationError(f"executor must be 'local' or 'ray', got {executor!r}")
    if executor == "local" and address is not None:
        raise ConfigurationError("address is for executor='ray' (the Ray cluster to join)")
    if address is not None and not isinstance(address, str):
        raise TypeError("address must be a string: 'auto' or 'ray://host:10001'")
    if workers is not None:
        positive_int("workers", workers)
        if executor == "local" and workers != 1:
            raise ConfigurationError(
                "the local executor is one worker: use executor='ray' for more, "
                "or max_in_flight for more runs at once"
            )
    if executor == "ray":
        from ._ray import import_ray

        import_ray()  # a clear error naming the extra, before any file is touched
    return _Job(
        make_agent=make_agent,
        inputs=inputs,
        out=Path(out),
        executor=executor,  # type: ignore[arg-type]
        address=address,
        workers=workers,
        max_in_flight=positive_int("max_in_flight", max_in_flight),
        rpm=check_rate("rpm", rpm),
        tpm=check_rate("tpm", tpm),
        progress=bool(progress),
        total=len(inputs) if isinstance(inputs, Sized) else None,
    )


@runtime_checkable
class _Connects(Protocol):
    def connect(self) -> None: ...


def _executor(job: _Job) -> Executor:
    if job.executor == "ray":
        from ._ray import RayExecutor

        return RayExecutor(
            job.make_agent,
            address=job.address,
            workers=job.workers,
            max_in_flight=job.max_in_flight,
            rpm=job.rpm,
            tpm=job.tpm,
        )
    return LocalExecutor(job.make_agent, max_in_flight=job.max_in_flight, rpm=job.rpm, tpm=job.tpm)


# --- the driver ----------------------------------------------------------------------------


async def _one(
    executor: Executor, item: Item, store: ResultStore, tally: Tally, display: Display
) -> None:
    """Run one item to its line, again on another worker when its worker is lost."""
    lost: WorkerLost | None = None
    for attempt in range(MAX_LOST):
        try:
            run = await executor.run(item)
        except WorkerLost as exc:
            lost = exc
            tally.reruns += 1
            await asyncio.sleep(min(0.25 * 2**attempt, 4.0))
            continue
        store.append(run.line)
        tally.add(run)
        display.update(tally)
        return
    raise BatchRunError(
        f"id {item.key}: its worker was lost {MAX_LOST} times in a row (last: {lost}); "
        "the input may be what kills it"
    )


async def _tick(store: ResultStore, display: Display, tally: Tally) -> None:
    """Keep the fsync interval bounded and the ETA moving while no run finishes."""
    while True:
        await asyncio.sleep(store.fsync_every)
        store.sync()
        display.update(tally)


async def _drive(
    job: _Job, executor: Executor, store: ResultStore, tally: Tally, display: Display
) -> None:
    room = asyncio.Semaphore(executor.slots)
    running: set[asyncio.Task[None]] = set()
    errors: list[BaseException] = []

    def settle(task: asyncio.Task[None]) -> None:
        running.discard(task)
        room.release()
        if not task.cancelled() and (exc := task.exception()) is not None:
            errors.append(exc)

    ticker = asyncio.create_task(_tick(store, display, tally))
    try:
        try:
            for item in iter_items(job.inputs):
                if item.key in store:
                    tally.skipped += 1
                    display.update(tally)
                    continue
                await room.acquire()
                if errors:
                    room.release()
                    break
                await executor.admit()
                item = dataclasses.replace(item, thread=thread_of(job.out, item.key))
                task = asyncio.create_task(_one(executor, item, store, tally, display))
                running.add(task)
                task.add_done_callback(settle)
        except Exception as exc:  # a bad input, or the inputs' own iterator failed
            errors.append(exc)
        if running:  # whatever stopped the job, the runs already going finish and are kept
            await asyncio.wait(set(running))
        if errors:
            raise errors[0]
    finally:
        ticker.cancel()
        for task in running:  # only when cancelled (Ctrl-C): unfinished runs have no line
            task.cancel()
        await asyncio.gather(*running, ticker, return_exceptions=True)


async def _main(
    job: _Job, executor: Executor, interrupted: list[BatchSummary], started: float | None = None
) -> BatchSummary:
    """The job: start the workers (they check the agent), then open ``out`` and run.

    The workers start first, so an agent the job cannot use (``rpm`` too low for its
    ``llm_timeout``, a ``make_agent`` that raises) is refused before ``out`` is touched
    or any progress is shown. ``started`` is when the job began (before Ray was joined).
    """
    tally = Tally(out=str(job.out), total=job.total)
    if started is not None:
        tally.started = started
    try:
        try:
            await executor.start()
        except asyncio.CancelledError:
            interrupted.append(tally.summary(completed=False))
            raise
        tally.running_since = time.monotonic()
        with ResultStore(job.out) as store:
            tally.repaired = store.repaired
            display = make_display(job.progress, tally)
            try:
                await _drive(job, executor, store, tally, display)
            except asyncio.CancelledError:
                interrupted.append(tally.summary(completed=False))
                raise
            except BatchError as exc:
                exc.summary = tally.summary(completed=False)
                raise
            finally:
                display.close(tally)
    finally:
        await executor.close()  # also when out could not be opened: Ray may be up already
    return tally.summary(completed=True)


# --- the public functions ------------------------------------------------------------------


def _async_twin_of(
    sync: Callable[P, BatchSummary],
) -> Callable[[Callable[..., Awaitable[BatchSummary]]], Callable[P, Awaitable[BatchSummary]]]:
    """Make an async function the twin of ``sync``: it takes ``sync``'s arguments, by the
    one signature ``sync`` declares (its defaults applied), and gets them all by name."""
    signature = inspect.signature(sync)

    def twin(run: Callable[..., Awaitable[BatchSummary]]) -> Callable[P, Awaitable[BatchSummary]]:
        @functools.wraps(run)
        async def bound(*args: P.args, **kwargs: P.kwargs) -> BatchSummary:
            arguments = signature.bind(*args, **kwargs)
            arguments.apply_defaults()
            return await run(**arguments.arguments)

        bound.__signature__ = signature  # type: ignore[attr-defined]  # help() shows it
        return bound

    return twin


def run_batch(
    make_agent: AgentFactory,
    inputs: Iterable[Any],
    *,
    out: str | os.PathLike[str],
    executor: ExecutorName = "local",
    address: str | None = None,
    workers: int | None = None,
    max_in_flight: int = 32,
    rpm: float | None = None,
    tpm: float | None = None,
    progress: bool = True,
) -> BatchSummary:
    """Run the agent built by ``make_agent`` on every input; one line per input in ``out``.

    Args:
        make_agent: a zero-argument callable that builds the agent (importable, so a
            Ray worker can run it: a module-level function, or a ``functools.partial``
            of one), or a ``"module:function"`` string. Each worker builds its agent once.
        inputs: task strings, or dicts ``{"id": ..., "input": ...}`` (the id defaults to
            the position, from 0). Streamed: a generator is read as the job goes.
        out: the JSON Lines results file: ``{"id", "input", "result"}`` per line, with
            ``result`` = ``AgentResult.to_dict()``. Ids already there are skipped (resume).
        executor: ``"local"`` (asyncio in this process) or ``"ray"`` (the ``ray`` extra).
        address: with Ray, ``None`` starts a local Ray (or uses the one this process is
            connected to), ``"auto"`` or ``"ray://host:10001"`` joins a cluster.
        workers: Ray actors (default: the cluster's CPU count).
        max_in_flight: runs at once per worker.
        rpm, tpm: requests and tokens per minute for the whole job, all workers together.
        progress: show progress on stderr.

    Returns:
        A :class:`BatchSummary` (``print(summary)`` shows a short table).

    Raises:
        BatchInterrupted: Ctrl-C; every finished run is in ``out`` (``.summary``).
        BatchError: the job could not go on (see :mod:`lcel_agent.batch.errors`).
        TypeError, ConfigurationError: bad arguments, before anything runs.
    """
    job = _job(
        make_agent, inputs, out, executor, address, workers, max_in_flight, rpm, tpm, progress
    )
    started = time.monotonic()  # the summary's time includes joining (or booting) Ray
    runner = _executor(job)
    if isinstance(runner, _Connects):
        runner.connect()  # here, in the caller's (main) thread: Ray sets signal handlers
    interrupted: list[BatchSummary] = []
    loop = _job_loop()
    job_main = _main(job, runner, interrupted, started)
    task = asyncio.run_coroutine_threadsafe(_start(job_main), loop).result()
    ended = threading.Event()
    loop.call_soon_threadsafe(task.add_done_callback, lambda _task: ended.set())
    try:
        ended.wait()
    except KeyboardInterrupt:
        loop.call_soon_threadsafe(task.cancel)
        ended.wait()  # the job writes what finished and stops its workers (a second ^C: now)
        if interrupted:
            raise BatchInterrupted(interrupted[0]) from None
        raise
    return task.result()


@_async_twin_of(run_batch)
async def arun_batch(**arguments: Any) -> BatchSummary:
    """Async twin of :func:`run_batch` (for notebooks and async programs), with its
    arguments.

    Cancelling it stops the job like Ctrl-C does: runs in flight are abandoned,
    every finished one is already in ``out``; ``CancelledError`` propagates.
    """
    job = _job(**arguments)
    return await _main(job, _executor(job), [])


# --- the loop jobs run on ------------------------------------------------------------------

_LOOP: list[asyncio.AbstractEventLoop] = []
_LOOP_LOCK = threading.Lock()


def _job_loop() -> asyncio.AbstractEventLoop:
    """The event loop ``run_batch`` runs jobs on: one per process, on a daemon thread.

    One loop for every job of the process, not one ``asyncio.run`` per job: model clients
    keep pooled connections (langchain-openai caches its HTTP clients per endpoint), and
    connections made on a loop that has since closed would leak into the next job. It
    also lets ``run_batch`` be called where a loop already runs (a notebook).
    """
    with _LOOP_LOCK:
        if not _LOOP:
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="lcel-agent-batch", daemon=True).start()
            _LOOP.append(loop)
        return _LOOP[0]


async def _start(job: Coroutine[Any, Any, BatchSummary]) -> asyncio.Task[BatchSummary]:
    return asyncio.ensure_future(job)
