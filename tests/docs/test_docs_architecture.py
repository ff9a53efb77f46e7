"""docs/architecture.md's module map is the tree: every root entry named, every name there.

The map is the tables under "Where things live": a row's first cell is a path
(``lcel_agent/loop/``), the second says what it holds and may name files of that room
(``_driver.py``, ``streaming/``). The first table lists the rooms of the package root from
the top floor down, so its order is checked against the imports too.
"""

from __future__ import annotations

import re
from pathlib import Path

from docs_support import ROOT
from imports_support import PACKAGE, room_graph

MAP = ROOT / "docs" / "architecture.md"
_PATH = re.compile(r"`(lcel_agent/[\w./]*)`")
_NAME = re.compile(r"`([\w.]+/[\w./]*|[\w.]*\w\.py)`")


def map_tables(markdown: str) -> list[list[tuple[str, str]]]:
    """The tables of the "Where things live" section: rows of (path, what it holds)."""
    section = markdown[markdown.index("## Where things live\n") :]
    section = section[: m.start()] if (m := re.search(r"^## ", section[3:], re.M)) else section
    tables: list[list[tuple[str, str]]] = []
    rows: list[tuple[str, str]] = []
    for line in [*section.splitlines(), ""]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line else []
        path = _PATH.fullmatch(cells[0]) if cells else None
        if path:
            rows.append((path.group(1), " | ".join(cells[1:])))
        elif not line.startswith("|") and rows:
            tables.append(rows)
            rows = []
    return tables


def root_entries(package: Path = PACKAGE) -> set[str]:
    """``lcel_agent/x.py`` and ``lcel_agent/x/`` for every module and package of the root."""
    modules = {f"{package.name}/{p.name}" for p in package.glob("*.py")}
    packages = {
        f"{package.name}/{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()
    }
    return modules | packages


def _room(path: str) -> str:
    name = path.split("/")[1]
    return name.removesuffix(".py")


def test_the_map_names_every_module_and_package_of_the_root():
    named = {path for path, _ in map_tables(MAP.read_text(encoding="utf-8"))[0]}
    missing = sorted(root_entries() - named)
    assert missing == [], f"docs/architecture.md's map does not name {missing}"


def test_every_path_the_map_names_exists():
    gone = []
    for table in map_tables(MAP.read_text(encoding="utf-8")):
        for path, what in table:
            where = ROOT / path
            if not where.exists():
                gone.append(path)
                continue
            room = where if path.endswith("/") else where.parent
            gone += [
                f"{path}: {name}" for name in _NAME.findall(what) if not (room / name).exists()
            ]
    assert gone == []


def test_the_map_lists_the_rooms_from_the_top_floor_down():
    order = [_room(path) for path, _ in map_tables(MAP.read_text(encoding="utf-8"))[0]]
    below = {room: set(order[i + 1 :]) for i, room in enumerate(order)}
    up = {
        room: sorted(imports - below[room])
        for room, imports in room_graph().items()
        if room in below and imports - below[room]
    }
    assert up == {}, f"rooms importing rooms listed above them in the map: {up}"


def test_the_map_reader_sees_the_tables_and_their_names():
    # The checks above must be able to fail: the reader finds both tables and the names.
    tables = map_tables(MAP.read_text(encoding="utf-8"))
    assert len(tables) == 2
    assert "lcel_agent/stages/answer/_writing.py" in {path for path, _ in tables[1]}
    loop = dict(tables[0])["lcel_agent/loop/"]
    assert {"_driver.py", "streaming/"} <= set(_NAME.findall(loop))
    assert "lcel_agent/tokens.py" not in root_entries()  # gone: the map must not name it
