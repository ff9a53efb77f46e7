"""Helpers shared by the CLI tests (fixtures are in conftest.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer

ROOT = Path(__file__).resolve().parents[2]

#: The installed command (the console script beside this interpreter), as users run it.
LCEL_AGENT = Path(sys.executable).parent / "lcel-agent"


def on_path(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the command's folder first on ``PATH`` (an activated venv): the
    commands it prints then start with ``lcel-agent``."""
    return env | {"PATH": os.pathsep.join([str(LCEL_AGENT.parent), env.get("PATH", "")])}


#: Variables of the developer's shell that would change what the command does.
SCRUBBED = (
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "AMAP_KEY", "AMAP_BASE_URL",
    "BAIDU_BASE_URL", "NO_COLOR", "FORCE_COLOR",
)  # fmt: skip

#: The model key the tests hand to the command; it must never be printed.
SECRET = "cli-test-secret-7f3c2a9e41"

CITIES = ("北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "武汉")


def json_action(action: str, action_input: Any) -> str:
    """A JSON-protocol reply."""
    return json.dumps({"action": action, "action_input": action_input}, ensure_ascii=False)


def service_env(amap: FakeAmapServer, baidu: FakeBaiduServer) -> dict[str, str]:
    """The variables that point the bundled tools at the fakes."""
    return {"AMAP_KEY": amap.key, "AMAP_BASE_URL": amap.base_url, "BAIDU_BASE_URL": baidu.base_url}


def never_answers(messages: list[dict[str, Any]], tools: Any) -> str:
    """A model policy that asks for a new city's weather on every call and never answers."""
    asked = sum(1 for m in messages if m.get("role") == "assistant")
    return json_action("get_weather", CITIES[asked % len(CITIES)])


def start_cli(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``lcel-agent *args`` in the background, for tests that signal it.

    Its environment is the scrubbed one plus ``env``, its output unbuffered (read
    ``process.stdout``/``stderr`` line by line); kill it in a ``finally``.
    """
    full_env = on_path({k: v for k, v in os.environ.items() if k not in SCRUBBED})
    full_env |= {"PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1", **(env or {})}
    return subprocess.Popen(
        [str(LCEL_AGENT), *args],
        cwd=ROOT,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )


#: Modules that must not be imported to answer --help or a usage error (they take seconds).
HEAVY = ("langchain", "langchain_core", "langchain_openai", "openai", "pydantic", "jinja2")


def imported_packages(stderr: str) -> set[str]:
    """Top-level packages named in ``python -X importtime`` output."""
    names = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)", stderr, re.M)
    return {name.strip().split(".")[0] for name in names}
