"""What the testing kit's servers share: used in a ``with`` block, a server is closed on
the way out, whatever happened inside (:class:`ClosedOnExit`)."""

from __future__ import annotations

from types import TracebackType
from typing import Self

__all__ = ["ClosedOnExit"]


class ClosedOnExit:
    """A server whose ``with`` block ends with :meth:`close`; ``__enter__`` gives the
    server (a server that starts on entering says so in its own ``__enter__``)."""

    def close(self) -> None:
        """Stop serving (idempotent)."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
