"""``lcel-agent batch``: run the agent over a JSON Lines file of tasks.

::

    lcel-agent batch tasks.jsonl --out results.jsonl --rpm 500
    lcel-agent batch tasks.jsonl --out results.jsonl --agent myproject.agents:make_agent \\
        --executor ray --address auto --workers 16

Building the parser imports nothing heavy (no langchain, Ray or rich): ``lcel-agent
--help`` stays fast. The job itself is :func:`lcel_agent.batch.run_batch`.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from typing import Any, Literal

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "add_parser", "default_agent", "run"]

#: The job stopped before every task had its line (a run raised, the workers are gone ...).
EXIT_FAILED = 1
#: Bad arguments, an unreadable tasks file, a results file in use, a missing extra.
EXIT_USAGE = 2
#: Ctrl-C: every finished run is written; the same command resumes.
EXIT_INTERRUPTED = 130

_EPILOG = """\
tasks file: one JSON value per line: a task string, or {"id": ..., "input": "..."}
  (without an id, a task's id is its position, from 0).
results file: one line per task as it finishes: {"id", "input", "result"}, the result
  being the run's AgentResult.to_dict(). Running again with the same --out skips the
  ids already there: an interrupted or crashed job resumes where it stopped.

exit status:
  0    the job completed (whatever the runs' stop reasons: see the summary)
  1    the job stopped early (a run raised, the workers were lost for good)
  2    bad arguments or tasks file, --out in use by another job, Ray not installed
  130  interrupted (Ctrl-C): finished runs are written; run the same command to resume

the default agent (without --agent) is `lcel-agent run`'s: an OpenAI-compatible model
  (OPENAI_API_KEY, OPENAI_BASE_URL, --model) with get_weather (AMAP_KEY) and search_baidu.
  With Ray, every node needs those variables itself: the job never ships a key.
"""


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _per_minute(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``batch`` subcommand to ``lcel-agent``'s subparsers; return its parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "batch",
        help="run the agent over a JSON Lines file of tasks (resumable; local or on Ray)",
        description="Run the agent over every task of TASKS.jsonl, one results line per task.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # lcel-agent's main() reports unknown options with the usage of the command given them.
    parser.set_defaults(command_parser=parser)
    parser.add_argument("tasks", metavar="TASKS.jsonl", help="the tasks, one JSON value per line")
    parser.add_argument("--out", required=True, metavar="RESULTS.jsonl",
                        help="the results file (created, or resumed when it exists)")  # fmt: skip
    parser.add_argument("--agent", metavar="MODULE:FUNCTION", default=None,
                        help="a zero-argument function that builds your agent "
                        "(default: the run command's agent, see below)")  # fmt: skip
    parser.add_argument("--model", default="gpt-4o-mini",
                        help="the default agent's model (default gpt-4o-mini)")  # fmt: skip
    parser.add_argument("--executor", choices=("local", "ray"), default=None,
                        help="local: asyncio in this process (default); ray: Ray actors "
                        "(the ray extra: pip install -e '.[ray]')")  # fmt: skip
    parser.add_argument("--address", default=None,
                        help="the Ray cluster to join: auto, or ray://host:10001 (implies "
                        "--executor ray; default: start a local Ray)")  # fmt: skip
    parser.add_argument("--workers", type=_positive_int, default=None, metavar="N",
                        help="Ray workers (default: the cluster's CPU count)")  # fmt: skip
    parser.add_argument("--max-in-flight", type=_positive_int, default=32, metavar="N",
                        help="runs at once per worker (default 32)")  # fmt: skip
    parser.add_argument("--rpm", type=_per_minute, default=None, metavar="N",
                        help="model requests per minute for the whole job")  # fmt: skip
    parser.add_argument("--tpm", type=_per_minute, default=None, metavar="N",
                        help="model tokens per minute for the whole job")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress display on stderr")  # fmt: skip
    parser.add_argument("--json", action="store_true",
                        help="print the summary as JSON, for scripts")  # fmt: skip
    return parser


def default_agent(model: str = "gpt-4o-mini") -> Any:
    """The ``run`` command's agent, built where the job runs (this process, or a Ray worker)."""
    from langchain_openai import ChatOpenAI

    from .._redact import register_secret
    from ..agent import create_agent
    from ..errors import ConfigurationError
    from ..tools import get_weather, search_baidu

    key = os.environ.get("OPENAI_API_KEY", "").strip()
    if not key:
        raise ConfigurationError(
            "OPENAI_API_KEY is not set where the agent runs (on a Ray cluster: on every "
            "node); lcel-agent batch --help tells what the default agent needs"
        )
    register_secret(key)
    llm = ChatOpenAI(
        model=model,
        api_key=key,  # type: ignore[arg-type]
        base_url=os.environ.get("OPENAI_BASE_URL", "").strip() or None,
        temperature=0.2,
        timeout=60.0,
    )
    return create_agent(llm, [get_weather, search_baidu])


def run(args: argparse.Namespace) -> int:
    """Run the ``batch`` subcommand; return the exit status (see the epilog)."""
    from .._redact import redact
    from ..errors import ConfigurationError
    from ._items import TaskFile
    from ._runner import run_batch
    from .errors import BatchError, BatchInputError, BatchInterrupted, BatchStoreError

    wants_ray = args.executor == "ray" or (args.executor is None and args.address is not None)
    executor: Literal["local", "ray"] = "ray" if wants_ray else "local"

    def fail(code: int, message: str) -> int:
        print(f"lcel-agent batch: {redact(message)}", file=sys.stderr)
        return code

    if args.agent and os.getcwd() not in sys.path:
        # Like `python -m`: the agent's module is looked up from here too (and Ray adds
        # the driver's working folder to its local workers' path the same way).
        sys.path.insert(0, os.getcwd())
    tasks = TaskFile(args.tasks)
    try:
        tasks.check()
        summary = run_batch(
            args.agent or functools.partial(default_agent, args.model),
            tasks,
            out=args.out,
            executor=executor,
            address=args.address,
            workers=args.workers,
            max_in_flight=args.max_in_flight,
            rpm=args.rpm,
            tpm=args.tpm,
            progress=not args.no_progress,
        )
    except BatchInterrupted as stop:
        print(_report(stop.summary, args.json))
        return fail(EXIT_INTERRUPTED, "interrupted; run the same command again to resume")
    except (BatchInputError, BatchStoreError, ConfigurationError, TypeError) as exc:
        return fail(EXIT_USAGE, str(exc))
    except BatchError as exc:
        if exc.summary is not None:
            print(_report(exc.summary, args.json))
        code = EXIT_USAGE if exc.summary is None else EXIT_FAILED
        return fail(code, f"{exc}; the finished runs are in {args.out}")
    print(_report(summary, args.json))
    return 0


def _report(summary: Any, as_json: bool) -> str:
    return json.dumps(summary.to_dict(), ensure_ascii=False) if as_json else str(summary)
