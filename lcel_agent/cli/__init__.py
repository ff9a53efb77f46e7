"""The ``lcel-agent`` command: run a task on a real model, the article's task offline, or a report.

::

    lcel-agent run --simulate                      # no key, no network: everything on loopback
    lcel-agent batch tasks.jsonl --out results.jsonl --simulate
    export OPENAI_API_KEY=...                      # any OpenAI-compatible provider
    export OPENAI_BASE_URL=https://api.deepseek.com/v1   # optional
    lcel-agent run "查询北京和上海今天的天气" --model deepseek-chat --report run.html
    lcel-agent run - < question.txt                # a task of any length, from standard input
    lcel-agent demo --noise 2 --faults 0.2 --seed 3  # no key, no network
    lcel-agent demo --json | jq .stop_reason
    lcel-agent report results.jsonl --out report.html
    lcel-agent run "查询北京天气" --checkpoint runs.db --pause   # exit 8 before each tool call
    lcel-agent resume THREAD --checkpoint runs.db --approve    # after a pause, a crash, Ctrl-C
    lcel-agent threads --checkpoint runs.db                     # the runs in a store

The exit status tells scripts how the run ended (see :data:`EXIT_CODES`).

The package is the command line, one module a concern: the parser (``_parser``),
the usage checks (``_checks``), the argument types (``_types``), the exit
statuses (``_status``), the commands (``_commands``, ``_batch``, ``_resume``,
``_threads``), the agent they build (``_agent``), driving a run (``_drive``), the
live trace (``_display``), the commands and URLs it prints (``_hints``), and for
checkpointed runs the store (``_store``), the thread lock (``_lock``), the options kept
beside a thread (``_record``) and what ``run --checkpoint`` and ``resume`` share
(``_continue``), what every store is (``_store_base``), the PostgreSQL store
(``_postgres``), the server a resumed run goes back to (``_server``) and the signals that
stop a command (``_signals``). It imports the library from above; the library never imports it.

Importing it loads nothing heavy: ``--help`` and usage errors answer before
LangChain is loaded, and the commands are imported inside :func:`main`, where
Ctrl-C at any moment ends with status 130 and one line (SIGTERM 143, SIGHUP 129).
"""

from __future__ import annotations

import os
import sys

from .._redact import redact
from ._checks import check
from ._hints import command, invoked_as, use_program
from ._parser import Parser, build_parser
from ._signals import handled, said, status
from ._status import EXIT_CODES, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE

__all__ = ["EXIT_CODES", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_USAGE", "build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status.

    SIGTERM and SIGHUP stop a run as Ctrl-C does (exit 143, 129; 130 for Ctrl-C). Once a
    run's result is in hand they are ignored (they cannot change a result that is
    stored); a caller that gives ``argv`` gets its own handlers back on return. The
    commands the output shows start with the program as it was run (``sys.argv[0]``;
    ``lcel-agent`` for a caller that gives ``argv``).
    """
    use_program(("lcel-agent",) if argv is not None else invoked_as(sys.argv[0]))
    Parser.argv = list(sys.argv[1:] if argv is None else argv)
    with handled(restore=argv is not None):
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    try:
        parser = build_parser()
        try:
            args, extra = parser.parse_known_args(argv)
            if args.command is None:
                unknown = [arg for arg in extra if arg.startswith("-")]
                if unknown:
                    parser.error(f"unknown option {unknown[0]} (see {command('--help')})")
                parser.error(
                    "a command is needed: run, demo, batch or report; "
                    "resume or threads for checkpointed runs"
                )
            if extra:
                args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
            check(args)
        except SystemExit as exit_:  # --help, or a usage error already printed by argparse
            return int(exit_.code or 0)
        from ._commands import dispatch  # LangChain is imported from here on

        return dispatch(args)
    except BrokenPipeError:
        # The reader went away (``| head``): say nothing more, and keep Python's
        # flush at exit from complaining about the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INTERNAL
    except KeyboardInterrupt as stopped:  # Ctrl-C, SIGTERM, SIGHUP (see _signals)
        print(f"lcel-agent: {said(stopped)}", file=sys.stderr)
        return status(stopped)
    except Exception as exc:  # never a traceback that could quote a key
        print(
            f"lcel-agent: internal error: {redact(f'{type(exc).__name__}: {exc}')}", file=sys.stderr
        )
        return EXIT_INTERNAL
