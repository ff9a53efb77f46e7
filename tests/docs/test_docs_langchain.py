"""The LangChain parts of the docs lead with today's ways, and their code runs (issue 23, item 7).

History lives in a LangGraph checkpointer (or the caller's own ``{"messages": [...]}``);
``RunnableWithMessageHistory`` and ``InMemoryChatMessageHistory``, deprecated in
langchain-core 1.x, appear in no example and are named only as deprecated.
"""

from __future__ import annotations

import re

import pytest
from docs_support import ROOT, code_blocks

DEPRECATED = ("RunnableWithMessageHistory", "InMemoryChatMessageHistory")
PAGES = ("README.md", "docs/langchain.md")


@pytest.mark.parametrize("page", PAGES)
def test_no_example_uses_the_deprecated_history(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        assert not any(name in block for name in DEPRECATED), block
    # Named at all only where the paragraph (or table row) says it is deprecated.
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    pieces = [
        piece
        for paragraph in prose.split("\n\n")
        for piece in (paragraph.splitlines() if paragraph.lstrip().startswith("|") else [paragraph])
    ]
    for piece in pieces:
        if any(name in piece for name in DEPRECATED):
            assert "deprecate" in piece, piece


def test_the_readme_history_runs_through_a_checkpointer(offline_provider, closes_async_clients):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (use, *_) = code_blocks(readme, "## Use")
    (messages,) = code_blocks(readme, "### Messages in, messages out")
    namespace: dict[str, object] = {}
    exec(compile(use, "README.md (Use)", "exec"), namespace)
    offline_provider.clear()
    exec(compile(messages, "README.md (Messages)", "exec"), namespace)
    state = namespace["chat"].get_state(namespace["thread"]).values  # type: ignore[attr-defined]
    humans = [m.content for m in state["messages"] if m.type == "human"]
    assert humans == ["北京天气", "上海呢？"]
    assert state["messages"][-1].response_metadata["stop_reason"] == "final"
    # The second turn's model call saw the first turn: the checkpointer kept it.
    last = offline_provider.chat_requests[-1].body
    assert "北京天气" in str(last["messages"]) and "上海呢？" in str(last["messages"])
    namespace.clear()
