"""Answer streaming: ``agent.stream(task, stream_mode="answer")`` yields the answer's text.

* :class:`JsonAnswerReader`: the JSON protocol's incremental reader (only the
  ``action_input`` of a ``final`` action comes out).
* :class:`AnswerListener` (:mod:`.listener`): the callback handler that makes the model
  stream under ``invoke`` and feeds the readers; the answer stage's replies are read by
  :mod:`.words` (words only).
* :func:`pump` / :func:`apump`: run the loop on a thread or task while the
  caller reads the text.
* :func:`answer_stream` / :func:`aanswer_stream`: answer mode for a run driver.
* :mod:`.modes`: the other stream modes (``steps``, ``messages``, ``updates``, ``values``).
"""

from .answer import aanswer_stream, answer_stream, rest_of_answer
from .json_answer import JsonAnswerReader
from .listener import AnswerListener, AnswerReader, TextAnswerReader
from .pump import apump, pump

__all__ = [
    "AnswerListener",
    "AnswerReader",
    "JsonAnswerReader",
    "TextAnswerReader",
    "aanswer_stream",
    "answer_stream",
    "apump",
    "pump",
    "rest_of_answer",
]
