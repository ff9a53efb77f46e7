"""Cut a result larger than the window so that the part the next call needs stays in view.

A tool result the window cannot hold whole (a listing of 300 files, a long log) is cut
where the window needs it, never silently. :func:`cut_result` keeps, in their places,

* the first and the last line (a table's header; the end a sorted listing or a log
  reaches last);
* the lines (or JSON list items) that name the question's words, the rarest words first,
  the best of them always, the others while they take at most half of the room the ends
  leave (a word every line has, like ``report`` in a folder of reports, picks nothing;
  an indented line keeps the lines around it at its depth, the rest of its object in
  pretty-printed JSON);
* then more of the head and the tail in turn, while they fit (a listing sorted by name,
  date or id has what a question asks for first, last or newest at one end or the other);

and puts a fixed marker (:data:`~lcel_agent.texts.RESULT_CUT_LINES`) in each gap, saying
that the result was cut and how many lines and characters are left out there::

    invoice	client	date
    F-2000	Sara	2024-01-01
    …[result cut to fit the window: 40 lines (959 characters) left out]…
    F-2041	Yusuf	2024-07-26
    …[result cut to fit the window: 27 lines (647 characters) left out]…
    F-2069	Layla	2024-12-16

(70 invoices in 120 tokens, for "Open Yusuf's invoice"). A text of one long line is
cut by characters, head and tail. The question's words are read by their Unicode
categories (letters, marks, digits), never by ``\\w``, which splits a Devanagari or Tamil
word at its vowel signs; a script written without spaces (Chinese, Japanese, Thai) is
read as pairs of characters. A word matches by its first five characters at the start of
a word (``Москве`` finds ``Москва``, ``klasöründeki`` finds ``klasör``), a number only
whole (``42`` finds ``Name42``, not ``1042``).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from lcel_agent import texts
from lcel_agent._shared.messages import message_text

from .counters import TokenCounter, count_message
from .shrink import longest

__all__ = ["cut_message", "cut_result", "question_terms"]

# A word is matched by this many of its first characters (inflections differ at the end).
_STEM = 5
# Words with fewer letters than this say little ("of", "и", "ve"); numbers count from 2 digits.
_LEAST_LETTERS = 3
# The most lines kept on each side of an indented line that names the question's words.
_REACH = 8
# Scripts written without spaces between words: read as pairs of characters.
_UNSPACED = frozenset({"CJK", "HIRAGANA", "KATAKANA", "THAI", "LAO", "KHMER", "MYANMAR"})
# A line that is itself a note between ellipses (this module's marker, or the dispatcher's
# ``…[truncated N characters]…``) is kept wherever it falls: it says what is missing.
_NOTE = re.compile(r"…\[[^\]\n]*\]…")
# Split points of a long line holding a JSON list of objects: between ``}`` and ``{``.
_ITEMS = re.compile(r"(?<=\}),\s*(?=\{)")


def _word_char(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LMN"


def _unspaced(ch: str) -> bool:
    return unicodedata.name(ch, "").split(" ", 1)[0] in _UNSPACED


def _kind(ch: str) -> str:
    """What run a character belongs to: ``N`` digits, ``U`` a script without spaces, ``L``."""
    if unicodedata.category(ch)[0] == "N":
        return "N"
    return "U" if _unspaced(ch) else "L"


def _words(text: str) -> list[str]:
    """Runs of letters and marks, of digits, and of a script written without spaces."""
    words: list[str] = []
    current: list[str] = []
    kind = ""
    for ch in text:
        if not _word_char(ch):
            if current:
                words.append("".join(current))
            current = []
            continue
        if current and _kind(ch) != kind:
            words.append("".join(current))
            current = []
        current.append(ch)
        kind = _kind(ch)
    if current:
        words.append("".join(current))
    return words


def question_terms(question: str) -> tuple[str, ...]:
    """The question's words as search terms: casefolded stems, numbers, character pairs."""
    terms: list[str] = []
    for word in (w.casefold() for w in _words(question)):
        if word.isdigit():
            found = [word] if len(word) >= 2 else []
        elif _unspaced(word[0]):
            found = [word[i : i + 2] for i in range(len(word) - 1)]
        elif sum(unicodedata.category(ch)[0] == "L" for ch in word) >= _LEAST_LETTERS:
            found = [word[:_STEM]]
        else:
            found = []
        terms += [t for t in found if t not in terms]
    return tuple(terms)


