"""The real-model benchmark's fact check: success is the tools' facts in the answer."""

from __future__ import annotations

import json

import pytest

from benchmarks.real.tasks import TASKS, World, gathered, has_temperature, judge, weather_line


def answer_for(task, world, *, sep="；", drop=None):
    parts = []
    for city in task.cities:
        fact = world.weather[city]
        if drop == city:
            continue
        parts.append(f"{city}：{fact.weather}，温度{fact.temperature}℃，湿度{fact.humidity}%")
    parts.append(f"台风“{world.typhoon.name}”正在靠近{world.typhoon.coast}")
    return sep.join(parts)


@pytest.mark.parametrize("key", sorted(TASKS))
def test_every_fact_in_the_answer_is_a_success(key):
    task = TASKS[key]
    world = World.draw(task, seed=4)
    verdict = judge(task, world, answer_for(task, world, sep="\n"))
    assert verdict.success, verdict.missing
    assert all(verdict.humidity.values())


def test_a_missing_city_a_wrong_temperature_or_no_search_hit_fails():
    task = TASKS["article"]
    world = World.draw(task, seed=1)
    bj, sh = world.weather["北京"], world.weather["上海"]
    assert judge(task, world, answer_for(task, world, drop="上海")).missing == [
        "上海.temperature",
        "上海.weather",
    ]
    wrong = answer_for(task, world).replace(f"{bj.temperature}℃", f"{bj.temperature + 1}℃")
    assert judge(task, world, wrong).missing == ["北京.temperature"]
    no_hit = answer_for(task, world).replace(world.typhoon.name, "某台风")
    assert judge(task, world, no_hit).missing == ["search"]
    assert not judge(task, world, None).success
    assert sh.weather != bj.weather


def test_the_stop_reason_never_counts_only_the_facts():
    task = TASKS["article"]
    world = World.draw(task, seed=2)
    assert not judge(task, world, "Agent stopped due to iteration limit or time limit.").success
    assert not judge(task, world, "我已经完成了查询，北京和上海的天气都很好。").success


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("温度29℃", True), ("29°C", True), ("29.0 ℃", True), ("气温为 29", True),
        ("29度", True), ("temperature: 29", True), ("129℃", False), ("29.5℃", False),
        ("湿度29%", False), ("2029-07-01", False), ("29", False),
    ],
)  # fmt: skip
def test_a_temperature_is_a_number_written_as_one(text, found):
    assert has_temperature(text, 29) is found


def test_one_line_per_city_needs_each_city_on_its_own_line():
    task = TASKS["lines"]
    world = World.draw(task, seed=0)
    assert judge(task, world, answer_for(task, world, sep="\n")).success
    # The same facts on one line: every fact is there, but not one line a city.
    assert not judge(task, world, answer_for(task, world, sep="；")).success


def test_the_error_task_accepts_the_pinyin_the_question_used():
    task = TASKS["error"]
    world = World.draw(task, seed=0)
    text = answer_for(task, world, sep="\n").replace("苏州", "Suzhou")
    assert judge(task, world, text).success


def test_each_seed_draws_its_own_world_and_every_framework_sees_the_same():
    task = TASKS["eight"]
    assert World.draw(task, 3) == World.draw(task, 3)
    worlds = [World.draw(task, s) for s in range(5)]
    assert len({w.typhoon.name for w in worlds}) > 1
    for world in worlds:
        temperatures = [f.temperature for f in world.weather.values()]
        assert len(set(temperatures)) == len(temperatures)  # a fact names one city
        words = [f.weather for f in world.weather.values()]
        assert not any(a != b and a in b for a in words for b in words)


def test_weather_lines_are_as_long_as_real_amap_records():
    for task in TASKS.values():
        for seed in range(3):
            for fact in World.draw(task, seed).weather.values():
                assert 80 <= len(weather_line(fact.live())) <= 120


def test_gathered_is_every_fact_in_some_successful_result_whatever_the_answer():
    task = TASKS["lines"]
    world = World.draw(task, 2)
    lines = [weather_line(world.weather[c].live()) for c in task.cities]
    search = json.dumps([{"title": t} for t in world.typhoon.titles()[:3]], ensure_ascii=False)
    assert gathered(task, world, [*lines, search]).success  # no line per city needed here
    assert not gathered(task, world, lines).success  # the search never ran
    failed = "ERROR: " + search  # a failed call's text gathers nothing
    assert not gathered(task, world, [*lines, failed]).success
