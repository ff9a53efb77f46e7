"""The base class of the built-in stages.

A stage is a ``Runnable`` that takes an :class:`~lcel_agent.state.AgentState` and
returns the next one. Routing through ``_call_with_config`` makes every call a
named child run, so callbacks, ``astream_events`` and LangSmith show each stage
on each loop. When nobody listens, the loop calls ``run``/``arun`` directly
(see :func:`runs_directly`): put the stage's work there, not in ``invoke``. Stages that also make sense outside the loop (the JSON cleaner,
the dispatcher, the trimmer) accept a plain value too: see ``run_standalone``.

To write your own stage, a ``RunnableLambda(fn, name="clean_json")`` over a
function ``AgentState -> AgentState`` is enough; subclass :class:`Stage` when
the stage needs an async path of its own.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.runnables import Runnable, RunnableConfig

from ..state import AgentState

__all__ = ["Stage", "runs_directly"]


class Stage(Runnable[Any, Any]):
    """A named step of the agent's chain. Subclasses implement :meth:`run`."""

    name: str | None = "stage"

    def __init__(self, *, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    # --- the work ---------------------------------------------------------
    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        """Advance the state by this stage. Pure stages implement only this."""
        raise NotImplementedError

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        """Async twin of :meth:`run`; pure stages need not override it."""
        return self.run(state, config)

    def run_standalone(self, value: Any, config: RunnableConfig) -> Any:
        """Handle an input that is not an ``AgentState`` (use outside the loop)."""
        raise TypeError(f"stage {self.name!r} takes an AgentState, not {type(value).__name__}")

    async def arun_standalone(self, value: Any, config: RunnableConfig) -> Any:
        """Async twin of :meth:`run_standalone`."""
        return self.run_standalone(value, config)

    # --- Runnable plumbing -------------------------------------------------
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._invoke, input, config, run_type="chain")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._ainvoke, input, config, run_type="chain")

    def _invoke(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        if isinstance(input, AgentState):
            return self.run(input, config)
        return self.run_standalone(input, config)

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> Any:
        if isinstance(input, AgentState):
            return await self.arun(input, config)
        return await self.arun_standalone(input, config)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


_PLUMBING = ("invoke", "ainvoke", "_invoke", "_ainvoke")


def runs_directly(stage: Runnable[Any, Any]) -> bool:
    """Whether the loop may call ``stage.run``/``arun`` itself when nobody listens.

    True for a :class:`Stage` that keeps Stage's own Runnable plumbing: then
    ``invoke`` adds nothing but a child run, and a child run nobody hears is
    pure cost. Any other Runnable (a ``RunnableLambda``, a binding, a Stage that
    overrides ``invoke``) is always invoked as a Runnable. One difference a
    custom ``run`` can see: called directly, it runs in the loop's own context,
    not a copy, so a ContextVar it sets is visible to the stages after it.
    """
    cls = type(stage)
    return isinstance(stage, Stage) and all(
        getattr(cls, name) is getattr(Stage, name) for name in _PLUMBING
    )
