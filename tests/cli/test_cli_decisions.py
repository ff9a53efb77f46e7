"""A decision once made is kept, whatever continues the run (issue 43, point 1).

One reply asks for three calls at once (get_weather of 北京, 上海 and 广州) and the run,
with ``--pause``, waits for all three. A first ``resume`` decides one call (a deny with a
reason, or an approve); a second one continues with every other option: ``--no-pause``,
``--approve``, ``--approve CALL,CALL``, ``--deny`` and ``--deny CALL``. Whatever the
second option, the denied call never reaches the weather service and the model reads
its refusal, and the approved call runs, once. The model is a server of the test's;
the command is the real ``lcel-agent`` in its own process, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from cli_support import SECRET, service_env
from resume_support import contents, result_of

from lcel_agent.testing._reading import text_of
from lcel_agent.testing.server import SimulatedOpenAIServer

CITIES = ("北京", "上海", "广州")
TASK = "查询北京、上海和广州今天的天气"


def three_at_once(messages: list[dict[str, Any]], tools: Any) -> str:
    """Ask for the three cities in one reply; once results are in, answer in words: the
    weather of each city that has it, and that the others were not looked up."""
    seen = "\n".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")
    results = dict(re.findall(r"Observation \[get_weather (\S+)\]: (.*)", seen))
    if not results:
        calls = [{"action": "get_weather", "action_input": city} for city in CITIES]
        return json.dumps(calls, ensure_ascii=False)
    lines = [
        text if "市天气" in text else f"{city}的天气没有查询。" for city, text in results.items()
    ]
    return json.dumps({"action": "final", "action_input": "\n".join(lines)}, ensure_ascii=False)


@pytest.fixture
def paused(cli, store, services):
    """A run paused before its three calls: ``(resume, ids)``. ``resume(*args)`` runs
    ``lcel-agent resume t1 --checkpoint STORE ARGS --json``; ``ids`` maps each city to
    its waiting call's id."""
    amap, baidu = services
    with SimulatedOpenAIServer(three_at_once) as server:
        env = {"OPENAI_API_KEY": SECRET, **service_env(amap, baidu)}
        first = cli.run("run", TASK, "--base-url", server.base_url, "--checkpoint", store,
                        "--thread", "t1", "--pause", "--json", env=env)  # fmt: skip
        assert first.returncode == 8, first.stderr
        ids = {c["tool_input"]: c["call_id"] for c in result_of(first)["pending"]}
        assert sorted(ids) == sorted(CITIES)

        def resume(*args: str) -> Any:
            return cli.run("resume", "t1", "--checkpoint", store, *args, "--json", env=env)

        yield resume, ids


def _named(args: tuple[str, ...], ids: dict[str, str]) -> list[str]:
    """The arguments with each city's name replaced by its call's id."""
    return [",".join(ids.get(part, part) for part in arg.split(",")) for arg in args]


def _weather_asked(services) -> Counter[str]:
    return Counter(r.query.get("city", "") for r in services[0].requests)


NOT_APPROVED = "ERROR: the call to 'get_weather' was not approved, so it was not run."
FIRST = {
    "deny 上海": ("--deny", "上海", "--reason", "not Shanghai"),
    "approve 北京": ("--approve", "北京"),
}
THEN = {
    "--no-pause": ("--no-pause",),
    "--approve": ("--approve",),
    "--approve CALL,CALL": ("--approve", "北京,广州"),
    "--deny": ("--deny", "--reason", "no"),
    "--deny CALL": ("--deny", "广州"),  # then --approve for the call that still waits
}
RAN = None
#: What became of each call: RAN, or the refusal the model read (None: refused as stale).
OUTCOMES: dict[tuple[str, str], dict[str, str | None] | None] = {
    ("deny 上海", "--no-pause"): {"北京": RAN, "上海": "ERROR: not Shanghai", "广州": RAN},
    ("deny 上海", "--approve"): {"北京": RAN, "上海": "ERROR: not Shanghai", "广州": RAN},
    ("deny 上海", "--approve CALL,CALL"): {"北京": RAN, "上海": "ERROR: not Shanghai", "广州": RAN},
    ("deny 上海", "--deny"): {"北京": "ERROR: no", "上海": "ERROR: not Shanghai", "广州": "ERROR: no"},
    ("deny 上海", "--deny CALL"): {"北京": RAN, "上海": "ERROR: not Shanghai", "广州": NOT_APPROVED},
    ("approve 北京", "--no-pause"): {"北京": RAN, "上海": RAN, "广州": RAN},
    ("approve 北京", "--approve"): {"北京": RAN, "上海": RAN, "广州": RAN},
    ("approve 北京", "--approve CALL,CALL"): None,  # 北京 is decided: it waits no more
    ("approve 北京", "--deny"): {"北京": RAN, "上海": "ERROR: no", "广州": "ERROR: no"},
    ("approve 北京", "--deny CALL"): {"北京": RAN, "上海": RAN, "广州": NOT_APPROVED},
}  # fmt: skip


@pytest.mark.parametrize("then", list(THEN))
@pytest.mark.parametrize("first", list(FIRST))
@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_a_stored_decision_holds_whatever_continues_the_run(paused, services, store, first, then):
    _decide(paused, services, store, first, then)


@pytest.mark.parametrize(
    ("first", "then"), [("deny 上海", "--no-pause"), ("approve 北京", "--deny")]
)
@pytest.mark.parametrize("store", ["postgres"], indirect=True)
def test_a_stored_decision_holds_on_postgres_too(paused, services, store, first, then):
    _decide(paused, services, store, first, then)


def _decide(paused, services, store, first, then):
    resume, ids = paused
    after_first = resume(*_named(FIRST[first], ids))
    assert after_first.returncode == 8, after_first.stderr  # two calls still wait
    assert len(result_of(after_first)["pending"]) == 2
    assert _weather_asked(services) == Counter()  # nothing runs before all are decided

    outcome = OUTCOMES[first, then]
    if outcome is None:  # deciding a decided call again is refused, and nothing is written
        before = contents(store)
        again = resume(*_named(THEN[then], ids))
        assert again.returncode == 2 and f"{ids['北京']} does not wait" in again.stderr
        assert contents(store) == before
        return
    done = resume(*_named(THEN[then], ids))
    if then == "--deny CALL":  # one call still waits: approve it
        assert done.returncode == 8, done.stderr
        done = resume("--approve")
    assert done.returncode == 0, done.stderr

    # Each approved call ran once; a refused one never reached the weather service.
    assert _weather_asked(services) == Counter(c for c, o in outcome.items() if o is RAN)
    stored = resume()  # a finished thread: its stored result, printed
    assert stored.returncode == 0, stored.stderr
    for result in (result_of(done), result_of(stored)):
        (step,) = [s for s in result["steps"] if s["observations"]]
        seen = {o["action"]["tool_input"]: o for o in step["observations"]}
        for city, refusal in outcome.items():
            assert seen[city]["ok"] is (refusal is RAN), (city, seen[city])
            if refusal is RAN:
                assert f"{city}市天气" in seen[city]["output"]
                assert f"{city}市天气" in result["output"]
            else:
                assert seen[city]["output"] == refusal
                assert f"{city}市天气" not in result["output"]
