"""Does an answer provably leave out a fact the question asks for? Values, never wording.

The model's own answer stands unless one of these rules proves a fact left out (a
needless rewrite costs a call and replaces a capable model's words; where a rule
cannot tell, the answer stands). Only results the question *asks for* are held to
them: a result whose call's input the question names (``get_weather(北京)`` for
"北京和上海的天气"), that holds data (not a receipt such as ``queued: message id 5521``,
not an image, not an action in the protocol's own form), and that did not only feed a
later call (an id, a listing). And only a
*report* is: a yes/no question or a choice (:mod:`._question`) is answered in a word.

In any language, a short answer that names exactly one of the things the question asks
about and carries none of their values is a choice ("الحافلة أرخص.": the bus is
cheaper), and stands. Where the question's language is not read (:mod:`._language`),
only rule 1 acts, in its strictest form: an answer that carries a value of one asked
result and *nothing* of another's, neither its subject nor a value, drops that one.

1. **Dropped**: the answer carries a value of one asked result and none of another's
   (a city's weather left out, the search left out of a summary of weather and search).
2. **Siblings alike**: results of one tool written from one template (``北京…晴，温度29℃``
   and ``上海…小雨，温度17℃``) differ in *slots* (the weather word, the temperature). Where
   the answer gives a slot's value for one of them, every one it speaks of must have its
   own value there, in a clause that names it: "北京和上海都是小雨" leaves out 北京's 晴.
3. **Contradicted**: a clause that names one of them alone gives a number with the unit
   of one of its slots (``25℃``) that is not its value there, and not its value either.
4. **Nothing carried**: a report whose answer carries no value of any asked result and
   no number of its own, written in their script ("北京和上海的天气都很好"; "70°F and 57°F"
   converts theirs; "晴" for "sunny" translates them).

A *value* is a number (``1,317`` = ``1317`` = ``1317.0``; the sign aside), a word of any
script, or a pair of characters of a script written without spaces (:mod:`._values`).
A value proves nothing when the question or the call holds it, when it is a JSON key of
the result, or when another result holds it too. Every step is linear in the size of
the results and the answer (sets, no pairwise search)::

    omitted("北京和上海都是小雨", results, "查询北京和上海今天的天气")   # [0]: 北京's 晴 is missing
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ...rules.gathered import Result
from ._asked import Clause, Held, a_choice, clauses_of, dropped, held_results, present
from ._question import shape_of
from ._values import (
    has_unspaced,
    numbers_with_units,
    scripts_of,
    values,
)

__all__ = ["omitted"]


def omitted(answer: str, results: Sequence[Result], question: str) -> list[int]:
    """The indexes of the ``results`` the answer provably leaves out (see the module doc)."""
    shape = shape_of(question)
    if shape == "decision":
        return []
    held = held_results(results, question)
    if not held:
        return []
    whole = Clause(answer, values(answer))
    clauses = clauses_of(answer)
    if a_choice(whole, clauses, held):
        return []
    if shape is None:  # not read: only what values prove, in any language
        return dropped(whole, held)
    # A result is carried when the answer holds a value only it has, or, among siblings,
    # its own value of a slot in a clause that names it. A group of siblings is carried
    # when one of them is, or when the answer holds a fact they all share ("都是多云").
    carried = {h.index for h in held if any(present(v, whole) for v in h.own)}
    checkable = {h.index for h in held if h.own}
    groups = list(_by_tool(held))
    slotted = []
    for group in groups:
        slots = _slots(group, question) if len(group) > 1 else []
        speaks = _speaks_of(group, clauses) if slots else []
        for k, h in enumerate(group):
            mine = [value for slot in slots if (value := slot[k]) is not None]
            checkable |= {h.index} if mine else set()
            if any(present(v, c) for v in mine for c in speaks[k]):
                carried.add(h.index)
        slotted.append((group, slots))
    shared = [frozenset.intersection(*(h.facts for h in group)) for group in groups]
    group_carried = [
        any(h.index in carried for h in group) or any(present(v, whole) for v in common)
        for group, common in zip(groups, shared, strict=True)
    ]
    if not any(group_carried):
        # Rule 4: a report that carries nothing the results hold and no number of its own
        # (one that converts or adds up theirs is derived), in the results' own script: an
        # answer in another ("晴" for "sunny") translates them.
        facts = " ".join(v for h in held for v in h.facts)
        if whole.values.numbers or not scripts_of(answer) & scripts_of(facts):
            return []
        return sorted(checkable)
    missing: set[int] = set()
    for (group, slots), is_carried in zip(slotted, group_carried, strict=True):
        members = {h.index for h in group} & checkable
        if members & carried:  # rule 1 among siblings: one carried, another not
            missing |= members - carried
        elif not is_carried:  # rule 1 across tools: this one's results left out altogether
            missing |= members
        if len(group) > 1:
            missing.update(_unlike(group, clauses, slots))  # rule 2
            missing.update(_contradicted(group, clauses))  # rule 3
    return sorted(missing)


def _by_tool(held: list[Held]) -> Iterator[list[Held]]:
    """The asked results grouped by tool: siblings (a group of one is a result alone)."""
    by_tool: dict[str, list[Held]] = {}
    for h in held:
        by_tool.setdefault(h.result.tool, []).append(h)
    yield from by_tool.values()


def _speaks_of(group: list[Held], clauses: list[Clause]) -> list[list[Clause]]:
    """Per sibling: the clauses that name it (by its subject)."""
    return [[c for c in clauses if any(present(v, c) for v in h.subject)] for h in group]


def _slots(group: list[Held], question: str) -> list[list[str | None]]:
    """Where siblings of one template differ: per slot, each sibling's value there.

    Siblings line up when their values are as many and at least a third of them agree
    position by position (one template: its labels); a value the question or the call names is no
    slot value (None). Runs of unspaced script lose a label they all share at either
    end (``风向南``/``风向东``: 南/东).
    """
    rows = [h.ordered for h in group]
    if len({len(r) for r in rows}) != 1 or not rows[0]:
        return []
    same = sum(len({r[j] for r in rows}) == 1 for j in range(len(rows[0])))
    if same * 3 < len(rows[0]):
        return []
    slots = []
    for j in range(len(rows[0])):
        column = [r[j] for r in rows]
        if len(set(column)) == 1:
            continue
        trimmed = _trimmed(column)
        slots.append(
            [
                v if not _labels(v, h) and (v in h.facts or _own_piece(v, h, question)) else None
                for v, h in zip(trimmed, group, strict=True)
            ]
        )
    return [s for s in slots if sum(v is not None for v in s) >= 2]


def _labels(value: str, h: Held) -> bool:
    """Whether a slot value holds its sibling's own subject (``北京市`` for 北京): a label."""
    return any(s in value for s in h.subject if has_unspaced(s)) or value in h.subject


