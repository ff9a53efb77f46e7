"""The scenarios of a result larger than the window: twelve listings, each with its question.

Each :class:`Scenario` is a question, one tool whose result is a long listing (60-300
lines: TSV, a JSON array on one line or pretty-printed, plain lines, a log; ten
languages), and the item the next call needs: at the head, at the tail, in the middle
named by the question's words, or in the middle and not named. ``oversized_support.py``
plays them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    """A question, a listing tool's result, and the item the next call needs from it."""

    id: str
    lang: str
    shape: str
    where: str
    """``head``, ``tail``, ``named`` (in the middle, named by the question's words), ``middle``."""
    question: str
    result: str
    needs: str
    follow: str
    """The tool the next call uses (its one argument is ``needs``)."""


def _tsv_de() -> Scenario:
    first = ["Anna", "Jonas", "Lea", "Lukas", "Mia", "Felix", "Emma", "Paul", "Hanna"]
    last = ["Müller", "Schäfer", "Weiß", "Köhler", "Groß", "Bäcker", "Hoffmann"]
    rows = ["kunde\tname\tangelegt\tort"]
    for i in range(90):
        name = f"{first[i % 9]} {last[i % 7]}"
        rows.append(f"D-{3000 + i}\t{name}\t2025-{i // 8 + 1:02d}-{i % 8 * 3 + 1:02d}\tKöln")
    return Scenario(
        "tsv-de-tail",
        "de",
        "tsv",
        "tail",
        "Öffne den zuletzt angelegten Kunden und nenne seinen Kontostand.",
        "\n".join(rows),
        "D-3089",
        "get_customer",
    )


def _json_es() -> Scenario:
    things = ["Taza", "Plato", "Jarra", "Cuenco", "Vaso", "Bandeja", "Olla", "Sartén"]
    colours = ["Roja", "Verde", "Blanca", "Negra", "Gris", "Amarilla"]
    items = [
        {"id": f"P-{400 + i}", "nombre": f"{things[i % 8]} {colours[i % 6]}", "stock": i % 17}
        for i in range(120)
    ]
    items[71]["nombre"] = "Tetera Azul Cobalto"
    return Scenario(
        "json-es-named",
        "es",
        "json",
        "named",
        "¿Cuánto cuesta la tetera azul cobalto? Abre su ficha.",
        json.dumps(items, ensure_ascii=False),
        "P-471",
        "get_product",
    )


_HI_CITIES = ["मुंबई", "पुणे", "जयपुर", "लखनऊ", "भोपाल", "पटना", "इंदौर", "नागपुर", "कानपुर"]


def _lines_hi_head() -> Scenario:
    files = [
        f"रिपोर्ट_{_HI_CITIES[i % 9]}_2026-{i // 28 + 1:02d}-{i % 28 + 1:02d}.csv" for i in range(80)
    ]
    return Scenario(
        "lines-hi-head",
        "hi",
        "lines",
        "head",
        "सबसे पुरानी फ़ाइल खोलो और उसका कुल योग बताओ।",
        "\n".join(files),
        files[0],
        "read_file",
    )


def _lines_hi_named() -> Scenario:
    files = [f"रिपोर्ट_{_HI_CITIES[i % 9]}_{i:03d}.csv" for i in range(110)]
    files[63] = "रिपोर्ट_दिल्ली_063.csv"
    return Scenario(
        "lines-hi-named",
        "hi",
        "lines",
        "named",
        "दिल्ली वाली रिपोर्ट खोलो और कुल बताओ।",
        "\n".join(files),
        files[63],
        "read_file",
    )


def _log_en() -> Scenario:
    jobs = ["mailer", "indexer", "billing-sync", "thumbnailer", "backup"]
    lines = [
        f"2026-03-04T{8 + i // 60:02d}:{i % 60:02d}:00Z INFO {jobs[i % 5]}: batch {i} done in {i % 9 + 1}s"
        for i in range(200)
    ]
    lines[131] = "2026-03-04T10:11:00Z ERROR payment-worker: timeout after 30s, trace=7f3a9c"
    return Scenario(
        "log-en-named",
        "en",
        "log",
        "named",
        "Why did the payment job time out? Open its trace.",
        "\n".join(lines),
        "7f3a9c",
        "get_trace",
    )


