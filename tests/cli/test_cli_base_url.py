"""``--base-url``: a local model's endpoint on the command line, beside OPENAI_BASE_URL.

The flag wins over the variable; a checkpointed run keeps it, so ``resume`` talks to
the same model whatever the environment says then, and ``resume --base-url`` moves a
run to another endpoint (a local server restarted on another port). The key is never
kept: each command reads it from the environment.
"""

from __future__ import annotations

import json

from cli_support import SECRET, service_env

from lcel_agent.testing.offline import TaskReadingModel
from lcel_agent.testing.server import SimulatedOpenAIServer

#: Loopback's discard port: a model that is never there.
NOWHERE = "http://127.0.0.1:9/v1"


def test_the_flag_wins_over_the_variable_and_resume_keeps_it(run_cli, services, tmp_path):
    store = str(tmp_path / "runs.db")
    with (
        SimulatedOpenAIServer(TaskReadingModel(), require_key=SECRET) as first,
        SimulatedOpenAIServer(TaskReadingModel(), require_key=SECRET) as second,
    ):
        env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": NOWHERE, **service_env(*services)}
        paused = run_cli(
            "run", "查询北京和上海今天的天气", "--base-url", first.base_url, "--json",
            "--checkpoint", store, "--thread", "t1", "--pause", env=env,
        )  # fmt: skip
        assert paused.returncode == 8, paused.stderr
        kept = run_cli("resume", "t1", "--checkpoint", store, "--approve", "--json", env=env)
        assert kept.returncode == 8, kept.stderr
        asked_first = len(first.chat_requests)
        moved = run_cli(
            "resume", "t1", "--checkpoint", store, "--approve", "--json",
            "--base-url", second.base_url, env=env,
        )  # fmt: skip
        assert moved.returncode == 0, moved.stderr
        asked_second = len(second.chat_requests)

    assert asked_first == 2 and asked_second == 1  # no call went to OPENAI_BASE_URL
    assert json.loads(moved.stdout)["loops"] == 3
    assert all(r.authorized for r in [*first.chat_requests, *second.chat_requests])
    assert SECRET not in paused.stdout + paused.stderr + moved.stdout + moved.stderr
    assert SECRET.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("runs.db*"))
