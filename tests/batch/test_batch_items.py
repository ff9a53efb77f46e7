"""Inputs of a job: tasks, ids, the tasks file, and the agent factory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcel_agent.batch._items import Item, TaskFile, build_agent, iter_items
from lcel_agent.batch.errors import BatchInputError


def test_strings_take_their_position_as_id_and_dicts_keep_theirs() -> None:
    items = list(
        iter_items(
            ["a", {"id": "x", "input": "b"}, {"input": "c"}, {"id": 7, "input": {"input": "d"}}]
        )
    )
    assert items == [Item(0, "a"), Item("x", "b"), Item(2, "c"), Item(7, {"input": "d"})]
    assert [i.key for i in items] == ["0", '"x"', "2", "7"]


def test_inputs_are_streamed_not_read_whole() -> None:
    seen: list[int] = []

    def tasks():
        for i in range(1000):
            seen.append(i)
            yield f"task {i}"

    stream = iter_items(tasks())
    assert next(stream).input == "task 0"
    assert seen == [0]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3, "not int"),
        ({"id": 1}, "needs an 'input' key"),
        ({"id": True, "input": "x"}, "an id is a string or an integer"),
        ({"id": 1.5, "input": "x"}, "an id is a string or an integer"),
        ("   ", "the task is empty"),
        ({"input": {1, 2}}, "JSON-serialisable"),
    ],
)
def test_a_bad_input_names_its_position_and_the_problem(value: object, message: str) -> None:
    with pytest.raises(BatchInputError, match=rf"input #1: .*{message}"):
        list(iter_items(["fine", value]))


def test_a_repeated_id_is_refused_when_it_comes() -> None:
    stream = iter_items([{"id": "a", "input": "x"}, "y", {"id": "a", "input": "z"}])
    assert next(stream).id == "a" and next(stream).id == 1
    with pytest.raises(BatchInputError, match=r'input #2: the id "a" repeats'):
        next(stream)


def test_one_string_is_not_taken_for_a_list_of_tasks() -> None:
    with pytest.raises(BatchInputError, match="not one str"):
        list(iter_items("查询北京天气"))


def test_task_file_counts_streams_and_checks_every_line_up_front(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('"a"\n\n{"id": "k", "input": "b"}\n"c"\n', encoding="utf-8")
    tasks = TaskFile(path)
    assert len(tasks) == 3
    assert [i.id for i in iter_items(tasks)] == [0, "k", 2]

    path.write_text('"a"\n{"id": 0, "input": "b"}\n', encoding="utf-8")
    with pytest.raises(BatchInputError, match=r"tasks.jsonl line 2: the id 0 repeats"):
        TaskFile(path).check()
    path.write_text('"a"\n查询北京\n', encoding="utf-8")
    with pytest.raises(BatchInputError, match=r"line 2: not JSON"):
        TaskFile(path).check()
    path.write_text('"a"\n"北京\t天气"\n', encoding="utf-8")  # a raw tab inside a string
    with pytest.raises(BatchInputError) as bad:
        TaskFile(path).check()
    # The whole phrase, with where: not "not JSON (Invalid control character at)".
    assert "line 2: not JSON (Invalid control character at column 4);" in str(bad.value)
    path.write_bytes(b'"a"\n"\xff"\n')
    with pytest.raises(BatchInputError, match=r"line 2: not UTF-8"):
        TaskFile(path).check()
    with pytest.raises(BatchInputError, match="cannot read the tasks file"):
        TaskFile(tmp_path / "missing.jsonl").check()


def agent_factory() -> object:
    from langchain_core.tools import tool

    from lcel_agent import create_agent
    from lcel_agent.testing import ScriptedChatModel

    @tool
    def noop(x: str) -> str:
        """noop"""
        return x

    return create_agent(
        ScriptedChatModel([json.dumps({"action": "final", "action_input": "ok"})]), [noop]
    )


def test_make_agent_as_a_callable_or_a_module_string() -> None:
    assert hasattr(build_agent(agent_factory), "ainvoke")
    assert hasattr(build_agent(f"{__name__}:agent_factory"), "ainvoke")
    with pytest.raises(BatchInputError, match="cannot import 'no_such_module_x'"):
        build_agent("no_such_module_x:make")
    with pytest.raises(BatchInputError, match="has no 'nothing'"):
        build_agent(f"{__name__}:nothing")
    with pytest.raises(TypeError, match="'module:function'"):
        build_agent("just_a_name")
    with pytest.raises(TypeError, match="must return an agent"):
        build_agent(lambda: "not an agent")
