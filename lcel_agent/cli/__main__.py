"""``python -m lcel_agent.cli``: the ``lcel-agent`` command."""

from __future__ import annotations

from . import main

if __name__ == "__main__":
    raise SystemExit(main())
