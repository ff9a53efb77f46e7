"""Does a system prompt make a small model call a tool first? First replies only, per variant.

    python -m benchmarks.real.prompt_probe --model 0.5b --seeds 5
    python -m benchmarks.real.prompt_probe --model 1.5b --variants round3,one_form --seeds 10

A whole run costs tens of model calls; whether the model calls a tool or answers at once
shows in its first reply, which costs one. This sends the JSON protocol's system prompt
(lcel_agent's own, ``round3``, or one of the alternatives below) and a task's question,
once per seed, through the model the benchmark's runs use (its temperature, seed and
``max_tokens``), and counts the first replies that call one of the agent's tools. docs/benchmarks.md ("Round 3 on the 0.5B model") has what it found.
Needs what ``make bench-real`` builds (the llama.cpp venv and the models).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from lcel_agent import texts
from lcel_agent.errors import ActionParseError
from lcel_agent.stages.clean import extract_json
from lcel_agent.stages.parse import parse_actions
from lcel_agent.stages.prompt import build_system_prompt, tool_signature
from lcel_agent.tools import get_weather, search_baidu

from .models import MODELS, models_dir
from .run import chat_model
from .server import LlamaServer
from .tasks import TASKS

TOOLS = [get_weather, search_baidu]
TOOL_NAMES = frozenset(tool.name for tool in TOOLS)

_ROUND3_WHEN = "you have what the question asks for"
assert texts.JSON_FINAL.endswith(_ROUND3_WHEN)  # the variants below rewrite this ending

_ROUND2_FORM = (
    'Reply with JSON only: {"action": "<tool or final>", "action_input": <input or answer>}.\n'
    "Several independent calls: a JSON list of actions."
)


def _final(when: str) -> str:
    """Round 3's final form (``texts.JSON_FINAL``), ending "once <when>"."""
    return texts.JSON_FINAL.removesuffix(_ROUND3_WHEN) + when


def _lines(*lines: str) -> str:
    """lcel_agent's persona and tool lines, then ``lines``, then its data-not-instructions line."""
    head = [texts.DEFAULT_PERSONA, *(tool_signature(tool) for tool in TOOLS)]
    return "\n".join([*head, *lines, texts.DATA_NOT_INSTRUCTIONS])


def _two_forms(final: str, *, first: str = "", final_first: bool = False) -> str:
    forms = [texts.JSON_CALL + texts.JSON_PARALLEL, final]
    if final_first:
        forms.reverse()
    return _lines(*([first] if first else []), texts.JSON_FORMAT, *forms)


VARIANTS: dict[str, Callable[[], str]] = {
    "round3": lambda: build_system_prompt(TOOLS),
    "tools_gave": lambda: _two_forms(_final("the tools have given you what the question asks for")),
    "never_guess": lambda: _two_forms(
        texts.JSON_FINAL + "\nNever guess what a tool would return: call it."
    ),
    "final_first": lambda: _two_forms(texts.JSON_FINAL, final_first=True),
    "call_first_line": lambda: _two_forms(
        texts.JSON_FINAL,
        first="First call the tools the question needs; answer only with their results.",
    ),
    "round2_form": lambda: _lines(_ROUND2_FORM),
    "one_form": lambda: _lines(
        'Reply with JSON only: {"action": "<tool or final>", "action_input": "<its input>"}'
        + texts.JSON_PARALLEL,
        'Use "final" once the tools have given you what the question asks for; its input is '
        "your answer: each result you found on its own line, then your summary.",
    ),
}
"""Each variant's system prompt. ``round3`` is lcel_agent's; the others are measured against it."""


def first_move(reply: str) -> str:
    """``call`` if lcel_agent reads the reply's first action as one of the tools, ``final``
    if as the answer, ``other`` if not as an action at all (or a tool it does not have)."""
    try:
        first = parse_actions(extract_json(reply), TOOL_NAMES)[0]
    except ActionParseError:
        return "other"
    if first.is_final:
        return "final"
    return "call" if first.tool in TOOL_NAMES else "other"


def ask(base_url: str, system: str, question: str, seed: int) -> str:
    """One reply from the llama.cpp server, asked as the benchmark's runs ask it."""
    reply = chat_model(base_url, seed).invoke([SystemMessage(system), HumanMessage(question)])
    return str(reply.content)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="0.5b", choices=sorted(MODELS))
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--tasks", default="article,eight", help="comma-separated")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 .. N-1")
    parser.add_argument("--server-python", default=".venv-llama/bin/python")
    parser.add_argument(
        "--log", type=Path, default=Path("benchmarks/results/prompt-probe/server.log")
    )
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    if unknown := [v for v in variants if v not in VARIANTS]:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    tasks = args.tasks.split(",")
    if unknown := [t for t in tasks if t not in TASKS]:
        parser.error(f"unknown task(s) {', '.join(unknown)}; known: {', '.join(TASKS)}")
    model_file = models_dir() / MODELS[args.model].filename
    with LlamaServer(args.server_python, model_file, args.log) as server:
        for variant in variants:
            system = VARIANTS[variant]()
            for task in tasks:
                moves = [first_move(ask(server.base_url, system, TASKS[task].prompt, seed))
                         for seed in range(args.seeds)]  # fmt: skip
                print(f"{args.model} {variant:16} {task:8} calls first in "
                      f"{moves.count('call')} of {len(moves)}  {moves}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
