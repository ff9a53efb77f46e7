"""What shape of answer a question asks for: a decision, or a report; and whether it asks
for words quoted as they are.

* A **decision** (yes/no, or a choice between things the question names): "Is Paris
  warmer than London?", "北京和上海哪个更热？", "Quel est le plus chaud, Paris ou
  Londres ?". Its answer is short and need not repeat every result: an answer that
  leaves a result's values out is no proof of a fact left out.
* A **report**: everything else ("查询北京和上海今天的天气", "List the files", "How many
  tickets are open?"): the facts it asks for are the results' own.
* **Verbatim**: the question asks for words as the result has them ("Quote the first
  line exactly", "原文引用"): an answer made of a result's own words is then what was asked.

The cues are words of English, Chinese, Japanese, Korean, French, German, Spanish,
Portuguese, Italian and Russian (:mod:`._language` says which a question is in), and a
question mark of any script. In any other language :func:`shape_of` and
:func:`asks_verbatim` answer None, "not read": no rule that needs the shape acts on it.
Within a read language the cues are cues, not a parser: where none is found the question
is a report, and the answer stage's other rules still need proof of a fact left out
before they rewrite anything.
"""

from __future__ import annotations

import re
from typing import Literal

from ._language import language_of

__all__ = ["QUESTION_MARKS", "Shape", "asks_verbatim", "shape_of"]

#: Question marks of every script: Latin and full-width, Arabic and Urdu ``؟``, Greek
#: ``;`` (U+037E, and the ASCII semicolon Greek text uses for it), Armenian ``՞``,
#: Ethiopic ``፧``, the inverted ``¿`` and the reversed ``⸮``.
QUESTION_MARKS = "?？؟;\u037e\u055e\u1367¿⸮"

Shape = Literal["decision", "report"]

# A question that opens with a verb or a yes/no particle asks yes or no.
_YES_NO_OPENING = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|will|would|should|shall|has|have|had|"
    r"may|might|must|isn't|aren't|doesn't|don't|didn't|won't|can't|"
    r"est-ce que|est-ce|y a-t-il|"  # French
    r"ist|sind|war|waren|hat|haben|kann|können|gibt es|wird|werden|"  # German
    r"é|são|há|existe|"  # Portuguese
    r"c'è|ci sono|"  # Italian
    r"есть ли|является ли|ли)\b",  # Russian
    re.IGNORECASE,
)
# Particles and endings that make a sentence a yes/no question.
_YES_NO_PARTICLE = re.compile(
    r"(?:吗|嗎|么|是否|是不是|有没有|能不能|会不会|可不可以|对不对|"  # Chinese
    r"ですか|ますか|でしょうか|か[？?]|"  # Japanese
    r"입니까|습니까|나요|가요|\bли\b|"  # Korean, Russian
    r"\bn'est-ce pas\b|\bnicht wahr\b|\b¿es\b|\bverdad\b|\bvero\b)",
    re.IGNORECASE,
)
# Words that ask to choose between named things: "or", and the words for "which one".
# (Words that also mean "what", as Russian какая or French quel, are left out: "Какая
# погода в Москве?" asks for a report.)
_CHOICE = re.compile(
    r"(?:\bwhich\b|\bwhether\b|\bor\b|哪个|哪一个|哪里更|哪儿更|还是|或者|"
    r"どちら|どれ|어느|\blequel\b|\blaquelle\b|\bou\b|\bwelche[rs]? von\b|"
    r"\boder\b|\bcuál de\b|\bo\b|\bquale\b|\bкоторый из\b|\bили\b)",
    re.IGNORECASE,
)
# Comparatives: "warmer than", "比...更", "plus ... que", "wärmer als", "теплее".
_COMPARING = re.compile(r"(?:\bthan\b|比|\bque\b|\bals\b|\bdi\b|\bчем\b|より|보다)", re.IGNORECASE)
_VERBATIM = re.compile(
    r"(?:\bquote|\bverbatim\b|\bword for word\b|\bexactly as\b|\bexact (?:text|words|line)|"
    r"\bas it is written\b|原文|逐字|原样|照抄|原封不动|引用|そのまま|原文のまま|"
    r"\bcite\b|\bmot pour mot\b|\btextuellement\b|\bwörtlich\b|\bliteralmente\b|"
    r"\btextualmente\b|\bдословно\b|\bцитат)",
    re.IGNORECASE,
)
# A request put politely as a question asks for a report: "Can you check ...?", "帮我查一下…吗？"
_REQUEST = re.compile(
    r"(?:\b(?:can|could|would|will) you\b|\bplease\b|\btell me\b|\blet me know\b|"
    r"\bshow me\b|\bgive me\b|帮我|帮忙|请|告诉我|给我|查一下|教えて|ください|お願い|"
    r"\bs'il (?:te|vous) pla[iî]t\b|\bdis-moi\b|\bbitte\b|\bpor favor\b|\bdime\b|"
    r"пожалуйста|\bскажи)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?。！？\n]+")
# The read languages' question marks (a semicolon is a question mark only in Greek).
_ASKS = re.compile(r"[?？]")


def _last_question(question: str) -> str:
    """The sentence of ``question`` that asks (the last one ending in a question mark),
    or the whole question."""
    asked = [s for s in re.split(r"(?<=[?？])", question) if _ASKS.search(s)]
    if asked:
        return _SENTENCE_END.split(asked[-1].strip().rstrip("?？"))[-1]
    return question


def shape_of(question: str) -> Shape | None:
    """``"decision"`` for a yes/no question or a choice, ``"report"`` for any other, and
    None for a question in a language the cues do not read."""
    if language_of(question) is None:
        return None
    asked = _last_question(question)
    if _REQUEST.search(asked):
        return "report"
    if _YES_NO_OPENING.search(asked) or _YES_NO_PARTICLE.search(asked):
        return "decision"
    asks = "?" in question or "？" in question
    if _CHOICE.search(asked) and (_COMPARING.search(asked) or asks):
        return "decision"
    if asks and _COMPARING.search(asked):  # "Is it warmer than ...?" in any word order
        return "decision"
    return "report"


def asks_verbatim(question: str) -> bool | None:
    """Whether the question asks for a result's words as they are (None: not read)."""
    if language_of(question) is None:
        return None
    return _VERBATIM.search(question) is not None
