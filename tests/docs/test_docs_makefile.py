"""``make demo`` on a fresh clone says what it installs and for how long before it goes quiet."""

from __future__ import annotations

import subprocess

from docs_support import ROOT

STUB = """#!/bin/sh
# Plays python: `-m venv DIR` makes DIR/bin/python (this stub again); anything else is logged.
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
echo "stub python $*"
"""


def test_a_fresh_virtualenv_is_announced_before_the_slow_install(tmp_path):
    python = tmp_path / "python"
    python.write_text(STUB)
    python.chmod(0o755)
    venv = tmp_path / "venv"

    done = subprocess.run(
        ["make", "--no-print-directory", f"VENV={venv}", f"PYTHON={python}", f"{venv}/.installed"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    announce = next(i for i, line in enumerate(lines) if line.startswith("Setting up"))
    install = next(i for i, line in enumerate(lines) if "pip install" in line and "-e" in line)
    assert announce < install
    assert "about 2 minutes" in lines[announce] and "first run only" in lines[announce]
    assert lines[-1] == f"{venv} is ready."
    assert (venv / ".installed").exists()
