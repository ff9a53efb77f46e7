"""The held-out answers: every line of ``heldout.jsonl``, in every protocol it names.

These cases were written before the rules of issue #41 changed, in languages the rules
were not written for, and no rule is chosen on them: their tally is the honest one.
Besides the four endings of ``test_answers.py`` (``kept``, ``unwrapped``, ``sent_back``,
``rewritten``), a held-out case may end one of three more ways:

* ``plan_stops``: the model only ever replies with a plan and never calls a tool, so
  nothing succeeds: the breaker stops the run in ``max_errors`` within
  ``2 * max_errors + 1`` model calls, with no output and the plan in ``result.error``;
* ``oversized``: one result is bigger than the default window (800 tokens) and the
  model's next call needs an item near its end: the item is shown to the model (the
  script makes the follow-up call only when it sees it), and the run ends with the
  model's own answer, kept;
* ``stopped_with_answer``: the loop's bound (``max_loops``) stops a model that keeps
  calling, with results in hand: the best answer the run has is delivered anyway
  (``output`` carries the results' values), with ``result.answer.complete`` False.

And a kept answer to a question in a language the rules do not read says so:
``result.answer.language_read`` is False.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest
from answers_support import (
    FITTING,
    HELDOUT,
    READ_LANGUAGES,
    WRITTEN,
    Script,
    play,
    protocols_of,
    scripted_calls,
)

from lcel_agent import AgentResult, StopReason

MAX_ERRORS = 2
"""``create_agent``'s default, which the runner keeps."""
KINDS = {
    "kept",
    "sent_back",
    "rewritten",
    "plan_stops",
    "oversized",
    "stopped_with_answer",
}

#: Held-out cases the rules still get wrong, each with why. They are measured, not hidden:
#: strict, so the day a rule reads one of them this list must shrink.
KNOWN_MISSES = {
    "omits-city-uk": (
        "the asked city is inflected with a changed stem (Львів, asked as Львові): no rule "
        "ties the result to the question, so the dropped city is not proven (issue 41)"
    ),
}


def runs(cases: list[dict[str, Any]], misses: dict[str, str]) -> list[Any]:
    """Every case in each protocol it names; a known miss (keyed by its id, or by
    ``id[protocol]`` where only that protocol misses) is a strict xfail with its reason."""
    params = []
    for case in cases:
        for protocol in protocols_of(case):
            reason = misses.get(case["id"]) or misses.get(f"{case['id']}[{protocol}]")
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(case, protocol, id=f"{case['id']}[{protocol}]", marks=marks))
    return params


def kept_unread(cases: list[dict[str, Any]]) -> list[Any]:
    """The kept answers to questions in a language the rules do not read, per protocol."""
    return [
        pytest.param(case, protocol, id=f"{case['id']}[{protocol}]")
        for case in cases
        if case["expect"] == "kept" and case["lang"] not in READ_LANGUAGES
        for protocol in protocols_of(case)
    ]


RUNS = runs(HELDOUT, KNOWN_MISSES)
KEPT_UNREAD = kept_unread(HELDOUT)

_played: dict[tuple[str, str], tuple[AgentResult, Script, list[Any]]] = {}


def _play(case: dict[str, Any], protocol: str) -> tuple[AgentResult, Script, list[Any]]:
    """One run per case and protocol, shared by the tests that look at it."""
    key = (case["id"], protocol)
    if key not in _played:
        _played[key] = play(case, protocol)
    return _played[key]


def _what_happened(result: AgentResult, script: Script) -> str:
    """How the run ended, for a failure's message."""
    answer = result.answer
    said = (
        f"stop={result.stop_reason.value} loops={result.loops} stage_calls={len(script.asked)}"
        f" output={result.output!r}"
    )
    if answer is not None:
        said += (
            f" source={answer.source} trigger={answer.trigger} repair={answer.repair!r}"
            f" unused={answer.unused} complete={answer.complete} note={answer.note!r}"
        )
    if result.error is not None:
        said += f" error={result.error}"
    return said


# The scripts that tell a question's language from its letters alone.
_SCRIPTS = {
    "ar": "ARABIC",
    "fa": "ARABIC",
    "he": "HEBREW",
    "hi": "DEVANAGARI",
    "th": "THAI",
    "ta": "TAMIL",
    "bn": "BENGALI",
    "el": "GREEK",
    "hy": "ARMENIAN",
    "am": "ETHIOPIC",
    "uk": "CYRILLIC",
    "ru": "CYRILLIC",
}


def _scripts(text: str) -> set[str]:
    return {unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha()}


def test_every_case_says_its_language():
    for case in FITTING + HELDOUT:
        assert re.fullmatch(r"[a-z]{2}", case.get("lang", "")), case["id"]
        script = _SCRIPTS.get(case["lang"])
        if script is not None:
            assert script in _scripts(case["question"]), case["id"]


