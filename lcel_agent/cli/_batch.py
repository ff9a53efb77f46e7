"""``lcel-agent batch``: run the agent over a JSON Lines file of tasks.

::

    lcel-agent batch tasks.jsonl --out results.jsonl --rpm 500
    lcel-agent batch tasks.jsonl --out results.jsonl --simulate   # no key, no network
    lcel-agent batch tasks.jsonl --out results.jsonl --agent myproject.agents:make_agent \\
        --executor ray --address auto --workers 16

Building the parser imports nothing heavy (no langchain, Ray or rich): ``lcel-agent
--help`` stays fast. The job itself is the batch room's :func:`lcel_agent.batch.run_batch`;
this module is its command line.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import sys
from typing import Any, Literal

from ._signals import said, status
from ._types import per_minute, positive_float, positive_int

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "add_parser", "default_agent", "run"]

#: The job stopped before every task had its line (a run raised, the workers are gone ...).
EXIT_FAILED = 1
#: Bad arguments, an unreadable tasks file, a results file in use, a missing extra.
EXIT_USAGE = 2
#: Ctrl-C: every finished run is written; the same command resumes.
EXIT_INTERRUPTED = 130
#: The default agent's time limit per model call attempt, in seconds.
DEFAULT_LLM_TIMEOUT = 60.0

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
  (OPENAI_API_KEY, OPENAI_BASE_URL, --model, --llm-timeout) with get_weather (AMAP_KEY)
  and search_baidu. With Ray, every node needs those variables itself: the job never
  ships a key.

--simulate: no key, no network. A simulated model and fake Amap and Baidu services run
  on 127.0.0.1 while the job runs, and the environment points at them, so the default
  agent, or an --agent that reads its model and tools from the environment, runs offline
  (with Ray: a local Ray on this machine). The simulated model asks the weather of the
  cities each task names and searches what it puts in quotes.
"""


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
    parser.add_argument("--llm-timeout", type=positive_float, default=None, metavar="SECONDS",
                        help="the default agent's time limit per model call attempt "
                        f"(default {DEFAULT_LLM_TIMEOUT:g}; a low --rpm needs more)")  # fmt: skip
    parser.add_argument("--simulate", action="store_true",
                        help="no key, no network: a simulated model and fake Amap and Baidu "
                        "on 127.0.0.1 (see below)")  # fmt: skip
    parser.add_argument("--executor", choices=("local", "ray"), default=None,
                        help="local: asyncio in this process (default); ray: Ray actors "
                        "(the ray extra: pip install -e '.[ray]')")  # fmt: skip
    parser.add_argument("--address", default=None,
                        help="the Ray cluster to join: auto, or ray://host:10001 (implies "
                        "--executor ray; default: start a local Ray)")  # fmt: skip
    parser.add_argument("--workers", type=positive_int, default=None, metavar="N",
                        help="Ray workers (default: the cluster's CPU count)")  # fmt: skip
    parser.add_argument("--max-in-flight", type=positive_int, default=32, metavar="N",
                        help="runs at once per worker (default 32)")  # fmt: skip
    parser.add_argument("--rpm", type=per_minute, default=None, metavar="N",
                        help="model requests per minute for the whole job")  # fmt: skip
    parser.add_argument("--tpm", type=per_minute, default=None, metavar="N",
                        help="model tokens per minute for the whole job")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress display on stderr")  # fmt: skip
    parser.add_argument("--json", action="store_true",
                        help="print the summary as JSON, for scripts")  # fmt: skip
    return parser


def default_agent(model: str = "gpt-4o-mini", llm_timeout: float = DEFAULT_LLM_TIMEOUT) -> Any:
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
        timeout=llm_timeout,
    )
    return create_agent(llm, [get_weather, search_baidu], llm_timeout=llm_timeout)


