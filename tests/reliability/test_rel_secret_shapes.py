"""Keys of every shape, made to travel every surface a run has, and found on none of them.

Each test builds fresh keys (never seen by the process before, so a key masked
earlier by another test cannot make this one pass) of one shape: ``sk-``,
Azure-style hex, base64-ish with ``+/=``, and one with a trailing newline as read
from a file. None is in the environment: the model's key is registered because
``create_agent`` finds it on the model, the tool's because it sits in a
``SecretStr`` field of the tool, the user's own through ``secrets=``.

Then the model puts its key into a tool call, the tool returns its key and the
user's secret and logs them (once with a traceback), the model repeats all three
in its answer, and a second server refuses the model's key and echoes it back
(without its ``sk-`` prefix, as some providers do). Every surface is searched:
``output``, ``messages``, ``repr``, ``to_dict``, the step records, the errors,
every log record (the HTTP clients' DEBUG records included), what the model was
sent, and what the CLI prints.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import secrets
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from pydantic import Field, SecretStr
from rel_support import chat_model, run_over_http

import lcel_agent
from lcel_agent import StopReason, create_agent
from lcel_agent._redact import REDACTED, redact, register_secret
from lcel_agent.cli import main
from lcel_agent.testing.fake import FunctionChatModel
from lcel_agent.testing.policies import Reply
from lcel_agent.testing.server import SimulatedOpenAIServer

MODES = ["sync", "async"]


def _sk() -> str:
    return "sk-proj-" + secrets.token_urlsafe(24)


def _hex() -> str:
    return secrets.token_hex(16)


def _base64ish() -> str:
    return base64.b64encode(os.urandom(21)).decode() + "+/9w=="


def _with_newline() -> str:
    return secrets.token_hex(20) + "\n"


SHAPES: dict[str, Callable[[], str]] = {
    "sk": _sk,
    "hex": _hex,
    "base64": _base64ish,
    "newline": _with_newline,
}


class Vault(BaseTool):
    """A tool that holds a key, returns it with the user's secret, and logs both."""

    name: str = "vault"
    description: str = "Look a record up in the vault. Input: what to look up."
    api_key: SecretStr
    user_secret: str = ""
    queries: list[str] = Field(default_factory=list)

    def _run(self, query: str) -> str:
        self.queries.append(query)
        key = self.api_key.get_secret_value()
        log = logging.getLogger("tests.vault")
        log.info("vault called with key %s for %s", key, query)
        try:
            raise RuntimeError(f"vault refused key {key}")
        except RuntimeError:
            log.warning("retrying the vault", exc_info=True)
        return f"record for {query}: token {key.strip()} / {self.user_secret}"


def _forms(key: str) -> list[str]:
    """The key as it could leak: whole, stripped, and without a vendor prefix."""
    core = key.strip()
    return sorted({key, core, core.removeprefix("sk-"), core.removeprefix("sk-proj-")}, key=len)


def _leaks(text: str, keys: list[str]) -> list[str]:
    return [form for key in keys for form in _forms(key) if form in text]


