"""Helpers shared by the reliability tests (imported as ``rel_support``)."""

from __future__ import annotations

import json
from typing import Any


def act(action: str, value: Any) -> str:
    """A JSON-protocol reply: ``act("probe", "北京")``."""
    return json.dumps({"action": action, "action_input": value}, ensure_ascii=False)
