"""The asked results, as the answer rules read them, and the rules that hold in any language.

A result is *asked* when its call's input is named by the question, it holds data (no
receipt, no image, no action in the protocol's own form) and it did not only feed a later
call: :func:`held_results` reads each once into a :class:`Held` (its subject, its values,
what only it holds). An answer is read into clauses (:func:`clauses_of`) of values.

Two rules need no language, only values (:mod:`._omits` applies them everywhere, and only
them where the question's language is not read):

* :func:`a_choice`: a short answer that names exactly one asked subject and carries nothing
  only one of them holds is a choice ("الحافلة أرخص."), and stands;
* :func:`dropped`: with one asked result carried, an asked result of which the answer holds
  nothing, neither its subject nor anything only it holds, is left out.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...rules.gathered import Result
from ._receipts import is_receipt
from ._reply import unwrapped
from ._values import (
    Values,
    has_unspaced,
    is_unspaced,
    ordered,
    salient,
    segments,
    values,
    values_of,
    words_of,
)

__all__ = [
    "Clause",
    "Held",
    "a_choice",
    "clauses_of",
    "dropped",
    "held_results",
    "names",
    "present",
    "stem_in",
]


# Where an answer's clauses end: a line, a sentence, a semicolon (any of the scripts).
_CLAUSE = re.compile(r"[\n。；;！？!?]+|\.(?=\s|$)")


@dataclass(frozen=True)
class Clause:
    text: str
    values: Values

    @functools.cached_property
    def by_start(self) -> dict[str, list[str]]:
        """The clause's words by their first four letters (inflections are looked up here)."""
        index: dict[str, list[str]] = {}
        for word in self.values.words:
            if len(word) >= 4:
                index.setdefault(word[:4], []).append(word)
        return index


@dataclass
class Held:
    """One asked result, as the rules read it."""

    index: int
    result: Result
    subject: frozenset[str]
    """The salient values of the call's input that the question names."""
    facts: frozenset[str]
    """Its values that say something: not the question's, not the call's, no JSON key."""
    own: frozenset[str]
    """Its distinctive values: facts no other result holds."""
    ordered: list[str]
    """Its values in order (numbers as their keys), to line siblings up."""
    marks: frozenset[str] = frozenset()
    """What only it holds, down to a one-digit number (``9`` patients): its own values and
    its numbers no other result has. An answer holding none of them holds nothing of it."""


