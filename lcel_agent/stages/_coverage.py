"""Does an answer use every tool result? The answer stage's check, pure and language-neutral.

A result is *used* when the answer carries what sets it apart. Two rules, both about
values (numbers, runs of letters, Chinese character pairs), never about wording:

1. **Evidence**: every result has at least one of its values in the answer, a value
   the question does not already hold (naming the city the question named proves
   nothing).
2. **Siblings alike**: results of one tool written from one template (``北京市…晴，温度29℃``
   and ``上海市…小雨，温度17℃``) are lined up; where they differ they hold *slots* (the
   weather word, the temperature). If the answer carries a slot's value for one
   sibling, it must carry it for every sibling. An answer that merged two cities'
   weather into one word, or kept one temperature and dropped the other, fails here.
3. **Numbers are facts**: where siblings differ in numbers (a temperature, a price),
   an answer that carries none of them at all uses none of them. A summary that kept
   every city's weather word and dropped every temperature fails here.

::

    results = [("get_weather(北京)", "北京：晴，温度29℃"), ("get_weather(上海)", "上海：小雨，温度17℃")]
    unused("北京晴，29℃；上海小雨，17℃", results, question="北京和上海的天气")   # []
    unused("北京和上海都是晴，29℃", results, question="北京和上海的天气")      # [1]

The check errs towards "unused": a needless rewrite costs one model call, a lost fact
costs the answer. Links (``https://…``) are left out: nobody copies them into prose.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CJK", "Result", "copies", "echoes", "segments", "unused", "uses_any"]

_URL = re.compile(r"https?://\S+")
# The Chinese characters (CJK ideographs and their extensions), as a character class body.
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_SEGMENT = re.compile(rf"\d+(?:\.\d+)?|[{CJK}]+|[A-Za-z]+")
# Where an answer's clauses end: a line, a sentence, a semicolon (Chinese or not).
_CLAUSE = re.compile(r"[\n。；;！？!?]+|\.(?=\s|$)")
# A reply that copies this much of a result word for word is writing the results out.
_ECHO_CHARS = 24
# ... and an answer this much of which is such copies is the results written out.
_ECHO_SHARE = 0.5


def segments(text: str) -> list[str]:
    """The values a text is made of: numbers, runs of Chinese characters, words (links dropped)."""
    return _SEGMENT.findall(_URL.sub(" ", text))


def _is_cjk(value: str) -> bool:
    return bool(value) and "\u3400" <= value[0] <= "\ufaff"


def _units(value: str, asked: str = "") -> list[str]:
    """What of a value an answer can be checked for: a number or word whole, Chinese by pairs.

    Chinese is written without spaces, so a run of it in a result (``预计明日在浙江沿海登陆``)
    is many words; its character pairs are what an answer repeats of it. A pair the
    ``asked`` text holds is no evidence, and neither is a pair that straddles one
    (``京市`` of ``北京市`` when 北京 was asked for): it is part of the asked word.
    """
    if not _is_cjk(value) or len(value) <= 2:
        return [value]
    pairs = [value[i : i + 2] for i in range(len(value) - 1)]
    known = [pair in asked for pair in pairs]
    return [
        pair
        for i, pair in enumerate(pairs)
        if not known[i] and not (i and known[i - 1]) and not (i + 1 < len(pairs) and known[i + 1])
    ]


def _number(value: str) -> str:
    """A number as answers write it: ``29.0`` is ``29``."""
    return value[: -len(value.split(".", 1)[1]) - 1] if re.fullmatch(r"\d+\.0+", value) else value


def _present(value: str, answer: str) -> bool:
    if value[0].isdigit():
        number = re.escape(_number(value))
        return re.search(rf"(?<![\d.]){number}(?:\.0+)?(?![\d])", answer) is not None
    if _is_cjk(value):
        return value in answer
    return re.search(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", answer, re.I) is not None


def _salient(value: str) -> bool:
    """Whether finding ``value`` in an answer says anything (a lone letter or digit does not)."""
    if value[0].isdigit():
        return len(_number(value)) >= 2 or "." in _number(value)
    return len(value) >= 2 if _is_cjk(value) else len(value) >= 3


@dataclass(frozen=True, slots=True)
class _Slot:
    """Where sibling results differ: each sibling's value there."""

    values: tuple[str | None, ...]
    """The values an answer is checked for (None: none there, or one the question holds)."""
    raw: tuple[str | None, ...]
    """Every sibling's value, the question's words included: they tell which clause of an
    answer speaks of which sibling."""


def _trimmed(values: list[str]) -> list[str]:
    """Sibling values without a label they all share at either end (``风向南``/``风向东``: 南/东).

    A label is two characters or more: one shared character is as likely part of the
    value (``晴间多云``/``晴``).
    """
    if len(values) < 2 or not all(_is_cjk(v) for v in values):
        return values
    start = len(_common_prefix(values))
    end = len(_common_prefix([v[::-1] for v in values]))
    start, end = (start if start >= 2 else 0), (end if end >= 2 else 0)
    return [v[start : len(v) - end] if len(v) - end > start else v for v in values]


