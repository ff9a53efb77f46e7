"""Property tests: the JSON cleaner and the action parser on arbitrary input.

Bounded and derandomized, so every run checks the same examples. The totals are
module constants (``EXAMPLES``) quoted in docs/reliability.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lcel_agent.errors import ActionParseError
from lcel_agent.stages._shapes import FINAL_NAMES
from lcel_agent.stages.clean import extract_json
from lcel_agent.stages.parse import parse_actions

EXAMPLES = 300
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
_json = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_objects = st.dictionaries(st.text(max_size=8), _json, min_size=1, max_size=5)
# Prose around the JSON: any text without braces, brackets or backticks.
_prose = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="{}[]`"), max_size=40)


@FUZZ
@given(st.text(max_size=200))
def test_extract_json_raises_only_action_parse_error(text: str) -> None:
    try:
        value = extract_json(text)
    except ActionParseError as exc:
        assert exc.observation  # the fixed re-prompt text, never the decoder's message
        return
    assert isinstance(value, (dict, list))


@FUZZ
@given(_objects, _prose, _prose, st.sampled_from(["", "json", "JSON"]), st.booleans())
def test_extract_json_recovers_wrapped_objects(
    obj: dict[str, Any], before: str, after: str, lang: str, fenced: bool
) -> None:
    body = json.dumps(obj, ensure_ascii=False, indent=None if fenced else 2)
    text = f"{before}\n```{lang}\n{body}\n```\n{after}" if fenced else f"{before} {body} {after}"
    assert extract_json(text) == obj


_names = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() != "")
# Tool names: anything but the names a final answer goes by.
_tool_names = _names.filter(lambda s: s.strip().lower() not in FINAL_NAMES)


@st.composite
def _bad_actions(draw: st.DrawFn) -> Any:
    """A value ``parse_actions`` must reject, of one of the four kinds."""
    kind = draw(st.sampled_from(["no_name", "no_input", "empty", "non_dict"]))
    good = {"action": draw(_tool_names), "action_input": draw(_json)}
    if kind == "no_name":
        bad: dict[str, Any] = {"action_input": draw(_json)}
        name = draw(st.none() | st.integers() | st.just("") | st.just("  ") | st.lists(_names))
        if draw(st.booleans()):
            bad["action"] = name
        return draw(st.sampled_from([bad, [good, bad]]))
    if kind == "no_input":
        return draw(st.sampled_from([{"action": good["action"]}, [good, {"action": "x"}]]))
    if kind == "empty":
        return []
    item = draw(_scalars | st.lists(_scalars, max_size=3))
    return draw(st.sampled_from([item, [good, item]])) if not isinstance(item, list) else [item]


@FUZZ
@given(_bad_actions())
def test_parse_actions_rejects_every_bad_shape(value: Any) -> None:
    with pytest.raises(ActionParseError):
        parse_actions(value)


@FUZZ
@given(
    st.lists(st.fixed_dictionaries({"action": _tool_names, "action_input": _json}), min_size=1),
    st.sampled_from(["final", "FINAL", " final ", "Final Answer"]),
    st.data(),
)
def test_a_final_beside_tool_calls_is_dropped_and_the_calls_kept(
    calls: list[dict[str, Any]], final: str, data: st.DataObject
) -> None:
    items = data.draw(st.permutations([*calls, {"action": final, "action_input": "a"}]))
    actions = parse_actions(items)
    assert [a.tool for a in actions] == [i["action"].strip() for i in items if i in calls]
    # On the loop reserved for the answer, the answer is kept instead.
    (answer,) = parse_actions(items, prefer_final=True)
    assert answer.is_final and answer.tool_input == "a"


@FUZZ
@given(
    st.lists(
        st.fixed_dictionaries({"action": _tool_names, "action_input": _json}),
        min_size=1,
        max_size=4,
    )
)
def test_parse_actions_accepts_well_formed_tool_lists(items: list[dict[str, Any]]) -> None:
    actions = parse_actions(items if len(items) > 1 else items[0])
    assert [(a.tool, a.tool_input) for a in actions] == [
        (i["action"].strip(), i["action_input"]) for i in items
    ]
