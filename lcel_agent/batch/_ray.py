"""The Ray executor: ``workers`` actors, each running several runs at once, one limiter actor.

Each worker is an asyncio actor that builds the agent once (``make_agent`` runs on the
worker) and runs up to ``max_in_flight`` items concurrently; results come back to the
driver, which alone writes the results file, so a line is written once whatever
happens to the workers. A worker that dies (process killed, node lost) is restarted by
Ray; the driver runs its in-flight items again on the workers that are still up, and
sends work to the restarted one only once it answers again.

The workers ask for no CPU slot (they wait on the network, not on the CPU, and a worker
that needs a slot could wait forever for one on a full cluster) and are dealt round the
nodes that offer CPUs, each kept on its node. A killed worker is restarted there; a
worker whose node is lost is gone, and the job goes on with the others. ``address=None`` starts a local Ray unless this process is connected already;
``"auto"`` or ``"ray://host:10001"`` joins a running cluster, whose nodes must have
lcel-agent, the agent's code and its environment (API keys) themselves: the job ships
none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks.base import BaseCallbackHandler

from .._redact import redact
from ._items import AgentFactory, Item, build_agent, check_factory
from ._limiter import AsyncRateLimitCallback, RateSchedule
from ._local import WorkerLost, check_timeout, headroom, llm_timeout_of, wait_for_room
from ._work import Finished, run_item
from .errors import BatchError, BatchRunError

__all__ = ["RayExecutor", "import_ray"]

#: How long the driver waits for any worker to answer before it gives the job up.
NO_WORKER_TIMEOUT = 120.0
#: How long a health probe of a restarted worker may take.
PROBE_TIMEOUT = 10.0


def import_ray() -> Any:
    """``import ray``, or a :class:`BatchError` that names the extra to install."""
    try:
        import ray
    except ImportError:
        raise BatchError(
            "executor='ray' needs Ray, lcel-agent's optional extra 'ray': in a clone, "
            "pip install -e '.[ray]' (or pip install 'ray>=2.9')"
        ) from None
    return ray


# --- the actors (plain classes; made remote by _remote()) ------------------------------


class _Limiter:
    """The fleet's one rate schedule. A sync actor: calls run one at a time, no lock needed."""

    def __init__(self, rpm: float | None, tpm: float | None) -> None:
        self._clock = time.monotonic
        self.schedule = RateSchedule(rpm, tpm)

    def reserve(self, tokens: int) -> float:
        return self.schedule.reserve(self._clock(), tokens)

    def settle(self, reserved: int, actual: int) -> None:
        self.schedule.settle(self._clock(), reserved, actual)

    def backlog(self) -> float:
        return self.schedule.backlog(self._clock())


class _RayPermits:
    """A worker's view of the limiter actor, as the callbacks' :class:`Permits`."""

    def __init__(self, limiter: Any) -> None:
        self.limiter = limiter

    def reserve(self, tokens: int) -> float:
        ray = import_ray()
        return float(ray.get(self.limiter.reserve.remote(tokens)))

    async def areserve(self, tokens: int) -> float:
        return float(await self.limiter.reserve.remote(tokens))

    def settle(self, reserved: int, actual: int) -> None:
        self.limiter.settle.remote(reserved, actual)  # fire and forget

    async def abacklog(self) -> float:
        return float(await self.limiter.backlog.remote())


@dataclass(frozen=True)
class WorkerInfo:
    """What a worker tells the driver when it is up."""

    pid: int
    node: str
    llm_timeout: float | None


class _Worker:
    """Builds the agent once, then runs items, several at once (an asyncio actor)."""

    def __init__(self, make_agent: AgentFactory, limiter: Any) -> None:
        self.agent = build_agent(make_agent)
        self.callbacks: list[BaseCallbackHandler] = (
            [AsyncRateLimitCallback(_RayPermits(limiter))] if limiter is not None else []
        )

    async def info(self) -> WorkerInfo:
        ray = import_ray()
        node = ray.get_runtime_context().get_node_id()
        return WorkerInfo(os.getpid(), str(node), llm_timeout_of(self.agent))

    async def run(self, item: Item) -> Finished:
        return await run_item(self.agent, item, self.callbacks)


