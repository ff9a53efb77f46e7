"""The answer rules one by one: values, question shapes, plans, receipts, echoes.

The suite (``test_answers.py``) checks what whole runs end with; these check the pieces
the stage decides by, with hypothesis where a property holds for any input.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lcel_agent.stages.answer import asks_verbatim, copies, is_plan, is_receipt, shape_of
from lcel_agent.stages.answer._echo import WINDOW, copied_share
from lcel_agent.stages.answer._values import number_key, values


@pytest.mark.parametrize(
    ("text", "number"),
    [("1,317", "1317"), ("1317.0", "1317"), ("1317", "1317"), ("-5", "5"), ("−5", "5"),
     ("0.50", "0.5"), ("007", "7"), ("1\u202f250\u202f000", "1250000")],
)  # fmt: skip
def test_a_number_is_its_digits(text, number):
    assert number_key(text) == number


def test_values_read_every_script_and_every_number_format():
    found = values("Москва: снег, −5 °C; 北京晴，温度29℃; São Paulo 1 250 000 €; ４２")
    assert {"москва", "снег", "são", "paulo"} <= found.words
    assert {"北京", "京晴", "温度"} <= found.words  # unspaced script, by pairs
    assert {"5", "29", "1250000", "250000", "42"} <= found.numbers  # full-width 42 too


@pytest.mark.parametrize(
    "question",
    ["Is Paris warmer than London right now?", "北京和上海哪个更热？", "上海今天下雨吗？",
     "Which city is warmer, Paris or London?", "Est-ce qu'il pleut à Paris ?",
     "東京は大阪より暑いですか？", "В Москве сейчас теплее, чем в Париже?"],
)  # fmt: skip
def test_a_decision(question):
    assert shape_of(question) == "decision"


@pytest.mark.parametrize(
    "question",
    ["查询北京和上海今天的天气，然后百度搜索“台风最新路径”，最后总结这两条信息",
     "Can you check the weather in Beijing and Shanghai?", "你能帮我查一下北京天气吗？",
     "How many open and closed tickets are there?", "Какая погода в Москве и Казани?",
     "What's the weather in Paris, London and Berlin?", "List the files in /srv/logs."],
)  # fmt: skip
def test_a_report(question):
    assert shape_of(question) == "report"


def test_a_quote_asked_for():
    assert asks_verbatim("Quote the first line of poem.txt exactly.")
    assert asks_verbatim("原文引用 notes.txt 的第一行。")
    assert not asks_verbatim("What does poem.txt say?")


TOOLS = ["get_weather", "search_baidu", "read"]


@pytest.mark.parametrize(
    "text",
    ["I'll check the weather in Shanghai next.", "接下来我要查询上海的天气。",
     "Je vais maintenant vérifier la météo à Shanghai.", "Сейчас я проверю погоду.",
     "次に上海の天気を確認します。", "Ich werde jetzt das Wetter prüfen.",
     "get_weather(上海)", "get_weather: 上海", "Next I need search_baidu.", "Let me `read` it.",
     "Let me think about what to do next.", "Je vérifierai la météo à Lyon.",
     "Buscaré los horarios de los trenes.", "Verificarei o tempo em Lisboa.",
     "Ich schaue gleich im Fahrplan nach."],
)  # fmt: skip
def test_a_plan(text):
    assert is_plan(text, TOOLS, called={"get_weather"})


@pytest.mark.parametrize(
    "text",
    ["北京今天晴，29℃。", "Yes - Paris is warmer than London right now.", "DONE",
     "I've sent the email to Bob.", "Let me know if you need anything else.",
     "I read the file: it has 42 lines.", "The weather tool says Paris is sunny.",
     "Ho controllato: il treno parte alle 8.", "Controllerò anche Roma?",
     "Ich habe im Fahrplan nachgesehen: der Zug fährt um 8."],
)  # fmt: skip
def test_not_a_plan(text):
    assert not is_plan(text, TOOLS, called={"get_weather"})


def test_an_agent_without_tools_has_nothing_to_plan():
    assert not is_plan("I'll check the weather first.", [], called=set())


@pytest.mark.parametrize(
    "text",
    ["queued: message id 5521", '{"status": "ok", "id": 5521}', '{"success": true, "ticket_id": 8812}',
     "已发送，邮件编号 5521", "réservé : confirmation AF7731", "予約完了: R-204", "deleted a.txt",
     "null", "{}", "Your message has been sent successfully."],
)  # fmt: skip
def test_a_receipt(text):
    assert is_receipt(text)


@pytest.mark.parametrize(
    "text",
    ["Python 3.14 is scheduled for 7 October 2025.", "count\n42", "北京：晴，29℃",
     '{"status": "open", "assignee": "maria"}', "booked 3 rooms at 120 EUR each"],
)  # fmt: skip
def test_not_a_receipt(text):
    assert not is_receipt(text)


# --- echoes: linear, and exact about stretches of 24 characters -------------------------

RECORDS = [
    "北京市（北京，adcode 110000）实时天气：晴，温度29℃（29.0），湿度40%",
    "上海市（上海，adcode 310000）实时天气：小雨，温度17℃（17.0），湿度81%",
]


def test_records_copied_out_are_an_echo_and_sentences_reused_are_not():
    assert copies("\n".join(RECORDS), RECORDS)
    pages = ["Version 2.4 adds offline mode and a new cache.", "Version 3.0 is due in May."]
    assert not copies("Version 2.4 adds offline mode and a new cache; 3.0 is due in May.", pages)
    hits = '[{"title": "Typhoon Kong-rey nears Taiwan, 320 km off the coast", "link": "x"}]'
    assert not copies(
        'The top story: "Typhoon Kong-rey nears Taiwan, 320 km off the coast".', [hits]
    )
    assert copies(
        '{"title": "Typhoon Kong-rey nears Taiwan, 320 km off the coast", "link": "x"}', [hits]
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(min_value=WINDOW, max_value=80), min_size=1, max_size=4),
    st.integers(min_value=0, max_value=10_000),
)
def test_every_copied_stretch_is_found_wherever_it_sits(lengths, seed):
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyz北京上海晴雨0123456789"
    source = "".join(rng.choice(alphabet) for _ in range(600))
    pieces, copied = [], 0
    for length in lengths:
        start = rng.randrange(0, len(source) - length)
        pieces.append(source[start : start + length])
        copied += length
        pieces.append("|" * rng.randint(1, 5))  # filler no result holds
    share, sources = copied_share("".join(pieces), [source])
    written = sum(len(p) for p in pieces)
    assert sources == 1
    assert share == pytest.approx(copied / written)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="xyz|#", min_size=30, max_size=200))
def test_nothing_copied_is_no_share(answer):
    share, sources = copied_share(answer, ["abcdefghijklmnopqrstuvwxyz0123456789" * 3])
    assert (share, sources) == (0.0, 0)