def _usage_problem(args: argparse.Namespace, executor: str) -> str | None:
    """What is wrong with the options, in the command's words, before anything runs."""
    # The local executor's own rule for how long a call may wait its turn under --rpm.
    from ..batch import RateSchedule, timeout_needed

    if args.workers is not None and executor == "local" and args.workers != 1:
        return (
            "--workers is for --executor ray (the local executor is one worker); "
            "--max-in-flight N runs more tasks at once"
        )
    if args.simulate and args.address is not None:
        return "--simulate runs everything on this machine's loopback: leave out --address"
    if args.agent and args.llm_timeout is not None:
        return (
            "--llm-timeout sets the default agent's time limit; the agent of --agent sets "
            "its own (create_agent(..., llm_timeout=...))"
        )
    timeout = DEFAULT_LLM_TIMEOUT if args.llm_timeout is None else args.llm_timeout
    if args.rpm and not args.agent and timeout < (need := timeout_needed(RateSchedule(args.rpm))):
        return _rate_advice(args.rpm, timeout, need, custom=False)
    return None


def _rate_advice(rpm: float, timeout: float, need: float, *, custom: bool) -> str:
    interval = 60.0 / rpm
    fix = (
        f"build your --agent with llm_timeout >= {need:.0f}"
        if custom
        else f"give --llm-timeout {need:.0f} or more"
    )
    return (
        f"--rpm {rpm:g} starts a model call every {interval:.1f} s, and a call may wait a few "
        f"turns for its own inside its {timeout:g} s time limit: calls would time out while "
        f"waiting. {fix[0].upper()}{fix[1:]}, or give a higher --rpm."
    )


def run(args: argparse.Namespace) -> int:
    """Run the ``batch`` subcommand; return the exit status (see the epilog)."""
    from .._redact import redact
    from ..batch import TaskFile, run_batch
    from ..batch.errors import (
        BatchError,
        BatchInputError,
        BatchInterrupted,
        BatchStoreError,
        RateTooLowError,
    )
    from ..errors import ConfigurationError

    wants_ray = args.executor == "ray" or (args.executor is None and args.address is not None)
    executor: Literal["local", "ray"] = "ray" if wants_ray else "local"

    def fail(code: int, message: str) -> int:
        print(f"lcel-agent batch: {redact(message)}", file=sys.stderr)
        return code

    problem = _usage_problem(args, executor)
    if problem is not None:
        return fail(EXIT_USAGE, problem)
    if args.agent and os.getcwd() not in sys.path:
        # Like `python -m`: the agent's module is looked up from here too (and Ray adds
        # the driver's working folder to its local workers' path the same way).
        sys.path.insert(0, os.getcwd())
    timeout = DEFAULT_LLM_TIMEOUT if args.llm_timeout is None else args.llm_timeout
    tasks = TaskFile(args.tasks)
    try:
        tasks.check()
        with _services(args.simulate):
            summary = run_batch(
                args.agent or functools.partial(default_agent, args.model, timeout),
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
    except BatchInterrupted as stop:  # Ctrl-C, SIGTERM or SIGHUP (130, 143, 129)
        print(_report(stop.summary, args.json))
        return fail(status(stop), f"{said(stop)}; run the same command again to resume")
    except RateTooLowError as exc:
        return fail(EXIT_USAGE, _rate_advice(exc.rpm, exc.timeout, exc.need, custom=True))
    except (BatchInputError, BatchStoreError, ConfigurationError, TypeError) as exc:
        return fail(EXIT_USAGE, str(exc))
    except BatchError as exc:
        if exc.summary is not None:
            print(_report(exc.summary, args.json))
        code = EXIT_USAGE if exc.summary is None else EXIT_FAILED
        return fail(code, f"{exc}; the finished runs are in {args.out}")
    print(_report(summary, args.json))
    return 0


def _services(simulate: bool) -> contextlib.AbstractContextManager[Any]:
    """``--simulate``: the simulated model and fake services, for the job's duration."""
    if not simulate:
        return contextlib.nullcontext()
    from ..testing.offline import simulated_services

    return simulated_services()


def _report(summary: Any, as_json: bool) -> str:
    return json.dumps(summary.to_dict(), ensure_ascii=False) if as_json else str(summary)
