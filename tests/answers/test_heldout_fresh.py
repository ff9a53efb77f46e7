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
    load_cases,
)

FRESH = load_cases("heldout_fresh.jsonl")

RUNS = heldout.runs(FRESH, {})
KEPT_UNREAD = heldout.kept_unread(FRESH)


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
    assert {c["expect"] for c in FRESH} == heldout.KINDS
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
    heldout.judge(case, protocol)


@pytest.mark.parametrize(("case", "protocol"), KEPT_UNREAD)
def test_a_kept_fresh_answer_says_its_language_was_not_read(
    case: dict[str, Any], protocol: str
) -> None:
    heldout.judge_language_not_read(case, protocol)
