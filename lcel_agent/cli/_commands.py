"""The work of ``lcel-agent run``, ``demo`` and ``report``, once the arguments are checked.

``run --checkpoint``, ``resume`` and ``threads`` live in ``_resume`` and ``_threads``.

:func:`lcel_agent.cli.main` parses and checks the command line without importing
LangChain, then calls :func:`dispatch`; everything heavy is imported from here.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import ConfigurationError
from ..testing.tasks import ARTICLE_TASK
from ._agent import (
    MissingKeyError,
    built,
    endpoint,
    no_key,
    options_of,
    simulated,
    window_warning,
)
from ._drive import finish, refuse, say
from ._status import EXIT_USAGE

__all__ = ["dispatch", "window_warning"]

# The default noise of the demo's model, scaled by --noise: roughly what a small
# model at temperature 0.2 shows on this task (fences are common, broken JSON rare).
_DEMO_NOISE = {
    "repeat_success": 0.03,
    "misspelt_tool": 0.05,
    "dict_input": 0.10,
    "fenced_json": 0.25,
    "prose_json": 0.10,
    "invalid_json": 0.04,
}


def _approver(args: argparse.Namespace) -> Any:
    """``--confirm``: a person at the terminal approves each tool call."""
    from ..approval import TerminalApprover

    return TerminalApprover() if args.confirm else None


def _cmd_run(args: argparse.Namespace) -> int:
    if args.checkpoint is not None:
        from ._resume import run_checkpointed

        status: int = run_checkpointed(args)
        return status
    if args.simulate:
        args.task = args.task or ARTICLE_TASK.prompt
    options = options_of(args)
    try:
        with simulated(options.simulate), built(options, base_url=endpoint(args)) as made:
            warning = window_warning(made.agent.memory, made.agent.system_prompt, args.task)
            if warning is not None:
                say(warning)
            return finish(
                lambda config: made.agent.stream(args.task, config),
                args,
                args.task,
                made.facts,
                llm_timeout=options.timeout,
                llm_retries=3,
            )
    except MissingKeyError:
        print(no_key(), file=sys.stderr, end="")
        return EXIT_USAGE


def _cmd_demo(args: argparse.Namespace) -> int:
    from langchain_openai import ChatOpenAI

    from ..agent import create_agent
    from ..testing.article import ArticleTaskModel, NoiseProfile
    from ..testing.faults import FaultProfile, Latency
    from ..testing.server import SimulatedOpenAIServer
    from ..testing.services import FakeAmapServer, FakeBaiduServer, use_services
    from ..tools import WeatherTool, search_baidu

    noise = NoiseProfile(**{k: min(1.0, v * args.noise) for k, v in _DEMO_NOISE.items()})
    model = ArticleTaskModel(noise=noise, seed=args.seed)
    rate = args.faults
    faults = FaultProfile(
        rate_limit=rate / 2, server_error=rate / 4, drop=rate / 4, retry_after=0.2, seed=args.seed
    )
    # Short simulated latencies and timeouts: the demo shows every failure path in seconds.
    weather = WeatherTool(request_timeout=0.4, time_limit=1.2, retry_wait=0.05)
    with (
        SimulatedOpenAIServer(model, faults=faults, latency=Latency(0.05, 0.0005)) as server,
        FakeAmapServer(
            fault_rate=rate, fault_mode="slow", slow_seconds=1.0, seed=args.seed
        ) as amap,
        FakeBaiduServer() as baidu,
        use_services(amap, baidu),
    ):
        llm = ChatOpenAI(
            model="gpt-4o-mini",
            base_url=server.base_url,
            api_key="offline-demo",  # type: ignore[arg-type]
            temperature=0.2,
            max_tokens=1024,  # type: ignore[call-arg]
        )
        agent = create_agent(
            llm,
            [weather, search_baidu],
            max_loops=args.max_loops,
            max_errors=args.max_errors,
            protocol=args.protocol,
            llm_timeout=10.0,
            llm_backoff=(0.05, 0.5),
            approve=_approver(args),
        )
        facts = [
            f"offline demo: simulated gpt-4o-mini at {server.base_url}, fake Amap and Baidu",
            f"noise ×{args.noise:g}, faults {rate:g}, seed {args.seed}",
            f"protocol {args.protocol}, max_loops {args.max_loops}, max_errors {args.max_errors}",
        ]

        def extra() -> list[str]:
            injected = ", ".join(f"{k}×{n}" for k, n in sorted(model.noise_counts.items()))
            api_faults = sum(1 for r in server.chat_requests if r.fault is not None)
            return [
                f"simulated noise: {injected or 'none'}; model API faults: {api_faults}",
            ]

        try:
            return finish(
                lambda config: agent.stream(ARTICLE_TASK.prompt, config),
                args,
                ARTICLE_TASK.prompt,
                facts,
                extra,
                llm_timeout=10.0,
                llm_retries=3,
            )
        finally:
            llm.root_client.close()  # as in _cmd_run


def _cmd_report(args: argparse.Namespace) -> int:
    from ..report import read_results, render_batch, render_run

    try:
        records, problems = read_results(args.results)
    except (OSError, ValueError) as exc:
        refuse("report", f"cannot read {args.results}: {exc}")
        return EXIT_USAGE
    for number, problem in problems:
        say(f"{args.results}:{number}: {problem}; listed in the report")
    if not records:
        refuse("report", f"{args.results} holds no results")
        return EXIT_USAGE
    single = len(records) == 1 and "steps" in records[0] and "stop_reason" in records[0]
    if single:
        page = render_run(records[0])
        summary = f"one run ({records[0].get('stop_reason')})"
    else:
        page = render_batch(records, problems, title=args.results.name)
        answered = sum(
            1
            for r in records
            if isinstance(r.get("result"), dict) and r["result"].get("stop_reason") == "final"
        )
        summary = f"{len(records)} runs, {answered} answered"
    args.out.write_text(page, encoding="utf-8")
    say(f"{summary} → {args.out}")
    return 0


def dispatch(args: argparse.Namespace) -> int:
    """Run the checked command; return the exit status."""
    if args.command == "batch":  # the batch room runs its own command, errors included
        from ._batch import run as run_batch_command

        return run_batch_command(args)
    if args.command == "resume":  # checkpointed runs: their own module, errors included
        from ._resume import resume_command

        return resume_command(args)
    if args.command == "threads":
        from ._threads import threads_command

        return threads_command(args)
    commands = {"run": _cmd_run, "demo": _cmd_demo, "report": _cmd_report}
    try:
        return commands[args.command](args)
    except ConfigurationError as exc:
        refuse(args.command, str(exc))
        return EXIT_USAGE