def _common_prefix(values: list[str]) -> str:
    first = min(values, key=len)
    for i, char in enumerate(first):
        if any(v[i] != char for v in values):
            return first[:i]
    return first


def _pairs(reference: list[str], other: list[str]) -> list[tuple[int, int]]:
    """The positions of two siblings' values that line up.

    One template gives as many values: they line up in order. Otherwise the common
    runs are matched and the stretches between them line up where they are as long.
    """
    if len(reference) == len(other):
        return [(i, i) for i in range(len(reference))]
    matcher = difflib.SequenceMatcher(None, reference, other, autojunk=False)
    return [
        (a0 + offset, b0 + offset)
        for tag, a0, a1, b0, b1 in matcher.get_opcodes()
        if tag == "replace" and a1 - a0 == b1 - b0
        for offset in range(a1 - a0)
    ]


def _slots(siblings: list[list[str]], question: str = "") -> list[_Slot]:
    """Line siblings up against the first one: the places where their values differ.

    A value the question holds is left out (None): an answer names it because the
    question did (a province that is also a city, 北 of 北京 once 风向北 lost its label).
    """
    reference = siblings[0]
    found: dict[int, list[str | None]] = {}
    for index, other in enumerate(siblings[1:], start=1):
        for a, b in _pairs(reference, other):
            if reference[a] != other[b]:
                column = found.setdefault(a, [None] * len(siblings))
                column[0], column[index] = reference[a], other[b]
    columns: dict[tuple[str | None, ...], None] = {}
    for column in found.values():
        given = [v for v in column if v is not None]
        trimmed = iter(_trimmed(given))
        raw = tuple(next(trimmed) if v is not None else None for v in column)
        # Twins (29 and 29.0, the same number twice in every sibling) are one place.
        columns.setdefault(tuple(None if v is None else _number(v) for v in raw), None)
    # A sibling's value that stands in two places (a city at 14℃ and 14 % humidity) cannot
    # tell which of them an answer carries: it is checked in neither.
    doubled = [
        {v for v in column_values if column_values.count(v) > 1}
        for column_values in zip(*columns, strict=True)
    ] if columns else []  # fmt: skip
    slots = []
    for raw in columns:
        values = tuple(
            None if v is None or v in question or v in doubled[k] else v for k, v in enumerate(raw)
        )
        # Short values too (5℃, 雾): they are looked for only where the answer speaks of
        # their own sibling, inside no longer value (see _unlike_siblings).
        slots.append(_Slot(values, raw))
    return slots


def _evidence(
    result: str, question: str, others: str = "", call: str = "", *, short: bool = False
) -> list[str]:
    """The values of ``result`` whose presence in an answer shows the result was used.

    Not the question's own words, nor the call's (the tool's name and its input: an
    answer that names what was asked for shows nothing of what came back), and not
    values another result holds too (a typhoon numbered 22 beside a city at 22℃ proves
    neither was used). ``short`` adds a result's one-character words (晴, 雾): enough to
    tell a terse answer ("北京晴") from a plan, too common to prove a result was used.
    """
    asked = set(segments(question)) | set(segments(call))
    question = f"{question}\n{call}"
    values = [v for v in segments(result) if v not in asked]
    units = {u for v in values for u in _units(v, question)}
    kept = [u for u in units if _salient(u) and u not in question and not _present(u, others)]
    if short:
        kept += [v for v in values if len(v) == 1 and _is_cjk(v) and v not in question]
    return kept


@dataclass(frozen=True, slots=True)
class Result:
    """One successful tool call, as the check reads it."""

    tool: str
    """The tool's name: results of one tool are siblings."""
    subject: str
    """The call's input as text (``北京``): an answer names it where it speaks of this result."""
    text: str
    """What the tool returned."""
    media: bool = False
    """The result holds more than its text (an image): no text check can tell whether an
    answer used it, so none is made."""

    @property
    def call(self) -> str:
        """The call as the model would write it: ``get_weather(北京)``."""
        return f"{self.tool}({self.subject})"


def unused(answer: str, results: Sequence[Result], question: str = "") -> list[int]:
    """The indexes of the ``results`` that ``answer`` does not use (see above).

    Siblings that line up are held to rules 2 and 3; a result without any (the one
    search among weather reports, or results too unlike to line up) to rule 1.
    """
    missing: set[int] = set()
    by_tool: dict[str, list[int]] = {}
    for index, result in enumerate(results):
        if not result.media:
            by_tool.setdefault(result.tool, []).append(index)
    for indexes in by_tool.values():
        slots = _slots([segments(results[i].text) for i in indexes], question)
        if len(indexes) >= 2 and slots:
            subjects = [results[i].subject for i in indexes]
            others = [_others(results, i) for i in indexes]
            missing.update(indexes[k] for k in _unlike_siblings(slots, subjects, others, answer))
            continue
        for index in indexes:
            result = results[index]
            evidence = _evidence(result.text, question, _others(results, index), result.call)
            if evidence and not any(_present(value, answer) for value in evidence):
                missing.add(index)
    return sorted(missing)


