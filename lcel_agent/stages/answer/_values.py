"""The values a text is made of, in any language and number format. Linear in the text.

A *value* is what an answer can carry of a tool's result: a number, a word (a run of
letters of any script), or, for scripts written without spaces (Chinese, Japanese,
Thai, ...), a pair of neighbouring characters, since a run of them is many words::

    values("北京：晴，温度29℃，湿度40%")       # {'北京', '晴', '温度', '度2'..., '29', '40'} (pairs)
    number_key("1,317") == number_key("1317.0") == "1317"

Numbers are read as people write them, in any digit system and grouping: the digits of
any script (``४२``, ``๔๒``, ``١٣١٧``, full-width ``１３１７``) are digits, and a number
written with separators has every reading it may have, since a text does not say which
convention it follows: ``1.317`` is 1.317 and 1317 (German grouping), ``3,5`` is 3.5 and
35 (and the list 3, 5), ``1,31,700`` is 131700 (lakh), ``١٬٣١٧`` is 1317 (Arabic
separators), ``1 317`` with any space or ``1'317`` is 1317. Two texts share a number when
any readings meet, so a reading too many only ever lets an answer stand. A sign is
ignored (an answer that says ``零下5度`` or ``minus 5`` for ``-5`` carries the number). A
number is *salient* (worth looking for) when it has two digits or more, or a fraction: a
lone ``2`` is in every other sentence.

Words are runs of letters with their combining marks (``\\p{L}\\p{M}``: Python's ``\\w``
breaks Tamil, Bengali and Devanagari words at their vowel signs), and the joiners inside
Persian words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import regex

__all__ = [
    "Values",
    "has_unspaced",
    "is_unspaced",
    "number_key",
    "number_readings",
    "numbers_with_units",
    "salient",
    "scripts_of",
    "segments",
    "values",
    "values_of",
]

# A number: digits of any script, with separators between groups of them (a point, a comma,
# an apostrophe, a space of any width, Arabic's decimal and thousands marks).
_SEPARATOR_CHARS = ".,'\u2019\u066b\u066c\u00a0\u202f\u2009 "
_NUMBER = rf"\p{{Nd}}+(?:[{_SEPARATOR_CHARS}]\p{{Nd}}+)*"
# A number, or a word: a letter and the letters, combining marks and joiners after it.
_SEGMENT = regex.compile(rf"(?P<n>{_NUMBER})|(?P<w>\p{{L}}[\p{{L}}\p{{M}}\u200c\u200d]*)")
_URL = re.compile(r"https?://\S+")
# What follows a number as its unit: a symbol or a short word, right after it.
_UNIT = regex.compile(r"\s?(%|°[CF]?|℃|℉|\p{L}[\p{L}\p{M}]{0,7})")
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


_GROUP_SPLIT = regex.compile(rf"([{_SEPARATOR_CHARS}])")
# The separators that may mark a fraction: a point, a comma, Arabic's decimal mark.
_DECIMAL_MARKS = frozenset(".,\u066b")
# Readings come from runs of groups; a token of more groups than this is read in its pieces.
_MAX_GROUPS = 8


def _ascii_digits(text: str) -> str:
    """Digits of any script as ASCII digits (``४२`` -> ``42``); other characters kept."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def _key(whole: str, fraction: str = "") -> str:
    whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


def number_key(text: str) -> str:
    """A number's first reading, as digits: ``1,317`` -> ``1317``, ``1317.0`` -> ``1317``,
    ``3,5`` -> ``3.5``, ``-5`` -> ``5`` (see :func:`number_readings` for all of them)."""
    if text.isdigit() and text.isascii():  # the common case, without a regex
        return text.lstrip("0") or "0"
    return number_readings(text.strip().lstrip("+-−"))[0]


@lru_cache(maxsize=8192)
def number_readings(token: str) -> tuple[str, ...]:
    """Every value a written number may have, the likeliest first (see the module docstring).

    The first reading takes the last point or comma for a fraction unless three digits
    follow it after an earlier separator of another kind (``1,234.5``, ``1.234,5``), or a
    comma with exactly three digits after it ends a run of such groups (``1,317``); the
    others: every run of groups read whole (grouped), and the last mark as a fraction.
    """
    parts = _GROUP_SPLIT.split(_ascii_digits(token))
    groups, marks = parts[0::2], parts[1::2]
    if len(groups) > _MAX_GROUPS:
        return tuple(dict.fromkeys(_key(g) for g in groups))
    found: list[str] = []
    if marks:
        last = marks[-1]
        # "1,317" and "1,234,567" group by commas, as English writes them: read whole first.
        if last in _DECIMAL_MARKS and not (
            last == "," and len(groups[-1]) == 3 and all(m == "," for m in marks)
        ):
            found.append(_key("".join(groups[:-1]), groups[-1]))
    found.append(_key("".join(groups)))
    for i in range(len(groups)):  # every run of groups, read whole: "14 980 000" is 14, 980 000
        for j in range(i + 1, len(groups) + 1):
            found.append(_key("".join(groups[i:j])))
            if j - i >= 2 and marks[j - 2] in _DECIMAL_MARKS:
                found.append(_key("".join(groups[i : j - 1]), groups[j - 1]))
    return tuple(dict.fromkeys(found))


def segments(text: str, links: bool = False) -> Iterator[tuple[str, str]]:
    """``(kind, value)`` of each number and each word of ``text``, in order: a number as
    ``("n", its first reading)`` followed by ``("r", reading)`` for each other reading, a
    word as ``("w", lower-cased)``; links are left out unless ``links`` (a call's input
    that is a link is known by its words)."""
    if not links and "://" in text:
        text = _URL.sub(" ", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    for number, word in _SEGMENT.findall(text):
        if number:
            first, *others = number_readings(number)
            yield "n", first
            for other in others:
                yield "r", other
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
        if kind == "w":
            words.update(_units(value, known))
        else:
            numbers.add(value)
    return Values(frozenset(numbers), frozenset(words))


def ordered(found: Iterable[tuple[str, str]]) -> list[str]:
    """The values of :func:`segments` in order, each number by its first reading and each
    word whole: for lining up results written from one template."""
    return [value for kind, value in found if kind != "r"]


def numbers_with_units(text: str) -> Iterator[tuple[tuple[str, ...], str, int]]:
    """``(readings, unit, position)`` of each number of ``text`` followed by a unit."""
    text = unicodedata.normalize("NFKC", _URL.sub(" ", text))
    for match in regex.finditer(_NUMBER, text):
        after = _UNIT.match(text, match.end())
        if after is None:
            continue
        unit = after.group(1).lower()
        yield number_readings(match.group(0)), _SAME_UNIT.get(unit, unit), match.start()


def words_of(texts: Iterable[str], *, links: bool = False) -> frozenset[str]:
    """Every value of ``texts`` together (the question's and the calls' words)."""
    found: set[str] = set()
    for text in texts:
        found |= values(text, links=links).all()
    return frozenset(found)