def _json_keys(text: str) -> frozenset[str]:
    """The keys of a JSON result (at any depth): the names of fields, no facts."""
    try:
        value = json.loads(text)
    except ValueError:
        return frozenset()
    keys: set[str] = set()
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            keys.update(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return words_of(keys)


def stem_in(
    value: str, words: frozenset[str], by_start: dict[str, list[str]] | None = None
) -> bool:
    """``value`` among ``words``, or an inflection of it (sunny, sunnier; Москва, Москве):
    a word that shares all but its last two letters, and at least four."""
    if value in words:
        return True
    if value[:1].isdigit() or len(value) < 4 or has_unspaced(value):
        return False
    stem = value[: max(4, len(value) - 2)]
    candidates = by_start.get(value[:4], ()) if by_start is not None else words
    return any(w.startswith(stem) for w in candidates)


#: The most letters a word may carry before a value and still be that value: the prefixes
#: Arabic, Hebrew and Persian glue to a word ("و" and, "ب" in, "ال" the: ومكة is مكة).
_PREFIX = 2


def _affixed(value: str, words: frozenset[str]) -> bool:
    """``value`` (three letters or more) with a short prefix glued to it, among ``words``."""
    if len(value) < 3 or not value.isalpha() or has_unspaced(value):
        return False
    return any(0 < len(w) - len(value) <= _PREFIX and w.endswith(value) for w in words)


def present(value: str, clause: Clause) -> bool:
    if value[:1].isdigit():
        return value in clause.values.numbers
    if has_unspaced(value):
        return value in clause.text  # a run of characters, whole or paired
    return stem_in(value, clause.values.words, clause.by_start)


def held_results(results: Sequence[Result], question: str) -> list[Held]:
    """The asked results, each with its subject and its distinctive values."""
    asked = words_of([question])
    asked_links = words_of([question], links=True)
    # A result shaped like the protocol's own action is no fact either: read as one, it
    # would let a tool's output make the stage rewrite an answer around it (an injection).
    candidates = [
        (i, r) for i, r in enumerate(results)
        if not r.media and not r.fed and r.text.strip() and not is_receipt(r.text)
        and unwrapped(r.text)[0] == "words"
    ]  # fmt: skip
    read = {i: list(segments(r.text)) for i, r in candidates}  # each result read once
    value_sets = {i: values_of(read[i], r.text, asked).all() for i, r in candidates}
    # A value in two results proves neither was used (a typhoon numbered 22, a city at 22℃).
    counts = Counter(v for found in value_sets.values() for v in found)
    held = []
    for i, result in candidates:
        named = values(result.subject, links=True).all()
        subject = frozenset(
            v for v in named if salient(v) and (stem_in(v, asked_links) or _affixed(v, asked_links))
        )
        whole = result.subject.strip().lower()
        if len(whole) >= 2 and whole in question.lower():  # "城0": too short by its pieces
            subject |= {whole}
        if not subject:
            continue  # the question does not name what this call was about
        call = words_of([result.subject, result.tool]) | _json_keys(result.text)
        # A lone character of an unspaced script (晴, 雾) is a value too: too common to count
        # as proof anywhere, but one only this result holds shows it was used.
        facts = frozenset(
            v for v in value_sets[i]
            if (salient(v) or (len(v) == 1 and is_unspaced(v))) and v not in asked and v not in call
        )  # fmt: skip
        own = frozenset(v for v in facts if counts[v] == 1)
        numbers = {v for v in value_sets[i] if v[:1].isdigit() and counts[v] == 1}
        marks = own | frozenset(n for n in numbers if n not in asked and n not in call)
        held.append(Held(i, result, subject, facts, own, ordered(read[i]), marks))
    return held


def clauses_of(answer: str) -> list[Clause]:
    parts = [c for c in _CLAUSE.split(answer) if c.strip()]
    return [Clause(p, values(p)) for p in parts]


#: The longest answer read as a choice (a word or a short sentence, not a report).
_CHOICE_CHARS = 160


def a_choice(whole: Clause, clauses: list[Clause], held: list[Held]) -> bool:
    """A short answer naming exactly one asked subject and carrying nothing only one of
    them holds (a label they share, "wolne" in "wolne 1 820 m²", is no value of either)."""
    if len(whole.text) > _CHOICE_CHARS or len(clauses) > 2:
        return False
    if any(present(v, whole) for h in held for v in h.marks):
        return False
    named = [h for h in held if names(h, whole, held)]
    return len({h.result.subject for h in named}) == 1


def names(h: Held, clause: Clause, held: list[Held]) -> bool:
    """Whether ``clause`` names ``h``'s subject by what tells it from the other asked
    subjects: every piece only it has (``lcel`` does not name ``lcel-tools`` beside
    ``lcel-agent``: ``tools`` does), else every piece, else the whole input."""
    whole = h.result.subject.strip().lower()
    pieces = {v for v in h.subject if v != whole}
    others = [o.subject for o in held if o.result.subject != h.result.subject]
    own = {v for v in pieces if not any(v in o for o in others)}
    if own or pieces:
        return all(present(v, clause) or _affixed(v, clause.values.words) for v in own or pieces)
    return whole in clause.text.lower()


def dropped(whole: Clause, held: list[Held]) -> list[int]:
    """Rule 1, strict: with one asked result carried (a value only it has, or its subject
    with a number only it has), the asked results of which the answer holds nothing: neither
    their subject nor anything only they hold (a value shared by all proves nothing)."""
    named = {h.index for h in held if names(h, whole, held)}
    carried = [
        h for h in held
        if any(present(v, whole) for v in h.own)
        or (h.index in named and any(present(v, whole) for v in h.marks))
    ]  # fmt: skip
    if not carried:
        return []
    return sorted(
        h.index
        for h in held
        if h.marks and h.index not in named and not any(present(v, whole) for v in h.marks)
    )
