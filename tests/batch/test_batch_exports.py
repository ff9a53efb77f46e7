"""The batch package's public names: complete, sorted, lazily loaded."""

from __future__ import annotations

import lcel_agent.batch as batch


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert batch.__all__ == sorted(batch.__all__)
    for name in batch.__all__:
        assert getattr(batch, name) is not None
    assert set(batch.__all__) <= set(dir(batch))
