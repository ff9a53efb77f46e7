"""Find every piece of a fixed set of secret strings in a text, cheaply enough for every message.

A :class:`SecretMatcher` is built once from the strings to hide (:mod:`._mask` gives it
every form of every registered secret) and then masks, in any text:

* each string whole; one shorter than :data:`RUN_LEN` only where it stands as a token of
  its own, not inside a longer word (a short password ``postgres`` is masked in
  ``postgres:***@host``, not in ``postgresql://``; the caller decides which strings are
  worth hiding at all);
* each run of :data:`RUN_LEN` or more consecutive characters of a longer string: a
  provider that quotes a refused key from its tenth character on, or cuts it after
  twenty, still quotes the key::

    matcher = SecretMatcher(["sk-proj-4hG7xQ2mZ9wK1pL8rT5vN3"])
    matcher.mask("Incorrect API key provided: 4hG7xQ2mZ9wK1pL8rT5v")  # 20 of its characters
    # -> "Incorrect API key provided: ***"

How: a run of 16 or more characters of a string is a chain of overlapping 16-character
windows of it, so the short strings and every window of the long ones go into one
Aho-Corasick automaton (``ahocorasick_rs``, over Rust's ``aho-corasick`` crate), built
once. One pass over a text finds every occurrence of every window, overlapping ones
included, and the masked stretches are the unions of what it found. The pass costs
about the same however many secrets there are (a few µs for 2.6 kB); one substring
search per secret, as before, grew with their number and could not find a run, and a
trie-shaped regular expression of the windows' anchors, the best the standard library
offered, was 2-4 times slower on ordinary text (docs/benchmarks.md, "Redaction").
"""

from __future__ import annotations

from collections.abc import Iterable

from ahocorasick_rs import AhoCorasick

__all__ = ["MASK", "RUN_LEN", "SecretMatcher"]

MASK = "***"
#: A run of this many consecutive characters of a secret is masked wherever it appears.
RUN_LEN = 16


class SecretMatcher:
    """Masks the strings it was built with, and every long run of them, in texts.

    Build it once per set of secrets (building compiles an automaton); call :meth:`mask`
    as often as needed, from any thread.
    """

    __slots__ = ("_automaton", "_rescan")

    def __init__(self, strings: Iterable[str]) -> None:
        wanted = {s for s in strings if s}
        patterns: set[str] = set()
        for string in wanted:
            patterns.update(
                string[i : i + RUN_LEN] for i in range(max(1, len(string) - RUN_LEN + 1))
            )
        self._automaton = AhoCorasick(sorted(patterns)) if patterns else None
        # Masking makes no new match unless a secret holds the mask's character: any match
        # in the masked text that overlaps no mask was in the text before, and was found.
        self._rescan = any(MASK[0] in s for s in wanted)

    def mask(self, text: str) -> str:
        """``text`` with every string (a short one as a token) and every run of
        :data:`RUN_LEN` of one as ``***``."""
        if self._automaton is None:
            return text
        found = self._found(text)
        while found:
            text = _splice(text, found)
            # Each pass shortens the text (a mask is shorter than any match), so this ends.
            found = self._found(text) if self._rescan else []
        return text

    def _found(self, text: str) -> list[tuple[int, int]]:
        """The spans to mask, sorted: every window, and every short string that is a token."""
        assert self._automaton is not None
        return sorted(
            (start, end)
            for _, start, end in self._automaton.find_matches_as_indexes(text, overlapping=True)
            if end - start >= RUN_LEN or _token(text, start, end)
        )


def _word(char: str) -> bool:
    """A character that continues an ASCII word (keys are ASCII; a CJK character next to a
    key is text around it, not part of it)."""
    return char.isascii() and (char.isalnum() or char == "_")


def _token(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is not part of a longer word on either side."""
    inside = start > 0 and _word(text[start - 1]) and _word(text[start])
    return not inside and not (end < len(text) and _word(text[end - 1]) and _word(text[end]))


def _splice(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each union of overlapping or touching sorted ``spans`` as one mask."""
    pieces: list[str] = []
    kept_to = 0
    cur_start, cur_end = spans[0]
    for start, end in spans[1:]:
        if start <= cur_end:
            cur_end = max(cur_end, end)
            continue
        pieces += (text[kept_to:cur_start], MASK)
        kept_to, (cur_start, cur_end) = cur_end, (start, end)
    pieces += (text[kept_to:cur_start], MASK, text[cur_end:])
    return "".join(pieces)
