"""The answer stage: every rule that decides "is this the answer?", in one room.

``create_agent(answer=...)`` configures it (:class:`Answer`); ``stages={"answer": ...}``
replaces it whole, and no other stage reads its options. The rules, each in its module:

* :mod:`._judge`: does the model's own answer stand, or does the stage write one;
* :mod:`._omits`: does an answer provably leave out a fact the question asks for;
* :mod:`._question`: a report or a decision, and is a verbatim quote asked for;
* :mod:`._echo`: is a reply the results copied out;
* :mod:`._receipts`: is a result only an acknowledgement;
* :mod:`._values`: the values of a text, in any script and number format;
* :mod:`._request` and :mod:`._reply`: what the stage asks, and what it accepts back;
* :mod:`._stage` and :mod:`._writing`: the stage and its bookkeeping.

docs/answer.md says when the stage runs, what it costs and how to turn it off.
"""

from ._echo import copies, echoes
from ._judge import Verdict, judge
from ._omits import omitted
from ._options import Answer, AnswerMode, OutputMode
from ._question import asks_verbatim, shape_of
from ._receipts import is_receipt
from ._stage import WriteAnswer

__all__ = [
    "Answer",
    "AnswerMode",
    "OutputMode",
    "Verdict",
    "WriteAnswer",
    "asks_verbatim",
    "copies",
    "echoes",
    "is_receipt",
    "judge",
    "omitted",
    "shape_of",
]
