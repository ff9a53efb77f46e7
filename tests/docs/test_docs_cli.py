"""docs/cli.md says what the command does today: every option, every field of ``--json``."""

from __future__ import annotations

import argparse
import json
import re

import pytest
from docs_support import ROOT

from lcel_agent import create_agent
from lcel_agent.cli import build_parser
from lcel_agent.testing import ScriptedChatModel

CLI_MD = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _section(heading: str) -> str:
    start = CLI_MD.index(heading + "\n")
    stop = CLI_MD.find("\n## ", start + len(heading))
    return CLI_MD[start : stop if stop >= 0 else None]


def _options(command: str) -> set[str]:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        option
        for action in commands.choices[command]._actions
        for option in action.option_strings
        if option not in ("-h", "--help")
    }


@pytest.mark.parametrize("command", ["run", "demo", "batch"])
def test_every_option_is_in_its_commands_table(command):
    rows = re.findall(r"^\| `(--[a-z-]+)", _section(f"## lcel-agent {command}"), re.M)
    rows += re.findall(
        r"^\| `--[a-z-]+ N`, `(--[a-z-]+)", _section(f"## lcel-agent {command}"), re.M
    )
    assert _options(command) - set(rows) == set()


def test_the_json_field_list_names_every_field_of_today():
    reply = json.dumps({"action": "get_weather", "action_input": "北京"}, ensure_ascii=False)
    final = json.dumps({"action": "final", "action_input": "晴"}, ensure_ascii=False)

    from langchain_core.tools import tool

    @tool
    def get_weather(city: str) -> str:
        """Weather of a city."""
        return f"{city}市天气：晴"

    data = create_agent(ScriptedChatModel([reply, final]), [get_weather]).invoke("北京").to_dict()
    data["error"] = {
        "step": 1,
        "stage": "loop",
        "error_class": "limit",
        "message": "",
        "notice": None,
    }
    step = data["steps"][0]
    documented = set(re.findall(r"`([a-z_]+)`", _section("## For scripts: `--json`")))
    fields = {
        *data, *data["usage"], *data["error"], *step, *step["actions"][0],
        *step["observations"][0], *data["messages"][0],
    }  # fmt: skip
    assert fields - documented == set()
