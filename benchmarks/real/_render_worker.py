"""Render chat requests into the token ids the llama.cpp server evaluates (runs in .venv-llama).

    .venv-llama/bin/python benchmarks/real/_render_worker.py MODEL.gguf

Reads one JSON request body a line on stdin and answers one line on stdout:
``{"tokens": [...]}`` or ``{"error": "..."}``; ``{"text": "..."}`` instead of a body
asks for the tokens of a reply's text (a streamed reply's completion tokens). It does what the server does with a
``/v1/chat/completions`` body under the default chat format: validate it with the
server's own request model, render the GGUF's chat template with llama-cpp-python's
``Jinja2ChatFormatter``, tokenize with the model's tokenizer (``vocab_only``: no weights
are loaded). The benchmark checks the count against the server's ``usage.prompt_tokens``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from llama_cpp import Llama  # type: ignore[import-not-found]
from llama_cpp.llama_chat_format import Jinja2ChatFormatter  # type: ignore[import-not-found]
from llama_cpp.server.types import CreateChatCompletionRequest  # type: ignore[import-not-found]

# The fields the server drops before calling create_chat_completion (server/app.py).
_EXCLUDE = {"n", "logit_bias_type", "user", "min_tokens"}


def _formatter(llama: Any) -> Jinja2ChatFormatter:
    # As Llama.__init__ builds its "chat_template.default" handler.
    def text(token: int) -> str:
        return str(llama._model.token_get_text(token)) if token != -1 else ""

    return Jinja2ChatFormatter(
        template=llama.metadata["tokenizer.chat_template"],
        eos_token=text(llama.token_eos()),
        bos_token=text(llama.token_bos()),
    )


def render(llama: Any, formatter: Jinja2ChatFormatter, body: dict[str, Any]) -> list[int]:
    """The prompt tokens of one request body."""
    kwargs = CreateChatCompletionRequest.model_validate(body).model_dump(exclude=_EXCLUDE)
    result = formatter(
        messages=kwargs["messages"],
        functions=kwargs.get("functions"),
        function_call=kwargs.get("function_call"),
        tools=kwargs.get("tools"),
        tool_choice=kwargs.get("tool_choice"),
    )
    tokens = llama.tokenize(
        result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
    )
    return [int(t) for t in tokens]


def main() -> int:
    llama = Llama(sys.argv[1], vocab_only=True, verbose=False)
    formatter = _formatter(llama)
    for line in sys.stdin:
        try:
            body = json.loads(line)
            if set(body) == {"text"}:
                tokens = llama.tokenize(body["text"].encode("utf-8"), add_bos=False, special=False)
                answer: dict[str, Any] = {"tokens": [int(t) for t in tokens]}
            else:
                answer = {"tokens": render(llama, formatter, body)}
        except Exception as exc:  # one bad body must not end the worker
            answer = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
