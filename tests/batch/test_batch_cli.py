"""``lcel-agent batch``: the real command in a subprocess, against the simulated server."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_support import KEY, ids_of, read_lines, task, wait_for_lines

from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer

HERE = Path(__file__).resolve().parent
_SCRUBBED = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AMAP_KEY", "AMAP_BASE_URL", "BAIDU_BASE_URL")


@pytest.fixture
def env(server: SimulatedOpenAIServer) -> Iterator[dict[str, str]]:
    """The command's environment: the default agent pointed at the simulated model and the
    fake Amap and Baidu services."""
    with FakeAmapServer() as amap, FakeBaiduServer() as baidu:
        base = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        yield base | {
            "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.base_url,
            "AMAP_KEY": amap.key, "AMAP_BASE_URL": amap.base_url, "BAIDU_BASE_URL": baidu.base_url,
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
            "PYTHONIOENCODING": "utf-8", "COLUMNS": "200",
        }  # fmt: skip


def write_tasks(path: Path, n: int) -> Path:
    path.write_text(
        "\n".join(
            json.dumps({"id": f"t{i}", "input": task(i)}, ensure_ascii=False) for i in range(n)
        ),
        encoding="utf-8",
    )
    return path


def batch(*args: str, env: dict[str, str], **options: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "lcel_agent.cli", "batch", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options,
    )  # fmt: skip


def test_the_command_runs_every_task_and_prints_the_summary(
    env: dict[str, str], tmp_path: Path
) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 6), tmp_path / "results.jsonl"
    run = batch(str(tasks), "--out", str(out), "--max-in-flight", "3", env=env)
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stderr
    assert sorted(ids_of(out)) == [f"t{i}" for i in range(6)]
    assert all(line["result"]["stop_reason"] == "final" for line in read_lines(out))
    assert "batch done" in stdout and "final" in stdout and "6 run now" in stdout
    assert "batch: 6/6 done" in stderr  # the progress line (stderr is not a terminal)
    assert KEY not in stdout + stderr + out.read_text(encoding="utf-8")

    again = batch(str(tasks), "--out", str(out), "--json", "--no-progress", env=env)
    stdout, stderr = again.communicate(timeout=120)
    assert again.returncode == 0 and stderr == ""
    assert json.loads(stdout) | {"elapsed_s": 0, "startup_s": 0, "runs_per_s": 0} == {
        "out": str(out), "total": 6, "done": 0, "skipped": 6, "completed": True,
        "stop_reasons": {}, "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
        "elapsed_s": 0, "startup_s": 0, "runs_per_s": 0, "p50_s": None, "p95_s": None,
        "reruns": 0, "repaired": 0,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"]
)
def test_ctrl_c_exits_130_with_the_finished_runs_written_and_the_same_command_resumes(
    env: dict[str, str], tmp_path: Path, signum: int, status: int
) -> None:
    # SIGTERM (timeout, docker stop) stops a job as Ctrl-C does, with 143 (issue 43, point 4).
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 20), tmp_path / "results.jsonl"
    args = (str(tasks), "--out", str(out), "--max-in-flight", "2", "--no-progress")
    run = batch(*args, env=env)
    wait_for_lines(out, 3, lambda: run.poll() is None)
    run.send_signal(signum)
    stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == status
    assert "INTERRUPTED" in stdout and "run the same command again to resume" in stderr
    first = ids_of(out)  # every line whole: the file parses
    assert 3 <= len(first) < 20 and len(set(first)) == len(first)

    resumed = batch(*args, "--json", env=env)
    stdout, _ = resumed.communicate(timeout=120)
    assert resumed.returncode == 0
    summary = json.loads(stdout)
    assert (summary["skipped"], summary["done"]) == (len(first), 20 - len(first))
    assert sorted(ids_of(out)) == sorted(f"t{i}" for i in range(20))


def test_usage_errors_exit_2_with_the_reason(env: dict[str, str], tmp_path: Path) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('"查询北京天气"\n{"id": 1}\n', encoding="utf-8")
    run = batch(str(tasks), "--out", str(tmp_path / "r.jsonl"), env=env)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 2 and "tasks.jsonl line 2: a dict input needs an 'input' key" in stderr
    assert not (tmp_path / "r.jsonl").exists()  # nothing ran, nothing was created

    write_tasks(tasks, 1)
    keyless = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    run = batch(str(tasks), "--out", str(tmp_path / "r.jsonl"), env=keyless)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 2 and "OPENAI_API_KEY is not set" in stderr


def test_lcel_agent_help_imports_neither_langchain_nor_ray_nor_rich() -> None:
    probe = """
