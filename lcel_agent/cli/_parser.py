"""The argument parser of ``lcel-agent``: every command, option and help text.

Building it imports nothing heavy (argparse and the argument types only), so
``--help`` answers before LangChain is loaded. A new command is a
:func:`new_parser` call here and a branch in :func:`lcel_agent.cli._commands.dispatch`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, ClassVar, NoReturn

from .. import __version__
from . import _batch as batch_cli
from ._hints import command
from ._types import (
    THREAD_ID_RULE,
    any_int,
    base_url,
    call_ids,
    positive_float,
    positive_int,
    rate,
    scale,
    schema_name,
    temperature,
    thread_id,
)

__all__ = ["Parser", "build_parser", "new_parser"]


class Parser(argparse.ArgumentParser):
    """argparse's parser, with a usage error said in one line (the usage is in ``--help``)."""

    argv: ClassVar[list[str]] = []
    """The command line being parsed (:func:`lcel_agent.cli.main` sets it), so a refused
    thread id is quoted as it was typed."""

    def error(self, message: str) -> NoReturn:
        message = _id_refusal(message, self.argv, set(self._option_string_actions))
        words = self.prog.split()[1:]  # "lcel-agent run" -> the command's own help
        hint = "" if "--help" in message else f" (see {command(*words, '--help')})"
        self.exit(2, f"{self.prog}: error: {message}{hint}\n")


def _id_refusal(message: str, argv: list[str], options: set[str]) -> str:
    """argparse's words about a thread id that looks like an option, in the id's rule.

    ``--thread -x`` and ``resume -x`` never reach :func:`thread_id`: argparse takes
    ``-x`` for an option and says "expected one argument" or "required: ID" instead.
    """
    rule = f"expected a thread id ({THREAD_ID_RULE})"
    if message == "argument --thread: expected one argument":
        at = argv.index("--thread") + 1 if "--thread" in argv else len(argv)
        return f"argument --thread: {rule}" + (f", got {argv[at]!r}" if at < len(argv) else "")
    if message.endswith("arguments are required: ID"):
        typed = argv[argv.index("resume") + 1 :] if "resume" in argv else []
        stray = [w for w in typed if w.startswith("-") and w.split("=")[0] not in options]
        return f"argument ID: {rule}" + (f", got {stray[0]!r}" if stray else "")
    return message


# The epilog, one paragraph each, so a new section (a command, a limit) is one more entry.
_EPILOG_PARTS = (
    """\
exit status:
  0    final       the model answered
  3    max_loops   --max-loops model calls without an answer
  4    max_errors  the same failure --max-errors times in a row, or twice that many
                   loops without progress (or a policy said stop)
  5    drift       the model kept repeating itself after one nudge
  6    llm_error   the model API failed for good (bad key, retries exhausted, ...)
  7    budget      the token or time budget was spent
  8    paused      tool calls wait for a person's decision (run --pause; then
                   resume --approve or --deny; --confirm asks at once instead)
  2    usage       bad arguments, OPENAI_API_KEY missing, invalid configuration,
                   a STORE or thread that cannot be used, a thread that is busy
  1    internal    an unexpected error (please report it)
  130  interrupted Ctrl-C (a checkpointed run prints the command that resumes it)""",
    """\
time limits (run):
  Each model call makes up to 3 attempts of at most --timeout seconds, waiting
  between them for a backoff (at most 8 s) or the server's Retry-After (at most
  60 s; a longer one fails the call, exit 6). Without --time-budget a run can
  take up to --max-loops x 3 x (3 x TIMEOUT + 2 x 60) seconds plus its tool
  calls (each at most 30 s, retried once if idempotent, then its fallback); a
  server that never answers holds one call about 3 x TIMEOUT seconds. With
  --time-budget T every wait inside a model call is cut to what is left of T:
  the run stops with exit 7 within about a second of T, plus any tool call
  still running (at most 3 x 30 s).""",
    """\
environment (run, resume):
  OPENAI_API_KEY   the provider's key (required; never printed, never stored)
  OPENAI_BASE_URL  an OpenAI-compatible endpoint: DeepSeek, Qwen, vLLM, Ollama,
                   a local llama.cpp server ... (--base-url wins over it)
  AMAP_KEY         an Amap (高德) Web服务 key, for the get_weather tool
  --simulate needs none of them: a simulated model and fake Amap and Baidu
  services run on 127.0.0.1 for the command's duration.""",
    """\
resumable runs (run --checkpoint, resume, threads):
  STORE is a SQLite file (run makes it if missing) or a postgresql:// URL. Every
  loop of the run is checkpointed on a thread (--thread ID, or a new id, printed);
  after a crash, Ctrl-C or a pause, `lcel-agent resume ID --checkpoint STORE`
  goes on where the run stopped, with the run's own options, and asks the model
  nothing twice. `lcel-agent threads --checkpoint STORE` lists the runs.""",
)
_EPILOG = "\n\n".join(_EPILOG_PARTS) + "\n"

