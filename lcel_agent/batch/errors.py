"""The batch runner's exceptions, under the library's own :class:`~lcel_agent.errors.LcelAgentError`.

A run that ends badly (``max_errors``, ``llm_error`` ...) is a result like any other and
gets its line in ``out``. These exceptions are for a *job* that cannot go on::

    LcelAgentError
    └── BatchError                          the job stopped; every finished run is in ``out``
        ├── BatchInputError (also ValueError)  a task is unreadable, or an id repeats
        ├── BatchStoreError                    ``out`` cannot be used (locked, damaged mid-file)
        └── BatchRunError                      a run raised (a bug in ``make_agent`` or the agent),
                                               or the workers are gone for good
    ConfigurationError (also ValueError)
    └── RateTooLowError                     ``rpm`` so low that calls waiting for their turn
                                            would run past the agent's ``llm_timeout``
    KeyboardInterrupt
    └── BatchInterrupted                    Ctrl-C: the job stopped cleanly; ``.summary`` says
                                            how far it got (run the same job again to resume)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConfigurationError, LcelAgentError

if TYPE_CHECKING:
    from ._summary import BatchSummary

__all__ = [
    "BatchError",
    "BatchInputError",
    "BatchInterrupted",
    "BatchRunError",
    "BatchStoreError",
    "RateTooLowError",
]


class BatchError(LcelAgentError):
    """A batch job stopped before every input had its line; what finished is in ``out``.

    ``summary`` tells how far the job got, when it got as far as opening ``out``.
    """

    summary: BatchSummary | None = None


class BatchInputError(BatchError, ValueError):
    """An input cannot be run: not a task, not JSON, no ``input`` key, or a repeated id."""


class BatchStoreError(BatchError):
    """The results file cannot be used: another job holds it, or a line mid-file is damaged."""


class BatchRunError(BatchError):
    """A run raised instead of returning a result, or no worker is left to run on."""


class BatchInterrupted(KeyboardInterrupt):
    """The job was interrupted (Ctrl-C); every run that finished is in ``out``.

    A ``KeyboardInterrupt``, so code that stops on Ctrl-C still does; ``summary``
    tells how far the job got. Running the same job again resumes it.
    """

    def __init__(self, summary: BatchSummary) -> None:
        super().__init__(f"batch interrupted: {summary.done} run(s) written to {summary.out}")
        self.summary = summary


class RateTooLowError(ConfigurationError):
    """``rpm`` starts model calls so far apart that a call waiting a few turns for its own
    would run past the agent's ``llm_timeout`` (the wait happens inside the call).

    Raised before any file is touched; ``need`` is the smallest ``llm_timeout`` that works.
    """

    def __init__(self, rpm: float, interval: float, timeout: float, need: float) -> None:
        super().__init__(
            f"rpm={rpm:g} starts a model call every {interval:.1f} s and a call may wait a "
            f"few turns for its own, inside the agent's llm_timeout={timeout:g} s: calls "
            f"would time out while waiting. Build the agent with llm_timeout >= {need:.0f} s, "
            "or raise rpm."
        )
        self.rpm, self.interval, self.timeout, self.need = rpm, interval, timeout, need
