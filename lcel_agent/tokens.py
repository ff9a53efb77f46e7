"""Token counters: the public path of :mod:`lcel_agent.memory.counters`.

::

    from lcel_agent.tokens import estimate_tokens, TiktokenCounter, resolve_counter
"""

from lcel_agent.memory.counters import (
    ESTIMATE_WEIGHTS,
    MESSAGE_OVERHEAD,
    TiktokenCounter,
    TokenCounter,
    TokenizerFallbackWarning,
    char_classes,
    count_message,
    default_exact_counter,
    estimate_tokens,
    make_estimator,
    resolve_counter,
    seed_tiktoken_cache,
)

__all__ = [
    "ESTIMATE_WEIGHTS",
    "MESSAGE_OVERHEAD",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerFallbackWarning",
    "char_classes",
    "count_message",
    "default_exact_counter",
    "estimate_tokens",
    "make_estimator",
    "resolve_counter",
    "seed_tiktoken_cache",
]
