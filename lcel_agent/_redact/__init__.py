"""Secrets out of everything the agent returns, logs, stores, traces or sends to the model.

The redaction room: what counts as a secret and masking it in a text or a value
(:mod:`._mask`: :func:`redact`, :func:`register_secret`, the short-secret rule), the
automaton that finds every piece of the registered secrets in one pass
(:mod:`._secret_match`), and the filter that masks log records (:mod:`._logging`:
:func:`redact_logging`, public as ``lcel_agent.redact_logging``). Every room of the
library passes outside text through :func:`redact` (``from lcel_agent._redact import
redact``), so this room stands on the bottom floor: it imports nothing of the library.
"""

from ._logging import (
    CLIENT_LOGGERS,
    RedactingFilter,
    install_client_log_redaction,
    redact_logging,
)
from ._mask import (
    KNOWN_PREFIXES,
    MIN_SECRET_LEN,
    REDACTED,
    SECRET_ENV_VARS,
    redact,
    redact_value,
    register_secret,
    register_secrets,
    secrets_in,
)

__all__ = [
    "CLIENT_LOGGERS",
    "KNOWN_PREFIXES",
    "MIN_SECRET_LEN",
    "REDACTED",
    "SECRET_ENV_VARS",
    "RedactingFilter",
    "install_client_log_redaction",
    "redact",
    "redact_logging",
    "redact_value",
    "register_secret",
    "register_secrets",
    "secrets_in",
]