_REMOTE: dict[str, Any] = {}


def _remote(ray: Any) -> tuple[Any, Any]:
    """The actor classes, made remote once per process."""
    if not _REMOTE:
        _REMOTE["worker"] = ray.remote(_Worker)
        _REMOTE["limiter"] = ray.remote(_Limiter)
    return _REMOTE["worker"], _REMOTE["limiter"]


# --- the driver's side -------------------------------------------------------------------

# Ray's notice that token authentication is on (its secure default) comes on every job that
# starts a local Ray; the notice that it is *off* is a warning worth reading and stays.
_AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"


def _not_the_auth_on_notice(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Token authentication is enabled")


@contextlib.contextmanager
def _quiet_auth_notice() -> Iterator[None]:
    """Drop Ray's "token authentication is enabled" notice while Ray starts."""
    logger = logging.getLogger(_AUTH_LOGGER)
    logger.addFilter(_not_the_auth_on_notice)
    try:
        yield
    finally:
        logger.removeFilter(_not_the_auth_on_notice)


@dataclass(eq=False)
class _Slot:
    actor: Any
    outstanding: int = 0
    healthy: bool = True
    dead: bool = False
    info: WorkerInfo | None = None
    probe: asyncio.Task[None] | None = field(default=None, repr=False)


def _worker_nodes(ray: Any) -> list[str]:
    """The live nodes that offer CPUs (a head kept free of work offers none), head first."""
    alive = [n for n in ray.nodes() if n.get("Alive")]
    with_cpus = [n for n in alive if n.get("Resources", {}).get("CPU", 0) > 0]
    return [str(n["NodeID"]) for n in (with_cpus or alive)]


def _on_node(ray: Any, node: str) -> Any:
    """Keep the worker on ``node``: a preference alone was not always honoured, and
    workers piled up on one node. A worker whose node is lost is gone; the others go on."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=node, soft=False)


class RayExecutor:
    """Runs items on Ray actors (see the module docstring)."""

    def __init__(
        self,
        make_agent: AgentFactory,
        *,
        address: str | None,
        workers: int | None,
        max_in_flight: int,
        rpm: float | None = None,
        tpm: float | None = None,
    ) -> None:
        check_factory(make_agent)
        self.make_agent = make_agent
        self.address = address
        self.workers = workers
        self.max_in_flight = max_in_flight
        self.schedule = RateSchedule(rpm, tpm) if rpm or tpm else None
        self.slots = max_in_flight
        self.infos: list[WorkerInfo] = []
        self._ray: Any = None
        self._owns_ray = False
        self._limiter: Any = None
        self._pool: list[_Slot] = []
        self._healthy = asyncio.Event()

    # -- starting and stopping ----------------------------------------------------------

    def connect(self) -> None:
        """Connect to Ray (or start a local one); ``start`` does it when nobody did."""
        ray = self._ray = import_ray()
        if ray.is_initialized():
            return  # the caller connected (and chose runtime_env etc.) already
        try:
            with _quiet_auth_notice():
                ray.init(
                    # None means a new local Ray, not whichever cluster Ray would find on its own
                    address=self.address or "local",
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                )
        except Exception as exc:  # no cluster there, a version mismatch, auth ...
            where = f"the Ray cluster at {self.address!r}" if self.address else "a local Ray"
            raise BatchError(redact(f"cannot start or join {where}: {exc}")) from None
        self._owns_ray = True

    async def start(self) -> None:
        self.connect()
        ray = self._ray
        worker_cls, limiter_cls = _remote(ray)
        count = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        if self.schedule is not None:
            self._limiter = limiter_cls.options(
                num_cpus=0, max_restarts=-1, max_task_retries=-1
            ).remote(self.schedule.rpm, self.schedule.tpm)
        options = {"num_cpus": 0, "max_concurrency": self.max_in_flight, "max_restarts": -1}
        nodes = _worker_nodes(ray)
        self._pool = [
            _Slot(
                worker_cls.options(
                    **options, scheduling_strategy=_on_node(ray, nodes[i % len(nodes)])
                ).remote(self.make_agent, self._limiter)
            )
            for i in range(count)
        ]
        self.slots = count * self.max_in_flight
        try:
            self.infos = list(await asyncio.gather(*(s.actor.info.remote() for s in self._pool)))
        except ray.exceptions.RayError as exc:
            raise BatchRunError(
                "a Ray worker could not start (make_agent failed, or lcel-agent or the "
                f"agent's code is missing on a node): {_reason(exc)}"
            ) from None
        for slot, info in zip(self._pool, self.infos, strict=True):
            slot.info = info
        self._healthy.set()
        if self.schedule is not None:
            for info in self.infos:
                check_timeout(self.schedule, info.llm_timeout)

    async def close(self) -> None:
        for slot in self._pool:
            if slot.probe is not None:
                slot.probe.cancel()
        ray = self._ray
        if ray is None:
            return
        for actor in [s.actor for s in self._pool] + [self._limiter]:
            if actor is not None:
                try:
                    ray.kill(actor, no_restart=True)
                except Exception:  # already dead, or the cluster is gone: nothing to stop
                    logging.getLogger(__name__).debug("could not kill a Ray actor", exc_info=True)
        self._pool = []
        if self._owns_ray:
            await asyncio.to_thread(ray.shutdown)

    # -- running ------------------------------------------------------------------------

    async def _pick(self) -> _Slot:
        while True:
            live = [s for s in self._pool if s.healthy and not s.dead]
            if live:
                return min(live, key=lambda s: s.outstanding)
            if all(s.dead for s in self._pool):
                raise BatchRunError("every Ray worker died and none can be restarted")
            self._healthy.clear()
            try:
                await asyncio.wait_for(self._healthy.wait(), NO_WORKER_TIMEOUT)
            except TimeoutError:
                raise BatchRunError(
                    f"no Ray worker has answered for {NO_WORKER_TIMEOUT:g} s"
                ) from None

    async def run(self, item: Item) -> Finished:
        ray = self._ray
        slot = await self._pick()
        slot.outstanding += 1
        try:
            finished: Finished = await slot.actor.run.remote(item)
            return finished
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, BatchError):
                raise cause from None
            raise BatchRunError(f"id {item.key}: {_reason(exc)}") from None
        except (ray.exceptions.ActorDiedError, ray.exceptions.ActorUnschedulableError) as exc:
            slot.dead = True  # gone for good (its node is lost, or restarts are exhausted)
            raise WorkerLost(_reason(exc)) from None
        except (
            ray.exceptions.RayActorError,
            ray.exceptions.WorkerCrashedError,
            ray.exceptions.ObjectLostError,
            ray.exceptions.NodeDiedError,
        ) as exc:
            self._suspect(slot)
            raise WorkerLost(_reason(exc)) from None
        finally:
            slot.outstanding -= 1

    def _suspect(self, slot: _Slot) -> None:
        """Send the slot no work until it answers a probe (Ray is restarting it)."""
        if slot.healthy:
            slot.healthy = False
            slot.probe = asyncio.create_task(self._probe(slot))

    async def _probe(self, slot: _Slot) -> None:
        ray = self._ray
        while not slot.dead:
            try:
                slot.info = await asyncio.wait_for(slot.actor.info.remote(), PROBE_TIMEOUT)
            except (ray.exceptions.ActorDiedError, ray.exceptions.ActorUnschedulableError):
                slot.dead = True
            except (ray.exceptions.RayError, TimeoutError):
                await asyncio.sleep(0.5)
            else:
                slot.healthy = True
                self._healthy.set()
                return
        self._healthy.set()  # wake _pick to notice a pool with no live slot left

    async def admit(self) -> None:
        if self._limiter is not None and self.schedule is not None:
            limiter = self._limiter

            async def backlog() -> float:
                return float(await limiter.backlog.remote())

            await wait_for_room(backlog, headroom(self.schedule))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _reason(exc: BaseException) -> str:
    """A one-line, redacted account of a Ray error: for a remote traceback, its last line
    (the exception the worker raised), else the error's first line."""
    lines = [line.strip() for line in _ANSI.sub("", str(exc)).splitlines() if line.strip()]
    remote = any(line.startswith('File "') for line in lines)
    text = (lines[-1] if remote else lines[0]) if lines else ""
    return redact(f"{type(exc).__name__}: {text}")[:800]
