"""The runner of the answer suite: one line of a case file becomes tools, a model and a run.

Two case files, kept apart on purpose:

* ``fitting.jsonl`` (``FITTING``): the cases the answer stage's rules are chosen on;
* ``heldout.jsonl`` (``HELDOUT``): cases written before a rule change and never used to
  choose one, in languages the rules were not written for: the honest tally.

Every case has a ``lang`` (ISO 639-1, the language of its question).

A case says what the user asked, the calls the model makes (each turn a list of calls
run together, each with the result its tool returns) and what the model replies once
it has them. The runner plays that, in one protocol:

* ``json-final``: each reply sent as the JSON protocol's ``final`` action;
* ``json-words``: each reply sent as plain words (prose after a success answers);
* ``tool_calling``: calls as native tool calls, replies as text with no call.

The answer stage's own requests (recognised by its system prompt) are answered with a
line starting ``WRITTEN``: a case that expects the answer rewritten checks the stage ran
and why; one that expects it kept checks the stage made no call and the words are the
model's own.

A case may also set ``max_loops`` (the run's bound, 12 by default), and ``follow``: a
call the model makes only once it can *see* a value in what it is sent (``needs``),
as a model writing a call from a listing would; until then it repeats its last call
(:class:`SeeingScript`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, StructuredTool

from lcel_agent import AgentResult, create_agent
from lcel_agent.testing import FunctionChatModel
from lcel_agent.texts import ANSWER_SYSTEM


def load_cases(name: str) -> list[dict[str, Any]]:
    """The cases of one file beside this one, one JSON object a line."""
    text = (Path(__file__).parent / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


FITTING = load_cases("fitting.jsonl")
HELDOUT = load_cases("heldout.jsonl")
CASES = FITTING  # the fitting set: what ``test_answers.py`` runs
WRITTEN = "WRITTEN from the results"
READ_LANGUAGES = frozenset({"en", "zh", "ja", "ko", "fr", "de", "es", "pt", "it", "ru"})
"""The ten languages the answer rules were written for (ISO 639-1)."""
MAX_LOOPS = 12
"""The runner's bound on model calls, unless a case sets ``max_loops``."""


def protocols_of(case: dict[str, Any]) -> list[str]:
    """The protocols (and JSON reply forms) a case runs in."""
    wanted = case.get("protocols", ["json", "tool_calling"])
    out = []
    if "json" in wanted:
        forms = [case["as"]] if "as" in case else ["final", "words"]
        # A reply that is itself JSON, or empty, is sent in the protocol's form only.
        if any(r.strip().startswith(("{", "`")) or not r.strip() for r in case["replies"]):
            forms = ["final"]
        out += [f"json-{form}" for form in forms]
    if "tool_calling" in wanted:
        out.append("tool_calling")
    return out


