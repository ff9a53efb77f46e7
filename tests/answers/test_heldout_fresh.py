"""A second held-out set: every line of ``heldout_fresh.jsonl``, in every protocol it names.

Written by someone who never read the answer rules nor the other case files, in languages
the rules were not written for, from what ``docs/answer.md`` promises a user. Each case is
judged by ``test_heldout.py``'s own endings (``kept``, ``sent_back``, ``rewritten``,
``plan_stops``, ``oversized``, ``stopped_with_answer``), imported from there, so both sets
are held to the same assertions. No case is changed to fit a result.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
import test_heldout as heldout
from answers_support import (
    FITTING,
    HELDOUT,
    READ_LANGUAGES,
    Script,
    load_cases,
    play,
    protocols_of,
)

from lcel_agent import AgentResult

FRESH = load_cases("heldout_fresh.jsonl")

RUNS = [
    pytest.param(case, protocol, id=f"{case['id']}[{protocol}]")
    for case in FRESH
    for protocol in protocols_of(case)
]
KEPT_UNREAD = [
    pytest.param(case, protocol, id=f"{case['id']}[{protocol}]")
    for case in FRESH
    if case["expect"] == "kept" and case["lang"] not in READ_LANGUAGES
    for protocol in protocols_of(case)
]
ENDINGS = {
    "kept": heldout._kept,
    "sent_back": heldout._kept,
    "rewritten": heldout._rewritten,
    "plan_stops": heldout._plan_stops,
    "oversized": heldout._oversized,
    "stopped_with_answer": heldout._stopped_with_answer,
}

_played: dict[tuple[str, str], tuple[AgentResult, Script, list[Any]]] = {}


def _play(case: dict[str, Any], protocol: str) -> tuple[AgentResult, Script, list[Any]]:
    """One run per case and protocol, shared by the tests that look at it."""
    key = (case["id"], protocol)
    if key not in _played:
        _played[key] = play(case, protocol)
    return _played[key]


def test_every_fresh_case_says_its_language():
    for case in FRESH:
        assert re.fullmatch(r"[a-z]{2}", case.get("lang", "")), case["id"]
        script = heldout._SCRIPTS.get(case["lang"])
        if script is not None:
            assert script in heldout._scripts(case["question"]), case["id"]


def test_the_fresh_set_is_what_the_issue_asks():
    ids = [c["id"] for c in FRESH]
    assert len(set(ids)) == len(ids)
    assert not set(ids) & {c["id"] for c in FITTING + HELDOUT}
    assert not {c["question"] for c in FRESH} & {c["question"] for c in FITTING + HELDOUT}
    # At least 40 cases in at least 8 languages the rules were not written for.
    unread = Counter(c["lang"] for c in FRESH if c["lang"] not in READ_LANGUAGES)
    assert sum(unread.values()) >= 40
    assert len(unread) >= 8
    assert {c["expect"] for c in FRESH} == set(ENDINGS)
    # Most answers are right, as in real use.
    assert sum(c["expect"] == "kept" for c in FRESH) * 2 > len(FRESH)
    assert sum(c.get("repair") == "omits" for c in FRESH) >= 5
    assert sum(c.get("repair") == "plan" for c in FRESH) >= 2
    for case in FRESH:
        if case["expect"] == "rewritten":
            assert case["repair"] in {"omits", "plan"}, case["id"]
        if case["expect"] == "stopped_with_answer":
            assert case["max_loops"] < len(case["calls"]) and case["carries"], case["id"]
        if case["expect"] == "oversized":
            listing = case["calls"][-1][0]["result"]
            assert case["follow"]["needs"] in listing.splitlines()[-1], case["id"]
            assert case["follow"]["needs"] not in case["question"], case["id"]


@pytest.mark.parametrize(("case", "protocol"), RUNS)
def test_a_fresh_case(case: dict[str, Any], protocol: str) -> None:
    result, script, ran = _play(case, protocol)
    how = heldout._what_happened(result, script)
    ENDINGS[case["expect"]](case, result, script, ran, how)


@pytest.mark.parametrize(("case", "protocol"), KEPT_UNREAD)
def test_a_kept_fresh_answer_says_its_language_was_not_read(
    case: dict[str, Any], protocol: str
) -> None:
    result, script, _ran = _play(case, protocol)
    if result.answer is not None:
        assert getattr(result.answer, "language_read", None) is False, heldout._what_happened(
            result, script
        )