def _own_piece(value: str, h: Held, question: str) -> bool:
    """A run of unspaced script is the result's own when its pairs are (晴间多云: 晴间, ...),
    or, a single character (晴, 雾), when neither the question nor the call holds it."""
    if not value or not has_unspaced(value):
        return False
    if len(value) == 1:
        return value not in question and value not in h.result.subject
    return any(value[i : i + 2] in h.facts for i in range(len(value) - 1))


def _trimmed(column: list[str]) -> list[str]:
    if not all(has_unspaced(v) for v in column):
        return column
    start = len(_common_prefix(column))
    end = len(_common_prefix([v[::-1] for v in column]))
    start, end = (start if start >= 2 else 0), (end if end >= 2 else 0)
    return [v[start : len(v) - end] if len(v) - end > start else v for v in column]


def _common_prefix(values_: list[str]) -> str:
    first = min(values_, key=len)
    for i, char in enumerate(first):
        if any(v[i] != char for v in values_):
            return first[:i]
    return first


def _unlike(group: list[Held], clauses: list[Clause], slots: list[list[str | None]]) -> set[int]:
    """Rule 2: the siblings the answer treats short of a slot it gives another one."""
    speaks = _speaks_of(group, clauses)
    short: set[int] = set()
    for slot in slots:
        shown = [
            value is not None and any(present(value, c) for c in speaks[k])
            for k, value in enumerate(slot)
        ]
        if not any(shown):
            continue
        short.update(
            group[k].index
            for k, value in enumerate(slot)
            if value is not None and speaks[k] and not shown[k]
        )
    return short


def _contradicted(group: list[Held], clauses: list[Clause]) -> set[int]:
    """Rule 3: a sibling given a number, in a unit of its own, that is not its value."""
    found: set[int] = set()
    speaks = _speaks_of(group, clauses)
    # The clauses that name one sibling alone (one about several may compare them).
    alone: dict[int, list[Clause]] = {}
    for position, clause in enumerate(clauses):
        named = [k for k, own in enumerate(speaks) if any(c is clause for c in own)]
        if len(named) == 1:
            alone.setdefault(named[0], []).append(clauses[position])
    for k, clauses_alone in alone.items():
        h = group[k]
        units: dict[str, set[str]] = {}
        for readings, unit, _ in numbers_with_units(h.result.text):
            units.setdefault(unit, set()).update(readings)
        if not units:
            continue
        for clause in clauses_alone:
            given = list(numbers_with_units(clause.text))
            for unit in {u for _, u, _ in given}:
                own = units.get(unit)
                # Contradicted only when no reading of any number given in that unit is its own.
                if own and not any(n in own for r, u, _ in given if u == unit for n in r):
                    found.add(h.index)
    return found
