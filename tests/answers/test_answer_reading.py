"""Reading text in any language: numbers, words, receipts, and which languages are read.

These are the language-free pieces the answer rules stand on (issue 41): a number
written in any digit system and grouping is one value, a word keeps its combining marks,
a receipt is known by what it holds, and a question is placed in a read language only
on evidence.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcel_agent.stages.answer import is_plan, is_receipt, language_of, shape_of
from lcel_agent.stages.answer._values import number_readings, values

# Decimal digits of a few scripts (zero first): Arabic-Indic, Persian, Devanagari,
# Bengali, Tamil, Thai, full-width.
_DIGIT_ZEROS = ["0", "\u0660", "\u06f0", "\u0966", "\u09e6", "\u0be6", "\u0e50", "\uff10"]


def _in_script(number: str, zero: str) -> str:
    return "".join(chr(ord(zero) + int(c)) if c.isdigit() else c for c in number)


def _grouped(digits: str, separator: str, lakh: bool) -> str:
    """``digits`` grouped by threes (or the Indian way: three, then twos) with ``separator``."""
    head, tail = digits[:-3], digits[-3:]
    groups = [tail]
    size = 2 if lakh else 3
    while head:
        groups.insert(0, head[-size:])
        head = head[:-size]
    return separator.join(groups)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=1000, max_value=10**9),
    st.sampled_from([",", ".", " ", "\u00a0", "\u202f", "\u2009", "'", "\u066c"]),
    st.booleans(),
    st.sampled_from(_DIGIT_ZEROS),
)
def test_a_grouped_number_in_any_digit_system_reads_as_its_value(value, separator, lakh, zero):
    written = _in_script(_grouped(str(value), separator, lakh), zero)
    assert str(value) in values(f"total: {written} items").numbers


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=1, max_value=99),
    st.sampled_from([".", ",", "\u066b"]),
    st.sampled_from(_DIGIT_ZEROS),
)
def test_a_decimal_fraction_with_any_mark_reads_as_its_value(whole, fraction, mark, zero):
    written = _in_script(f"{whole}{mark}{fraction:02d}", zero)
    expected = f"{whole}.{f'{fraction:02d}'.rstrip('0')}"
    assert expected in values(f"{written} °C").numbers


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(categories=["Nd"]), min_size=1, max_size=6))
def test_any_decimal_digit_of_any_script_is_a_digit(digits):
    plain = "".join(str(unicodedata.decimal(c)) for c in digits)
    assert (plain.lstrip("0") or "0") in number_readings(digits)


def test_the_first_reading_follows_the_writing():
    assert number_readings("1,317")[0] == "1317"
    assert number_readings("3,5")[0] == "3.5"
    assert number_readings("1.234,56")[0] == "1234.56"
    assert number_readings("1,234.56")[0] == "1234.56"
    assert number_readings("1,31,700")[0] == "131700"
    assert "1317" in number_readings("1.317") and "1.317" in number_readings("1.317")


@pytest.mark.parametrize(
    "word", ["தமிழ்நாடு", "বাংলাদেশ", "हिन्दी", "ภาษาไทย", "می\u200cکنم", "İstanbul"]
)
def test_a_word_keeps_its_combining_marks(word):
    found = values(f"{word}: 12").words
    assert any(word.lower() in w or w in word.lower() for w in found)
    # Split at a mark, a word would leave a piece made only of marks; none is left.
    assert all(not unicodedata.category(w[0]).startswith("M") for w in found)


@pytest.mark.parametrize(
    ("question", "language"),
    [("Is Paris warmer than London today?", "en"), ("北京和上海哪个更热？", "zh"),
     ("東京は大阪より暑いですか？", "ja"), ("서울 날씨 어때요?", "ko"),
     ("Est-ce qu'il pleut à Paris aujourd'hui ?", "fr"), ("В Москве сейчас теплее, чем в Париже?", "ru"),
     ("Ist es in Berlin wärmer als in Hamburg?", "de")],
)  # fmt: skip
def test_a_read_language_is_read(question, language):
    assert language_of(question) == language


@pytest.mark.parametrize(
    "question",
    ["أيهما أرخص من الرياض إلى الدمام: القطار أم الحافلة؟", "מה מזג האוויר בחיפה היום?",
     "दिल्ली का मौसम कैसा है?", "İstanbul'dan Ankara'ya hangisi daha ucuz?",
     "Jaka jest dzisiaj pogoda w Poznaniu?", "Яка погода в Києві та у Львові?",
     "Какво е времето в София днес?", "Τι καιρό κάνει στην Αθήνα;", "Is it hot?"],
)  # fmt: skip
def test_a_language_not_read_is_none_and_no_shape_is_guessed(question):
    assert language_of(question) is None
    assert shape_of(question) is None


@pytest.mark.parametrize(
    "text",
    ["Ticket #4411 closed; requester notified", "Kunde benachrichtigt.", "Zgłoszenie zamknięte",
     "تم إرسال الرسالة، رقم 5521", '{"state": "archived", "ref": "A-77"}', "[]", "R-204 ✓",
     "The call was received. (This test has no backend: there is no result to show.)"],
)  # fmt: skip
def test_a_receipt_in_any_language(text):
    assert is_receipt(text)


@pytest.mark.parametrize(
    "text",
    ["Offen sind 1.317 Bestellungen, storniert 42.", "Warszawa: 3,5 °C, pochmurno",
     '{"status": "open", "assignee": "maria"}', "[1, 2, 3]", "١٢٠ ريال"],
)  # fmt: skip
def test_data_is_no_receipt(text):
    assert not is_receipt(text)


def test_a_plan_in_a_language_not_read_is_left_as_words():
    tools = ["get_weather"]
    assert is_plan("I'll check the weather in Jakarta first.", tools)
    assert not is_plan("Saya akan memeriksa cuaca di Jakarta terlebih dahulu.", tools)
    # What needs no language is read in any: a call written out, a tool named.
    assert is_plan("Saya akan memanggil get_weather(Jakarta).", tools)
    # A reply too short to place goes by the question's language.
    assert is_plan("Let me check.", tools, question="What is the weather in Paris?")
    assert not is_plan("Sprawdzę.", tools, question="Jaka jest pogoda w Poznaniu?")