_RESUME_EPILOG = f"""\
exit status: as `lcel-agent run` (lcel-agent run --help): 0 final, 3-7 the run's
  stop reason, 8 paused again, 2 bad input or a busy thread, 130 Ctrl-C.

  A finished thread's result is printed as it was stored: no model, no key, no
  server. A paused, interrupted or failed one goes on with its own options (model,
  --base-url, limits, --pause); the key comes from OPENAI_API_KEY again.

  CALL is the id of a waiting call as the pause hint prints it (several: joined by
  commas); a CALL that does not wait now is refused, so an old command never
  decides a call you have not seen. --approve and --deny without CALL decide
  every call that waits.

  ID: {THREAD_ID_RULE}.
"""

_THREADS_EPILOG = f"""\
states:
  running    the run's process is running it now
  stale      not finished, and no process runs it (it was killed, or the machine
             stopped): lcel-agent resume ID goes on where it stopped
  paused     tool calls wait for resume --approve or --deny
  failed     the model API failed for good (llm_error): resume ID [--base-url URL]
             asks the failed call again and goes on
  finished   the run ended; resume ID prints its result

  A thread id longer than the column is printed whole, on a line of its own.
  ID: {THREAD_ID_RULE}.
"""


def new_parser(
    commands: argparse._SubParsersAction[Any],
    name: str,
    help: str,
    epilog: str = _EPILOG,
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        name, help=help, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    # main() reports unknown options in the words of the command they were given to.
    parser.set_defaults(command_parser=parser)
    return parser


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", choices=("json", "tool_calling"), default="json",
                        help="how the model names actions: JSON replies or native tool calls")  # fmt: skip
    parser.add_argument("--max-loops", type=positive_int, default=10, metavar="N",
                        help="most model calls per run (default 10)")  # fmt: skip
    parser.add_argument("--max-errors", type=positive_int, default=2, metavar="N",
                        help="the same failure this many times in a row stops the run, "
                             "and twice this many loops without progress (default 2)")  # fmt: skip
    _result_output(parser, "also write the run as a self-contained HTML report to PATH")
    parser.add_argument("--confirm", action="store_true",
                        help="ask y/n on the terminal before each tool call runs")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``lcel-agent`` (``run``, ``demo``, ``report``, ``resume``,
    ``threads``, ``batch``)."""
    parser = Parser(
        prog="lcel-agent",
        description="Run an LCEL agent with the weather and search tools, and watch every loop.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lcel-agent {__version__}")
    # Not required here: main() says "a command is needed" itself, after any unknown option.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = new_parser(
        commands, "run", "run TASK on a model (OPENAI_API_KEY), or offline with --simulate"
    )
    run.add_argument("task", nargs="?", default=None, metavar="TASK",
                     help="the task, e.g. '查询北京今天的天气'; '-' reads it from standard input "
                     "(with --simulate, default: the article's task)")  # fmt: skip
    run.add_argument("--simulate", action="store_true",
                     help="no key, no network: a simulated model and fake Amap and Baidu on "
                     "127.0.0.1 (it asks the weather of the cities TASK names and searches "
                     "what TASK puts in quotes)")  # fmt: skip
    run.add_argument("--task-file", type=Path, default=None, metavar="PATH",
                     help="read the task from a UTF-8 text file (any length)")  # fmt: skip
    run.add_argument("--model", default="gpt-4o-mini", help="model name (default gpt-4o-mini)")
    _base_url(run, "(wins over OPENAI_BASE_URL)")
    _common(run)
    run.add_argument("--memory-tokens", type=positive_int, default=800, metavar="N",
                     help="the memory window's token budget (default 800)")  # fmt: skip
    run.add_argument("--temperature", type=temperature, default=0.2, metavar="T",
                     help="sampling temperature, 0..2 (default 0.2)")  # fmt: skip
    run.add_argument("--max-tokens", type=positive_int, default=1024, metavar="N",
                     help="most tokens per model reply (default 1024)")  # fmt: skip
    run.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                     help="time limit of each model call attempt (default 60)")  # fmt: skip
    run.add_argument("--token-budget", type=positive_int, default=None, metavar="N",
                     help="stop (exit 7) once the run has used N tokens")  # fmt: skip
    run.add_argument("--time-budget", type=positive_float, default=None, metavar="SECONDS",
                     help="stop (exit 7) once the run has taken this long")  # fmt: skip
    _store(run, "checkpoint every loop in STORE (a SQLite file, made if missing, or a "
                "postgresql:// URL), so `lcel-agent resume` can continue the run")  # fmt: skip
    run.add_argument("--thread", type=thread_id, default=None, metavar="ID",
                     help="the run's thread in STORE (default: a new id, printed); "
                     "a finished thread's conversation goes on with TASK. "
                     f"ID: {THREAD_ID_RULE}")  # fmt: skip
    run.add_argument("--pause", action="store_true",
                     help="stop before each tool call (exit 8) until `lcel-agent resume "
                     "--approve` or `--deny`; needs --checkpoint")  # fmt: skip
    demo = new_parser(
        commands, "demo", "the article's task, fully offline: simulated model, fake Amap and Baidu"
    )
    demo.add_argument("--noise", type=scale, default=1.0, metavar="SCALE",
                      help="scale of the model's noise (fences, typos, broken JSON); "
                      "0 = a perfect model, 1 = mild and realistic (default)")  # fmt: skip
    demo.add_argument("--faults", type=rate, default=0.0, metavar="RATE",
                      help="rate of model API faults (429, 500, dropped connections) "
                      "and of weather API timeouts (default 0)")  # fmt: skip
    demo.add_argument("--seed", type=any_int, default=15,
                      help="seed of the noise and faults (default 15: a run that meets "
                      "and recovers from a format error)")  # fmt: skip
    _common(demo)
    report = new_parser(
        commands, "report", "turn results (a batch's JSON Lines, or a run's --json) into HTML"
    )
    report.add_argument("results", type=Path, metavar="RESULTS",
                        help="a batch's results.jsonl, or the output of run/demo --json")  # fmt: skip
    report.add_argument("--out", type=Path, default=None, metavar="PATH",
                        help="where to write the HTML (default: RESULTS with .html)")  # fmt: skip
    _resumable(commands)
    # More subcommands register here with new_parser(commands, ...) and get a branch
    # in _commands.dispatch; keep their imports inside the command.
    batch_cli.add_parser(commands)  # `batch`: its own module (argparse only until it runs)
    return parser


def _store(parser: argparse.ArgumentParser, help: str, *, required: bool = False) -> None:
    parser.add_argument("--checkpoint", default=None, required=required, metavar="STORE",
                        help=help)  # fmt: skip
    parser.add_argument("--checkpoint-schema", type=schema_name, default=None, metavar="NAME",
                        help="a postgresql:// STORE: keep the checkpoints in the schema NAME "
                        "(run makes it), so a database that holds other tables can hold "
                        "them too")  # fmt: skip


def _result_output(parser: argparse.ArgumentParser, report: str) -> None:
    """``--json`` and ``--report PATH``: how a run's result is given (``run``, ``resume``)."""
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON only (no live trace), for scripts")  # fmt: skip
    parser.add_argument("--report", type=Path, default=None, metavar="PATH", help=report)


