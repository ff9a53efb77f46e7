"""Modules import downward only: the shared helpers live below both of their users.

Every import counts, ``TYPE_CHECKING`` blocks and imports inside functions included: a
circle a reader has to hold in their head is a circle, whenever Python runs it.
"""

from __future__ import annotations

import graphlib
from pathlib import Path

import pytest
from imports_support import (
    PACKAGE,
    import_graph,
    import_statements,
    imported,
    module_name,
    room_graph,
)


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (its modules in order, the first repeated), or None."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(reversed(exc.args[1]))
    return None


def test_the_package_has_no_import_circle():
    circle = find_circle(import_graph())
    assert circle is None, "import circle: " + " -> ".join(circle or ())


def test_the_rooms_have_no_import_circle():
    # A room (a package of the root, or a root module) may hold modules on several floors
    # without a module circle; a room importing another that imports it is still a circle
    # a reader has to hold in their head (docs/architecture.md lists the rooms in order).
    circle = find_circle(room_graph())
    assert circle is None, "rooms import each other: " + " -> ".join(circle or ())


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_type_checking_import_up_is_a_circle(tmp_path):
    # The check must be able to fail, and must not forgive an import only mypy runs.
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/errors.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .state import Result\n"
            ),
            "pkg/state.py": "from .errors import Oops\n",
            "pkg/cli.py": "def main():\n    from . import state\n",
        },
    )
    circle = find_circle(import_graph(package))
    assert circle is not None and set(circle) == {"pkg.errors", "pkg.state"}


def test_a_circle_through_a_function_level_import_or_a_facade_is_found(tmp_path):
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/room/__init__.py": "from .window import Window\n",
            "pkg/room/window.py": "from pkg.base import Base\n",
            "pkg/base.py": "def make():\n    from pkg.room import Window\n",
        },
    )
    circle = find_circle(import_graph(package))
    assert circle is not None and {"pkg.base", "pkg.room", "pkg.room.window"} <= set(circle)


def test_a_room_circle_without_a_module_circle_is_found(tmp_path):
    # state.py imports rules/breaker.py, rules/drift.py imports state.py: no module circle.
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/state.py": "from .rules.breaker import Breaker\n",
            "pkg/rules/__init__.py": "",
            "pkg/rules/breaker.py": "",
            "pkg/rules/drift.py": "from ..state import State\n",
        },
    )
    assert find_circle(import_graph(package)) is None
    circle = find_circle(room_graph(package))
    assert circle is not None and set(circle) == {"rules", "state"}


def test_importing_a_sibling_module_from_the_package_is_no_edge_to_its_facade(tmp_path):
    # `from .. import texts` uses texts, not the package's __init__ that imports everything.
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .stages.prompt import Prompt\n",
            "pkg/texts.py": "",
            "pkg/stages/__init__.py": "",
            "pkg/stages/prompt.py": "from .. import texts\n",
        },
    )
    graph = import_graph(package)
    assert graph["pkg.stages.prompt"] == {"pkg.texts"}
    assert find_circle(graph) is None


@pytest.mark.parametrize(
    ("lower", "upper"),
    [
        ("rules/protocols.py", "lcel_agent.stages"),
        ("conversation/history.py", "lcel_agent.stages"),
        ("conversation/inputs.py", "lcel_agent.stages"),
        ("testing/_http.py", "lcel_agent.testing.server"),
        ("errors.py", "lcel_agent.state"),
        ("result.py", "lcel_agent.errors"),
        ("batch/_summary.py", "lcel_agent.batch._work"),
        ("cli/_commands.py", "lcel_agent.cli._parser"),
        ("cli/_drive.py", "lcel_agent.cli._commands"),
    ],
)
def test_a_lower_module_does_not_reach_up(lower, upper):
    reaching = {name for name in imported(PACKAGE / lower) if name.startswith(upper)}
    assert not reaching, f"{lower} imports {sorted(reaching)}"


def test_the_library_never_imports_the_command_line():
    # The command line is one room on the top floor: it imports the library, never the reverse.
    cli = PACKAGE / "cli"
    reaching = {}
    for path in PACKAGE.rglob("*.py"):
        up = sorted(n for n in imported(path) if n.startswith("lcel_agent.cli"))
        if cli not in path.parents and up:
            reaching[str(path.relative_to(PACKAGE))] = up
    assert reaching == {}
    # The check can fail: the commands do import the library.
    assert "lcel_agent.agent" in imported(cli / "_commands.py")


def test_the_command_line_is_one_room():
    # Nothing of the command line left at the package root, nor in the batch room.
    stray = sorted(
        str(path.relative_to(PACKAGE))
        for path in [*PACKAGE.glob("*.py"), *PACKAGE.glob("batch/*.py")]
        if path.stem.startswith(("_cli", "cli", "_display"))
    )
    assert stray == []


def test_the_finder_sees_relative_imports():
    # The check above must be able to fail: the server does import _http, relatively or not.
    assert any(
        n.startswith("lcel_agent.testing._http") for n in imported(PACKAGE / "testing/server.py")
    )
    assert "lcel_agent._shared.messages.message_text" in imported(PACKAGE / "stages/parse.py")


#: Modules allowed over 400 lines while a split is under way (none now).
_SPLIT_PENDING: set[str] = set()


def test_no_module_is_over_400_lines():
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert set(long) - _SPLIT_PENDING == set(), long


# --- packages keep their doors (issue 36): no reaching into another room's private modules ---


def private_reach(package: Path = PACKAGE) -> list[str]:
    """Imports of a private module (``_name``) of a package from outside that package.

    What another package needs is imported from that package's ``__init__`` (its door);
    a package's own modules, and those of packages inside it, may use its private ones.
    (A lazy-export map names modules as strings: it lives in the package's ``__init__``.)
    """
    found = []
    for path in sorted(package.rglob("*.py")):
        importer = module_name(path, package)
        home = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        for module, named in import_statements(path, package):
            for target in [module, *named]:
                parts = target.split(".")
                private = next(
                    (
                        i
                        for i, p in enumerate(parts)
                        if p.startswith("_") and not p.startswith("__")
                    ),
                    None,
                )
                if private is None:
                    continue
                owner = ".".join(parts[:private])
                if not owner.startswith(package.name):
                    continue  # another library's private module: not this rule's business
                if home != owner and not home.startswith(owner + "."):
                    found.append(f"{importer} -> {target}")
    return sorted(set(found))


def test_packages_keep_their_doors():
    assert private_reach() == []


def test_a_reach_into_another_rooms_private_module_is_found(tmp_path):
    package = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_shared.py": "",  # the top package's own: any room may use it
            "pkg/tools/__init__.py": "from ._output import is_error\n",
            "pkg/tools/_output.py": "def is_error(x): return False\n",
            "pkg/stages/__init__.py": "",
            "pkg/stages/run.py": (
                "from .._shared import x\n"
                "from ..tools import is_error\n"  # through the door: fine
                "def f():\n    from ..tools._output import is_error\n"  # reaching in
            ),
        },
    )
    assert private_reach(package) == [
        "pkg.stages.run -> pkg.tools._output",
        "pkg.stages.run -> pkg.tools._output.is_error",
    ]
