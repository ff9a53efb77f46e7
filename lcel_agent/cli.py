"""The ``lcel-agent`` command: run a task on a real model, or the article's task offline.

::

    export OPENAI_API_KEY=...                      # any OpenAI-compatible provider
    export OPENAI_BASE_URL=https://api.deepseek.com/v1   # optional
    lcel-agent run "查询北京和上海今天的天气" --model deepseek-chat
    lcel-agent demo --noise 2 --faults 0.2 --seed 3  # no key, no network
    lcel-agent demo --json | jq .stop_reason

The exit status tells scripts how the run ended (see :data:`EXIT_CODES`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig

from ._redact import redact, register_secret
from .batch import _cli as batch_cli
from .errors import ConfigurationError
from .state import AgentResult, StepRecord, StopReason

__all__ = ["EXIT_CODES", "EXIT_USAGE", "build_parser", "main"]

#: The exit status for each stop reason.
EXIT_CODES: dict[StopReason, int] = {
    StopReason.FINAL: 0,
    StopReason.MAX_LOOPS: 3,
    StopReason.MAX_ERRORS: 4,
    StopReason.DRIFT: 5,
    StopReason.LLM_ERROR: 6,
    StopReason.BUDGET: 7,
}
#: Bad arguments, a missing key, an invalid configuration.
EXIT_USAGE = 2
#: A bug: the run raised (it never should for anything the model or a tool did).
EXIT_INTERNAL = 1

DEMO_TASK = "查询北京和上海今天的天气，然后百度搜索“台风最新路径”，最后总结这两条信息"

_EPILOG = """\
exit status:
  0  final       the model answered
  3  max_loops   --max-loops model calls without an answer
  4  max_errors  --max-errors failed loops in a row (or a policy said stop)
  5  drift       the model kept repeating itself after one nudge
  6  llm_error   the model API failed for good (bad key, retries exhausted, ...)
  7  budget      the token or time budget was spent
  2  usage       bad arguments, OPENAI_API_KEY missing, invalid configuration
  1  internal    an unexpected error (please report it)

environment (run):
  OPENAI_API_KEY   the provider's key (required; never printed)
  OPENAI_BASE_URL  an OpenAI-compatible endpoint: DeepSeek, Qwen, vLLM, Ollama, ...
  AMAP_KEY         an Amap (高德) Web服务 key, for the get_weather tool
"""

_NO_KEY = """\
lcel-agent run needs an OpenAI-compatible chat model. Set:

  export OPENAI_API_KEY=<your key>
  export OPENAI_BASE_URL=<endpoint>   # optional: DeepSeek, Qwen, vLLM, Ollama ... (default: OpenAI)
  export AMAP_KEY=<Amap Web服务 key>   # optional: lets the get_weather tool work

Or watch the whole loop offline, with no key and no network:

  lcel-agent demo
