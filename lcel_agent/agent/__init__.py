"""The builder: ``create_agent`` checks every argument, builds the stages and returns the loop.

:mod:`._create` holds :func:`create_agent` and :func:`run_agent` (the door exports them:
``from lcel_agent.agent import create_agent``, as ``from lcel_agent import create_agent``),
:mod:`._checks` the checks of the arguments, in one place, each with a message saying
what was wanted, :mod:`._parts` the parts built from them (the models, each stage, the
default window, the loop), :mod:`._resolve` the model and the tools as given resolved to what the agent runs, and
:mod:`._models` a chat model built from a name (``"openai:gpt-4o-mini"``). The builder
stands on the top floor of the library, beside the command line's: it imports the loop,
the stages, the stage rules, memory, the durable room and the shared floor; only the
package's own door (``lcel_agent``) and the command line import it.
"""

from ._create import create_agent, run_agent

__all__ = ["create_agent", "run_agent"]
