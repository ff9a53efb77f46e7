"""The answer stage's options: ``create_agent(answer=...)``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.runnables import Runnable

from ...errors import ConfigurationError

__all__ = ["Answer", "AnswerMode", "OutputMode"]

AnswerMode = Literal["auto", "compose", "model"]
OutputMode = Literal["auto", "native", "text"]


@dataclass(frozen=True, slots=True)
class Answer:
    """How the final answer is written: ``create_agent(answer=Answer(...))`` or a mode name.

    Args:
        mode: when the stage writes the answer. ``"auto"``: when the model gave no usable
            answer (cut, empty, a plan given twice, protocol JSON, the results copied
            out) or one that provably leaves out a fact the question asks for;
            ``"model"``: only when it gave no usable answer, never second-guessing one;
            ``"compose"``: always, once tools have succeeded.
        output: ``"native"`` asks the server to hold the reply to a JSON schema (one field
            per result), ``"text"`` asks for text; ``"auto"`` uses the schema where the
            model's profile says the server can (:func:`lcel_agent.stages.llm_profile.profile_of`).
        max_tokens: the reply budget of one request; None: 256 plus 96 per result, at
            least 512 and at most 4096. A reply cut at the limit is asked again in halves.
        batch_tokens: the most tokens of results one request carries.
        llm: the model that writes the answer (default: the agent's).
    """

    mode: AnswerMode = "auto"
    output: OutputMode = "auto"
    max_tokens: int | None = None
    batch_tokens: int = 3000
    llm: Runnable[Any, Any] | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "compose", "model"):
            raise ConfigurationError(
                f"answer mode must be 'auto', 'compose' or 'model', got {self.mode!r}"
            )
        if self.output not in ("auto", "native", "text"):
            raise ConfigurationError(
                f"answer output must be 'auto', 'native' or 'text', got {self.output!r}"
            )
        for name in ("max_tokens", "batch_tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigurationError(
                    f"Answer({name}=...) must be a positive int, got {value!r}"
                )

    @classmethod
    def of(cls, value: Answer | str | None) -> Answer:
        """An :class:`Answer` from what ``create_agent(answer=...)`` was given."""
        if value is None:
            return cls()
        if isinstance(value, Answer):
            return value
        if isinstance(value, str):
            return cls(mode=value)  # type: ignore[arg-type]  # checked in __post_init__
        raise TypeError(
            f"answer must be 'auto', 'compose', 'model' or an Answer, not {type(value).__name__}"
        )
