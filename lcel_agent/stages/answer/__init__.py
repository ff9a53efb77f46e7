"""The answer stage: every rule that decides "is this the answer?", in one room.

``create_agent(answer=...)`` configures it (:class:`Answer`); ``stages={"answer": ...}``
replaces it whole, and no other stage reads its options. The rules, each in its module:

* :mod:`._checks`: the checks of a final answer (``answer_checks``), the built-in ones
  and how to write one;
* :mod:`._sendback`: an answer given while acting, sent back once for a check;
* :mod:`._judge`: does the model's own answer stand, or does the stage write one;
* :mod:`._omits`: does an answer provably leave out a fact the question asks for;
* :mod:`._plans`: is a reply in words a plan;
* :mod:`._language`: which language a text is in, among those the word rules read;
* :mod:`._question`: a report or a decision, and is a verbatim quote asked for;
* :mod:`._echo`: is a reply the results copied out;
* :mod:`._receipts`: is a result only an acknowledgement;
* :mod:`._values`: the values of a text, in any script and number format;
* :mod:`._request` and :mod:`._reply`: what the stage asks, and what it accepts back;
* :mod:`._stage` and :mod:`._writing`: the stage and its bookkeeping.

docs/answer.md says when the stage runs, what it costs and how to turn it off.
"""

from ._checks import (
    DEFAULT_CHECKS,
    AnswerCheck,
    Check,
    Evidence,
    answer_check,
    checks_of,
    echo,
    omits,
    plan,
)
from ._echo import copies, echoes
from ._judge import Verdict, judge
from ._language import READ_LANGUAGES, language_of
from ._omits import omitted
from ._options import Answer, AnswerMode, OutputMode
from ._plans import is_plan, names_tool
from ._question import QUESTION_MARKS, asks_verbatim, shape_of
from ._receipts import is_receipt
from ._sendback import Judged, judge_answer
from ._stage import WriteAnswer

__all__ = [
    "DEFAULT_CHECKS",
    "QUESTION_MARKS",
    "READ_LANGUAGES",
    "Answer",
    "AnswerCheck",
    "AnswerMode",
    "Check",
    "Evidence",
    "Judged",
    "OutputMode",
    "Verdict",
    "WriteAnswer",
    "answer_check",
    "asks_verbatim",
    "checks_of",
    "copies",
    "echo",
    "echoes",
    "is_plan",
    "is_receipt",
    "judge",
    "judge_answer",
    "language_of",
    "names_tool",
    "omits",
    "omitted",
    "plan",
    "shape_of",
]
