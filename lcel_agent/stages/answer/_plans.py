"""Is a reply in words a plan (what the model will do) rather than an answer?

The ``plan`` check of an answer (:mod:`._checks`), in both protocols: a plan is sent back
once with a short notice; given again, it is no answer. A reply is *plainly* a plan when

* it writes a call out in words (``get_weather(上海)``, or opens with a tool's name:
  ``get_weather: 上海``), or names one of the agent's
  tools it has not called yet (``search_baidu``, `` `read` ``): a call not made; or
* one of its sentences says the model will act: a first-person intent ("I'll", "Let
  me", "我先", "je vais", ...) together with a verb of looking something up or calling
  ("check", "search", "call", "查询", "vérifier", ...), in English, Chinese, Japanese,
  Korean, French, German, Spanish, Portuguese, Italian or Russian, and in the
  :data:`~._language.PLAN_LANGUAGES`: Arabic, Hebrew, Hindi, Bengali, Tamil, Thai,
  Turkish, Vietnamese, Indonesian and Malay, Polish, Swahili, Persian, Greek, Dutch,
  Ukrainian, Czech and Urdu (how: :mod:`._plan_lexicon`; there a plan quoted, a
  question or an offer on a condition is none). Only in a reply in one of those
  (:func:`~._language.plan_language`; a reply too short to tell goes by the question's
  language). In any other language a plan in words is not read as one, and the model's
  words stand.

Anything else in words is an answer: a short "Done.", a yes, a sentence that quotes
nothing of the results. Names of tools that are ordinary words (``search``, ``read``)
count only written as a call (``search(``) or quoted.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import regex

from ._language import could_be_read, fits_language, language_of, main_script, plan_language
from ._plan_words_latin import LATIN
from ._plan_words_scripts import SCRIPTS

__all__ = ["is_plan", "names_tool"]

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
# An act verb in the first person of the future, or German's present for the future
# ("ich sehe ... nach"): a plan on its own, with no intent word beside it.
_ACTS_NEXT = (
    r"\b(?:controllerò|verificherò|cercherò|userò|utilizzerò|chiamerò|consulterò|guarderò|"
    r"vedrò|leggerò|aprirò|calcolerò|recupererò|"
    r"je (?:vérifierai|chercherai|consulterai|regarderai|calculerai)|j'(?:appellerai|utiliserai)|"
    r"comprobaré|verificaré|buscaré|consultaré|usaré|llamaré|revisaré|miraré|averiguaré|"
    r"calcularé|verificarei|procurarei|consultarei|usarei|chamarei|pesquisarei|calcularei|"
    r"ich (?:prüfe|suche|(?:sehe|schaue|schau|frage|rufe)\b[^.!?]{0,80}\b(?:nach|ab|auf)))\b"
)
_ACTS_NEXT_RE = re.compile(_ACTS_NEXT, re.IGNORECASE)
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


#: A reply shorter than this many letters, that the identifier cannot place, is read in
#: the question's language ("Let me check." is too short for it to tell).
_SHORT_REPLY = 40


def _read(text: str, question: str | None) -> bool:
    """Whether the intent words can be read in ``text``: it is in a read language, or it is
    a short reply the identifier cannot place, in the script of a read question or in
    letters only read languages write ("Let me check Shanghai too." to a question in
    Chinese; never "Sprawdzę.", whose ``ę`` no read language writes)."""
    if language_of(text) is not None:
        return True
    if sum(c.isalpha() for c in text) >= _SHORT_REPLY:
        return False
    same = question is not None and main_script(text) == main_script(question)
    return (same and language_of(question or "") is not None) or could_be_read(text)


#: How plans read in each of the plan languages.
LEXICONS = {**SCRIPTS, **LATIN}
# A span in quotation marks: someone else's words ("He wrote: «I'll check tomorrow»").
_QUOTED = regex.compile(r'(?<!\w)["“„«»「『][^"“”„«»「」『』\n]{1,400}["”“»«」』](?!\w)')
_CLAUSES = regex.compile(r"(?<=[.!?。！？\n؟۔।॥;])")
_QUESTION_MARKS = ("?", "؟", "？")


def _says_in(text: str, language: str) -> bool:
    """Whether a sentence of ``text`` says, in ``language``'s words, that the model will
    act: not a question ("Shall I check?"), an offer on a condition, or a quote."""
    lexicon = LEXICONS[language]
    for sentence in _CLAUSES.split(_QUOTED.sub(" ", lexicon.fold(text))):
        sentence = sentence.strip()
        # Greek writes its question mark as ";" (NFC makes U+037E one).
        if sentence.endswith(_QUESTION_MARKS) or (language == "el" and sentence.endswith(";")):
            continue
        if lexicon.unless is not None and lexicon.unless.search(sentence):
            continue
        if lexicon.says.search(sentence):
            return True
    return False


def _plan_languages(text: str, question: str | None) -> list[str]:
    """The plan languages ``text`` is read in: its own, and, for a reply too short to
    place surely, the question's when the reply is written in its letters."""
    own = plan_language(text)
    found = [own] if own in LEXICONS else []
    if question and sum(c.isalpha() for c in text) < _SHORT_REPLY:
        asked = plan_language(question)
        if asked in LEXICONS and asked != own and fits_language(text, asked):
            found.append(asked)
    return found


def is_plan(
    text: str, tools: Collection[str], called: Collection[str] = (), *, question: str | None = None
) -> bool:
    """Whether the words of ``text`` are plainly a plan (see the module docstring).

    Args:
        text: the reply's words.
        tools: the agent's tool names.
        called: the tools that have been called successfully in the run.
        question: the user's question, whose language a reply too short to tell is read in.
    """
    stripped = text.strip()
    if not stripped:
        return False
    if any(_written_call(stripped, name) or _opens_with(stripped, name) for name in tools):
        return True  # a call written out (get_weather(上海), get_weather: 上海), made or not
    if any(names_tool(stripped, name) for name in tools if name not in called):
        return True
    if not tools:
        return False  # nothing to plan
    if _read(stripped, question) and any(
        (_INTENT_RE.search(sentence) is not None and _ACT_RE.search(sentence) is not None)
        or _ACTS_NEXT_RE.search(sentence) is not None
        for sentence in _SENTENCES.split(stripped)
        if not sentence.strip().endswith(_QUESTION_MARKS)
    ):
        return True
    # The plan languages; in any other the words are not read, and they stand.
    return any(_says_in(stripped, language) for language in _plan_languages(stripped, question))
