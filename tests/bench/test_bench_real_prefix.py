"""Prefix reuse: the share of a prompt that repeats the previous one, and the server's log."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.real.prefix import common_prefix, prefix_shares, previous_kept, server_reused


def test_a_conversation_that_grows_at_its_end_repeats_its_whole_previous_prompt():
    first = [1, 2, 3, 4]
    second = [*first, 5, 6, 7, 8]  # the same start, a turn appended
    third = [1, 2, 9, 9, 9, 9, 9, 9, 9, 9]  # the start rewritten after two tokens

    assert prefix_shares([first, second, third]) == [None, 0.5, 0.2]
    # All of the first prompt is kept; only a quarter of the second.
    assert previous_kept([first, second, third]) == [None, 1.0, 0.25]


def test_the_first_call_and_an_empty_prompt_have_no_share():
    assert prefix_shares([[1, 2], []]) == [None, None]


@settings(max_examples=60)
@given(st.lists(st.integers(0, 3), max_size=30), st.lists(st.integers(0, 3), max_size=30))
def test_common_prefix_is_the_longest_shared_start(a, b):
    n = common_prefix(a, b)
    assert a[:n] == b[:n]
    assert n == min(len(a), len(b)) or a[n] != b[n]


def test_the_server_log_says_how_many_tokens_it_reused():
    log = (
        "Llama.generate: 412 prefix-match hit, remaining 57 prompt tokens to eval\n"
        "llama_perf_context_print: prompt eval time = 812.00 ms / 57 tokens\n"
    )
    assert server_reused(log, 469) == 412
    assert server_reused("llama_perf_context_print: prompt eval time = 3 ms", 469) == 0
    assert server_reused("Llama.generate: full prompt already cached, skipping reset", 469) == 469
