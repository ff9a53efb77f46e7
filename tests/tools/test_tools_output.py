"""truncate_output, stringify_output and is_error_result."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, ToolMessage

from lcel_agent.tools import is_error_result, stringify_output, truncate_output

_MARKER = re.compile(r"\n…\[truncated ([\d,]+) characters\]…\n")


@given(st.text(), st.integers(min_value=0, max_value=400))
def test_truncation_bounds_length_and_keeps_head_and_tail(text, max_chars):
    result = truncate_output(text, max_chars)
    assert len(result) <= max_chars or result == text
    if len(text) <= max_chars:
        assert result == text
        return
    match = _MARKER.search(result)
    if match is None:  # too small for a marker: the head alone
        assert result == text[:max_chars]
        return
    removed = int(match.group(1).replace(",", ""))
    head, tail = result[: match.start()], result[match.end() :]
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) + len(tail) + removed == len(text)
    assert len(result) == max_chars


def test_marker_reads_well():
    result = truncate_output("a" * 20_000 + "b" * 12_345 + "c" * 20_000, 40_000)
    assert "\n…[truncated 12,3" in result
    assert result.startswith("a") and result.endswith("c")


def test_negative_limit_is_a_mistake():
    with pytest.raises(ValueError):
        truncate_output("x", -1)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ERROR: boom", True),
        ("  \nERROR: boom", True),
        ("error: lower case", False),
        ("result mentions ERROR: inside", False),
        (None, False),
        ({"ERROR:": 1}, False),
        # The other convention: an object whose only or first key is "error" (BFCL's
        # backends, many HTTP APIs), as a value or as its JSON text.
        ({"error": "No such directory: 'tmp'"}, True),
        ('{"error": "No such directory"}', True),
        ('  {"error": {"code": 404, "message": "not found"}}', True),
        ({"error": "x", "detail": "y"}, True),
        # ... and what is not: an empty error, an error that is not the first key, text.
        ({"error": None, "data": [1, 2]}, False),
        ('{"error": null, "result": "ok"}', False),
        ({"error": ""}, False),
        ({"result": "ok", "error": "ignored"}, False),
        ('{"errors_seen": 2}', False),
        ('{"error": "cut', False),
        ('the error key is {"error": 1}', False),
        (ToolMessage(content="ERROR: x", tool_call_id="1"), True),
        (AIMessage(content="fine"), False),
    ],
)
def test_is_error_result(value, expected):
    assert is_error_result(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("text", "text"),
        ({"城市": "北京"}, '{"城市": "北京"}'),
        ([1, 2], "[1, 2]"),
        (3.5, "3.5"),
        (ToolMessage(content="内容", tool_call_id="1"), "内容"),
    ],
)
def test_stringify_output(value, expected):
    assert stringify_output(value) == expected


def test_stringify_falls_back_to_str():
    assert stringify_output({1, 2}) in ("{1, 2}", "{2, 1}")
