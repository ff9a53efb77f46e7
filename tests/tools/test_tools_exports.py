"""lcel_agent.tools exports exactly its public names, sorted, each imported on first use."""

from __future__ import annotations

import subprocess
import sys

import lcel_agent.tools as tools


def test_all_is_sorted_and_complete():
    assert tools.__all__ == sorted(tools.__all__)
    assert set(tools._EXPORTS) == set(tools.__all__)
    for name in tools.__all__:
        assert getattr(tools, name) is not None, name
    assert set(tools.__all__) <= set(dir(tools))


def test_the_http_tools_load_only_when_asked_for():
    code = (
        "import sys, lcel_agent.tools as t; from lcel_agent.tools import coerce_single_arg; "
        "loaded = sorted(m for m in sys.modules if m in "
        "('lcel_agent.tools.weather', 'lcel_agent.tools.baidu')); "
        "t.get_weather; print(loaded, 'lcel_agent.tools.weather' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "True"]
