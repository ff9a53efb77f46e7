"""The checks of a number argument that the builders share (``create_agent``,
``run_batch``): an int of at least some minimum, a positive number. Each raises a
``TypeError`` for what is not a number of that kind and a
:class:`~lcel_agent.errors.ConfigurationError` for a value out of range, with a message
that names the argument and says what was wanted. (A run's ``config["configurable"]``
limits are checked by :mod:`lcel_agent.rules.limits`, where any bad value is a
``ConfigurationError``.)
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import ConfigurationError

__all__ = ["positive_int", "positive_number"]


def positive_int(name: str, value: Any, minimum: int = 1) -> int:
    """``value``, an int of at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ConfigurationError(f"{name} must be >= {minimum}, got {value}")
    return value


def positive_number(name: str, value: Any, kind: str, unit: str, *, finite: bool = False) -> float:
    """``value``, a number above 0 (and below infinity when ``finite``), as a float.
    ``kind`` names what is wanted (``"a number of seconds"``), ``unit`` its unit
    (``"seconds"``, ``"per minute"``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be {kind}, not {type(value).__name__}")
    if not value > 0 or math.isnan(value) or (finite and math.isinf(value)):
        raise ConfigurationError(f"{name} must be > 0 {unit}, got {value}")
    return float(value)