def _finds(record: str, term: str) -> bool:
    """Whether ``term`` starts a word of ``record`` (a number: is a whole number there)."""
    index = record.find(term)
    while index >= 0:
        before = record[index - 1] if index else " "
        after = record[index + len(term) : index + len(term) + 1]
        if term.isdigit():
            if not before.isdigit() and not after.isdigit():
                return True
        elif _unspaced(term[0]) or not _word_char(before):
            return True
        index = record.find(term, index + 1)
    return False


def _scores(records: Sequence[str], terms: Sequence[str]) -> list[float]:
    """Per record, the sum of ``1 / (records naming the term)`` over the terms it names.

    A term named by half the records or more picks nothing.
    """
    folded = [r.casefold() for r in records]
    scores = [0.0] * len(records)
    for term in terms:
        hits = [i for i, r in enumerate(folded) if _finds(r, term)]
        if hits and len(hits) * 2 < len(records):
            for i in hits:
                scores[i] += 1 / len(hits)
    return scores


def _splits(text: str) -> list[tuple[list[str], str]]:
    """Ways to read ``text`` as records that keep their separators: lines, then JSON items."""
    ways = []
    lines = text.splitlines(keepends=True)
    if len(lines) >= 3:
        ways.append((lines, "lines"))
    items = _ITEMS.split(text)
    if len(items) >= 3:
        separators = [*_ITEMS.findall(text), ""]
        ways.append(([i + s for i, s in zip(items, separators, strict=True)], "items"))
    return ways


class _Cut:
    """Which records of a cut are kept, in which order they were taken, and what it costs."""

    def __init__(self, records: list[str], unit: str, counter: TokenCounter) -> None:
        self.records, self.unit = records, unit
        self.costs = [counter(r) for r in records]
        self.kept = [bool(_NOTE.fullmatch(r.strip())) for r in records]
        self.taken: list[int] = []
        # What a marker costs, at most: priced on the largest counts it could say.
        self.marker = counter(self._gap(records))
        self.cost = self._cost()

    def _cost(self) -> int:
        gaps = sum(1 for i, k in enumerate(self.kept) if not k and (i == 0 or self.kept[i - 1]))
        return sum(c for c, k in zip(self.costs, self.kept, strict=True) if k) + gaps * self.marker

    def add(self, index: int, limit: int) -> bool:
        """Keep record ``index`` if the cut then costs at most ``limit``; say whether it did."""
        if self.kept[index]:
            return True
        left = index > 0 and not self.kept[index - 1]
        right = index + 1 < len(self.kept) and not self.kept[index + 1]
        gaps = 1 if left and right else -1 if not (left or right) else 0
        cost = self.cost + self.costs[index] + gaps * self.marker
        if cost > limit:
            return False
        self.kept[index], self.cost = True, cost
        self.taken.append(index)
        return True

    def give_back(self) -> bool:
        """Drop the record taken last (never the first or the last); False when none is left."""
        while self.taken:
            index = self.taken.pop()
            if 0 < index < len(self.kept) - 1:
                self.kept[index] = False
                self.cost = self._cost()
                return True
        return False

    def render(self) -> str:
        out: list[str] = []
        gap: list[str] = []
        for record, kept in zip(self.records, self.kept, strict=True):
            if not kept:
                gap.append(record)
                continue
            if gap:
                out.append(self._gap(gap))
                gap = []
            out.append(record)
        if gap:
            out.append(self._gap(gap))
        return "".join(out)

    def _gap(self, gap: list[str]) -> str:
        template = texts.RESULT_CUT_LINES if self.unit == "lines" else texts.RESULT_CUT_ITEMS
        chars = len("".join(gap).rstrip("\n"))
        return template.format(count=len(gap), chars=chars) + (
            "\n" if self.unit == "lines" else " "
        )


