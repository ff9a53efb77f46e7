"""Structured output: check the final answer against ``response_format``.

``create_agent(..., response_format=Weather)`` accepts a pydantic model, a
``TypedDict`` or a JSON-schema dict. The system prompt then asks for the final
answer as a JSON object of that schema; ``parse_action`` checks each final
answer with :meth:`ResponseFormat.check`, and one that does not fit is a
``format`` loop error whose notice (what the model is told) names the problems.
The run's ``result.output`` is the validated value: a model instance, a dict
checked against the TypedDict, or the JSON value for a schema dict::

    fmt = ResponseFormat(Weather)
    fmt.check({"city": "北京", "celsius": "25"})   # Checked(value={...}, problem=None)
    fmt.load('{"city": "北京", "celsius": 25}')    # Weather(city='北京', celsius=25)

A JSON-schema dict is validated with the ``jsonschema`` package (the
``lcel-agent[jsonschema]`` extra); pydantic models and TypedDicts need nothing more.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, PydanticUserError, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from ..errors import ConfigurationError

__all__ = ["Checked", "ResponseFormat"]

#: At most this many problems are named to the model, each at most this long.
_MAX_PROBLEMS = 3
_MAX_PROBLEM_CHARS = 160


@dataclass(frozen=True, slots=True)
class Checked:
    """The outcome of :meth:`ResponseFormat.check`."""

    value: Any
    """The answer as plain JSON data (dicts, lists, ...), ready to be written as JSON."""
    problem: str | None = None
    """Why the answer does not fit (short, for the model), or None when it fits."""


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_PROBLEM_CHARS else flat[: _MAX_PROBLEM_CHARS - 1] + "…"


def _where(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "(the answer)"


class ResponseFormat:
    """A response format: what a final answer must look like, and how to read one.

    Args:
        schema: a pydantic model class, a ``TypedDict`` class, or a JSON-schema dict.

    Raises:
        TypeError: ``schema`` is none of those.
        ConfigurationError: a schema dict is not a valid JSON schema, or the
            ``jsonschema`` package is missing.
    """

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self._adapter: TypeAdapter[Any] | None = None
        self._validator: Any = None
        if isinstance(schema, type) and (issubclass(schema, BaseModel) or is_typeddict(schema)):
            try:
                self._adapter = TypeAdapter(schema)
                self.json_schema: dict[str, Any] = self._adapter.json_schema()
            except PydanticUserError as exc:  # typing.TypedDict before Python 3.12, ...
                raise ConfigurationError(f"response_format {schema.__name__}: {exc}") from None
            self.name = schema.__name__
        elif isinstance(schema, dict):
            self._validator = _json_schema_validator(schema)
            self.json_schema = schema
            self.name = str(schema.get("title", "answer"))
        else:
            raise TypeError(
                "response_format must be a pydantic model, a TypedDict or a JSON-schema dict, "
                f"not {schema!r}"
            )

    def __repr__(self) -> str:
        return f"ResponseFormat({self.name})"

    def schema_text(self) -> str:
        """The JSON schema as one compact line, for the system prompt."""
        return json.dumps(self.json_schema, ensure_ascii=False, separators=(",", ":"))

    def check(self, value: Any) -> Checked:
        """Check one answer (already read from JSON); never raises for a bad answer."""
        if self._adapter is not None:
            try:
                validated = self._adapter.validate_python(value)
            except ValidationError as exc:
                problems = [f"{_where(e['loc'])}: {e['msg']}" for e in exc.errors()[:_MAX_PROBLEMS]]
                return Checked(value, "; ".join(_short(p) for p in problems))
            return Checked(self._adapter.dump_python(validated, mode="json"))
        errors = sorted(self._validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        if errors:
            problems = [f"{_where(e.absolute_path)}: {e.message}" for e in errors[:_MAX_PROBLEMS]]
            return Checked(value, "; ".join(_short(p) for p in problems))
        return Checked(value)

    def load(self, text: str) -> Any:
        """Read a checked answer's JSON text into the user's type (model, dict, value)."""
        if self._adapter is not None:
            return self._adapter.validate_json(text)
        return json.loads(text)


def _json_schema_validator(schema: dict[str, Any]) -> Any:
    try:
        import jsonschema
    except ImportError:
        raise ConfigurationError(
            "response_format as a JSON-schema dict needs the jsonschema package: "
            "pip install 'lcel-agent[jsonschema]' (or pass a pydantic model or a TypedDict)"
        ) from None
    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ConfigurationError(
            f"response_format is not a valid JSON schema: {exc.message}"
        ) from None
    return cls(schema)
