"""The durable room sits between the stages and the loop: it imports down, never up.

The stages (the dispatcher's journal hooks), the stage rules, the run's state and the
approvers are below it; the loop, ``create_agent`` and the batch runner above. No import
circle, not even a TYPE_CHECKING one.
"""

from __future__ import annotations

import pytest
from imports_support import PACKAGE, imported

BELOW = [
    *sorted((PACKAGE / "stages").glob("*.py")),
    *sorted((PACKAGE / "conversation").glob("*.py")),
    *sorted((PACKAGE / "rules").glob("*.py")),
    PACKAGE / "state.py",
    PACKAGE / "approval.py",
]


@pytest.mark.parametrize("path", BELOW, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_what_lies_below_does_not_import_the_durable_room(path):
    reaching = {n for n in imported(path) if n.startswith("lcel_agent.durable")}
    assert not reaching, f"{path.name} imports {sorted(reaching)}"


@pytest.mark.parametrize("path", sorted((PACKAGE / "durable").glob("*.py")), ids=lambda p: p.name)
def test_the_durable_room_does_not_import_what_lies_above(path):
    above = ("lcel_agent.loop", "lcel_agent.agent", "lcel_agent.batch", "lcel_agent.cli")
    reaching = {n for n in imported(path) if n.startswith(above)}
    assert not reaching, f"{path.name} imports {sorted(reaching)}"


def test_the_check_can_fail():
    # The loop does import the room: the finder must see it.
    assert any(
        n.startswith("lcel_agent.durable") for n in imported(PACKAGE / "loop" / "_driver.py")
    )
