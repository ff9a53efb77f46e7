"""Modules import downward only: the shared helpers live below both of their users."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lcel_agent"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (TYPE_CHECKING blocks included), as absolute names."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = parts[:-1]  # the package a relative import starts from (for __init__ too)
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("protocols.py", "lcel_agent.stages"),
        ("conversation/history.py", "lcel_agent.stages"),
        ("conversation/inputs.py", "lcel_agent.stages"),
        ("testing/_http.py", "lcel_agent.testing.server"),
    ],
)
def test_a_lower_module_does_not_reach_up(lower, upper):
    reaching = {name for name in imported(PACKAGE / lower) if name.startswith(upper)}
    assert not reaching, f"{lower} imports {sorted(reaching)}"


def test_the_finder_sees_relative_imports():
    # The check above must be able to fail: the server does import _http, relatively or not.
    assert any(
        n.startswith("lcel_agent.testing._http") for n in imported(PACKAGE / "testing/server.py")
    )
    assert "lcel_agent._messages.message_text" in imported(PACKAGE / "stages/parse.py")