def _base_url(parser: argparse.ArgumentParser, when: str) -> None:
    parser.add_argument("--base-url", type=base_url, default=None, metavar="URL",
                        help="an OpenAI-compatible endpoint, e.g. a local model's "
                        f"http://127.0.0.1:8080/v1 {when}")  # fmt: skip


def _resumable(commands: argparse._SubParsersAction[Any]) -> None:
    """``resume`` and ``threads``: the runs a STORE holds."""
    resume = new_parser(
        commands,
        "resume",
        "continue a checkpointed run after a crash, Ctrl-C, a pause or a model failure",
        _RESUME_EPILOG,
    )
    resume.add_argument("thread", type=thread_id, metavar="ID",
                        help=f"the run's thread (lcel-agent threads lists them); {THREAD_ID_RULE}")  # fmt: skip
    _store(resume, "where the run is checkpointed (never made here)", required=True)
    decision = resume.add_mutually_exclusive_group()
    decision.add_argument("--approve", nargs="?", const=True, default=None, type=call_ids,
                          metavar="CALL",
                          help="a paused run: run the tool call CALL (as the pause hint names "
                          "it), or every call that waits")  # fmt: skip
    decision.add_argument("--deny", nargs="?", const=True, default=None, type=call_ids,
                          metavar="CALL",
                          help="a paused run: refuse CALL, or every call that waits (the "
                          "model is told, and goes on)")  # fmt: skip
    resume.add_argument("--reason", default=None, metavar="TEXT",
                        help="with --deny: what the model is told instead of a result")  # fmt: skip
    resume.add_argument("--no-pause", action="store_true",
                        help="a --pause run: approve the calls that wait and every later "
                        "one (with --deny: refuse those that wait, then run the rest)")  # fmt: skip
    resume.add_argument("--max-loops", type=positive_int, default=None, metavar="N",
                        help="most model calls of the whole run from now on (default: the "
                        "run's own); raise it to let a run go on")  # fmt: skip
    _result_output(resume, "also write the whole run as a self-contained HTML report")
    _base_url(resume, "(default: the run's own, else OPENAI_BASE_URL)")
    threads = new_parser(
        commands, "threads", "list the runs a checkpoint STORE holds", _THREADS_EPILOG
    )
    _store(threads, "a SQLite file or a postgresql:// URL (never made here)", required=True)
    threads.add_argument("--json", action="store_true",
                         help="print a JSON list of {thread_id, task, state, stop_reason, "
                         "loops, updated_at}")  # fmt: skip
