"""BFCL's own checkers on what a run did: a verdict and BFCL's error type.

    verdict = score_multi_turn(log.decoded(), truth, entry, model_name, forced=False)
    verdict = score_single_turn(calls, truth, entry, "parallel")
    verdict.valid, verdict.error_type          # True, None  /  False, "multi_turn:..."

Multi-turn follows ``bfcl_eval.eval_checker.eval_runner._evaluate_single_multi_turn_entry``:
a run that was forced to quit (over the step limit in a turn) fails as
``multi_turn:force_terminated``; otherwise ``multi_turn_checker`` replays the calls per
turn and compares every backend's state and the results with the ground truth's.
Single-turn follows ``_evaluate_single_ast_entry`` / ``_evaluate_single_relevance_entry``:
the calls the agent made during the run are the model's output (``[{name: args}, ...]``),
checked by ``ast_checker``; no call at all is BFCL's ``ast_decoder:decoder_failed`` (what
BFCL records for a reply without a call); irrelevance is right exactly when no call was made,
relevance (live) exactly when one was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchmarks.bfcl._bfcl import CHECKER_MODEL, bfcl_ready
from benchmarks.bfcl.entries import CATEGORIES

bfcl_ready()

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import (  # noqa: E402
    multi_turn_checker,
)


@dataclass(frozen=True)
class Verdict:
    """BFCL's judgement of one entry."""

    valid: bool
    error_type: str | None = None
    """BFCL's error type (``multi_turn:instance_state_mismatch``, ``simple_function_checker:
    wrong_count`` ...); None when valid."""
    message: str | None = None
    """BFCL's error message, shortened."""

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "error_type": self.error_type, "error": self.message}


def _message(value: Any) -> str:
    text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text[:400]


def score_multi_turn(
    decoded: list[list[list[str]]], truth: list[list[str]], entry: dict[str, Any],
    model_name: str, *, forced: bool = False,
) -> Verdict:  # fmt: skip
    """BFCL's verdict on a multi-turn run (``decoded``: turn -> step -> call strings)."""
    if forced or len(decoded) != len(truth):
        return Verdict(
            False, "multi_turn:force_terminated",
            f"Model was force-terminated during inference phase ({len(decoded)} of "
            f"{len(truth)} turns run).",
        )  # fmt: skip
    category = entry["id"].rsplit("_", 1)[0]
    try:
        result = multi_turn_checker(decoded, truth, entry, category, model_name)
    except Exception as exc:  # the checker's own asserts (instances out of step)
        return Verdict(False, "multi_turn:checker_error", f"{type(exc).__name__}: {exc}"[:400])
    if result.get("valid"):
        return Verdict(True)
    return Verdict(False, result.get("error_type"), _message(result.get("error_message", "")))


def score_single_turn(
    calls: list[dict[str, dict[str, Any]]], truth: list[Any] | None, entry: dict[str, Any],
    category: str,
) -> Verdict:  # fmt: skip
    """BFCL's verdict on a single-turn run (``calls``: every call made, in order)."""
    bfcl_category = CATEGORIES.get(category, category)
    if "irrelevance" in bfcl_category:
        if calls:
            return Verdict(
                False, "irrelevance_error:decoder_success",
                "Valid syntax. Successfully decode AST when it should not.",
            )  # fmt: skip
        return Verdict(True)
    if "relevance" in bfcl_category:  # live_relevance: any call made is right
        if calls:
            return Verdict(True)
        return Verdict(False, "relevance_error:decoder_failed", "No function call was made.")
    if not calls:
        return Verdict(False, "ast_decoder:decoder_failed", "No function call was made.")
    if truth is None:
        raise ValueError(f"{entry['id']}: no ground truth")
    result = ast_checker(
        entry["function"], calls, truth, Language.PYTHON, bfcl_category, CHECKER_MODEL
    )
    if result.get("valid"):
        return Verdict(True)
    return Verdict(False, result.get("error_type"), _message(result.get("error", "")))
