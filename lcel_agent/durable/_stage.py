"""``checkpoint``: the stage between ``parse_action`` and ``dispatch_tools`` of a durable agent.

An agent built with a checkpointer runs it in every loop: when the reply holds
tool calls to run, it gives each its call id and checkpoints the decision before
any of them runs, so a restart runs them without asking the model again. It
does nothing in a run without a thread (no ``thread_id``), and it shows up in
traces and in ``StepRecord.stage_ms`` by its name, like every stage.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

from ..stages import Stage, journal_of
from ..state import AgentState
from ._run import DurableRun

__all__ = ["CHECKPOINT_STAGE", "SaveDecision"]

#: The stage's name, in the agent's ``stages`` after ``parse_action``.
CHECKPOINT_STAGE = "checkpoint"


class SaveDecision(Stage):
    """Checkpoint the decided tool calls of the loop (see the module docstring)."""

    name = CHECKPOINT_STAGE

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        journal = journal_of(config)
        return journal.save_decision(state) if isinstance(journal, DurableRun) else state

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        journal = journal_of(config)
        if isinstance(journal, DurableRun):
            return await journal.asave_decision(state)
        return state
