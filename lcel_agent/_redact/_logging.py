"""Secrets out of log records: a redacting filter, on the HTTP clients' loggers and on yours.

HTTP clients log at DEBUG what travels on the wire: urllib3 request lines with
their query strings (where Amap's key goes), httpcore's request headers (a key
with a stray newline is quoted whole in its "illegal header value" record), the
openai client's retries. Importing :mod:`lcel_agent` puts :class:`RedactingFilter`
on those loggers. Records of other loggers reach your handlers untouched unless
you call :func:`redact_logging` after setting up logging::

    import logging, lcel_agent
    logging.basicConfig(level=logging.DEBUG)
    lcel_agent.redact_logging()          # every handler configured so far
    lcel_agent.redact_logging(my_handler)  # or just this one
"""

from __future__ import annotations

import logging

from ._mask import redact

__all__ = ["CLIENT_LOGGERS", "RedactingFilter", "install_client_log_redaction", "redact_logging"]

#: Loggers of the HTTP stacks under the model clients and the bundled tools. A filter on
#: a logger only sees records created on that very logger, so each one is named.
CLIENT_LOGGERS: tuple[str, ...] = (
    "urllib3.connectionpool",
    "urllib3.poolmanager",
    "urllib3.connection",
    "urllib3.response",
    "urllib3.util.retry",
    "httpx",
    "httpx2",
    *(
        f"{package}.{module}"
        for package in ("httpcore", "httpcore2")
        for module in ("connection", "connection_pool", "http11", "http2", "proxy", "socks")
    ),
    "openai",
    "openai._base_client",
)


class RedactingFilter(logging.Filter):
    """Masks secrets in a record's message, traceback and stack text; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is the logging module's business
            return True
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set, so the traceback they print is this one.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


_FILTER = RedactingFilter()


def _add(target: logging.Handler | logging.Logger) -> None:
    if _FILTER not in target.filters:
        target.addFilter(_FILTER)


def redact_logging(*targets: logging.Handler | logging.Logger | str) -> None:
    """Mask secrets in every log record that reaches ``targets``. Idempotent.

    A handler gets the filter itself; a logger (or a logger's name) gets it on the
    logger and on each of its handlers. With no argument, every handler attached
    so far to the root logger or to any other logger gets it: call it once after
    configuring logging (``logging.basicConfig``, ``dictConfig``, ...).
    """
    if not targets:
        loggers = [logging.getLogger()] + [
            logger
            for logger in logging.Logger.manager.loggerDict.values()
            if isinstance(logger, logging.Logger)
        ]
        for logger in loggers:
            for handler in logger.handlers:
                _add(handler)
        return
    for target in targets:
        if isinstance(target, str):
            target = logging.getLogger(target)
        _add(target)
        if isinstance(target, logging.Logger):
            for handler in target.handlers:
                _add(handler)


def install_client_log_redaction() -> None:
    """Put the filter on the HTTP clients' loggers (:data:`CLIENT_LOGGERS`). Idempotent."""
    for name in CLIENT_LOGGERS:
        _add(logging.getLogger(name))