def _by_characters(text: str, target: int, counter: TokenCounter) -> str:
    def render(keep: int) -> str:
        head = (keep + 1) // 2
        tail = keep - head
        marker = texts.RESULT_CUT_CHARS.format(chars=len(text) - keep)
        return f"{text[:head]}{marker}{text[len(text) - tail :] if tail else ''}"

    return longest(len(text) - 1, render, target, counter)


def _head_and_tail(cut: _Cut, target: int) -> None:
    """Take the head and the tail in turn, the cheaper side first, while they fit."""
    head, tail = 1, len(cut.records) - 2
    spent = [0, 0]
    open_ = [True, True]
    while head <= tail and any(open_):
        side = 0 if open_[0] and (spent[0] <= spent[1] or not open_[1]) else 1
        index = head if side == 0 else tail
        if not cut.add(index, target):
            open_[side] = False
            continue
        spent[side] += cut.costs[index]
        head, tail = (head + 1, tail) if side == 0 else (head, tail - 1)


def _indent(record: str) -> int:
    return len(record) - len(record.lstrip(" \t"))


def _block(records: Sequence[str], index: int) -> list[int]:
    """The lines around an indented line at its depth or deeper, nearest first: the other
    fields of its object in pretty-printed JSON, the rest of a trace (at most 8 a side)."""
    depth = _indent(records[index])
    if not depth:
        return []
    sides = []
    for step in (-1, 1):
        near = index + step
        side: list[int] = []
        while 0 <= near < len(records) and len(side) < _REACH and _indent(records[near]) >= depth:
            side.append(near)
            near += step
        sides.append(side)
    before, after = sides
    return [i for pair in itertools.zip_longest(before, after) for i in pair if i is not None]


def _by_records(
    records: list[str], unit: str, target: int, counter: TokenCounter, question: str
) -> str | None:
    cut = _Cut(records, unit, counter)
    last = len(records) - 1
    if not (cut.add(0, target) and cut.add(last, target)):
        return None
    # The lines naming the question's words get up to half of what the ends leave; the
    # best of them whatever it costs (one line that names the question is worth any other).
    half = cut.cost + (target - cut.cost) // 2
    scores = _scores(records, question_terms(question)) if question else []
    ranked = sorted((i for i, s in enumerate(scores) if s), key=lambda i: (-scores[i], i))
    best = True
    for index in (i for i in ranked if not cut.kept[i]):
        if cut.add(index, target if best else half):
            best = False
            for near in _block(records, index):
                cut.add(near, half)
    _head_and_tail(cut, target)
    shown = cut.render()
    # The cost was summed record by record; a tokenizer may join them a little dearer.
    while counter(shown) > target:
        if not cut.give_back():
            return None
        shown = cut.render()
    return shown


def cut_result(text: str, target: int, counter: TokenCounter, question: str = "") -> str:
    """``text`` cut to cost at most ``target`` tokens (see the module docstring).

    The first and last lines, then those naming the question's words (up to half of the
    room left), then more of the head and the tail in turn, a marker in each gap; a text
    of fewer than three lines or items, or whose ends do not fit, is cut by characters.
    When not even a marker fits, the characters' marker alone is returned.
    """
    if counter(text) <= target:
        return text
    for records, unit in _splits(text):
        shown = _by_records(records, unit, target, counter, question)
        if shown is not None:
            return shown
    return _by_characters(text, target, counter)


def cut_message(
    message: BaseMessage, target: int, counter: TokenCounter, question: str = ""
) -> tuple[BaseMessage, int]:
    """``message`` (a tool result) cut to cost at most ``target`` tokens, and its new cost."""
    text = message_text(message)
    framing = count_message(message, counter) - counter(text)
    smaller = message.model_copy(
        update={"content": cut_result(text, max(target - framing, 0), counter, question)}
    )
    return smaller, count_message(smaller, counter)
