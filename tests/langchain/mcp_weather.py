"""A real MCP server for the MCP tests (``mcp``'s FastMCP), on stdio or on 127.0.0.1.

``python mcp_weather.py stdio`` or ``python mcp_weather.py streamable-http PORT``.
"""

from __future__ import annotations

import sys

from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel


class Forecast(BaseModel):
    city: str
    sky: str
    temp_c: int


def build(port: int = 0) -> FastMCP:
    server = FastMCP("weather", host="127.0.0.1", port=port, log_level="WARNING")

    @server.tool()
    def get_weather(city: str) -> str:
        """Current weather of a city."""
        return f"{city}: sunny, 25C"

    @server.tool()
    def forecast(city: str) -> Forecast:
        """Tomorrow's forecast for a city, as a record."""
        return Forecast(city=city, sky="cloudy", temp_c=21)

    return server


if __name__ == "__main__":
    transport = sys.argv[1]
    build(int(sys.argv[2]) if len(sys.argv) > 2 else 0).run(transport=transport)  # type: ignore[arg-type]
