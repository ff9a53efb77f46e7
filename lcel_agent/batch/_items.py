"""What a batch job runs: its inputs, one :class:`Item` each, and the agent factory.

An input is a task string or a dict ``{"id": ..., "input": ...}``; without an id, the
item's position in the inputs (0-based) is its id. Ids are strings or integers and
must not repeat: the results file holds exactly one line per id.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BatchInputError

__all__ = ["AgentFactory", "Item", "TaskFile", "build_agent", "item_of", "iter_items", "key_of"]

#: ``make_agent``: a zero-argument callable that builds the agent, or ``"module:function"``.
AgentFactory = Callable[[], Any] | str


@dataclass(frozen=True, slots=True)
class Item:
    """One input of the job."""

    id: str | int
    """The id written in the results line."""
    input: Any
    """What the agent is invoked with (a task string, or any input the agent accepts)."""
    thread: str | None = None
    """The checkpoint thread of the item's run, set by the job (used when the agent has a
    checkpointer: a run whose worker died is resumed, not started over)."""

    @property
    def key(self) -> str:
        """The id as JSON text: ``1`` and ``"1"`` are different ids, as in the file."""
        return key_of(self.id)


def key_of(item_id: str | int) -> str:
    """The canonical text of an id (its JSON), used to match ids across runs."""
    return json.dumps(item_id, ensure_ascii=False)


def _position(position: int) -> str:
    return f"input #{position}"


def item_of(value: Any, position: int, where: str | None = None) -> Item:
    """Turn one raw input into an :class:`Item`, or raise :class:`BatchInputError` saying why."""
    where = where or _position(position)
    if isinstance(value, str):
        item_id: Any = position
        task: Any = value
    elif isinstance(value, Mapping):
        if "input" not in value:
            raise BatchInputError(
                f"{where}: a dict input needs an 'input' key, got keys {sorted(map(str, value))}"
            )
        item_id, task = value.get("id", position), value["input"]
    else:
        raise BatchInputError(
            f"{where}: an input is a task string or a dict {{'id': ..., 'input': ...}}, "
            f"not {type(value).__name__}"
        )
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)):
        raise BatchInputError(f"{where}: an id is a string or an integer, not {item_id!r}")
    if isinstance(task, str) and not task.strip():
        raise BatchInputError(f"{where}: the task is empty")
    try:
        json.dumps(task, ensure_ascii=False)
    except (TypeError, ValueError):
        raise BatchInputError(
            f"{where}: the input must be JSON-serialisable (it is written to the results file)"
        ) from None
    return Item(item_id, task)


def iter_items(inputs: Iterable[Any]) -> Iterator[Item]:
    """Stream ``inputs`` as items, one at a time; a repeated id raises :class:`BatchInputError`."""
    if isinstance(inputs, (str, bytes, Mapping)):
        raise BatchInputError(
            "inputs must be an iterable of tasks (a list, a generator ...), not one "
            + type(inputs).__name__
        )
    seen: set[str] = set()
    for position, value in enumerate(inputs):
        item = item_of(value, position)
        if item.key in seen:
            raise BatchInputError(f"{_position(position)}: the id {item.key} repeats")
        seen.add(item.key)
        yield item


def _parse(line: str, where: str) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        # exc.msg may end in "at", waiting for the position str(exc) would add after it.
        raise BatchInputError(
            f"{where}: not JSON ({exc.msg.removesuffix(' at')} at column {exc.colno}); "
            'each line is a JSON string or an object {"id": ..., "input": ...}'
        ) from None


class TaskFile:
    """A JSON Lines file of tasks, read lazily: ``len()`` counts them, iterating streams them.

    Each non-blank line is a JSON string (the task) or an object ``{"id", "input"}``.
    :meth:`check` reads the whole file once and reports the first bad line by number,
    so a job never starts on a file it would stop on halfway.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._count: int | None = None

    def _values(self) -> Iterator[tuple[int, Any]]:
        try:
            handle = self.path.open("rb")
        except OSError as exc:
            raise BatchInputError(
                f"cannot read the tasks file {self.path}: {exc.strerror}"
            ) from None
        with handle:
            for number, raw in enumerate(handle, start=1):
                where = f"{self.path} line {number}"
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise BatchInputError(f"{where}: not UTF-8 text") from None
                if line.strip():
                    yield number, _parse(line, where)

    def check(self) -> int:
        """Read every line; return the number of tasks or raise :class:`BatchInputError`."""
        seen: set[str] = set()
        count = 0
        for count, (number, value) in enumerate(self._values(), start=1):
            item = item_of(value, count - 1, f"{self.path} line {number}")
            if item.key in seen:
                raise BatchInputError(f"{self.path} line {number}: the id {item.key} repeats")
            seen.add(item.key)
        self._count = count
        return count

    def __len__(self) -> int:
        return self._count if self._count is not None else self.check()

    def __iter__(self) -> Iterator[Any]:
        for _number, value in self._values():
            yield value


def _resolve(spec: AgentFactory) -> Callable[[], Any]:
    if callable(spec):
        return spec
    if not isinstance(spec, str) or spec.count(":") != 1:
        raise TypeError(
            "make_agent must be a zero-argument callable or a 'module:function' string, "
            f"not {spec!r}"
        )
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise BatchInputError(
            f"make_agent {spec!r}: cannot import {module_name!r}: {exc}"
        ) from None
    for part in attribute.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise BatchInputError(f"make_agent {spec!r}: {module_name!r} has no {attribute!r}")
    if not callable(target):
        raise BatchInputError(f"make_agent {spec!r} is not callable")
    return target  # type: ignore[no-any-return]


def build_agent(spec: AgentFactory) -> Any:
    """Call ``make_agent`` (importing it first when it is a string) and check what it built."""
    agent = _resolve(spec)()
    if not callable(getattr(agent, "ainvoke", None)):
        raise TypeError(
            f"make_agent must return an agent (a Runnable such as create_agent's), "
            f"not {type(agent).__name__}"
        )
    return agent


def check_factory(spec: AgentFactory) -> None:
    """Check the shape of ``make_agent`` without calling it (workers call it themselves)."""
    if not callable(spec) and not (isinstance(spec, str) and spec.count(":") == 1):
        _resolve(spec)