def test_the_held_out_set_is_what_the_issue_asks():
    ids = [c["id"] for c in HELDOUT]
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {c["id"] for c in FITTING}
    # At least 40 cases in at least 8 languages the rules were not written for.
    unread = [c for c in HELDOUT if c["lang"] not in READ_LANGUAGES]
    assert len(unread) >= 40
    assert len({c["lang"] for c in unread}) >= 8
    # No held-out question is a fitting one.
    assert not {c["question"] for c in HELDOUT} & {c["question"] for c in FITTING}
    expects = {c["expect"] for c in HELDOUT}
    assert expects <= KINDS | {"unwrapped"}
    assert expects >= KINDS
    # Most answers are right, and right answers are what it tests hardest.
    assert sum(c["expect"] == "kept" for c in HELDOUT) * 2 > len(HELDOUT)
    assert sum(c.get("repair") == "omits" for c in HELDOUT) >= 5
    assert sum(c.get("repair") == "plan" for c in HELDOUT) >= 2
    for case in HELDOUT:
        if case["expect"] == "stopped_with_answer":
            assert case["max_loops"] < len(case["calls"]) and case["carries"]
        if case["expect"] == "oversized":
            listing = case["calls"][-1][0]["result"]
            assert case["follow"]["needs"] in listing.splitlines()[-1]
            assert case["follow"]["needs"] not in case["question"]


@pytest.mark.parametrize(("case", "protocol"), RUNS)
def test_a_held_out_case(case: dict[str, Any], protocol: str) -> None:
    judge(case, protocol)


@pytest.mark.parametrize(("case", "protocol"), KEPT_UNREAD)
def test_a_kept_answer_says_its_language_was_not_read(case: dict[str, Any], protocol: str) -> None:
    judge_language_not_read(case, protocol)


def judge(case: dict[str, Any], protocol: str) -> None:
    """Play a case (once per protocol) and hold it to the ending it expects."""
    result, script, ran = _play(case, protocol)
    how = _what_happened(result, script)
    ENDINGS[case["expect"]](case, result, script, ran, how)


def judge_language_not_read(case: dict[str, Any], protocol: str) -> None:
    """A kept answer to a question in an unread language says its language was not read."""
    result, script, _ran = _play(case, protocol)
    if result.answer is not None:
        assert getattr(result.answer, "language_read", None) is False, _what_happened(
            result, script
        )


def _kept(case: dict[str, Any], result: AgentResult, script: Script, ran: list[Any], how: str):
    """The model's own words are the answer, at no extra call (after one notice for a plan)."""
    replies = case["replies"]
    steps = result.steps
    notices = [s for s in steps if s.notice is not None]
    assert result.stop_reason is StopReason.FINAL, how
    assert len(ran) == len(scripted_calls(case)), how
    assert not script.asked and not [s for s in steps if s.kind == "answer"], how
    assert result.output == case.get("output", replies[-1]), how
    if result.answer is not None:
        assert result.answer.source == "model" and result.answer.repair == "", how
    assert len(notices) == (1 if case["expect"] == "sent_back" else 0), how
    assert result.loops == len(case["calls"]) + len(replies), how


def _rewritten(case: dict[str, Any], result: AgentResult, script: Script, ran: list[Any], how: str):
    """The answer stage wrote the answer, for the repair the case names, from every result."""
    assert result.stop_reason is StopReason.FINAL, how
    assert len(ran) == len(scripted_calls(case)), how
    assert script.asked and [s for s in result.steps if s.kind == "answer"], how
    assert result.answer is not None and result.answer.source == "composed", how
    assert result.answer.repair == case["repair"], how
    assert isinstance(result.output, str) and result.output.startswith(WRITTEN), how
    if case["repair"] == "omits":
        assert result.answer.unused, how
    (_system, request) = script.asked[0]
    assert case["question"] in str(request.content)
    for call in scripted_calls(case):
        assert call["tool"] in str(request.content)


def _plan_stops(
    case: dict[str, Any], result: AgentResult, script: Script, ran: list[Any], how: str
):
    """Only plans and nothing in hand: the breaker stops it, the plan in ``result.error``."""
    plan = case["replies"][-1]
    assert not ran and not script.asked, how
    assert result.stop_reason is StopReason.MAX_ERRORS, how
    assert script.acting <= 2 * MAX_ERRORS + 1, how
    assert result.output is None, how
    assert result.error is not None and plan[:12] in result.error.message, how


def _oversized(case: dict[str, Any], result: AgentResult, script: Script, ran: list[Any], how: str):
    """The item the next call needs was shown; the follow-up ran; the answer is the model's."""
    follow = case["follow"]["call"]
    saw = getattr(script, "saw", [])
    assert result.stop_reason is StopReason.FINAL, f"shown per call={saw} {how}"
    followed = [args for tool, args in ran if tool == follow["tool"]]
    assert len(followed) == 1, f"shown per call={saw} {how}"
    assert not script.asked, how
    assert result.output == case["replies"][-1], how
    if result.answer is not None:
        assert result.answer.source == "model" and result.answer.repair == "", how


def _stopped_with_answer(
    case: dict[str, Any], result: AgentResult, script: Script, ran: list[Any], how: str
):
    """Stopped by its bound with results in hand: the best answer it has, said incomplete."""
    assert result.stop_reason == case["stop"], how
    assert result.loops <= case["max_loops"], how
    assert ran, how
    assert result.output is not None, how
    for value in case["carries"]:
        assert value in str(result.output), how
    assert result.answer is not None and result.answer.complete is False, how


#: How each ending is judged ("unwrapped", of the first set only, as "kept").
ENDINGS = {
    "kept": _kept,
    "unwrapped": _kept,
    "sent_back": _kept,
    "rewritten": _rewritten,
    "plan_stops": _plan_stops,
    "oversized": _oversized,
    "stopped_with_answer": _stopped_with_answer,
}