def _tsv_ru() -> Scenario:
    names = ["Иванов", "Петрова", "Смирнов", "Кузнецова", "Попов", "Соколова", "Лебедев"]
    rows = ["заказ\tклиент\tсумма"]
    for i in range(150):
        rows.append(f"З-{7000 + i}\t{names[i % 7]}\t{(i * 37) % 900 + 100}")
    rows[76] = "З-7075\tВасильева\t98 500"
    return Scenario(
        "tsv-ru-middle",
        "ru",
        "tsv",
        "middle",
        "Открой заказ с наибольшей суммой и скажи, кто его оформил.",
        "\n".join(rows),
        "З-7075",
        "get_order",
    )


def _lines_zh() -> Scenario:
    topics = ["降雨", "高温", "大风", "寒潮", "雾霾", "沙尘", "冰雹", "雷电"]
    lines = [f"2026年第{i + 1}期{topics[i % 8]}天气简报（编号 W{500 + i}）" for i in range(120)]
    lines[58] = "2026年第59期台风登陆天气简报（编号 W558）"
    return Scenario(
        "lines-zh-named",
        "zh",
        "lines",
        "named",
        "打开台风登陆那一期简报，告诉我要点。",
        "\n".join(lines),
        "W558",
        "open_report",
    )


def _json_ta() -> Scenario:
    towns = ["சென்னை", "மதுரை", "கோவை", "சேலம்", "திருச்சி", "வேலூர்"]
    items = [
        {
            "பதிவு": f"T-{900 + i}",
            "ஊர்": towns[i % 6],
            "நாள்": f"2026-{i // 5 + 1:02d}-{i % 5 * 6 + 1:02d}",
        }
        for i in range(60)
    ]
    return Scenario(
        "json-ta-tail",
        "ta",
        "json",
        "tail",
        "சமீபத்திய பதிவைத் திறந்து அதன் விவரங்களைச் சொல்.",
        json.dumps(items, ensure_ascii=False),
        "T-959",
        "get_record",
    )


def _log_ja() -> Scenario:
    lines = [
        f"2026-05-{i // 24 + 1:02d} {i % 24:02d}:00 ジョブ J{1000 + i} 完了（{i % 7 + 1}件処理）"
        for i in range(300)
    ]
    return Scenario(
        "log-ja-tail",
        "ja",
        "log",
        "tail",
        "最新のジョブの詳細を開いてください。",
        "\n".join(lines),
        "J1299",
        "get_job",
    )


def _lines_bn() -> Scenario:
    towns = ["ঢাকা", "চট্টগ্রাম", "রাজশাহী", "সিলেট", "বরিশাল", "রংপুর", "কুমিল্লা"]
    files = [f"প্রতিবেদন_{towns[i % 7]}_{i:03d}.csv" for i in range(100)]
    files[47] = "প্রতিবেদন_খুলনা_047.csv"
    return Scenario(
        "lines-bn-named",
        "bn",
        "lines",
        "named",
        "খুলনার প্রতিবেদনটি খুলে মোট কত বলো।",
        "\n".join(files),
        files[47],
        "read_file",
    )


def _tsv_ar() -> Scenario:
    rows = ["الفاتورة\tالعميل\tالتاريخ"]
    clients = ["سارة", "خالد", "مريم", "يوسف", "ليلى", "عمر"]
    for i in range(70):
        rows.append(f"F-{2000 + i}\t{clients[i % 6]}\t2024-{i // 6 + 1:02d}-{i % 6 * 5 + 1:02d}")
    return Scenario(
        "tsv-ar-head",
        "ar",
        "tsv",
        "head",
        "افتح أقدم فاتورة وأخبرني بمبلغها.",
        "\n".join(rows),
        "F-2000",
        "get_invoice",
    )


def _json_pretty_en() -> Scenario:
    titles = ["Printer jam", "VPN drops", "Laptop slow", "Password reset", "Monitor flicker"]
    tickets = [{"ticket": f"T{5100 + i}", "title": f"{titles[i % 5]} #{i}"} for i in range(64)]
    tickets[37]["title"] = "Broken elevator on floor 3"
    return Scenario(
        "json-pretty-en-named",
        "en",
        "pretty JSON",
        "named",
        "Open the ticket about the broken elevator and tell me who reported it.",
        json.dumps(tickets, indent=2),
        "T5137",
        "get_ticket",
    )


SCENARIOS: tuple[Scenario, ...] = (
    _tsv_de(),
    _json_es(),
    _lines_hi_head(),
    _lines_hi_named(),
    _log_en(),
    _tsv_ru(),
    _lines_zh(),
    _json_ta(),
    _log_ja(),
    _lines_bn(),
    _tsv_ar(),
    _json_pretty_en(),
)
