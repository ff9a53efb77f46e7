"""The install the docs give works: from a clone, or a wheel built from it (not PyPI)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile

import pytest
from docs_support import ROOT

#: `pip install lcel-agent` / `pip install "lcel-agent[cli]"`: a PyPI install, which does not exist.
_FROM_PYPI = re.compile(r"pip install\s+['\"]?lcel-agent\b")


def test_no_document_sends_readers_to_pypi():
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    offending = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in documents
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _FROM_PYPI.search(line)
    ]
    assert offending == []
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[cli]"' in index and "pip wheel --no-deps -w dist ." in index


def test_the_wheel_carries_the_report_templates(tmp_path):
    pytest.importorskip("setuptools", minversion="68", reason="building needs setuptools >= 68")
    source = tmp_path / "src"
    shutil.copytree(
        ROOT / "lcel_agent", source / "lcel_agent", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)

    # No build isolation and no index: nothing is fetched; the test env's setuptools builds it.
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("lcel_agent-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.name for p in (ROOT / "lcel_agent" / "report" / "templates").iterdir()}
    assert {f"lcel_agent/report/templates/{t}" for t in templates} <= names
    assert "lcel_agent/py.typed" in names


def test_the_home_page_leads_to_every_page_and_names_no_placeholder():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    onward = index[index.index("## Where to go next") :]
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert {page for page in pages if f"]({page})" not in onward} == set()
    assert re.findall(r"<[a-z][^>]* (?:URL|url)[^>]*>", index) == []  # no "<the repository's URL>"
    assert ".venv/bin/lcel-agent" in index and "--simulate" in index
