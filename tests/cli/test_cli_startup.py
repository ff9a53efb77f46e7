"""Start-up: help, usage errors and ``import lcel_agent`` answer before LangChain is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import sys
from lcel_agent.cli import main
try:
    code = main({argv!r})
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in ("langchain_core", "langsmith", "openai", "pydantic") if m in sys.modules)
print(code, heavy)
"""


@pytest.mark.parametrize(("argv", "status"), [(["--help"], 0), (["--no-such-flag"], 2)])
def test_help_and_usage_errors_do_not_import_langchain(argv, status):
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1].split() == [str(status), "[]"]


def test_importing_the_package_imports_no_langchain():
    code = "import sys, lcel_agent; print('langchain_core' in sys.modules, lcel_agent.__version__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split()[0] == "False"
    # and the names are still there when asked for
    code = "import lcel_agent; print(lcel_agent.create_agent.__name__)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "create_agent"