def _others(results: Sequence[Result], index: int) -> str:
    return "\n".join(r.text for i, r in enumerate(results) if i != index)


def _clauses(answer: str) -> list[str]:
    return [c for c in _CLAUSE.split(answer) if c.strip()]


def _unlike_siblings(
    slots: list[_Slot], subjects: list[str], others: list[str], answer: str
) -> set[int]:
    """Rules 2 and 3 for one tool's siblings: the ones the answer treats short.

    A value counts for a sibling only in a clause of the answer that speaks of that
    sibling, known by its subject (the call's input) and its *other* values that no
    other result holds (``others[k]``: every other result's text): a 广东 in a clause
    about a typhoon says nothing of a city's province, and 21 (a humidity) in another
    city's clause nothing of that city.
    """
    clauses = _clauses(answer)
    known = {v for s in slots for v in s.raw if v is not None and _salient(v)} | set(subjects)

    def found(value: str, text: str) -> bool:
        # A value inside a longer known one is not there (东 in 广东, 多云 in 晴间多云).
        for other in sorted(known, key=len, reverse=True):
            if value in other and value != other:
                text = text.replace(other, "\x00")
        return _present(value, text)

    def own(k: int, j: int) -> str:
        checked = slots[j].raw[k]
        same = _number(checked) if checked is not None else None
        anchors = {
            a for s in slots
            if (a := s.raw[k]) is not None and _salient(a) and _number(a) != same
            and not _present(a, others[k])
        } | ({subjects[k]} if subjects[k].strip() else set())  # fmt: skip
        return "\n".join(c for c in clauses if any(_present(a, c) for a in anchors))

    short: set[int] = set()
    numbers: set[int] = set()  # siblings with a number the answer could carry
    numbered = False
    for j, slot in enumerate(slots):
        shown = [v is not None and found(v, own(k, j)) for k, v in enumerate(slot.values)]
        if any(shown):
            short.update(k for k, v in enumerate(slot.values) if v and not shown[k])
        if any(v is not None and v[0].isdigit() for v in slot.values):
            numbers.update(k for k, v in enumerate(slot.values) if v is not None)
            numbered = numbered or any(shown)
    if numbers and not numbered:  # rule 3: not one of their numbers is in the answer
        short.update(numbers)
    return short


def uses_any(answer: str, results: Sequence[Result], question: str = "") -> bool:
    """Whether ``answer`` carries a value of any result: an answer, not a plan or a stall.

    Results with nothing to carry (an image, a bare "ok") cannot tell: then it is an answer.
    """
    evidence = [
        value
        for index, result in enumerate(results)
        if not result.media
        for value in _evidence(
            result.text, question, _others(results, index), result.call, short=True
        )
    ]
    return not evidence or any(_present(value, answer) for value in evidence)


def echoes(reply: str, results: Sequence[str]) -> bool:
    """Whether ``reply`` copies a result out word for word (a long stretch of it)."""
    for text in results:
        need = min(_ECHO_CHARS, max(len(text) * 3 // 5, 8))
        if len(text) < need or len(reply) < need:
            continue
        if _longest_copy(reply, text) >= need:
            return True
    return False


def copies(answer: str, results: Sequence[str]) -> bool:
    """Whether ``answer`` is mostly results copied out: half of it or more in word-for-word
    stretches of ``_ECHO_CHARS`` characters or more.

    A final answer made of records' own words (``北京市（北京，adcode 110000）实时天气：``…)
    is the model writing its results out, not answering: measured on a 1.5B model, such
    a copy goes on with the record cut short or with facts it made up. Quoting one line
    of a result inside an answer of its own (a search hit's title) is answering: on the
    article's task 6 of 8 such answers held every fact, and composing them anew cost a
    call and gave back a copy. A result shorter than a stretch (the article's one-line
    weather) can be quoted whole without counting.
    """
    # A link is quoted whole or not at all: citing one is not writing a result out.
    answer = _URL.sub(" ", answer)
    copied = [False] * len(answer)
    for text in results:
        matcher = difflib.SequenceMatcher(None, answer, _URL.sub(" ", text), autojunk=False)
        for block in matcher.get_matching_blocks():
            if block.size >= _ECHO_CHARS:
                copied[block.a : block.a + block.size] = [True] * block.size
    written = [i for i, char in enumerate(answer) if not char.isspace()]
    return bool(written) and sum(copied[i] for i in written) >= len(written) * _ECHO_SHARE


def _longest_copy(reply: str, text: str) -> int:
    matcher = difflib.SequenceMatcher(None, reply, text, autojunk=False)
    return matcher.find_longest_match(0, len(reply), 0, len(text)).size
