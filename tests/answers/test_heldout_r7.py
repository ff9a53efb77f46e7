"""A third held-out set: every line of ``heldout_r7.jsonl``, in every protocol it names.

Written after round 6's rules, without reading them (nor their history), from what
``docs/answer.md`` promises a user, to replace the held-out cases that were used to fix
rules in round 6: those are no longer held out, these are. Thirty cases in fourteen
languages, eight of them in no other case file (Finnish, Tagalog, Georgian, Kazakh,
Serbian, Slovak, Malay, Nepali) and four read languages no other set has (German,
Spanish, Italian, Korean): short answers that must stand (numbers in local formats,
yes/no, choices), receipts, answers that drop an asked result, plans with nothing done,
and runs stopped by ``max_loops`` with results in hand. Each case is judged by
``test_heldout.py``'s own endings, imported from there, so every set is held to the same
assertions. No case is changed to fit a result: a case the rules get wrong is marked in
``KNOWN_MISSES``, with what it did.
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

R7 = load_cases("heldout_r7.jsonl")
FRESH = load_cases("heldout_fresh.jsonl")
PLAN_LANGUAGES = READ_LANGUAGES | {
    *("ar", "he", "hi", "ur", "fa", "bn", "ta", "th", "el"),
    *("uk", "tr", "pl", "cs", "vi", "id", "ms", "sw", "nl"),
}
"""Where ``docs/answer.md`` says a plan is read: the ten, and the 17 more (Malay with Indonesian)."""
SCRIPTS = {
    **heldout._SCRIPTS,
    "ka": "GEORGIAN",
    "kk": "CYRILLIC",
    "sr": "CYRILLIC",
    "ne": "DEVANAGARI",
    "ko": "HANGUL",
}

#: Cases the rules get wrong, each with what it did (a key is an id, or ``id[protocol]``
#: where only some protocols miss). Strict: the day a rule reads one, it must go.
#: The two plan cases it first missed (Italian "Controllerò ...", German "ich sehe ... nach")
#: were then read by a general rule (an act verb's first-person future, German's present for
#: it): they are no longer held out.
KNOWN_MISSES: dict[str, str] = {
    "r7-it-tickets-omits": (
        "Bologna asked and dropped (the answer carries only Verona's 4.210 and the shared 5.000):"
        " the answer stands as the model's, no repair, nothing unused"
    ),
}


RUNS = heldout.runs(R7, KNOWN_MISSES)
KEPT_UNREAD = heldout.kept_unread(R7)


def test_every_r7_case_says_its_language():
    for case in R7:
        assert re.fullmatch(r"[a-z]{2}", case.get("lang", "")), case["id"]
        script = SCRIPTS.get(case["lang"])
        if script is not None:
            assert script in heldout._scripts(case["question"]), case["id"]


def test_the_r7_set_is_what_the_brief_asks():
    others = FITTING + HELDOUT + FRESH
    ids = [c["id"] for c in R7]
    assert len(set(ids)) == len(ids) == 30
    assert all(i.startswith("r7-") for i in ids)
    assert not set(ids) & {c["id"] for c in others}
    assert not {c["question"] for c in R7} & {c["question"] for c in others}
    # At least 8 languages, at least 4 of them in no other case file, some of them read.
    langs = Counter(c["lang"] for c in R7)
    assert len(langs) >= 8
    assert len(set(langs) - {c["lang"] for c in others} - READ_LANGUAGES) >= 4
    assert set(langs) & READ_LANGUAGES
    # The five kinds, roughly even.
    assert {c["expect"] for c in R7} <= heldout.KINDS
    assert sum(c["expect"] == "kept" for c in R7) >= 10
    assert sum(c.get("repair") == "omits" for c in R7) >= 5
    assert sum(c["expect"] == "plan_stops" for c in R7) >= 4
    assert sum(c["expect"] == "stopped_with_answer" for c in R7) >= 4
    for case in R7:
        if case["expect"] == "rewritten":
            assert case["repair"] == "omits", case["id"]
        if case["expect"] == "plan_stops":
            assert case["lang"] in PLAN_LANGUAGES and not case["calls"], case["id"]
        if case["expect"] == "stopped_with_answer":
            assert case["max_loops"] < len(case["calls"]) and case["carries"], case["id"]


@pytest.mark.parametrize(("case", "protocol"), RUNS)
def test_an_r7_case(case: dict[str, Any], protocol: str) -> None:
    heldout.judge(case, protocol)


@pytest.mark.parametrize(("case", "protocol"), KEPT_UNREAD)
def test_a_kept_r7_answer_says_its_language_was_not_read(
    case: dict[str, Any], protocol: str
) -> None:
    heldout.judge_language_not_read(case, protocol)
