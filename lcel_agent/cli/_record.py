"""The options of ``lcel-agent run``, kept beside its thread so ``resume`` rebuilds the same agent.

A checkpoint holds the run (its task, limits, steps, window) but not how the command
built the agent: the model, the protocol, the window's size, ``--pause``,
``--simulate``. :func:`save_options` writes those as a checkpoint of their own on the
same thread, in the namespace :data:`NAMESPACE` (the run's checkpoints are in the root
namespace), through the saver's own interface, so it works on every store.
:func:`load_options` reads them back. Keys are never kept: the model's key comes from
the environment each time, and the server's URL is kept without its user and password
(``resume`` goes back to that server, and takes the login from the command line or the
environment).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from .._redact import redact

__all__ = ["NAMESPACE", "RunOptions", "load_options", "save_options"]

#: The namespace of the options' checkpoint (LangGraph's own use ``|`` and ``:``).
NAMESPACE = "lcel-agent-cli"
_CHANNEL = "lcel_agent_cli"
_FORMAT = 1


@dataclass(frozen=True)
class RunOptions:
    """How ``run`` built its agent; ``resume`` builds the same one."""

    model: str = "gpt-4o-mini"
    base_url: str | None = None
    """The server the run started on (``--base-url``, else ``OPENAI_BASE_URL``, else
    OpenAI's), without credentials; None: ``--simulate``'s own, or a thread kept by a
    version that did not keep it (``resume`` then needs ``--base-url``)."""
    base_url_login: bool = False
    """The server's URL had a user and password: ``resume`` takes them back from
    ``--base-url`` or ``OPENAI_BASE_URL``, never from the store."""
    protocol: Literal["json", "tool_calling"] = "json"
    max_loops: int = 10
    max_errors: int = 2
    memory_tokens: int = 800
    temperature: float = 0.2
    max_tokens: int = 1024
    timeout: float = 60.0
    token_budget: int | None = None
    time_budget: float | None = None
    pause: bool = False
    confirm: bool = False
    simulate: bool = False

    def kept(self) -> RunOptions:
        """These options as they may be stored. The server's URL comes here without its
        credentials (:func:`lcel_agent.cli._agent.server_of`); one that still holds a
        secret the redactor knows is dropped rather than written."""
        url = self.base_url
        if url is not None and (redact(url) != url or urlsplit(url).password is not None):
            return dataclasses.replace(self, base_url=None)
        return self


def _config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": NAMESPACE}}


def save_options(saver: Any, thread_id: str, options: RunOptions) -> None:
    """Keep ``options`` beside ``thread_id``'s run (replacing what an earlier run kept)."""
    from langgraph.checkpoint.base import empty_checkpoint

    found = saver.get_tuple(_config(thread_id))
    before = None if found is None else found.checkpoint["channel_versions"].get(_CHANNEL)
    version = saver.get_next_version(before, None)
    checkpoint = empty_checkpoint()
    value = {"format": _FORMAT, **dataclasses.asdict(options.kept())}
    checkpoint["channel_values"] = {_CHANNEL: value}
    checkpoint["channel_versions"] = {_CHANNEL: version}
    metadata = {"source": "input", "step": -1, "parents": {}}
    config = _config(thread_id)
    if found is not None:
        config["configurable"]["checkpoint_id"] = found.checkpoint["id"]
    saver.put(config, checkpoint, metadata, {_CHANNEL: version})


def load_options(saver: Any, thread_id: str) -> RunOptions | None:
    """The options kept beside ``thread_id``'s run, or None (not started by ``run``)."""
    found = saver.get_tuple(_config(thread_id))
    value = None if found is None else found.checkpoint["channel_values"].get(_CHANNEL)
    if not isinstance(value, dict) or value.get("format") != _FORMAT:
        return None
    known = {f.name for f in dataclasses.fields(RunOptions)}
    return RunOptions(**{k: v for k, v in value.items() if k in known})
