"""The token ids the server evaluates for each recorded request (see ``_render_worker``).

    with Renderer(".venv-llama/bin/python", model_path) as renderer:
        tokens = renderer.tokens(request_body)     # None if the worker could not render it

The worker runs in the server's venv (llama-cpp-python, vocabulary only), one per model.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

_WORKER = Path(__file__).with_name("_render_worker.py")


class Renderer:
    """A long-lived ``_render_worker`` process: one JSON line in, one out."""

    def __init__(self, python: str, model: Path) -> None:
        self._process = subprocess.Popen(
            [python, str(_WORKER), str(model)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, encoding="utf-8",
        )  # fmt: skip
        self.last_error = ""

    def tokens(self, body: dict[str, Any]) -> list[int] | None:
        """The prompt's token ids, or None (the reason in ``last_error``)."""
        stdin, stdout = self._process.stdin, self._process.stdout
        if stdin is None or stdout is None or self._process.poll() is not None:
            self.last_error = "the render worker is not running"
            return None
        stdin.write(json.dumps(body, ensure_ascii=False) + "\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            self.last_error = "the render worker exited"
            return None
        answer = json.loads(line)
        if "tokens" not in answer:
            self.last_error = str(answer.get("error", "no tokens"))
            return None
        return [int(t) for t in answer["tokens"]]

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
