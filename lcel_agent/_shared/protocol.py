"""The two protocols an agent speaks with its model, by the names ``create_agent`` takes.

``"json"``: the model writes each action as a JSON object in its reply's text;
``"tool_calling"``: the model calls the tools through the API's own tool calls. One value
names the protocol from ``create_agent(protocol=...)`` down to every part that depends on
it; a part that needs a yes or no asks it where it decides (``protocol == "json"``).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["PROTOCOLS", "ProtocolName"]

#: A protocol's name: ``create_agent``'s ``protocol``.
ProtocolName = Literal["json", "tool_calling"]
#: Every protocol's name, in the order the errors list them.
PROTOCOLS: tuple[ProtocolName, ...] = ("json", "tool_calling")
