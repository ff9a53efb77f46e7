"""The values a text is made of, in any language and number format. Linear in the text.

A *value* is what an answer can carry of a tool's result: a number, a word (a run of
letters of any script), or, for scripts written without spaces (Chinese, Japanese,
Thai, ...), a pair of neighbouring characters, since a run of them is many words::

    values("北京：晴，温度29℃，湿度40%")       # {'北京', '晴', '温度', '度2'..., '29', '40'} (pairs)
    number_key("1,317") == number_key("1317.0") == "1317"

Numbers are compared by their digits: thousands separators (``1,317``, ``1 317``,
``1'317``) and a zero fraction (``1317.0``) are dropped, a sign is ignored (an
answer that says ``零下5度`` or ``minus 5`` for ``-5`` carries the number). A number
is *salient* (worth looking for) when it has two digits or more, or a fraction: a
lone ``2`` is in every other sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = [
    "Values",
    "has_unspaced",
    "is_unspaced",
    "number_key",
    "numbers_with_units",
    "salient",
    "scripts_of",
    "segments",
    "values",
    "values_of",
]

# A number: digits with optional thousands groups and a fraction. The groups need exactly
# three digits after each separator, so "1,2,3" stays three numbers.
_NUMBER = r"\d{1,3}(?:[,\u00a0\u202f' ]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# A run of letters of any script (no digits, no underscore), or a number.
_SEGMENT = re.compile(rf"(?P<n>{_NUMBER})|(?P<w>[^\W\d_]+)")
_URL = re.compile(r"https?://\S+")
# What follows a number as its unit: a symbol or a short word, right after it.
_UNIT = re.compile(r"\s?(%|°[CF]?|℃|℉|[^\W\d_]{1,8})")
# Units that name the same thing: an answer may write 29度 for 29℃.
_SAME_UNIT = {"°": "deg", "°c": "deg", "℃": "deg", "度": "deg", "摄氏度": "deg", "c": "deg",
              "degrees": "deg", "degree": "deg", "°f": "degf", "℉": "degf", "%": "pct",
              "percent": "pct", "公里": "km", "km": "km", "千米": "km"}  # fmt: skip


_UNSPACED = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0eff\u1000-\u109f"
    "\u1780-\u17ff\U00020000-\U0002fa1f]"
)


def has_unspaced(text: str) -> bool:
    """Whether ``text`` holds a character of a script written without spaces."""
    return _UNSPACED.search(text) is not None


def scripts_of(text: str) -> frozenset[str]:
    """The scripts of ``text``'s letters (LATIN, CJK, CYRILLIC, HIRAGANA, ...), by the first
    word of each letter's Unicode name: a translated answer shares none with its source."""
    found: set[str] = set()
    for char in set(text):
        if char.isalpha():
            name = unicodedata.name(char, "")
            found.add(name.split(" ", 1)[0] if name else "OTHER")
    return frozenset(found)


def is_unspaced(char: str) -> bool:
    """Whether ``char`` belongs to a script written without spaces between words."""
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF  # Hiragana, Katakana
        or 0x3400 <= code <= 0x4DBF  # CJK extension A
        or 0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0xF900 <= code <= 0xFAFF  # CJK compatibility ideographs
        or 0x0E00 <= code <= 0x0EFF  # Thai, Lao
        or 0x1000 <= code <= 0x109F  # Myanmar
        or 0x1780 <= code <= 0x17FF  # Khmer
        or 0x20000 <= code <= 0x2FA1F  # CJK extensions B-F and compatibility supplement
    )


_SEPARATORS = re.compile(r"[,\u00a0\u202f' ]")


def number_key(text: str) -> str:
    """A number as digits only: ``1,317`` -> ``1317``, ``1317.0`` -> ``1317``, ``-5`` -> ``5``."""
    if text.isdigit():  # the common case, without a regex
        return text.lstrip("0") or "0"
    digits = _SEPARATORS.sub("", text.strip().lstrip("+-−"))
    whole, _, fraction = digits.partition(".")
    whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


