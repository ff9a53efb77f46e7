"""What the library sends to a real local model server, checked against the server itself.

Issue 37: nothing lcel_agent sends may harm a local server, and a reply budget must hold
on it. Against a real llama-cpp-python server (and upstream ``llama-server`` where
``make llama-server`` built it), with the benchmark's 1.5B model, on 127.0.0.1:

1. **Hostile schema keys**: the answer stage's lines schema for results whose inputs hold
   quotes, backslashes, braces, newlines and 10 kB, sent in the server's schema form;
   the server must answer each with JSON and still be alive after it.
2. **The reply budget**: ``ChatOpenAI(max_tokens=N)`` through the loop's own client copy
   (:func:`lcel_agent.stages.without_client_retries`) asked for a long reply must stop at
   N tokens (finish reason ``length``), on a server that reads only ``max_tokens``.

::

    python -m benchmarks.real.server_checks              # both servers where built
    python -m benchmarks.real.server_checks --llama-server-venv ../elsewhere/.venv-llama-server
    make check-local-servers

Prints one line per check and exits 1 if any failed. Needs the 1.5B model (``make
bench-models``) and ``.venv-llama`` (``make bench-real`` builds it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks.bfcl.servers import DEFAULT_VENVS, UpstreamServer, llama_server_binary
from benchmarks.real.models import MODELS, models_dir
from benchmarks.real.server import LlamaServer
from lcel_agent.rules.gathered import Result
from lcel_agent.stages import without_client_retries
from lcel_agent.stages.answer._request import Batch, lines_schema
from lcel_agent.stages.llm_profile import with_schema

HOSTILE = [
    '{"source": "log.txt", "destination": ',
    'say "hi" \\ and {braces}',
    "line one\nline two\r\n\ttab",
    "x" * 10_000,
    '"' * 40,
    "北京",
]


@dataclass
class Check:
    server: str
    name: str
    ok: bool
    detail: str


def _llm(base_url: str, **options: Any) -> ChatOpenAI:
    return ChatOpenAI(
        model="local", base_url=base_url + "/v1", api_key=SecretStr("sk-local-check"),
        temperature=0.2, timeout=600, max_retries=0, **options,
    )  # fmt: skip


def check_schemas(name: str, base_url: str, alive: Callable[[], bool], form: str) -> list[Check]:
    """The answer stage's schema for each hostile input, in the server's form."""
    checks = []
    for hostile in HOSTILE:
        results = tuple(
            Result("read_file", f"{hostile}{i}", f"file {i}: 42 lines") for i in range(2)
        )
        schema = lines_schema(Batch(results, 1, True))
        model = with_schema(_llm(base_url, max_tokens=96), form, schema)  # type: ignore[arg-type]
        label = repr(hostile[:24]) + ("…" if len(hostile) > 24 else "")
        try:
            reply = model.invoke(
                [SystemMessage("Answer in JSON."), HumanMessage("Two files: summarise.")]
            )
            json.loads(str(reply.content))
            ok, detail = alive(), "JSON reply, server alive"
        except Exception as exc:  # a refusal or a crash: the check says which
            ok, detail = False, f"{type(exc).__name__}: {str(exc)[:160]}; alive={alive()}"
        checks.append(Check(name, f"schema keys for input {label}", ok, detail))
    return checks


def check_budget(name: str, base_url: str, limit: int = 24) -> Check:
    """A long reply asked for under ``max_tokens=limit`` stops at the limit."""
    model = without_client_retries(_llm(base_url, max_tokens=limit), 600)
    reply = model.invoke([HumanMessage("Count from 1 to 500, one number per line.")])
    used = (reply.usage_metadata or {}).get("output_tokens", 0)
    reason = (reply.response_metadata or {}).get("finish_reason")
    ok = reason == "length" and 0 < used <= limit
    return Check(name, f"reply budget max_tokens={limit}", ok, f"{used} tokens, finish {reason!r}")


#: The schema form lcel_agent's profile tries first on each server: llama-cpp-python
#: refuses ``json_schema`` (so the profile falls back to ``json_object_schema``); upstream
#: llama-server takes OpenAI's ``json_schema`` as it is.
FORMS = {"llama-cpp-python": "json_object_schema", "llama-server": "json_schema"}


@contextmanager
def started(
    name: str, model: Path, log: Path, venv: Path
) -> Iterator[tuple[str, Callable[[], bool]]]:
    """The server ``name`` from ``venv`` (llama-cpp-python with its default flags)."""
    server = (
        LlamaServer(str(venv / "bin" / "python"), model, log)
        if name == "llama-cpp-python"
        else UpstreamServer(venv, model, log)
    )
    with server:
        yield server.base_url, server.alive


def run(servers: list[str], venvs: Mapping[str, Path]) -> list[Check]:
    model = models_dir() / MODELS["1.5b"].filename
    checks: list[Check] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in servers:
            with started(name, model, Path(tmp) / f"{name}.log", venvs[name]) as (base_url, alive):
                checks += check_schemas(name, base_url, alive, FORMS[name])
                checks.append(check_budget(name, base_url))
    return checks


def built(venvs: Mapping[str, Path]) -> list[str]:
    """The servers this machine has: llama-server only where ``make llama-server`` ran."""
    try:
        llama_server_binary(venvs["llama-server"])
    except FileNotFoundError:
        return ["llama-cpp-python"]
    return list(FORMS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", default=None, help="comma-separated; default: all built")
    parser.add_argument(
        "--llama-server-venv", type=Path, default=None, help="default: .venv-llama-server"
    )
    args = parser.parse_args(argv)
    venvs = dict(DEFAULT_VENVS)
    if args.llama_server_venv is not None:
        venvs["llama-server"] = args.llama_server_venv.resolve()
    servers = args.servers.split(",") if args.servers is not None else built(venvs)
    checks = run([s for s in servers if s], venvs)
    for c in checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.server:17} {c.name}: {c.detail}", flush=True)
    return 0 if all(c.ok for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
