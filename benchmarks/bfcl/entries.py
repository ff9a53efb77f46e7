"""BFCL v4's entries and ground truth, and which of them a run takes.

    entries = select("multi_turn_base", parity="even", n=30)    # ids 0, 2, 4, ... 58
    entries = select("simple", ids=[4, 8])                       # by number
    truth = ground_truth("multi_turn_base")["multi_turn_base_0"]

Even ids are for development and tuning, odd ids for the final check (docs/benchmarks.md,
"BFCL v4"). An entry is BFCL's own dict as ``bfcl_eval.utils.load_dataset_entry`` returns
it: ``question`` (turns of messages), ``function`` (the function docs offered), and for
multi-turn entries ``initial_config``, ``involved_classes`` and, in miss_func,
``missed_function`` (turn -> the function docs held out until then).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from functools import cache
from typing import Any, Literal

from benchmarks.bfcl._bfcl import bfcl_ready

bfcl_ready()

from bfcl_eval.utils import load_dataset_entry, load_ground_truth_entry  # noqa: E402

#: Our category names -> BFCL's. "simple" is BFCL's ``simple_python`` (the published
#: single-turn "simple" figures we compare with are Python's; java and javascript exist too).
CATEGORIES: dict[str, str] = {
    "multi_turn_base": "multi_turn_base",
    "multi_turn_miss_param": "multi_turn_miss_param",
    "multi_turn_miss_func": "multi_turn_miss_func",
    "multi_turn_long_context": "multi_turn_long_context",
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "irrelevance": "irrelevance",
    # BFCL's live categories: questions users sent, with their own functions.
    "live_simple": "live_simple",
    "live_multiple": "live_multiple",
    "live_parallel": "live_parallel",
    "live_parallel_multiple": "live_parallel_multiple",
    "live_irrelevance": "live_irrelevance",
    "live_relevance": "live_relevance",
}
#: What ``make bench-bfcl`` runs (issue 35).
DEFAULT_CATEGORIES = (
    "multi_turn_base", "multi_turn_miss_param",
    "simple", "multiple", "parallel", "parallel_multiple", "irrelevance",
)  # fmt: skip

#: ``make bench-bfcl-single`` (issue 42): the single-turn categories, one part each.
SINGLE_TURN_CATEGORIES = (
    "simple", "multiple", "parallel", "parallel_multiple", "irrelevance", "live_simple",
)  # fmt: skip

#: ``make bench-bfcl-quick``: one even entry per category; the multi-turn ones are the
#: shortest even entries (multi_turn_base_50: one turn, two calls; miss_param_50: two turns).
QUICK_IDS: dict[str, list[int]] = {
    "multi_turn_base": [50], "multi_turn_miss_param": [50], "multi_turn_miss_func": [50],
    "multi_turn_long_context": [50], "simple": [0], "multiple": [0], "parallel": [0],
    "parallel_multiple": [0], "irrelevance": [0], "live_simple": [0],
}  # fmt: skip

Parity = Literal["even", "odd", "all"]


def is_multi_turn(category: str) -> bool:
    return CATEGORIES.get(category, category).startswith("multi_turn")


def number(entry_id: str) -> int:
    """The entry's number: ``multi_turn_base_12`` -> 12; a live id counts by its first part
    (``live_simple_12-3-0`` -> 12)."""
    return int(entry_id.rsplit("_", 1)[1].split("-", 1)[0])


@cache
def _entries(bfcl_category: str) -> tuple[dict[str, Any], ...]:
    return tuple(load_dataset_entry(bfcl_category))


def entries(category: str) -> list[dict[str, Any]]:
    """Every entry of a category, in id order (fresh copies: a run may extend ``function``)."""
    return [copy.deepcopy(e) for e in _sorted(CATEGORIES.get(category, category))]


@cache
def _sorted(bfcl_category: str) -> tuple[dict[str, Any], ...]:
    return tuple(sorted(_entries(bfcl_category), key=lambda e: number(e["id"])))


@cache
def ground_truth(category: str) -> dict[str, Any]:
    """id -> BFCL's ground truth: per turn a list of call strings (multi-turn), else the
    possible answers. Irrelevance has none (the right answer is no call): an empty dict."""
    bfcl_category = CATEGORIES.get(category, category)
    if bfcl_category.endswith("relevance"):  # irrelevance, live_irrelevance, live_relevance
        return {}
    return {row["id"]: row["ground_truth"] for row in load_ground_truth_entry(bfcl_category)}


def select(
    category: str,
    *,
    parity: Parity = "even",
    ids: Iterable[int] | None = None,
    n: int | None = None,
) -> list[dict[str, Any]]:
    """The entries a run takes: ``ids`` (numbers) if given, else the first ``n`` of a parity.

    ``parity`` applies to ``ids`` too, so an odd id never slips into a development run
    by a typo: ask for ``parity="all"`` to take any.
    """
    rows = list(_sorted(CATEGORIES.get(category, category)))
    if parity != "all":
        rows = [e for e in rows if number(e["id"]) % 2 == (0 if parity == "even" else 1)]
    if ids is not None:
        wanted = set(ids)
        rows = [e for e in rows if number(e["id"]) in wanted]
    rows = [copy.deepcopy(e) for e in (rows if n is None else rows[:n])]
    return rows
