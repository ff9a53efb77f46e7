"""What answers look like: every line of ``fitting.jsonl``, in every protocol it names.

Each case ends one of four ways, and the test checks exactly that:

* ``kept``: the model's own words are the answer, and the answer stage made no call;
* ``unwrapped``: a ``final`` action written out as text is the answer, unwrapped, no call;
* ``sent_back``: the first reply in words (a plan) went back once with a notice, and the
  next one is the answer, kept;
* ``rewritten``: the answer stage wrote the answer, for the ``repair`` the case names.

No case may end in ``max_errors``, ``drift`` or with no output: no reply in words does that.
"""

from __future__ import annotations

from typing import Any

import pytest
from answers_support import CASES, WRITTEN, play, protocols_of

from lcel_agent import StopReason

RUNS = [
    pytest.param(case, protocol, id=f"{case['id']}[{protocol}]")
    for case in CASES
    for protocol in protocols_of(case)
]


def test_the_suite_covers_what_the_issue_asks():
    assert len(CASES) >= 80
    assert len({c["id"] for c in CASES}) == len(CASES)
    expects = {c["expect"] for c in CASES}
    assert expects == {"kept", "unwrapped", "sent_back", "rewritten"}
    # English, Chinese, and other scripts (Cyrillic, kana).
    questions = " ".join(c["question"] for c in CASES)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in questions)
    assert any("\u0400" <= ch <= "\u04ff" for ch in questions)
    assert any("\u3040" <= ch <= "\u30ff" for ch in questions)
    assert sum(c["expect"] == "rewritten" and c.get("repair") == "omits" for c in CASES) >= 10
    assert sum(c["expect"] == "kept" for c in CASES) >= 30


@pytest.mark.parametrize(("case", "protocol"), RUNS)
def test_an_answer(case: dict[str, Any], protocol: str) -> None:
    result, script, ran = play(case, protocol)
    replies = case["replies"]
    steps = result.steps
    answer_steps = [s for s in steps if s.kind == "answer"]
    notices = [s for s in steps if s.notice is not None]
    assert result.stop_reason is StopReason.FINAL, (result.stop_reason, result.error)
    assert result.output is not None and result.output.strip()
    # Every scripted call ran, each once.
    assert len(ran) == sum(len(turn) for turn in case["calls"])
    expect = case["expect"]
    if expect in ("kept", "unwrapped", "sent_back"):
        wanted = case.get("output", replies[-1])
        assert result.output == wanted
        assert not answer_steps and not script.asked
        if result.answer is not None:
            assert result.answer.source == "model" and result.answer.repair == ""
        assert len(notices) == (1 if expect == "sent_back" else 0)
        assert result.loops == len(case["calls"]) + len(replies)
    else:
        assert expect == "rewritten"
        assert answer_steps and script.asked
        assert result.answer is not None and result.answer.source == "composed"
        assert result.answer.repair == case["repair"]
        assert result.output.startswith(WRITTEN)
        if case["repair"] == "omits":
            assert result.answer.unused  # which calls the draft left out, said
        # The stage's request: the question and every result, in a fresh context.
        (_system, request) = script.asked[0]
        assert case["question"] in str(request.content)
        for turn in case["calls"]:
            for call in turn:
                assert call["tool"] in str(request.content)
