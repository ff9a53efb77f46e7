"""Results larger than the window: scenarios, a model that acts on what it sees, a measure.

The scenarios are ``oversized_scenarios.SCENARIOS``: a question, one tool whose result is
a long listing, and the item the next call needs (at the head, at the tail, in the middle
named by the question's words, or in the middle and not named). :class:`Seeing` plays
the model: it lists, then makes the follow-up call only if the item is in what it is
sent, else lists again (until drift stops it).

Run as a script it prints the measure of every design (the one in the library and the
others the issue lists) on every scenario, protocol and window::

    python tests/memory/oversized_support.py            # the table
    PYTHONPATH=<a checkout of main> python tests/memory/oversized_support.py --today

Not a test module: ``test_memory_oversized.py`` asserts on the same scenarios.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, StructuredTool
from oversized_scenarios import SCENARIOS, Scenario

from lcel_agent import AgentResult, create_agent
from lcel_agent.memory import AGENT_COMPACTOR, AGENT_TOOL_COMPACTOR, SlidingWindowMemory
from lcel_agent.memory.counters import count_message, estimate_tokens
from lcel_agent.testing import FunctionChatModel

PROTOCOLS = ("json", "tool_calling")
WINDOWS = (None, 500)
"""``create_agent``'s default window (800 tokens, and what a long prompt adds), and a smaller one."""


