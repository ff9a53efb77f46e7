"""Property tests of the redactor's value rules (issue 31): a key is masked whole, without
its known prefix, and in every run of 16 or more of its characters, in any form it leaks in.

Keys come in the shapes providers hand out: ``sk-...``, ``sk-proj-...``, an
``Authorization`` value (``Bearer ...``), plain hex,
base64-ish with ``+/=``, short keys under 16 characters (where only the whole key and
its body apply), and keys full of regular-expression metacharacters. Each example
passes its key to ``redact(text, [key])`` (a value for that call only), so no example's
key stays registered for the rest of the suite.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from lcel_agent._redact import MIN_SECRET_LEN, REDACTED, redact

URLSAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
HEX = "0123456789abcdef"
B64 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
# Every character `re` gives a meaning to, a quote and a backslash (escaped in JSON and
# repr), a percent sign (URL-encoded), and a few letters.
SPECIAL = ".^$*+?()[]{}|\\\"'%abcXYZ019"

SHAPES = {
    "sk": st.text(URLSAFE, min_size=6, max_size=60).map(lambda body: "sk-" + body),
    "sk-proj": st.text(URLSAFE, min_size=6, max_size=60).map(lambda body: "sk-proj-" + body),
    "bearer": st.text(URLSAFE, min_size=6, max_size=40).map(lambda body: "Bearer " + body),
    "hex": st.text(HEX, min_size=6, max_size=64),
    "base64": st.builds(
        str.__add__, st.text(B64, min_size=8, max_size=60), st.sampled_from(["", "=", "=="])
    ),
    "short": st.text(URLSAFE, min_size=MIN_SECRET_LEN, max_size=15),
    "regex-special": st.text(SPECIAL, min_size=6, max_size=40),
}
KEYS = st.one_of(*SHAPES.values())
LONG_KEYS = KEYS.filter(lambda key: len(key) >= 16)
# Text around a key that shares no character with any key: the mask must cover exactly
# the key's piece, no more and no less.
FILLER = st.text("北京天气晴，。：温度 ", max_size=12)

ENCODINGS: dict[str, Callable[[str], str]] = {
    "as is": lambda s: s,
    "url": lambda s: urllib.parse.quote(s, safe=""),
    "url+": urllib.parse.quote_plus,
    "json": lambda s: json.dumps(s)[1:-1],
}


#: A word as the short-secret rule reads one: at most ten letters, one case or Capitalized.
WORD = r"(?:[a-z]{1,10}|[A-Z][a-z]{0,9}|[A-Z]{1,10})"


def _bodies(key: str) -> list[str]:
    """The key without each known prefix it has, where what is left can be a secret: six
    characters at least, and (issue 36's short-secret rule) under 16 only if it does not
    read as a word, which would be masked everywhere (tests/core/test_core_redact_short.py)."""
    bodies = {key.removeprefix(prefix) for prefix in ("sk-proj-", "sk-", "Bearer ")} - {key}
    return [
        body
        for body in bodies
        if len(body) >= MIN_SECRET_LEN
        and (len(body) >= 16 or not re.fullmatch(rf"{WORD}(?:[-_]{WORD})*", body))
    ]


@given(key=KEYS, before=FILLER, after=FILLER)
def test_a_key_and_its_body_are_masked_whole_whatever_their_length(
    key: str, before: str, after: str
) -> None:
    for piece in (key, *_bodies(key)):
        assert redact(before + piece + after, [key]) == before + REDACTED + after, piece


@given(key=LONG_KEYS, data=st.data(), encoding=st.sampled_from(list(ENCODINGS)))
def test_every_run_of_16_characters_of_a_key_is_masked_exactly(
    key: str, data: st.DataObject, encoding: str
) -> None:
    start = data.draw(st.integers(0, len(key) - 16), label="start")
    end = data.draw(st.integers(start + 16, len(key)), label="end")
    before, after = data.draw(FILLER, label="before"), data.draw(FILLER, label="after")
    piece = ENCODINGS[encoding](key[start:end])
    assert redact(before + piece + after, [key]) == before + REDACTED + after


@given(key=KEYS, encoding=st.sampled_from([*ENCODINGS, "repr"]), before=FILLER)
def test_an_escaped_key_is_masked_whole(key: str, encoding: str, before: str) -> None:
    escape = ENCODINGS.get(encoding) or (lambda s: repr(s)[1:-1])
    assert redact(before + escape(key), [key]) == before + REDACTED


@given(
    key=st.one_of(SHAPES["hex"], SHAPES["base64"]).filter(lambda key: len(key) >= 17),
    data=st.data(),
)
def test_fifteen_characters_of_a_key_are_not_a_run(key: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(key) - 15), label="start")
    text = f"北京{key[start : start + 15]}晴"
    assert redact(text, [key]) == text


@st.composite
def _leaky_texts(draw: st.DrawFn) -> tuple[list[str], str]:
    """Up to three keys, and any text with pieces of them (whole, bodies, runs) inside."""
    keys = draw(st.lists(KEYS, min_size=1, max_size=3, unique=True), label="keys")
    parts = [draw(st.text(max_size=10), label="text")]
    for _ in range(draw(st.integers(1, 5), label="pieces")):
        key = draw(st.sampled_from(keys), label="key")
        runs = [key[i : i + 16 + n] for i in range(len(key) - 15) for n in (0, 4)]
        piece = draw(st.sampled_from([key, *_bodies(key), *runs]), label="piece")
        # Each piece stands as a token of its own: a short one glued into a longer word
        # is that word, not the key (issue 36's short-secret rule).
        parts += [" ", piece, " ", draw(st.text(max_size=10), label="text")]
    return keys, "".join(parts)


@given(_leaky_texts())
def test_no_piece_of_any_key_survives_in_any_text(keys_and_text: tuple[list[str], str]) -> None:
    keys, text = keys_and_text
    masked = redact(text, keys)
    assert REDACTED in masked
    for key in keys:
        for piece in (key, *_bodies(key)):
            assert piece not in masked
        for start in range(len(key) - 15):
            assert key[start : start + 16] not in masked