def _key(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _arguments(spec: dict[str, str], value: Any) -> dict[str, Any]:
    """A call's input as the arguments object (a bare value fills the only argument)."""
    if isinstance(value, dict):
        return value
    names = list(spec)
    return {names[0]: value} if names else {}


def scripted_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Every call a case scripts: its turns' calls, then its ``follow`` call if it has one."""
    calls = [call for turn in case["calls"] for call in turn]
    if "follow" in case:
        calls.append(case["follow"]["call"])
    return calls


def tools_of(case: dict[str, Any], ran: list[tuple[str, dict[str, Any]]]) -> list[BaseTool]:
    """The case's tools, each answering its calls with their scripted results."""
    specs: dict[str, dict[str, str]] = {
        name: dict(tool.get("args", {})) for name, tool in case.get("tools", {}).items()
    }
    for call in scripted_calls(case):
        specs.setdefault(call["tool"], {"input": "string"})
    answers: dict[tuple[str, str], str] = {}
    for call in scripted_calls(case):
        args = _arguments(specs[call["tool"]], call["input"])
        answers[(call["tool"], _key(args))] = call["result"]

    def make(name: str, spec: dict[str, str]) -> BaseTool:
        def run(**kwargs: Any) -> str:
            ran.append((name, kwargs))
            return answers.get((name, _key(kwargs)), f"ERROR: no scripted result for {kwargs}")

        schema = {
            "type": "object",
            "properties": {arg: {"type": kind} for arg, kind in spec.items()},
            "required": list(spec),
        }
        return StructuredTool.from_function(
            run, name=name, description=f"The {name} tool.", args_schema=schema
        )

    return [make(name, spec) for name, spec in specs.items()]


@dataclass
class Script:
    """Plays a case's acting turns, then its replies; answers the stage's requests."""

    case: dict[str, Any]
    protocol: str
    acting: int = 0
    asked: list[list[BaseMessage]] = field(default_factory=list)

    def _specs(self) -> dict[str, dict[str, str]]:
        return {n: dict(t.get("args", {})) for n, t in self.case.get("tools", {}).items()}

    def __call__(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str | AIMessage:
        if ANSWER_SYSTEM in str(messages[0].content):
            self.asked.append(list(messages))
            return f"{WRITTEN}: an answer in words."
        turn, self.acting = self.acting, self.acting + 1
        calls = self.case["calls"]
        if turn < len(calls):
            return self._calls(calls[turn])
        return self._reply(turn - len(calls))

    def _reply(self, index: int) -> str:
        """The case's reply ``index`` (its last one, once they run out), in the protocol's form."""
        replies = self.case["replies"]
        reply = replies[min(index, len(replies) - 1)]
        if self.protocol == "json-final":
            return json.dumps({"action": "final", "action_input": reply}, ensure_ascii=False)
        return reply  # words: json-words, and the tool-calling protocol's text

    def _calls(self, turn: list[dict[str, Any]]) -> str | AIMessage:
        specs = self._specs()
        if self.protocol == "tool_calling":
            made = [
                {
                    "name": c["tool"],
                    "args": _arguments(specs.get(c["tool"], {"input": "string"}), c["input"]),
                    "id": f"call_{self.acting}_{i}",
                }
                for i, c in enumerate(turn)
            ]
            return AIMessage(content="", tool_calls=made)
        actions = [{"action": c["tool"], "action_input": c["input"]} for c in turn]
        return json.dumps(actions if len(actions) > 1 else actions[0], ensure_ascii=False)


def shown(messages: list[BaseMessage]) -> str:
    """Everything a model call is sent, as one text: what the model can see."""
    parts = []
    for message in messages:
        parts.append(message.content if isinstance(message.content, str) else str(message.content))
        parts.extend(json.dumps(c, ensure_ascii=False) for c in getattr(message, "tool_calls", []))
    return "\n".join(parts)


@dataclass
class SeeingScript(Script):
    """A script whose next move depends on what its prompt shows, as a model's would.

    After the case's turns, it makes the ``follow`` call only when the value that call
    needs (``follow["needs"]``, an item near the end of a long listing) is in the
    messages it is sent; until then it repeats its last turn, as a model that was not
    shown the item would ask again. Once the follow-up has run, it replies.
    """

    followed: int = 0
    """The acting call at which it made the follow-up (0: not yet)."""
    saw: list[bool] = field(default_factory=list)
    """Per acting call after the case's turns and before the follow-up: was the item shown."""

    def __call__(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str | AIMessage:
        if ANSWER_SYSTEM in str(messages[0].content):
            self.asked.append(list(messages))
            return f"{WRITTEN}: an answer in words."
        turn, self.acting = self.acting, self.acting + 1
        calls = self.case["calls"]
        if turn < len(calls):
            return self._calls(calls[turn])
        if not self.followed:
            follow = self.case["follow"]
            self.saw.append(follow["needs"] in shown(messages))
            if self.saw[-1]:
                self.followed = self.acting
                return self._calls([follow["call"]])
            return self._calls(calls[-1])
        return self._reply(self.acting - self.followed - 1)


def play(case: dict[str, Any], protocol: str) -> tuple[AgentResult, Script, list[Any]]:
    """Run one case in one protocol: the result, the script (what the stage was asked), the calls."""
    ran: list[tuple[str, dict[str, Any]]] = []
    script = SeeingScript(case, protocol) if "follow" in case else Script(case, protocol)
    agent = create_agent(
        FunctionChatModel(fn=script),
        tools_of(case, ran),
        protocol="tool_calling" if protocol == "tool_calling" else "json",
        max_loops=case.get("max_loops", MAX_LOOPS),
    )
    return agent.invoke(case["question"]), script, ran
