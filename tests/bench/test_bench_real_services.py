"""The benchmark's tools against the seeded fakes, over real loopback sockets."""

from __future__ import annotations

import json

import pytest

from benchmarks.real.services import SeededAmap, SeededBaidu, ToolLog, make_tools
from benchmarks.real.tasks import TASKS, World
from lcel_agent.testing.services import use_services


@pytest.fixture
def services():
    with SeededAmap() as amap, SeededBaidu() as baidu, use_services(amap, baidu):
        yield amap, baidu


def test_the_tools_answer_the_seeds_world_and_log_every_call(services):
    amap, baidu = services
    task = TASKS["error"]
    world = World.draw(task, seed=7)
    amap.world = baidu.world = world
    log = ToolLog()
    weather, search = make_tools(log)

    refused = weather.invoke("Suzhou")
    line = weather.invoke("苏州")
    hits = json.loads(search.invoke("台风最新路径"))

    fact = world.weather["苏州"]
    assert refused.startswith("ERROR:") and "Chinese" in refused
    assert f"温度{fact.temperature}℃" in line and fact.weather in line
    assert 80 <= len(line) <= 120
    assert len(hits) == 3 and world.typhoon.name in hits[0]["title"]
    assert [(c["tool"], c["input"]) for c in log.calls] == [
        ("get_weather", "Suzhou"),
        ("get_weather", "苏州"),
        ("search_baidu", "台风最新路径"),
    ]
    assert [r.query["city"] for r in amap.requests] == ["苏州"]  # the refusal never left


async def test_the_async_path_answers_the_same(services):
    amap, baidu = services
    world = World.draw(TASKS["article"], seed=1)
    amap.world = baidu.world = world
    log = ToolLog()
    weather, search = make_tools(log)
    line = await weather.ainvoke("110000")
    hits = json.loads(await search.ainvoke("台风最新路径"))
    assert f"湿度{world.weather['北京'].humidity}%" in line
    assert world.typhoon.name in hits[0]["title"]
    assert len(log.calls) == 2


def test_other_cities_and_searches_fall_back_to_the_kit(services):
    amap, baidu = services
    amap.world = baidu.world = World.draw(TASKS["article"], seed=1)
    weather, search = make_tools(ToolLog())
    assert weather.invoke("天津").startswith("天津市")
    assert "百科" in search.invoke("暴雨预警")
