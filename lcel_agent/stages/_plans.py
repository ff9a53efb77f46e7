"""Is a reply in words a plan (what the model will do) rather than an answer?

Used by both protocols' parsers where a reply carries no call: a plan may be sent back
once with a short notice; the next reply without a call is the answer. A reply is
*plainly* a plan when

* it writes a call out in words (``get_weather(上海)``, or opens with a tool's name:
  ``get_weather: 上海``), or names one of the agent's
  tools it has not called yet (``search_baidu``, `` `read` ``): a call not made; or
* one of its sentences says the model will act: a first-person intent ("I'll", "Let
  me", "我先", "je vais", ...) together with a verb of looking something up or calling
  ("check", "search", "call", "查询", "vérifier", ...), in English, Chinese, Japanese,
  Korean, French, German, Spanish, Portuguese, Italian or Russian.

Anything else in words is an answer: a short "Done.", a yes, a sentence that quotes
nothing of the results. Names of tools that are ordinary words (``search``, ``read``)
count only written as a call (``search(``) or quoted.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..rules.gathered import gathered
from ..state import AgentState
from ..texts import JSON_PLAN_NOTICE, PLAN_NOTICE, PROSE_REPROMPT

__all__ = ["Words", "is_plan", "judge_words", "names_tool"]

_INTENT = (
    r"\b(?:i will|i'll|i am going to|i'm going to|let me|let's|i need to|i should|i must|"
    r"i have to|i'd need to|we need to|we will|we'll|first,? i|next,? i|now,? i|then i|"
    r"je vais|laissez-moi|laisse-moi|je dois|il faut que je|"
    r"ich werde|lass mich|lassen sie mich|ich muss|zuerst|"
    r"voy a|vamos a|déjame|necesito|primero|vou|deixe-me|preciso|"
    r"lasciami|devo|prima|"
    r"мне нужно|давайте|сначала|сейчас я)\b"
    r"|我将|我会|我需要|让我|我来|我先|接下来|下一步|首先|然后我|现在我|我们需要|我要|我们来|我去|"
    r"先查|需要查"
    r"|しましょう|してみます|します|いたします|"
    r"하겠습니다|해 보겠습니다|할게요|해볼게요|"
    r"я (?:проверю|найду|поищу|вызову|использую|посмотрю|узнаю)"
)
_ACT = (
    r"\b(?:call|calling|use|using|search|searching|look up|looking up|check|checking|query|"
    r"querying|fetch|fetching|get|retrieve|look|find|run|invoke|open|read|list|calculate|"
    r"compute|convert|gather|obtain|request|think|consider|figure out|work out|decide|"
    r"appeler|utiliser|chercher|rechercher|vérifier|consulter|obtenir|"
    r"aufrufen|verwenden|suchen|prüfen|nachsehen|abrufen|"
    r"llamar|usar|buscar|consultar|verificar|obtener|chamar|pesquisar|"
    r"chiamare|usare|cercare|controllare|verificare|"
    r"проверить|найти|поискать|вызвать|использовать|посмотреть|узнать|"
    r"проверю|найду|поищу|вызову|использую|посмотрю|узнаю)\b"
    r"|调用|使用|查询|搜索|查看|检查|获取|查找|查一下|搜一下|打开|读取|计算|查|搜|想一想|想想|考虑"
    r"|調べ|検索|確認|呼び出|取得|使用"
    r"|검색|확인|조회|호출|사용"
)
_SENTENCES = re.compile(r"(?<=[.!?。！？\n])")
_INTENT_RE = re.compile(_INTENT, re.IGNORECASE)
_ACT_RE = re.compile(_ACT, re.IGNORECASE)
# A name that cannot be an ordinary word: an identifier with _ . - or inner capitals, or long.
_IDENTIFIER = re.compile(r"[_.-]|[a-z][A-Z]")


def _opens_with(text: str, name: str) -> bool:
    return text.startswith(name) and not text[len(name) : len(name) + 1].isalnum()


def _written_call(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}\s*\(", text) is not None


def names_tool(text: str, name: str) -> bool:
    """Whether ``text`` names the tool ``name`` as a tool (see the module docstring)."""
    escaped = re.escape(name)
    if _IDENTIFIER.search(name) or len(name) >= 12:
        return re.search(rf"(?<![\w]){escaped}(?![\w])", text) is not None
    return re.search(rf"(?<![\w]){escaped}\s*\(|[`'\"“‘]{escaped}[`'\"”’]", text) is not None


def is_plan(text: str, tools: Collection[str], called: Collection[str] = ()) -> bool:
    """Whether the words of ``text`` are plainly a plan (see the module docstring).

    Args:
        text: the reply's words.
        tools: the agent's tool names.
        called: the tools that have been called successfully in the run.
    """
    stripped = text.strip()
    if not stripped:
        return False
    if any(_written_call(stripped, name) or _opens_with(stripped, name) for name in tools):
        return True  # a call written out (get_weather(上海), get_weather: 上海), made or not
    if any(names_tool(stripped, name) for name in tools if name not in called):
        return True
    if not tools:
        return False  # an agent with no tools has nothing to plan: its words answer
    return any(
        _INTENT_RE.search(sentence) is not None and _ACT_RE.search(sentence) is not None
        for sentence in _SENTENCES.split(stripped)
    )


@dataclass(frozen=True, slots=True)
class Words:
    """What a reply in words (no call, no action) does to the run."""

    notice: str | None = None
    """Send it back once with this notice (not an error: the breaker does not count it)."""
    plan: bool = False
    """It answers, and it is a plan: the model stopped acting without an answer (the
    answer stage writes one from the results, where there are any)."""


def judge_words(
    text: str, state: AgentState, tools: Collection[str], *, json_protocol: bool
) -> Words:
    """The one rule for a reply in words, in both protocols.

    A plan is sent back once (``PLAN_NOTICE``); so, in the JSON protocol, are words
    before any call succeeded (``PROSE_REPROMPT``: they may be an answer in the wrong
    form, or thinking aloud). One notice between two successful calls: the next reply in
    words is the answer, whatever it says, and so is one on the loop reserved for it.
    """
    called = {r.tool for r in gathered(state)}
    plan = is_plan(text, tools, called)
    if state.final_only or state.noticed or not tools:
        return Words(plan=plan)
    if plan:
        return Words(notice=PLAN_NOTICE if not json_protocol else JSON_PLAN_NOTICE)
    if json_protocol and not called:
        return Words(notice=PROSE_REPROMPT)
    return Words()
