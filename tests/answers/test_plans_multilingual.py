"""Plans in the languages read for them besides the ten: every line of ``plans_multilingual.jsonl``.

Each line is a reply in words (``text``), the question it answers, its language, and
whether it is a plan (the model says what it will do) or not (an answer, however much it
speaks of the future: "it will rain tomorrow", "he will check", "if you like, I'll check
tomorrow too", "I checked: sunny"). The bar: **no** answer is read as a plan, in any
language (a false plan costs a model call; given twice, it can stop a run), and most plans
are (each language at least ``RECALL_FLOOR`` of its plans).

Three sets, each written before the rules it was measured on: ``"fitting"`` before any
rule; ``"after"`` once the first rules held the fitting set, measured once before they
were changed (3 false plans, fixed); ``"last"`` once they held both, measured once (no
false plan; its misses made the verbs of fetching one more word). docs/answer.md, "The
languages the rules read", gives the tallies.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lcel_agent.stages.answer import PLAN_LANGUAGES, is_plan, language_of, plan_language
from lcel_agent.stages.answer._language import older_model

ROWS: list[dict[str, Any]] = [
    json.loads(line)
    for line in (Path(__file__).parent / "plans_multilingual.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
    if line.strip()
]
TOOLS = ["get_weather", "search_web", "get_train_times", "send_email"]
# On the article's stack (numpy < 2) py3langid is 0.2, whose older model places fewer short
# texts: there fewer plans are read (docs/answer.md), and none is placed wrongly either way.
OLDER = older_model()
RECALL_FLOOR = 0.6 if OLDER else 0.8
UNPLACED_CEILING = 0.07 if OLDER else 0.02


def _id(row: dict[str, Any]) -> str:
    return f"{row['lang']}-{row['set']}-{row['text'][:24]}"


def _read(row: dict[str, Any]) -> bool:
    return is_plan(row["text"], TOOLS, called=set(), question=row["question"])


def test_every_plan_language_has_plans_and_answers_to_confuse():
    counts = Counter((row["lang"], row["plan"]) for row in ROWS)
    for language in PLAN_LANGUAGES:
        assert counts[language, True] >= 8, language
        assert counts[language, False] >= 12, language
    assert {row["set"] for row in ROWS} == {"fitting", "after", "last"}


@pytest.mark.parametrize("row", [r for r in ROWS if not r["plan"]], ids=_id)
def test_an_answer_is_no_plan(row):
    assert not _read(row), row.get("kind")


@pytest.mark.parametrize("language", PLAN_LANGUAGES)
def test_plans_are_read(language):
    plans = [row for row in ROWS if row["lang"] == language and row["plan"]]
    missed = [row["text"] for row in plans if not _read(row)]
    assert len(plans) - len(missed) >= RECALL_FLOOR * len(plans), missed


def test_each_reply_is_placed_in_its_language_or_left_to_its_question():
    placed = [plan_language(row["text"]) for row in ROWS]
    assert all(got in (row["lang"], None) for got, row in zip(placed, ROWS, strict=True))
    assert sum(got is None for got in placed) <= UNPLACED_CEILING * len(ROWS)


def test_the_ten_read_languages_are_read_as_before():
    # plan_language leaves language_of alone: no reply here is taken for one of the ten.
    assert all(language_of(row["text"]) is None for row in ROWS)
    assert plan_language("Is Paris warmer than London today?") == "en"
    assert plan_language("北京和上海哪个更热？") == "zh"


@pytest.mark.parametrize(
    "text",
    ["Mai întâi voi verifica vremea din București.", "Először megnézem az időjárást Budapesten.",
     "Najprv skontrolujem počasie v Bratislave.", "Prvo ću provjeriti vrijeme u Zagrebu.",
     "Ek sal eers die weer in Kaapstad nagaan.", "Titingnan ko muna ang panahon sa Maynila.",
     "Əvvəlcə Bakıda hava şəraitini yoxlayacağam.", "Първо ще проверя времето в София.",
     "Спачатку я праверу надвор'е ў Мінску.", "Прво ћу проверити време у Београду.",
     "Алдымен Алматыдағы ауа райын тексеремін.", "मी आधी पुण्यातील हवामान तपासतो.",
     "म पहिले काठमाडौंको मौसम हेर्छु।", "زه به لومړی د کابل هوا وګورم.",
     "یەکەم جار کەشوهەوای هەولێر دەپشکنم.", "איך וועל ערשט קוקן דאָס וועטער אין ניו יאָרק.",
     "মই প্ৰথমে গুৱাহাটীৰ বতৰ চাম।", "Jeg vil først tjekke vejret i København.",
     "Vispirms pārbaudīšu laikapstākļus Rīgā.", "Ọkọ̀ ojú irin din owó ju bọ́ọ̀sì lọ.",
     "L-ewwel se niċċekkja t-temp f'Valletta."],
)  # fmt: skip
def test_a_language_that_shares_a_script_is_not_taken_for_a_plan_language(text):
    assert plan_language(text) is None
    assert not is_plan(text, TOOLS)


def test_a_short_reply_goes_by_the_question_and_its_letters():
    # Too short for the identifier: read in the question's language, in its alphabet only
    # (the older model does not place this question: nothing is read then).
    read = is_plan("Subiri kidogo, nitaangalia.", TOOLS, question="Hali ya hewa ikoje Nairobi leo?")
    assert read is not OLDER
    assert not is_plan(
        "Subiri kidogo, nitaangalia.", TOOLS, question="Jaké je dnes počasí v Praze?"
    )
    assert is_plan("Sprawdzę.", TOOLS)  # ę: Polish, whatever the question
