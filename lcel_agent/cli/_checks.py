"""Checks of the command line that need no LangChain: usage errors come before anything else.

:func:`check` runs after parsing; a failure prints the command's usage and exits 2
through argparse, before any header, any model or any file is touched.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

__all__ = ["check"]


def _read_task(args: argparse.Namespace, fail: Callable[[str], NoReturn]) -> str | None:
    """The task text of ``run``: the argument, standard input (``-``) or ``--task-file``."""
    if args.task is not None and args.task_file is not None:
        fail("give the task either as TASK or with --task-file, not both")
    if args.task is None and args.task_file is None:
        if args.simulate:
            return None  # the article's task, filled in by the command
        fail("a task is needed: TASK, '-' to read it from standard input, or --task-file PATH")
    source = "-" if args.task == "-" else args.task_file
    if source is None:
        text: str = args.task
    else:
        where = "standard input" if str(source) == "-" else str(source)
        try:
            data = sys.stdin.buffer.read() if str(source) == "-" else Path(source).read_bytes()
            text = data.decode("utf-8-sig")
        except OSError as exc:
            fail(f"cannot read the task from {where}: {exc.strerror or exc}")
        except UnicodeDecodeError:
            fail(f"the task in {where} is not UTF-8 text")
    if not text.strip():
        fail("the task is empty")
    return text


def _check_out(path: Path | None, option: str, fail: Callable[[str], NoReturn]) -> None:
    """Fail now, not after a paid run, when ``path`` cannot be written."""
    if path is None:
        return
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        fail(f"{option} {path} is a directory; give a file name")
    if not parent.is_dir():
        fail(f"{option} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"{option} {path}: not writable")


def _check_durable(args: argparse.Namespace, fail: Callable[[str], NoReturn]) -> None:
    """``--checkpoint`` and its company: what ``run``, ``resume`` and ``threads`` need."""
    from ._hints import StoreRef, command
    from ._store import precheck  # sqlite3 and the lock's helpers: cheap, but only here

    if args.command == "run":
        if args.checkpoint is None:
            for option in ("pause", "thread", "checkpoint_schema"):
                if getattr(args, option):
                    fail(f"--{option.replace('_', '-')} needs --checkpoint STORE (a SQLite "
                         "file or a postgresql:// URL) to keep the run in")  # fmt: skip
            return
        if args.pause and args.confirm:
            fail(f"--pause waits for a decision later ({command('resume', 'ID', '--approve')}); "
                 "--confirm asks now: give one of them")  # fmt: skip
    if args.command == "resume" and args.reason is not None and args.deny is None:
        fail("--reason goes with --deny: it is what the model is told instead of a result")
    if args.command == "resume" and args.no_pause and args.approve is not None:
        fail("--no-pause approves the calls that wait and every later one: leave out --approve")
    run = args.command == "run"
    problem = precheck(StoreRef.of(args), create=run, writes=run)
    if problem is not None:
        # The options were right; the STORE is not: its line, without "see --help".
        print(f"lcel-agent {args.command}: error: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)


def check(args: argparse.Namespace) -> None:
    fail = args.command_parser.error
    if args.command == "run":
        args.task = _read_task(args, fail)
        if args.simulate and args.base_url is not None:
            fail("--simulate runs its own model on 127.0.0.1: leave out --base-url")
    if args.command in ("run", "resume", "threads"):
        _check_durable(args, fail)
    if args.command == "resume":
        _check_out(args.report, "--report", fail)
    if args.command in ("run", "demo"):
        _check_out(args.report, "--report", fail)
    if args.command == "report":
        if not args.results.is_file():
            fail(f"no such file: {args.results}")
        args.out = args.out or args.results.with_suffix(".html")
        _check_out(args.out, "--out", fail)
