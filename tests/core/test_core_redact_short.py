"""The short-secret rule (issue 36): a short key never masks a common word.

Between six and fifteen characters, a secret is masked only where it stands as a token
of its own (not inside a longer ASCII word), and a key's body that reads as words
(``sk-secret`` leaves ``secret``: words of at most ten letters, each lowercase,
Capitalized or UPPERCASE) is not masked on its own; the whole key always is. A random
body (a digit, cases mixed inside a word, a run of more than ten letters) still is.
Properties over common words, every known prefix, and random short keys. Each example
passes its key to ``redact(text, [key])`` (for that call only), so nothing stays
registered for the rest of the suite.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lcel_agent._redact import KNOWN_PREFIXES, MIN_SECRET_LEN, REDACTED, redact

#: Words a text is full of: English, code, and what local servers take as a key.
COMMON = (
    "secret", "result", "return", "import", "example", "weather", "string", "number",
    "system", "server", "public", "private", "change", "default", "testing", "Example",
    "password", "ollama", "local", "dummy", "postgres", "token", "models", "DEFAULT",
    "no-key-required", "lm-studio", "changeme", "not_a_real_key", "天气",
)  # fmt: skip
WORDS = st.sampled_from([w for w in COMMON if w.isascii() and len(w) >= MIN_SECRET_LEN])
PREFIXES = st.sampled_from([p for p in KNOWN_PREFIXES if not p.endswith(" ")])
SENTENCE = st.lists(st.sampled_from(COMMON), min_size=1, max_size=8).map(" ".join)
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
SHORT_KEYS = st.builds(
    lambda head, digit, tail: head + digit + tail,
    st.text(LETTERS + "0123456789", min_size=3, max_size=7),
    st.sampled_from("0123456789"),
    st.text(LETTERS + "0123456789_-", min_size=2, max_size=6),
)
AROUND = st.sampled_from([" ", "：", "(", "'", '"', "\n", "北京", ", "])


@given(word=WORDS, prefix=PREFIXES, sentence=SENTENCE)
def test_a_key_whose_body_is_a_common_word_masks_the_key_not_the_word(word, prefix, sentence):
    key = prefix + word
    text = f"{sentence} {word} {sentence}"
    assert redact(text, [key]) == text
    assert redact(f"{sentence} {key} {sentence}", [key]) == f"{sentence} {REDACTED} {sentence}"


MIXED = st.builds(
    lambda a, b, c: a + b + c,
    st.text("abcdefghij", min_size=2, max_size=5),
    st.sampled_from("KQXZ"),
    st.text("abcdefghij", min_size=3, max_size=5),
)
LONG_RUN = st.text("abcdefghijklmnop", min_size=11, max_size=15)


@given(key=st.one_of(SHORT_KEYS, MIXED, LONG_RUN), before=AROUND, after=AROUND, prefix=PREFIXES)
def test_a_short_key_like_body_is_masked_where_it_stands_alone(key, before, after, prefix):
    for secret in (key, prefix + key):
        assert redact(before + key + after, [secret]) == before + REDACTED + after


@given(
    key=SHORT_KEYS, left=st.text(LETTERS, min_size=1, max_size=3), right=st.text("xyz", max_size=2)
)
def test_a_short_secret_inside_a_longer_word_is_left_alone(key, left, right):
    # Letters glued to it make another word (an identifier, a longer token): not the secret.
    text = f"see {left}{key}{right} here"
    assert redact(text, [key]) == text


@given(word=WORDS)
def test_a_short_secret_registered_whole_is_masked_as_a_token_even_when_a_word(word):
    # A value the caller registered is theirs to choose: masked wherever it stands alone.
    assert redact(f"user {word}: {word}{word}", [word]) == f"user {REDACTED}: {word}{word}"
