"""A result larger than the window: cut where the window needs it, saying so and how much.

The cut (``lcel_agent.memory.cut``) keeps the lines that name the question's words, then
the head and the tail, with a marker in each gap; the window applies it to the newest
result in both protocols (a tool message kept as a turn, or the line the agent's window
folds it into). The scenarios are ``oversized_scenarios.SCENARIOS``; their measure, design
by design, is ``python tests/memory/oversized_support.py``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from oversized_scenarios import SCENARIOS, Scenario
from oversized_support import PROTOCOLS, WINDOWS, play

from lcel_agent import StopReason
from lcel_agent.memory import AGENT_COMPACTOR, AGENT_TOOL_COMPACTOR, Fact, SlidingWindowMemory
from lcel_agent.memory.counters import estimate_tokens
from lcel_agent.memory.cut import cut_result, question_terms
from lcel_agent.texts import RESULT_CUT_CHARS, RESULT_CUT_ITEMS, RESULT_CUT_LINES


def _pattern(template: str) -> re.Pattern[str]:
    """A marker template as a pattern that reads back its counts."""
    escaped = re.escape(template)
    escaped = escaped.replace(re.escape("{count}"), r"(?P<count>\d+)")
    escaped = escaped.replace(re.escape("{chars:,}"), r"(?P<chars>[\d,]+)")
    return re.compile(escaped)


LINES, ITEMS, CHARS = map(_pattern, (RESULT_CUT_LINES, RESULT_CUT_ITEMS, RESULT_CUT_CHARS))
COUNTERS = [estimate_tokens, len]
ITEM = re.compile(r"(?<=\}), (?=\{)")


def left_out(text: str, marker: re.Pattern[str] = LINES) -> tuple[int, int]:
    """The lines (or items) and characters the markers in ``text`` say are left out."""
    found = list(marker.finditer(text))
    return (
        sum(int(m["count"]) for m in found),
        sum(int(m["chars"].replace(",", "")) for m in found),
    )


def listing(count: int, line: str = "row {i:03d}\tsome value {i}") -> str:
    return "\n".join(line.format(i=i) for i in range(count))


# --- the cut itself -----------------------------------------------------------------------


@pytest.mark.parametrize("counter", COUNTERS)
def test_a_result_that_fits_is_left_as_it_is(counter: Any) -> None:
    text = listing(5)
    assert cut_result(text, counter(text), counter, "row 3") == text


@pytest.mark.parametrize("counter", COUNTERS)
@pytest.mark.parametrize("target", [60, 150, 400])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_the_cut_fits_and_its_markers_count_what_is_left_out(
    scenario: Scenario, target: int, counter: Any
) -> None:
    text = scenario.result
    shown = cut_result(text, target, counter, scenario.question)
    assert counter(shown) <= target
    pattern = ITEMS if "\n" not in text else LINES
    if pattern.search(shown) is None:  # too small for any line: cut by characters
        (chars,) = [int(m.replace(",", "")) for m in CHARS.findall(shown)]
        kept = CHARS.sub("", shown)
        assert chars == len(text) - len(kept) and text.startswith(kept[:5])
        return
    if pattern is LINES:
        records = text.split("\n")
        kept = [line for line in shown.split("\n") if not LINES.fullmatch(line)]
    else:
        records = ITEM.split(text)
        kept = ITEM.split(ITEMS.sub("", shown.replace(" …[", "…[")))
    assert _in_order(kept, records)
    assert kept[0] == records[0] and kept[-1] == records[-1]
    count, chars = left_out(shown, pattern)
    assert count + len(kept) == len(records)
    assert 0 < chars < len(text)


def _in_order(kept: list[str], records: list[str]) -> bool:
    rest = iter(records)
    return all(any(k == r for r in rest) for k in kept)


def test_lines_that_name_the_question_are_kept_in_their_place() -> None:
    rows = [f"D-{i:03d}\tcustomer {i}\tBerlin" for i in range(120)]
    rows[70] = "D-070\tcustomer 70\tMünchen"
    text = "\n".join(rows)
    shown = cut_result(text, 200, estimate_tokens, "Open the customer in München")
    lines = shown.split("\n")
    assert rows[70] in lines
    at = lines.index(rows[70])
    assert LINES.fullmatch(lines[at - 1]) and LINES.fullmatch(lines[at + 1])
    count, _ = left_out(shown)
    assert count == 120 - (len(lines) - 2)


@pytest.mark.parametrize(
    ("question", "line"),
    [
        ("दिल्ली वाली रिपोर्ट खोलो", "रिपोर्ट_दिल्ली_2026.csv"),  # vowel signs and a virama
        ("சென்னை அறிக்கையைத் திற", "அறிக்கை_சென்னை_2026.csv"),
        ("খুলনার প্রতিবেদন খোলো", "প্রতিবেদন_খুলনা_2026.csv"),
        ("Что с заказом в Москве?", "заказ 7\tМосква"),  # an inflected name
        ("打开台风登陆那一期简报", "第59期台风登陆简报"),  # a script without spaces
        ("Kayseri klasöründeki raporu aç", "kayseri_rapor.csv"),  # casefolded, a stem
    ],
)
def test_a_question_in_any_script_finds_its_line(question: str, line: str) -> None:
    rows = [f"item_{i:03d}_filler_text.csv" for i in range(100)]
    rows[55] = line
    shown = cut_result("\n".join(rows), 150, estimate_tokens, question)
    assert line in shown.split("\n")


def test_the_question_is_read_by_letters_and_marks_not_backslash_w() -> None:
    # Python's \w splits a Devanagari word at its vowel sign; the cut reads it whole.
    assert re.findall(r"\w+", "दिल्ली") != ["दिल्ली"]
    assert "दिल्ल" in question_terms("दिल्ली वाली रिपोर्ट")
    assert question_terms("打开台风报告") == ("打开", "开台", "台风", "风报", "报告")
    assert "1080" in question_terms("Open K-1080") and "k" not in question_terms("Open K-1080")


def test_a_word_every_line_has_picks_nothing() -> None:
    text = listing(100, "report_{i:03d}.csv")
    assert cut_result(text, 150, estimate_tokens, "open the report") == cut_result(
        text, 150, estimate_tokens
    )


def test_one_long_line_is_cut_by_characters_head_and_tail() -> None:
    text = "HEAD " + "lorem ipsum " * 500 + " TAIL"
    shown = cut_result(text, 80, estimate_tokens, "lorem")
    assert shown.startswith("HEAD") and shown.endswith("TAIL")
    (chars,) = [int(c.replace(",", "")) for c in CHARS.findall(shown)]
    assert chars == len(text) - len(CHARS.sub("", shown))


def test_a_json_list_on_one_line_is_cut_by_whole_items() -> None:
    items = [{"id": f"P-{i}", "name": f"thing {i}"} for i in range(80)]
    items[40]["name"] = "blue teapot"
    shown = cut_result(json.dumps(items), 200, estimate_tokens, "the blue teapot")
    assert (
        '{"id": "P-0", "name": "thing 0"}' in shown
        and '{"id": "P-79", "name": "thing 79"}]' in shown
    )
    assert '{"id": "P-40", "name": "blue teapot"}' in shown
    count, _ = left_out(shown, ITEMS)
    assert count == 80 - shown.count('{"id"')


def test_a_note_already_in_the_result_stays_in_view() -> None:
    text = listing(40) + "\n…[truncated 12,345 characters]…\n" + listing(40)
    shown = cut_result(text, 150, estimate_tokens)
    assert "…[truncated 12,345 characters]…" in shown.split("\n")


def test_an_indented_line_keeps_the_rest_of_its_object() -> None:
    tickets = [{"ticket": f"T{i}", "title": f"issue {i}", "by": "ops"} for i in range(60)]
    tickets[30]["title"] = "Broken elevator"
    shown = cut_result(json.dumps(tickets, indent=2), 220, estimate_tokens, "the broken elevator")
    assert '"ticket": "T30",' in shown and '"title": "Broken elevator",' in shown


# --- in the window --------------------------------------------------------------------------


def test_the_agent_window_folds_an_oversized_result_cut_to_the_room_it_has() -> None:
    window = SlidingWindowMemory(800, compactor=AGENT_COMPACTOR)
    window.add_system("Reply with one JSON action.")
    window.add_user("Open the file for Zürich.")
    older = [(f"get_weather({c})", f"{c}: sunny, 25°C") for c in ("Bern", "Basel", "Genf")]
    for call, result in older:
        window.add_turn(
            [AIMessage(content=call), HumanMessage(content=f"Observation: {result}")],
            facts=[Fact(call, result)],
        )
    files = [f"file_{i:03d}_{'zürich' if i == 51 else 'misc'}.csv" for i in range(150)]
    text = "\n".join(files)
    window.add_turn(
        [AIMessage(content="list_files(/)"), HumanMessage(content=f"Observation: {text}")],
        facts=[Fact("list_files(/)", text)],
    )
    shown = window.messages[1].content
    assert isinstance(shown, str)
    assert window.token_count <= 800
    assert window.token_count > 600  # the room is used, not a 100-token head
    for _call, result in older:  # every older fact stays beside it
        assert result.split(":")[0] in shown
    assert files[0] in shown and files[51] in shown and files[-1] in shown
    count, _ = left_out(shown)
    assert count == 150 - sum(f in shown for f in files)


@pytest.mark.parametrize("compactor", [AGENT_TOOL_COMPACTOR, None], ids=["agent", "plain"])
def test_a_tool_message_is_cut_in_the_turn_with_the_question_in_mind(compactor: Any) -> None:
    window = SlidingWindowMemory(400, compactor=compactor)
    window.add_user("Which order did Vasilyeva place?")
    rows = [f"O-{i}\tcustomer {i}" for i in range(200)]
    rows[120] = "O-120\tVasilyeva"
    window.add_turn(
        [
            AIMessage(content="", tool_calls=[{"name": "ls", "args": {}, "id": "c1"}]),
            ToolMessage(content="\n".join(rows), tool_call_id="c1"),
        ]
    )
    tool = window.messages[-1]
    assert isinstance(tool, ToolMessage) and isinstance(tool.content, str)
    assert "O-120\tVasilyeva" in tool.content and rows[0] in tool.content
    assert window.token_count <= 400 and window.truncated == 1


# --- in a run: the scenarios ----------------------------------------------------------------

RUNS = [
    pytest.param(s, p, w, id=f"{s.id}-{p}-{w or 'default'}")
    for s in SCENARIOS
    for p in PROTOCOLS
    for w in WINDOWS
]


@pytest.mark.parametrize(("scenario", "protocol", "size"), RUNS)
def test_the_item_the_next_call_needs_is_shown_when_the_cut_can_find_it(
    scenario: Scenario, protocol: str, size: int | None, run: Any
) -> None:
    out = play(scenario, protocol, size, run)
    result = out.result
    recorded = result.steps[0].observations[0].output
    # The run's records keep the result as the tool dispatcher passed it: the answer's source.
    assert recorded == scenario.result or "…[truncated " in recorded
    assert out.over == 0  # never over the budget
    next_call = "\n".join(str(m.content) for m in out.seeing.prompts[1])
    assert LINES.search(next_call) or ITEMS.search(next_call)  # says it was cut, and how much
    findable = scenario.where in ("head", "tail", "named") and scenario.needs in recorded
    assert out.visible is findable
    if findable:
        assert result.stop_reason is StopReason.FINAL and len(out.seeing.saw) == 1
        assert result.output == f"Done: {scenario.needs}."


def test_with_answer_model_the_newest_turn_is_cut_too(run: Any) -> None:
    scenario = next(s for s in SCENARIOS if s.id == "lines-zh-named")
    out = play(scenario, "json", None, run, answer="model")
    assert out.visible and out.over == 0
    observation = str(out.seeing.prompts[1][-1].content)
    assert observation.startswith("Observation: ") and LINES.search(observation)