"""

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


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _scale(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _rate(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be within 0..1, got {text}")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", choices=("json", "tool_calling"), default="json",
                        help="how the model names actions: JSON replies or native tool calls")  # fmt: skip
    parser.add_argument("--max-loops", type=_positive_int, default=10, metavar="N",
                        help="most model calls per run (default 10)")  # fmt: skip
    parser.add_argument("--max-errors", type=_positive_int, default=2, metavar="N",
                        help="failed loops in a row that stop the run (default 2)")  # fmt: skip
    parser.add_argument("--json", action="store_true",
                        help="print the result as JSON only (no live trace), for scripts")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``lcel-agent`` (``run`` and ``demo``)."""
    parser = argparse.ArgumentParser(
        prog="lcel-agent",
        description="Run an LCEL agent with the weather and search tools, and watch every loop.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{run,demo,batch}")
    run = commands.add_parser(
        "run", help="run TASK on a real model (OPENAI_API_KEY, OPENAI_BASE_URL)",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    run.add_argument("task", help="the task, e.g. '查询北京今天的天气'")
    run.add_argument("--model", default="gpt-4o-mini", help="model name (default gpt-4o-mini)")
    _common(run)
    run.add_argument("--memory-tokens", type=_positive_int, default=800, metavar="N",
                     help="the memory window's token budget (default 800)")  # fmt: skip
    run.add_argument("--temperature", type=float, default=0.2, help="default 0.2")
    run.add_argument("--max-tokens", type=_positive_int, default=1024, metavar="N",
                     help="most tokens per model reply (default 1024)")  # fmt: skip
    run.add_argument("--timeout", type=_positive_float, default=60.0, metavar="SECONDS",
                     help="time limit of each model call attempt (default 60)")  # fmt: skip
    run.add_argument("--token-budget", type=_positive_int, default=None, metavar="N",
                     help="stop (exit 7) once the run has used N tokens")  # fmt: skip
    run.add_argument("--time-budget", type=_positive_float, default=None, metavar="SECONDS",
                     help="stop (exit 7) once the run has taken this long")  # fmt: skip
    demo = commands.add_parser(
        "demo", help="the article's task, fully offline: simulated model, fake Amap and Baidu",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    demo.add_argument("--noise", type=_scale, default=1.0, metavar="SCALE",
                      help="scale of the model's noise (fences, typos, broken JSON); "
                      "0 = a perfect model, 1 = mild and realistic (default)")  # fmt: skip
    demo.add_argument("--faults", type=_rate, default=0.0, metavar="RATE",
                      help="rate of model API faults (429, 500, dropped connections) "
                      "and of weather API timeouts (default 0)")  # fmt: skip
    demo.add_argument("--seed", type=int, default=15,
                      help="seed of the noise and faults (default 15: a run that meets "
                      "and recovers from a format error)")  # fmt: skip
    _common(demo)
    batch_cli.add_parser(commands)
    return parser


def _finish(
    stream: Callable[[RunnableConfig], Iterator[Any]],
    args: argparse.Namespace,
    task: str,
    facts: Sequence[str],
    extra: Callable[[], Sequence[str]] = lambda: (),
) -> int:
    """Drive the run (live trace or JSON) and return the exit status."""
    result: AgentResult | None = None
    if args.json:
        for event in stream(RunnableConfig()):
            if isinstance(event, AgentResult):
                result = event
        if result is None:
            raise RuntimeError("the agent's stream ended without a result")
        print(redact(json.dumps(result.to_dict(), ensure_ascii=False, indent=2)), flush=True)
        return EXIT_CODES[result.stop_reason]

    from ._display import make_display

    display = make_display()
    display.header(task, facts)
    with display.live() as watch:
        for event in stream(RunnableConfig(callbacks=[watch])):
            if isinstance(event, StepRecord):
                display.step(event)
            elif isinstance(event, AgentResult):
                result = event
    if result is None:
        raise RuntimeError("the agent's stream ended without a result")
    display.result(result, extra())
    return EXIT_CODES[result.stop_reason]


def _cmd_run(args: argparse.Namespace) -> int:
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    if not key:
        print(_NO_KEY, file=sys.stderr, end="")
        return EXIT_USAGE
    register_secret(key)
    from langchain_openai import ChatOpenAI

    from .agent import create_agent
    from .memory import SlidingWindowMemory
    from .tools import get_weather, search_baidu

    base_url = os.environ.get("OPENAI_BASE_URL", "").strip() or None
    llm = ChatOpenAI(
        model=args.model,
        api_key=key,  # type: ignore[arg-type]
        base_url=base_url,
        temperature=args.temperature,
        max_tokens=args.max_tokens,  # type: ignore[call-arg]
        timeout=args.timeout,
    )
    agent = create_agent(
        llm,
        [get_weather, search_baidu],
        max_loops=args.max_loops,
        max_errors=args.max_errors,
        memory=SlidingWindowMemory(max_tokens=args.memory_tokens),
        protocol=args.protocol,
        llm_timeout=args.timeout,
        token_budget=args.token_budget,
        time_budget=args.time_budget,
    )
    facts = [
        f"model {args.model}" + (f" @ {redact(base_url)}" if base_url else ""),
        f"protocol {args.protocol}",
        f"max_loops {args.max_loops}",
        f"max_errors {args.max_errors}",
        f"memory {args.memory_tokens} tokens",
    ]
    return _finish(lambda config: agent.stream(args.task, config), args, args.task, facts)


def _cmd_demo(args: argparse.Namespace) -> int:
    from langchain_openai import ChatOpenAI

    from .agent import create_agent
    from .testing.article import ArticleTaskModel, NoiseProfile
    from .testing.faults import FaultProfile, Latency
    from .testing.server import SimulatedOpenAIServer
    from .testing.services import FakeAmapServer, FakeBaiduServer, use_services
    from .tools import WeatherTool, search_baidu

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

        return _finish(
            lambda config: agent.stream(DEMO_TASK, config), args, DEMO_TASK, facts, extra
        )


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, or a usage error already printed by argparse
        return int(exit_.code or 0)
    try:
        if args.command == "batch":
            return batch_cli.run(args)
        return _cmd_run(args) if args.command == "run" else _cmd_demo(args)
    except ConfigurationError as exc:
        print(f"lcel-agent: {redact(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``| head``): say nothing more, and keep Python's
        # flush at exit from complaining about the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("lcel-agent: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback that could quote a key
        print(
            f"lcel-agent: internal error: {redact(f'{type(exc).__name__}: {exc}')}", file=sys.stderr
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    raise SystemExit(main())