def segments(text: str, links: bool = False) -> Iterator[tuple[str, str]]:
    """``(kind, value)`` of each number (``"n"``, as its :func:`number_key`) and each run of
    letters (``"w"``, lower-cased) in ``text``, in order; links are left out unless
    ``links`` (a call's input that is a link is known by its words)."""
    if not links and "://" in text:
        text = _URL.sub(" ", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    for number, word in _SEGMENT.findall(text):
        if number:
            yield "n", number_key(number)
        else:
            yield "w", word.lower()


def _units(word: str, known: frozenset[str] = frozenset()) -> Iterator[str]:
    """A word as its checkable pieces: whole, or by pairs where its script has no spaces.

    A pair in ``known`` (the question's) is part of an asked word, and so are the pairs
    that straddle it (``京市`` of ``北京市`` when ``北京`` was asked): neither is given.
    """
    if not has_unspaced(word):
        yield word
        return
    if known:
        pairs = [word[i : i + 2] for i in range(len(word) - 1)]
        asked = [p in known for p in pairs]
        if any(asked):
            for i, pair in enumerate(pairs):
                near = asked[i] or (i and asked[i - 1]) or (i + 1 < len(pairs) and asked[i + 1])
                if not near:
                    yield pair
            return
    # Runs of unspaced characters go by pairs; spaced letters in between stay whole.
    run: list[str] = []
    rest: list[str] = []
    for char in [*word, ""]:
        if char and is_unspaced(char):
            if rest:
                yield "".join(rest)
                rest = []
            run.append(char)
            continue
        if run:
            if len(run) == 1:
                yield run[0]
            for i in range(len(run) - 1):
                yield run[i] + run[i + 1]
            run = []
        if char:
            rest.append(char)
    if rest:
        yield "".join(rest)


def salient(value: str) -> bool:
    """Whether finding ``value`` in an answer says anything (see the module docstring)."""
    if value[:1].isdigit():
        return len(value.replace(".", "")) >= 2 or "." in value
    if has_unspaced(value):
        return len(value) >= 2
    return len(value) >= 3


@dataclass(frozen=True, slots=True)
class Values:
    """The values of one text: numbers and word pieces, as sets (lookups are O(1))."""

    numbers: frozenset[str]
    words: frozenset[str]

    def __contains__(self, value: str) -> bool:
        return value in (self.numbers if value[:1].isdigit() else self.words)

    def all(self) -> frozenset[str]:
        """Every value, numbers and words."""
        return self.numbers | self.words


def values(text: str, known: frozenset[str] = frozenset(), *, links: bool = False) -> Values:
    """The :class:`Values` of ``text``; runs of unspaced script lose the pairs of ``known``
    words and the pairs that straddle them (see :func:`_units`)."""
    return values_of(list(segments(text, links)), text, known)


def values_of(
    found: list[tuple[str, str]], text: str, known: frozenset[str] = frozenset()
) -> Values:
    """:func:`values` from the :func:`segments` of ``text`` already read (read once, used twice)."""
    numbers: set[str] = set()
    words: set[str] = set()
    for kind, value in found:
        if kind == "n":
            numbers.add(value)
        else:
            words.update(_units(value, known))
    if " " in text:
        numbers.update(_spaced_readings(text))
    return Values(frozenset(numbers), frozenset(words))


_SPACED = re.compile(r"\d{1,3}(?: \d{3})+")


def _spaced_readings(text: str) -> set[str]:
    """Every reading of digits grouped by plain spaces: ``14 980 000`` may be one number
    or ``14`` then ``980 000`` ("la maison 14 980 000 €"); each run of groups is a number."""
    found: set[str] = set()
    for match in _SPACED.finditer(text):
        parts = match.group(0).split(" ")
        for i in range(len(parts)):
            for j in range(i + 1, len(parts) + 1):
                found.add(number_key("".join(parts[i:j])))
    return found


def ordered(text: str) -> list[str]:
    """The values of ``text`` in order (numbers as keys, words whole): for lining up
    results written from one template."""
    return [value for _, value in segments(text)]


def numbers_with_units(text: str) -> Iterator[tuple[str, str, int]]:
    """``(number key, unit, position)`` of each number of ``text`` followed by a unit."""
    text = unicodedata.normalize("NFKC", _URL.sub(" ", text))
    for match in re.finditer(_NUMBER, text):
        after = _UNIT.match(text, match.end())
        if after is None:
            continue
        unit = after.group(1).lower()
        yield number_key(match.group(0)), _SAME_UNIT.get(unit, unit), match.start()


def words_of(texts: Iterable[str], *, links: bool = False) -> frozenset[str]:
    """Every value of ``texts`` together (the question's and the calls' words)."""
    found: set[str] = set()
    for text in texts:
        found |= values(text, links=links).all()
    return frozenset(found)