import json, sys
import lcel_agent
room = sorted(m for m in sys.modules if m.startswith("lcel_agent.batch") or m == "ray")
from lcel_agent.cli import build_parser
build_parser().parse_args(["batch", "--help"])
"""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", probe],
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0 and "--max-in-flight" in done.stdout
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    heavy = ("langchain", "ray", "rich", "openai", "lcel_agent.batch._runner")
    assert [m for m in loaded if m.split(".")[0] in heavy or m in heavy] == []


def test_import_lcel_agent_loads_neither_ray_nor_the_batch_room() -> None:
    probe = "import json, sys, lcel_agent; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    loaded = json.loads(done.stdout)
    assert [m for m in loaded if m == "ray" or m.startswith(("ray.", "lcel_agent.batch"))] == []


def _processes_under(folder: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and folder in (entry / "cmdline").read_text(errors="ignore"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.ray
def test_executor_ray_starts_a_local_ray_for_the_job_and_stops_it(
    env: dict[str, str], ray_env: dict[str, str], server: SimulatedOpenAIServer, tmp_path: Path
) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 6), tmp_path / "results.jsonl"
    ray_tmp = tmp_path.parent / f"r{os.getpid()}"  # its own Ray folder: its processes are findable
    ray_tmp.mkdir(exist_ok=True)
    job_env = env | ray_env | {"RAY_TMPDIR": str(ray_tmp), "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
                               "BATCH_TEST_BASE_URL": server.base_url}  # fmt: skip
    run = batch(str(tasks), "--out", str(out), "--executor", "ray", "--workers", "2",
                "--agent", "batch_support:env_agent", "--no-progress", env=job_env)  # fmt: skip
    stdout, stderr = run.communicate(timeout=180)
    assert run.returncode == 0, stderr
    assert sorted(ids_of(out)) == [f"t{i}" for i in range(6)] and "final" in stdout
    deadline = time.monotonic() + 20
    while _processes_under(str(ray_tmp)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_under(str(ray_tmp)) == []  # the Ray it started is gone with it


# --- offline, and the options in the command's own words ---------------------------------


def _offline_env() -> dict[str, str]:
    """A clean environment: no key, no endpoint, no service URLs (--simulate sets them)."""
    base = {k: v for k, v in os.environ.items() if k not in (*_SCRUBBED, "OPENAI_API_BASE")}
    return base | {"PYTHONIOENCODING": "utf-8", "COLUMNS": "200",
                   "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}  # fmt: skip


def test_simulate_runs_every_task_with_no_key_and_no_network(tmp_path: Path) -> None:
    tasks, out = tmp_path / "tasks.jsonl", tmp_path / "results.jsonl"
    tasks.write_text('"查询北京今天的天气"\n{"id": "gz", "input": "查询广州和深圳今天的天气"}\n',
                     encoding="utf-8")  # fmt: skip
    run = batch(str(tasks), "--out", str(out), "--simulate", "--json", env=_offline_env())
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stderr
    assert json.loads(stdout)["stop_reasons"] == {"final": 2}
    answers = {line["id"]: line["result"]["output"] for line in read_lines(out)}
    assert "北京市天气：晴" in answers[0] and "深圳市天气：阵雨" in answers["gz"]


def test_an_rpm_too_low_is_refused_before_anything_and_its_advice_can_be_followed(
    tmp_path: Path,
) -> None:
    tasks, out = tmp_path / "tasks.jsonl", tmp_path / "new" / "results.jsonl"
    tasks.write_text('"hello"\n', encoding="utf-8")  # the simulated model answers in one call
    run = batch(str(tasks), "--out", str(out), "--simulate", "--rpm", "1", env=_offline_env())
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 2 and stdout == ""
    assert stderr.startswith("lcel-agent batch: --rpm 1 starts a model call every 60.0 s")
    assert len(stderr.splitlines()) == 1  # one line: no progress was shown before it
    assert not out.parent.exists()  # no folder, no file
    need = re.search(r"Give --llm-timeout (\d+) or more, or give a higher --rpm\.$", stderr.strip())
    assert need is not None, stderr

    run = batch(str(tasks), "--out", str(out), "--simulate", "--rpm", "1",
                "--llm-timeout", need.group(1), "--json", env=_offline_env())  # fmt: skip
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 0, stderr
    assert json.loads(stdout)["stop_reasons"] == {"final": 1}


def test_an_rpm_too_low_for_an_own_agent_is_refused_before_out_is_touched(
    env: dict[str, str], server: SimulatedOpenAIServer, tmp_path: Path
) -> None:
    tasks, out = write_tasks(tmp_path / "tasks.jsonl", 1), tmp_path / "new" / "results.jsonl"
    run = batch(str(tasks), "--out", str(out), "--agent", "batch_support:env_agent",
                "--rpm", "2", env=env | {"BATCH_TEST_BASE_URL": server.base_url})  # fmt: skip
    stdout, stderr = run.communicate(timeout=120)
    assert run.returncode == 2 and stdout == ""
    assert "--rpm 2 starts a model call every 30.0 s" in stderr
    assert re.search(r"Build your --agent with llm_timeout >= \d+, or give a higher --rpm", stderr)
    assert len(stderr.splitlines()) == 1 and not out.parent.exists()  # no progress, no file


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--workers", "2"], "--workers is for --executor ray (the local executor is one worker); "
                             "--max-in-flight N runs more tasks at once"),
        (["--simulate", "--address", "auto"], "--simulate runs everything on this machine's "
                                              "loopback: leave out --address"),
        (["--agent", "m:f", "--llm-timeout", "90"], "the agent of --agent sets its own"),
        (["--max-in-flight", "x"], "argument --max-in-flight: expected a whole number >= 1, got 'x'"),
        (["--rpm", "0"], "argument --rpm: expected a number per minute > 0, got '0'"),
    ],
)  # fmt: skip
def test_option_errors_speak_in_options(
    options: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lcel_agent.cli import main

    tasks = write_tasks(tmp_path / "tasks.jsonl", 1)
    assert main(["batch", str(tasks), "--out", str(tmp_path / "r.jsonl"), *options]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "executor='ray'" not in err and "max_in_flight" not in err and "invalid" not in err
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.ray
def test_a_ray_job_says_nothing_of_token_auth_and_counts_rays_boot(tmp_path: Path) -> None:
    # As a user runs it: RAY_AUTH_MODE unset (Ray's token auth on, its default), own HOME.
    tasks, out = tmp_path / "tasks.jsonl", tmp_path / "results.jsonl"
    tasks.write_text('"查询北京今天的天气"\n"查询上海今天的天气"\n', encoding="utf-8")
    ray_tmp = Path(tempfile.mkdtemp(prefix="rayh", dir="/tmp"))  # short: sockets live under it
    job_env = {k: v for k, v in _offline_env().items() if k != "RAY_AUTH_MODE"} | {
        "HOME": str(tmp_path), "RAY_TMPDIR": str(ray_tmp), "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    }  # fmt: skip
    try:
        run = batch(str(tasks), "--out", str(out), "--simulate", "--executor", "ray",
                    "--workers", "1", "--json", env=job_env)  # fmt: skip
        stdout, stderr = run.communicate(timeout=180)
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert run.returncode == 0, stderr
    assert "Token authentication" not in stderr and "WARNING" not in stderr
    summary = json.loads(stdout)
    assert summary["stop_reasons"] == {"final": 2}
    # ray.init starts Ray's own processes: well over a second anywhere (about 4 s here).
    assert summary["startup_s"] >= 1.0
