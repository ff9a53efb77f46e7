"""What masking secrets costs per text: ``lcel_agent._redact.redact`` on the loop's hot paths.

    .venv/bin/python benchmarks/redaction_cost.py

Every model reply, tool result and error message passes through ``redact``. The
table shows the time of one call for texts of the sizes the loop sees (a JSON
action, a few kilobytes of observations in Chinese or in English, a megabyte tool
result before it is cut), with 3 and with 30 registered secrets (32 hex characters
each), on texts with no secret in them (the common case), with one whole, and with
20 characters from the middle of one (a provider's partial echo; "not masked" where
the redactor lets it through, as those before issue 31 did).
"""

from __future__ import annotations

import secrets
import timeit

from lcel_agent._redact import redact, register_secrets

ACTION = '{"action": "get_weather", "action_input": "北京"} 北京市天气：晴，温度25℃，湿度40%'
PROSE = "The weather in Beijing is sunny, 25 degrees, humidity 40 per cent, light wind. "
SIZES = {
    "130 chars": ACTION,
    "2.6 kB": ACTION * 20,
    "2.6 kB en": (PROSE * 33)[:2600],
    "1.2 MB": "北京:" + "晴" * 400_000,
}


def _per_call(text: str) -> float:
    number = 2000 if len(text) < 10_000 else 10
    return timeit.timeit(lambda: redact(text), number=number) / number


def _cell(text: str, leaked: str) -> str:
    if leaked in redact(text):
        return f"{'not masked':>12}"
    return f"{_per_call(text) * 1e6:10.1f}µs"


def main() -> None:
    keys = [secrets.token_hex(16) for _ in range(30)]
    print(f"{'text':<10} {'secrets':>7} {'clean':>12} {'one secret':>12} {'20 chars':>12}")
    for count in (3, 30):
        register_secrets(keys[:count])
        for name, text in SIZES.items():
            half = len(text) // 2
            whole = text[:half] + keys[0] + text[half:]
            piece = text[:half] + keys[0][6:26] + text[half:]
            print(
                f"{name:<10} {count:>7} {_per_call(text) * 1e6:10.1f}µs"
                f" {_cell(whole, keys[0])} {_cell(piece, keys[0][6:26])}"
            )


if __name__ == "__main__":
    main()
