"""BFCL's package (``bfcl-eval``), imported the offline way; every harness module imports it here.

    from benchmarks.bfcl._bfcl import bfcl_ready
    bfcl_ready()                       # before the first ``import bfcl_eval...``

Two things have to happen before ``bfcl_eval`` is first imported (NOTES.md, "BFCL v4,
offline"):

* ``BFCL_PROJECT_ROOT``: ``bfcl_eval.constants.eval_config`` creates ``result/``,
  ``score/`` and ``.file_locks/`` under it at import time, by default inside
  site-packages. A temporary folder of this process takes them, unless the caller set one.
* ``bfcl_eval.constants.model_config`` imports every model handler BFCL ships (SDKs for
  every vendor, torch through some of them). The single-turn AST checker imports it for
  one table, ``MODEL_CONFIG_MAPPING``, and reads one flag of one entry from it
  (``underscore_to_dot``). A stub module holding that table stands in for it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import types
from dataclasses import dataclass

#: The model name the AST checker looks up in ``MODEL_CONFIG_MAPPING`` (it turns ``_`` into
#: ``/`` first). Our tools name BFCL's ``math.factorial`` ``math_factorial`` (OpenAI tool
#: names allow no dot), so the checker must compare names with dots turned into underscores.
CHECKER_MODEL = "lcel-agent-bench"


@dataclass(frozen=True)
class _CheckerConfig:
    """The one field of BFCL's ``ModelConfig`` the AST checker reads."""

    underscore_to_dot: bool = True


def bfcl_ready() -> None:
    """Set ``BFCL_PROJECT_ROOT`` and install the ``model_config`` stub (idempotent)."""
    if "BFCL_PROJECT_ROOT" not in os.environ:
        os.environ["BFCL_PROJECT_ROOT"] = tempfile.mkdtemp(prefix="bfcl-root-")
    name = "bfcl_eval.constants.model_config"
    if name not in sys.modules:
        stub = types.ModuleType(name)
        stub.__doc__ = "Stand-in for BFCL's model table (see benchmarks/bfcl/_bfcl.py)."
        stub.MODEL_CONFIG_MAPPING = {CHECKER_MODEL: _CheckerConfig()}  # type: ignore[attr-defined]
        sys.modules[name] = stub


bfcl_ready()
