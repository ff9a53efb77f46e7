"""lcel_agent.tools exports exactly its public names, sorted."""

from __future__ import annotations

import lcel_agent.tools as tools


def test_all_is_sorted_and_complete():
    assert tools.__all__ == sorted(tools.__all__)
    public = {name for name in vars(tools) if not name.startswith("_")}
    modules = {"baidu", "safe", "weather"}
    assert public - modules == set(tools.__all__)
