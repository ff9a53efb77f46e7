"""How much of each prompt repeats the previous call's prompt from its start.

llama.cpp keeps the tokens it last evaluated and evaluates only what follows the
longest common prefix with the next prompt; providers' prompt caching bills a cached
prefix at a discount the same way. So a conversation whose beginning stays put is
faster here and cheaper there. Two measures, both per model call:

- ``prefix_share``: the prompt's tokens (rendered with the server's own chat template
  and tokenizer, see ``_render_worker``) that repeat the previous call's prompt from
  its start, over the prompt's tokens; None for a run's first call. A prompt that
  doubles scores at most 50 % though nothing was rewritten, so also
- ``previous_kept``: the same common start over the *previous* prompt's tokens: 100 %
  while the conversation only grows at its end;
- ``server_reused``: the tokens the server itself reported reusing (its log line
  ``Llama.generate: N prefix-match hit``), against whatever it evaluated last (the
  previous call's prompt *and* reply, or the previous run's last call).

Stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")
_CACHED = "Llama.generate: full prompt already cached"


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def prefix_shares(prompts: Sequence[Sequence[int]]) -> list[float | None]:
    """Per call: the share of its prompt that repeats the previous prompt from its start."""
    shares: list[float | None] = []
    for i, prompt in enumerate(prompts):
        if i == 0 or not prompt:
            shares.append(None)
        else:
            shares.append(common_prefix(prompts[i - 1], prompt) / len(prompt))
    return shares


def previous_kept(prompts: Sequence[Sequence[int]]) -> list[float | None]:
    """Per call: the share of the previous prompt that this one repeats from its start.

    1.0 while a conversation only grows at its end (however much it grows); below 1.0
    when something early was rewritten or dropped, and everything after it is evaluated
    again.
    """
    kept: list[float | None] = []
    for i, prompt in enumerate(prompts):
        if i == 0 or not prompts[i - 1]:
            kept.append(None)
        else:
            kept.append(common_prefix(prompts[i - 1], prompt) / len(prompts[i - 1]))
    return kept


def server_reused(log: str, prompt_tokens: int | None = None) -> int:
    """Tokens the server reused for one request, read from its log lines for that request.

    No hit line means it evaluated the whole prompt (0). "full prompt already cached"
    means all of it (``prompt_tokens``, when known).
    """
    hits = _HIT.findall(log)
    if hits:
        return int(hits[-1])
    if _CACHED in log and prompt_tokens is not None:
        return prompt_tokens
    return 0
