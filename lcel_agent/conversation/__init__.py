"""Messages in, messages out: how a run reads its input and writes its output.

An agent takes a task string, ``{"input": task}``, a message, a prompt value,
``{"messages": [...]}`` or a list of messages. :func:`read_input` turns any of
them into a :class:`RunInput`: the task (the last human message), the
conversation before it, and the form to answer in. :func:`seed_window` writes
that conversation into the run's memory window through its public API, so the
window's trimming applies to it like to everything else; :func:`output_for`
shapes the result back into the input's form:

================================  ==========================================
input                             output
================================  ==========================================
``"task"``, ``{"input": ...}``,   :class:`~lcel_agent.state.AgentResult`
a message, a prompt value
``{"messages": [...]}``           ``{"messages": [*input, *new]}`` (plus
                                  ``"structured_response"`` with a
                                  ``response_format``)
``[message, ...]``                the final ``AIMessage``
================================  ==========================================
"""

from .history import seed_window
from .inputs import InputForm, RunInput, read_input, task_of
from .outputs import final_message, output_for, run_messages

__all__ = [
    "InputForm",
    "RunInput",
    "final_message",
    "output_for",
    "read_input",
    "run_messages",
    "seed_window",
    "task_of",
]
