"""What each model call's prompt spends, part by part (o200k tokens, the server's count).

    python benchmarks/prompt_budget.py

Prints the system prompt of the JSON protocol with the two bundled tools, line by
line, then what one step of the task costs in the window: as a whole turn (the
action and its observation) and as a line of the digest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402

from lcel_agent.memory import DigestCompactor, Fact  # noqa: E402
from lcel_agent.memory.counters import MESSAGE_OVERHEAD, TiktokenCounter  # noqa: E402
from lcel_agent.stages import build_system_prompt  # noqa: E402
from lcel_agent.testing.article import ARTICLE_TASK, LONG_TASK, STRESS_TASK  # noqa: E402
from lcel_agent.tools import get_weather, search_baidu  # noqa: E402

COUNT = TiktokenCounter("o200k_base")
WEATHER = "北京市天气：晴，温度25℃，湿度40%"
# Three hits as the fake Baidu gives them (links as long as real ones, about 45 tokens each).
_TITLES = ("台风最新路径实时发布 - 中央气象台", "台风最新消息", "台风路径")
SEARCH = json.dumps(
    [
        {"title": title, "link": f"http://www.baidu.com/link?url=fake{i}-{quote('台风最新路径')}"}
        for i, title in enumerate(_TITLES)
    ],
    ensure_ascii=False,
)


def rows() -> list[tuple[str, int]]:
    """(part, tokens) of the system prompt, the questions and one step."""
    prompt = build_system_prompt([get_weather, search_baidu])
    out = [(f"system: {line[:60]}", COUNT(line)) for line in prompt.splitlines()]
    out.append(("system prompt, whole message", COUNT(prompt) + MESSAGE_OVERHEAD))
    for name, task in (
        ("article", ARTICLE_TASK),
        ("eight cities", LONG_TASK),
        ("stress", STRESS_TASK),
    ):
        out.append((f"question: {name}", COUNT(task.prompt) + MESSAGE_OVERHEAD))
    action = json.dumps({"action": "get_weather", "action_input": "北京"}, ensure_ascii=False)
    turn = [AIMessage(action), HumanMessage(f"Observation: {WEATHER}")]
    out.append(
        ("one weather step as a turn", sum(COUNT(str(m.content)) + MESSAGE_OVERHEAD for m in turn))
    )
    digest = DigestCompactor()
    out.append(
        (
            "one weather step as a digest line",
            COUNT(digest.line(Fact("get_weather(北京)", WEATHER, subject="北京"))) + 1,
        )
    )
    search = json.dumps(
        {"action": "search_baidu", "action_input": "台风最新路径"}, ensure_ascii=False
    )
    out.append(
        (
            "one search step as a turn",
            COUNT(search) + COUNT(f"Observation: {SEARCH}") + 2 * MESSAGE_OVERHEAD,
        )
    )
    return out


def markdown() -> str:
    lines = ["| part | tokens |", "|---|---:|"]
    lines += [f"| {part} | {tokens} |" for part, tokens in rows()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