def _surfaces(result: Any, caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    return {
        "output": str(result.output),
        "messages": repr(result.messages),
        "repr": repr(result),
        "to_dict": json.dumps(result.to_dict(), ensure_ascii=False),
        "steps": repr(result.steps),
        "error": str(result.error),
        "logs": "\n".join(
            f"{r.name} {r.getMessage()} {r.exc_text or ''} {r.stack_info or ''}"
            for r in caplog.records
        ),
        "log_text": caplog.text,
    }


def _policy(model_key: str) -> Callable[[list[dict[str, Any]], Any], Any]:
    """Calls the vault with the model's own key, then answers with every secret it saw."""

    def policy(messages: list[dict[str, Any]], tools: Any) -> Any:
        # The vault's result is in the conversation: as a tool message, or in the digest of
        # what was done that the window keeps once the turn itself has left.
        seen = [str(m.get("content")) for m in messages if "record for" in str(m.get("content"))]
        if not seen:
            return {"name": "vault", "arguments": {"query": f"look up {model_key.strip()}"}}
        # The model repeats its key (also without its prefix) and whatever the tool said.
        body = model_key.strip().removeprefix("sk-proj-")
        return Reply(content=f"done with {model_key.strip()} ({body}): {seen[-1]}")

    return policy


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    lcel_agent.redact_logging(caplog.handler)  # the user's own handler: pytest's
    return caplog


@pytest.mark.parametrize("shape", ["sk", "hex", "base64"])
@pytest.mark.parametrize("mode", MODES)
def test_no_key_of_any_shape_survives_a_run(
    mode: str, shape: str, debug_logs: pytest.LogCaptureFixture
) -> None:
    model_key, tool_key, user_secret = (SHAPES[shape]() for _ in range(3))
    keys = [model_key, tool_key, user_secret]
    vault = Vault(api_key=SecretStr(tool_key), user_secret=user_secret)
    with SimulatedOpenAIServer(_policy(model_key), require_key=model_key) as srv:
        llm = chat_model(srv.base_url, model_key)
        agent = create_agent(llm, [vault], protocol="tool_calling", secrets=[user_secret])
        result = run_over_http(mode, agent, llm)
        sent = [json.dumps(r.body, ensure_ascii=False) for r in srv.chat_requests]
    assert result.stop_reason is StopReason.FINAL, result.error
    # Every surface was really carried: the masks are there, where the keys would be.
    assert vault.queries == [f"look up {REDACTED}"]
    assert result.output is not None and result.output.count(REDACTED) >= 4
    assert any(r.name == "tests.vault" and r.exc_text for r in debug_logs.records)
    assert any(r.name.startswith(("httpcore", "openai")) for r in debug_logs.records)
    for name, text in _surfaces(result, debug_logs).items():
        assert _leaks(text, keys) == [], name
    # The model's context: after the first request, nothing it is sent carries a key.
    # (The third request, when there is one, is the answer stage's: it carries the
    # results, masked, into a fresh context and its schema's keys.)
    assert len(sent) in (2, 3) and all(REDACTED in body for body in sent[1:])
    assert [_leaks(body, keys) for body in sent[1:]] == [[]] * (len(sent) - 1)


@pytest.mark.parametrize("shape", ["sk", "hex", "base64"])
@pytest.mark.parametrize("mode", MODES)
def test_a_401_that_echoes_the_model_key_does_not_leak_it(
    mode: str, shape: str, debug_logs: pytest.LogCaptureFixture
) -> None:
    model_key = SHAPES[shape]()
    with SimulatedOpenAIServer(
        ["never"],
        require_key=SHAPES[shape](),
        auth_message="Incorrect API key provided: {key_body}. You can find your key at ...",
    ) as srv:
        llm = chat_model(srv.base_url, model_key)
        result = run_over_http(mode, create_agent(llm, [Vault(api_key=SecretStr("x" * 8))]), llm)
    assert result.stop_reason is StopReason.LLM_ERROR
    assert "Incorrect API key provided: ***" in result.error.message  # echoed, then masked
    for name, text in _surfaces(result, debug_logs).items():
        assert _leaks(text, [model_key]) == [], name


@pytest.mark.parametrize("mode", MODES)
def test_a_key_with_a_trailing_newline_stays_out_of_the_http_logs(
    mode: str, debug_logs: pytest.LogCaptureFixture
) -> None:
    model_key = _with_newline()
    with SimulatedOpenAIServer(["never"]) as srv:
        llm = chat_model(srv.base_url, model_key)
        agent = create_agent(llm, [Vault(api_key=SecretStr("x" * 8))], llm_backoff=(0.0, 0.0))
        result = run_over_http(mode, agent, llm)
    # The client refuses to send such a header and says so, quoting it, at DEBUG.
    assert result.stop_reason is StopReason.LLM_ERROR
    assert any("Illegal header value" in r.getMessage() for r in debug_logs.records)
    for name, text in _surfaces(result, debug_logs).items():
        assert _leaks(text, [model_key]) == [], name


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "display"])
def test_the_cli_prints_no_key(
    shape: str, as_json: bool, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    key = SHAPES[shape]()
    answer = f"your key is {key.strip()} and {key.strip().removeprefix('sk-proj-')}"
    with SimulatedOpenAIServer(
        lambda m, t: json.dumps({"action": "final", "action_input": answer})
    ) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", key.strip())
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        status = main(["run", *(["--json"] if as_json else []), "查询北京天气"])
    out = capsys.readouterr()
    assert status == 0, out.out + out.err
    assert REDACTED in out.out
    assert _leaks(out.out + out.err, [key]) == []


def test_create_agent_registers_keys_it_finds_inside_wrappers() -> None:
    fake = FunctionChatModel(lambda m, t: "x")

    def chat(key: str, **options: Any) -> ChatOpenAI:
        return ChatOpenAI(api_key=SecretStr(key), model="gpt-4o-mini", **options)

    wrappers: dict[str, Callable[[str], Any]] = {
        "plain": lambda k: chat(k),
        "bound": lambda k: chat(k).bind(stop=["\n\n"]),
        "retry": lambda k: chat(k).with_retry(stop_after_attempt=2),
        "fallbacks": lambda k: fake.with_fallbacks([chat(k)]),
        "header": lambda k: chat("sk-" + "0" * 20, default_headers={"api-key": k}),
    }
    for name, wrap in wrappers.items():
        key = _hex()
        assert redact(f"a {key} b") == f"a {key} b", name  # not known before
        create_agent(wrap(key), [Vault(api_key=SecretStr("x" * 8))])
        assert redact(f"a {key} b") == f"a {REDACTED} b", name
    tool_key = _base64ish()
    create_agent(fake, [Vault(api_key=SecretStr(tool_key))])
    assert redact(tool_key) == REDACTED


@pytest.mark.parametrize("bad", ["short", ["abc"], [""], [123], "not-a-list-of-secrets"])
def test_secrets_must_be_a_list_of_real_secrets(bad: Any) -> None:
    fake = FunctionChatModel(lambda m, t: "x")
    with pytest.raises((TypeError, ValueError), match="secrets"):
        create_agent(fake, [Vault(api_key=SecretStr("x" * 8))], secrets=bad)


def test_redact_logging_covers_the_handlers_configured_so_far() -> None:
    secret = _sk()
    lcel_agent.redact_logging()  # nothing to do yet is fine too
    stream_records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            stream_records.append(self.format(record))

    handler = Keep()
    logger = logging.getLogger("tests.redact_logging")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        lcel_agent.redact_logging()
        register_secret(secret)
        logger.warning("connecting with %s", secret)
        try:
            raise ValueError(secret)
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    text = "\n".join(stream_records)
    assert "connecting with ***" in text and "ValueError: ***" in text
    assert secret not in text and secret.removeprefix("sk-proj-") not in text


def test_only_fields_named_like_secrets_are_taken_for_secrets() -> None:
    class Crm(Vault):
        auth_token: str
        cache_key: str

    token, cache = _hex(), "crm-cache-" + _hex()
    crm = Crm(api_key=SecretStr("x" * 8), auth_token=token, cache_key=cache)
    create_agent(FunctionChatModel(lambda m, t: "x"), [crm])
    assert redact(f"{token} {cache}") == f"{REDACTED} {cache}"