@dataclass
class Seeing:
    """The model: lists, then calls ``follow(needs)`` once it is shown ``needs``, then answers."""

    scenario: Scenario
    protocol: str
    prompts: list[list[BaseMessage]] = field(default_factory=list)
    saw: list[bool] = field(default_factory=list)
    followed: bool = False

    def _call(self, tool: str, value: str) -> str | AIMessage:
        if self.protocol == "tool_calling":
            call = {"name": tool, "args": {"value": value}, "id": f"call_{len(self.prompts)}"}
            return AIMessage(content="", tool_calls=[call])
        return json.dumps({"action": tool, "action_input": value}, ensure_ascii=False)

    def __call__(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str | AIMessage:
        self.prompts.append(list(messages))
        if len(self.prompts) == 1:
            return self._call("list_all", "all")
        if self.followed:
            answer = f"Done: {self.scenario.needs}."
            if self.protocol == "tool_calling":
                return answer
            return json.dumps({"action": "final", "action_input": answer}, ensure_ascii=False)
        self.saw.append(self.scenario.needs in shown(messages))
        if self.saw[-1]:
            self.followed = True
            return self._call(self.scenario.follow, self.scenario.needs)
        return self._call("list_all", "all")


def shown(messages: list[BaseMessage]) -> str:
    """Everything a model call is sent, as one text."""
    return "\n".join(str(m.content) for m in messages)


def tools_for(scenario: Scenario) -> list[BaseTool]:
    def list_all(value: str) -> str:
        return scenario.result

    def follow(value: str) -> str:
        return f"{value}: total 1 250,00"

    return [
        StructuredTool.from_function(list_all, name="list_all", description="List everything."),
        StructuredTool.from_function(
            follow, name=scenario.follow, description="Open one item by its id or name."
        ),
    ]


@dataclass(frozen=True)
class Outcome:
    """What one run showed: the item at the next call, what that call cost, the budget kept."""

    visible: bool
    next_tokens: int
    """Tokens of everything the next call (after the listing) was sent, by the estimate."""
    over: int
    """The most any call's window went over its budget (0: never)."""
    coverage: float
    """The share of the result's lines (or JSON items) the next call was shown whole."""
    result: AgentResult
    seeing: Seeing


def window_for(protocol: str, size: int | None) -> SlidingWindowMemory | None:
    """The agent's own window (None: create_agent's default) or a smaller one of its kind."""
    if size is None:
        return None
    compactor = AGENT_TOOL_COMPACTOR if protocol == "tool_calling" else AGENT_COMPACTOR
    return SlidingWindowMemory(size, compactor=compactor)


def play(
    scenario: Scenario,
    protocol: str,
    size: int | None,
    run: Callable[..., AgentResult] | None = None,
    **options: Any,
) -> Outcome:
    """One run of ``scenario``: ``run(agent, task)`` (default: ``agent.invoke``)."""
    seeing = Seeing(scenario, protocol)
    agent = create_agent(
        FunctionChatModel(fn=seeing),
        tools_for(scenario),
        protocol=protocol,
        memory=window_for(protocol, size),
        max_loops=8,
        **options,
    )
    result = run(agent, scenario.question) if run else agent.invoke(scenario.question)
    second = seeing.prompts[1] if len(seeing.prompts) > 1 else []
    over = max(
        (s.window_tokens - s.window_budget for s in result.steps if s.window_budget), default=0
    )
    records = scenario.result.splitlines()
    if len(records) < 3:
        records = re.split(r"(?<=\}), (?=\{)", scenario.result)
    text = shown(second)
    return Outcome(
        visible=bool(seeing.saw and seeing.saw[0]),
        next_tokens=sum(count_message(m, estimate_tokens) for m in second),
        over=max(over, 0),
        coverage=sum(r.strip(" ,[]") in text for r in records) / len(records),
        result=result,
        seeing=seeing,
    )


# --- the designs measured (the library's is "matches"; the others patch it) ----------------


@contextlib.contextmanager
def design(name: str) -> Iterator[None]:
    """Run with one design of the cut: ``today`` (whatever the imported library does),
    ``head`` (head only, with the marker), ``head+tail``, ``matches`` (the library's), and
    ``matches@250`` (the same, cut to 250 tokens however much room the window has)."""
    if name in ("today", "matches"):
        yield
        return
    from lcel_agent.memory import compaction, cut

    real: Callable[..., str] = cut.cut_result

    def variant(text: str, target: int, counter: Any, question: str = "") -> str:
        if name == "head+tail":
            return real(text, target, counter, "")
        if name == "matches@250":  # cut to the agent's digest cap, not to the window's room
            return real(text, min(target, 250), counter, question)
        return _head_only(text, target, counter)

    saved = (cut.cut_result, compaction.cut_result)
    cut.cut_result = compaction.cut_result = variant
    try:
        yield
    finally:
        cut.cut_result, compaction.cut_result = saved


def _head_only(text: str, target: int, counter: Any) -> str:
    """The library's cut with no tail and no matches: the head, then one marker."""
    from lcel_agent.memory import cut

    if counter(text) <= target:
        return text
    for records, unit in cut._splits(text):
        kept = cut._Cut(records, unit, counter)
        index = 0
        while index < len(records) and kept.add(index, target):
            index += 1
        shown = kept.render()
        if index and counter(shown) <= target:
            return shown
    return cut._by_characters(text, target, counter)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--today", action="store_true", help="measure the library as imported")
    parser.add_argument(
        "--cap", type=int, default=4000, help="the dispatcher's max_observation_chars"
    )
    args = parser.parse_args()
    designs = ["today"] if args.today else ["head", "head+tail", "matches", "matches@250"]
    for name in designs:
        with design(name):
            print(f"\n## {name}")
            print("| scenario | where | chars | json 800 | json 500 | tools 800 | tools 500 |")
            print("|---|---|---:|---|---|---|---|")
            seen = tokens = runs = worst = 0
            covered = 0.0
            for scenario in SCENARIOS:
                cells = []
                for protocol in PROTOCOLS:
                    for size in WINDOWS:
                        out = play(scenario, protocol, size, max_observation_chars=args.cap)
                        seen += out.visible
                        tokens += out.next_tokens
                        runs += 1
                        worst = max(worst, out.over)
                        covered += out.coverage
                        cells.append(f"{'✓' if out.visible else '✗'} {out.next_tokens}")
                row = [scenario.id, scenario.where, str(len(scenario.result)), *cells]
                print("| " + " | ".join(row) + " |")
            print(
                f"\nvisible {seen}/{runs}; mean next-call tokens {tokens / runs:.0f}; "
                f"lines shown {covered / runs:.0%}; worst over budget {worst}"
            )


if __name__ == "__main__":
    main()
