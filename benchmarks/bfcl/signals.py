"""What went wrong in failed runs, counted: general signals read from the results records.

    python -m benchmarks.bfcl.signals benchmarks/results/bfcl/baseline/results.jsonl
    python -m benchmarks.bfcl.signals RESULTS --framework lcel-json --examples 2

BFCL's error type says which check failed (the state, a missing result, an empty turn);
these say what the agent did on the way, in terms that hold for any tool set, so they
point at what an agent loop could do about it. Each signal is counted per turn of a
failed multi-turn entry (a turn shows it or not), with examples (entry, turn, evidence):

* ``backend_error``: a call's result was an error from the backend (``{"error": ...}`` or
  BFCL's ``Error during execution``);
* ``bad_arguments``: the call did not fit the function (an unknown or missing argument);
* ``quoted_value``: a string argument wrapped in an extra pair of quotes (``'"x"'``);
* ``repeated_call``: the same call made again in the turn right after it ran;
* ``error_then_final``: the turn's last call failed and the framework still ended the
  turn with an answer (no further attempt);
* ``no_call``: the ground truth calls something this turn and the agent called nothing;
* ``stopped``: the turn ended on something other than an answer (a limit, an error);
* ``server_died``: the model server died during the entry (counted once per entry).
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

Record = dict[str, Any]

_QUOTED = re.compile(r"""=(?:'"[^'"]*"'|"'[^'"]*'"|'\\'[^']*\\'')""")


def _is_error(result: str) -> bool:
    return result.startswith(('{"error"', "Error during execution", "Error:"))


def turn_signals(record: Record, index: int, truth_calls: int | None) -> list[tuple[str, str]]:
    """The signals one turn shows: (signal, evidence)."""
    turn = record["turns"][index]
    made = record["executed"][index] if index < len(record["executed"]) else []
    found: list[tuple[str, str]] = []
    errors = [c for c in made if _is_error(c["result"])]
    if errors:
        found.append(("backend_error", f"{errors[0]['call']} -> {errors[0]['result'][:120]}"))
    bad = [c for c in errors if "unexpected keyword" in c["result"] or "missing" in c["result"]]
    if bad:
        found.append(("bad_arguments", f"{bad[0]['call']} -> {bad[0]['result'][:120]}"))
    quoted = [c for c in made if _QUOTED.search(c["call"])]
    if quoted:
        found.append(("quoted_value", quoted[0]["call"]))
    calls = [c["call"] for c in made]
    repeats = [a for a, b in itertools.pairwise(calls) if a == b]
    if repeats:
        found.append(("repeated_call", f"{repeats[0]} ×{calls.count(repeats[0])}"))
    if made and _is_error(made[-1]["result"]) and turn["stop"] == "final":
        found.append(("error_then_final", f"{made[-1]['call']} -> {made[-1]['result'][:80]}"))
    if truth_calls and not made:
        found.append(("no_call", str(turn.get("answer") or "")[:120]))
    if turn["stop"] != "final":
        found.append(("stopped", f"{turn['stop']}: {str(turn.get('detail') or '')[:120]}"))
    return found


def tally(records: list[Record], framework: str | None = None) -> dict[str, Any]:
    """Per framework@server: failed entries, turns, and per signal the turns and examples."""
    from benchmarks.bfcl.entries import ground_truth, is_multi_turn

    out: dict[str, Any] = {}
    for record in records:
        if record["valid"] or not is_multi_turn(record["category"]):
            continue
        if framework is not None and record["framework"] != framework:
            continue
        row = out.setdefault(
            f"{record['framework']}@{record['server']}",
            {"entries": 0, "turns": 0, "signals": Counter(), "examples": defaultdict(list)},
        )
        row["entries"] += 1
        if record.get("server_died"):
            row["signals"]["server_died"] += 1
            row["examples"]["server_died"].append(record["id"])
        truth = ground_truth(record["category"]).get(record["id"]) or []
        for index in range(len(record["turns"])):
            row["turns"] += 1
            needed = len(truth[index]) if index < len(truth) else None
            for signal, evidence in turn_signals(record, index, needed):
                row["signals"][signal] += 1
                row["examples"][signal].append(f"{record['id']} turn {index + 1}: {evidence}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("results", type=Path)
    parser.add_argument("--framework", default=None)
    parser.add_argument("--examples", type=int, default=1)
    args = parser.parse_args(argv)
    from benchmarks.bfcl.report import load

    for name, row in tally(load(args.results), args.framework).items():
        print(f"\n{name}: {row['entries']} failed entries, {row['turns']} turns")
        for signal, n in row["signals"].most_common():
            print(f"  {signal:<17} {n:>3} turns")
            for example in row["examples"][signal][: args.examples]:
                print(f"      e.g. {example[:260]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
