"""What masking secrets costs per text: ``lcel_agent._redact.redact`` on the loop's hot paths.

    python benchmarks/redaction_cost.py

Every model reply, tool result and error message passes through ``redact``. The
table shows the time of one call for texts of the sizes the loop sees (a JSON
action, a few kilobytes of observations, a megabyte tool result before it is
cut), with 3 and with 30 registered secrets, on texts with no secret in them
(the common case) and with one.
"""

from __future__ import annotations

import secrets
import timeit

from lcel_agent._redact import redact, register_secrets

ACTION = '{"action": "get_weather", "action_input": "北京"} 北京市天气：晴，温度25℃，湿度40%'
SIZES = {"130 chars": ACTION, "2.6 kB": ACTION * 20, "1.2 MB": "北京:" + "晴" * 400_000}


def _per_call(text: str) -> float:
    number = 2000 if len(text) < 10_000 else 10
    return timeit.timeit(lambda: redact(text), number=number) / number


def main() -> None:
    keys = [secrets.token_hex(16) for _ in range(30)]
    print(f"{'text':<10} {'secrets':>7} {'clean':>12} {'one secret':>12}")
    for count in (3, 30):
        register_secrets(keys[:count])
        for name, text in SIZES.items():
            dirty = text[: len(text) // 2] + keys[0] + text[len(text) // 2 :]
            assert keys[0] not in redact(dirty)
            clean, leaked = _per_call(text), _per_call(dirty)
            print(f"{name:<10} {count:>7} {clean * 1e6:10.1f}µs {leaked * 1e6:10.1f}µs")


if __name__ == "__main__":
    main()
