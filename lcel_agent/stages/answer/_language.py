"""Which language a text is in, among the ones the answer rules read, or None.

The rules that need words to decide (is this question a yes/no or a choice, does it ask
for a quote, does this reply say what the model *will* do) read English, Chinese,
Japanese, Korean, French, German, Spanish, Portuguese, Italian and Russian. They act
only on a text :func:`language_of` places in one of those: in any other language, or
where it cannot tell, they do not fire, and the model's words stand::

    language_of("北京和上海哪个更热？")            # "zh": by script alone
    language_of("Is Paris warmer than London?")   # "en": by the identifier
    language_of("Hangisi daha ucuz: tren mi otobüs mü?")   # None: Turkish is not read

How it decides, cheapest first:

1. Han, kana and Hangul decide by script: any Hangul is Korean, any kana Japanese,
   else Chinese (a Latin tool name inside Chinese text does not change that).
2. Any other script but Latin and Cyrillic (Arabic, Hebrew, Devanagari, Thai, Greek,
   ...) is not read. Neither is a Latin or Cyrillic text with fewer than ten letters
   (identifiers guess on so little) nor one with a letter none of the read languages
   writes (Turkish ``ı``, Polish ``ł``, Ukrainian ``і``, ...).
3. What is left goes to py3langid (its model ships in the package, nothing is fetched),
   on the letters of its main script only, and is taken when it names a read language
   of that script with a probability of at least one half. On short Cyrillic text the
   identifier splits Russian, Bulgarian and Ukrainian about evenly, so there the words
   decide as well: Cyrillic text is Russian when the identifier says so with a
   probability of one half, or when it names one of the three and the text holds a
   letter only Russian writes (``ы``, ``э``, ``ё``) or one of its commonest words
   (``что``, ``сейчас``, ``чем``, ...); never with Bulgarian's vowel ``ъ`` or its
   commonest words (``е``, ``ще``, ``какво``, ``това``, ...).

Measured on 509 short questions in 30 languages and 147 more written afterwards: no
question in another language was taken for a read one, and 85-95 % of the read ones
were read (the rest stand as the model wrote them).

Plans (:mod:`._plans`) are read in more languages than the other rules: the ten, and
the :data:`PLAN_LANGUAGES`, placed by :func:`plan_language`, which answers as
:func:`language_of` does for a text in one of the ten and otherwise tries the others
(it never changes what :func:`language_of` says)::

    plan_language("Sprawdzę pogodę w Poznaniu.")     # "pl": by its letter ę
    plan_language("אבדוק את מזג האוויר בחיפה.")       # "he": by script alone
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache
from typing import Any

import regex

__all__ = [
    "PLAN_LANGUAGES",
    "READ_LANGUAGES",
    "could_be_read",
    "fits_language",
    "language_of",
    "main_script",
    "plan_language",
]

#: The languages whose words the answer rules read (ISO 639-1).
READ_LANGUAGES = ("en", "zh", "ja", "ko", "fr", "de", "es", "pt", "it", "ru")
_LATIN_READ = frozenset({"en", "fr", "de", "es", "pt", "it"})
#: Below this many letters a Latin or Cyrillic text is not placed (identifiers guess).
MIN_LETTERS = 10
_MIN_PROBABILITY = 0.5
#: py3langid 0.2's older model (the only one numpy < 2 allows, so the one on the article's
#: stack) is sure and wrong on short Turkish, Indonesian, Ukrainian and Swahili questions
#: (German 0.94-0.98, Italian 0.64, Russian 0.9988): with it only a near-certain guess places
#: a text, and the rest is not read (the model's words stand).
_OLD_MODEL_MIN_PROBABILITY = 0.999
_min_probability = _MIN_PROBABILITY
# Latin letters of the six read Latin-script languages; any other one names another language.
_LATIN_OK = frozenset("abcdefghijklmnopqrstuvwxyzàâäæçéèêëîïôöœùûüÿßáíñóúãõìò")
# Cyrillic letters Russian never writes (Ukrainian, Belarusian, Serbian, Kazakh, ...).
_CYRILLIC_NOT_RU = frozenset("іїєґўјљњћђџѓќѕәғқңөұүһ")
_CJK = frozenset({"han", "kana", "hangul"})
# Bulgarian, which the identifier takes for Russian and back: its vowel ъ (Russian writes ъ
# only before е, ё, ю, я) and words Russian does not have.
_BULGARIAN = regex.compile(
    r"ъ(?![еёюя])|\b(?:е|ще|са|съм|сме|сте|какво|къде|кога|защо|това|тази|този|тези|сега|"
    r"днес|който|която|които|със|във|си|има ли|няма)\b",
    regex.IGNORECASE,
)
# Russian's own letters and commonest words that its neighbours write otherwise.
_RUSSIAN = regex.compile(
    r"[ыэё]|\b(?:что|чем|сейчас|сегодня|это|как|какой|какая|какое|какие|где|когда|почему|"
    r"или|есть|нет|если|уже|только|можно|нужно|пожалуйста|сколько|который|которая)\b",
    regex.IGNORECASE,
)


@lru_cache(maxsize=4096)
def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    if name.startswith(("LATIN", "FULLWIDTH LATIN")):
        return "latin"
    if name.startswith("CYRILLIC"):
        return "cyrillic"
    if name.startswith(("CJK", "IDEOGRAPHIC")):
        return "han"
    if name.startswith(("HIRAGANA", "KATAKANA", "HALFWIDTH KATAKANA")):
        return "kana"
    if name.startswith(("HANGUL", "HALFWIDTH HANGUL")):
        return "hangul"
    return "other"


def main_script(text: str) -> str | None:
    """The script most of ``text``'s letters are in (``latin``, ``cyrillic``, ``han``,
    ``kana``, ``hangul`` or ``other``), or None for a text without letters."""
    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = _script(char)
            counts[script] = counts.get(script, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else None


def could_be_read(text: str) -> bool:
    """Whether ``text`` is written only in letters some read language writes (a text too
    short for the identifier to place may then be read in the question's language, or
    in its own script's): no letter of another script or alphabet."""
    script = main_script(text)
    if script is None:
        return False
    if script in _CJK:
        return True
    letters = [c for c in text.lower() if c.isalpha()]
    if script == "latin":
        return all(c in _LATIN_OK for c in letters)
    if script == "cyrillic":
        return not any(c in _CYRILLIC_NOT_RU or _script(c) != "cyrillic" for c in letters)
    return False


_identifier: Any = None
_identifier_lock = threading.Lock()


def _model() -> Any:
    """py3langid's identifier, loaded once (about 0.4 s)."""
    global _identifier
    if _identifier is None:
        with _identifier_lock:
            if _identifier is None:
                from py3langid.langid import MODEL_FILE, LanguageIdentifier

                # py3langid 0.3+ needs numpy 2, which the article's stack (langchain 0.3.7)
                # refuses: there pip gives 0.2.2, whose loader has the older name.
                load = getattr(LanguageIdentifier, "from_model_file", None)
                if load is None:
                    global _min_probability
                    load = LanguageIdentifier.from_pickled_model
                    _min_probability = _OLD_MODEL_MIN_PROBABILITY
                _identifier = load(MODEL_FILE, norm_probs=True)
    return _identifier


def older_model() -> bool:
    """Whether the identifier is py3langid 0.2's older model (numpy < 2: the article's
    stack), with which fewer texts are placed (see ``_OLD_MODEL_MIN_PROBABILITY``)."""
    _model()
    return _min_probability != _MIN_PROBABILITY


def _identify(text: str) -> tuple[str, float]:
    """py3langid's guess and its probability."""
    language, probability = _model().classify(text)
    return str(language), float(probability)


@lru_cache(maxsize=1024)
def language_of(text: str) -> str | None:
    """The read language ``text`` is in (see :data:`READ_LANGUAGES`), or None."""
    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = _script(char)
            counts[script] = counts.get(script, 0) + 1
    if not counts:
        return None
    cjk = sum(counts.get(s, 0) for s in _CJK)
    if cjk and 3 * cjk >= sum(counts.values()) - cjk:
        if counts.get("hangul", 0) >= max(counts.get("kana", 0), 1):
            return "ko"
        return "ja" if counts.get("kana", 0) else "zh"
    script = max((s for s in counts if s not in _CJK), key=counts.__getitem__)
    if script not in ("latin", "cyrillic") or counts[script] < MIN_LETTERS:
        return None
    lowered = text.lower()
    letters = (c for c in lowered if c.isalpha() and _script(c) == script)
    if script == "latin" and any(c not in _LATIN_OK for c in letters):
        return None
    if script == "cyrillic" and any(c in _CYRILLIC_NOT_RU for c in letters):
        return None
    # The identifier sees the main script only: "Is 北京 colder?" is English.
    kept = "".join(c if not c.isalpha() or _script(c) == script else " " for c in text)
    kept = " ".join(kept.split())
    language, probability = _identify(kept.lower() if kept.isupper() else kept)
    if script == "cyrillic":
        if _BULGARIAN.search(lowered):
            return None
        sure = language == "ru" and probability >= _min_probability
        likely = language in ("ru", "bg", "uk") and _RUSSIAN.search(lowered) is not None
        return "ru" if sure or likely else None
    if probability >= _min_probability and language in _LATIN_READ:
        return language
    return None


# --- Plans' languages -------------------------------------------------------------------

#: The languages plans are read in besides :data:`READ_LANGUAGES` (ISO 639-1; ``id`` is
#: Indonesian and Malay, which write their plans alike).
PLAN_LANGUAGES = (
    "ar", "he", "hi", "bn", "ta", "th", "tr", "vi", "id", "pl", "sw", "fa", "el", "nl", "uk", "cs", "ur",
)  # fmt: skip
# A script only one plan language writes, or the first of those that share it.
_BY_SCRIPT = {"hebrew": "he", "thai": "th", "greek": "el", "tamil": "ta", "bengali": "bn"}
# What names another language of a shared script: Yiddish's ligatures and pointed alef
# (modern Hebrew prose is written without points), Assamese's ra and wa.
_YIDDISH = regex.compile("[\u05f0-\u05f2\ufb2e\ufb2f]|\u05d0[\u05b7\u05b8]")
_NOT_BENGALI = frozenset("ৰৱ")
# A mark left over after NFC on a Latin letter: Vietnamese composes every letter it writes
# (Yoruba's ọ̀ does not compose, and its ọ is Vietnamese's too).
_LOOSE_MARK = regex.compile(r"\p{Latin}\p{Mn}")
# Hindi's commonest words, which Marathi and Nepali (also in Devanagari) write otherwise.
_HINDI = regex.compile(r"(?<!\w)(?:है|हैं|मैं|में|का|की|के|नहीं|हूँ|हूं|और|पहले|मुझे)(?!\w)")
# Arabic script: the letters Urdu writes and Persian does not, then Persian's (Urdu's too);
# a letter of neither nor Arabic (Pashto, Kurdish, Sindhi, Uyghur, ...) places nothing.
_URDU = frozenset("ٹڈڑںےھہۓ")
_PERSIAN = frozenset("پچژگیک")
_ARABIC_LETTERS = frozenset("ءآأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوىيـ") | _URDU | _PERSIAN
# Cyrillic: Ukrainian's alphabet, and the letters only it writes among its neighbours.
_UKRAINIAN = frozenset("абвгґдеєжзиіїйклмнопрстуфхцчшщьюя")
_UKRAINIAN_OWN = frozenset("ієїґ")
_ASCII = "abcdefghijklmnopqrstuvwxyz"
# Latin script: each language's alphabet (with the accents of its loanwords), and the
# letters that, in a text written only in its alphabet, name it.
_LATIN_ALPHABETS = {
    "tr": frozenset(_ASCII + "çğıöşüâîû"),
    "pl": frozenset(_ASCII + "ąćęłńóśźż"),
    "cs": frozenset(_ASCII + "áčďéěíňóřšťúůýž"),
    "vi": frozenset(_ASCII + "àáâãèéêìíòóôõùúýăđĩũơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ"),
    "nl": frozenset(_ASCII + "áéíóúàèëïöüç"),
    "id": frozenset(_ASCII + "é"),
    "sw": frozenset(_ASCII),
}
_LATIN_OWN = {
    "tr": frozenset("ığş"),
    "pl": frozenset("ąęłśźżń"),  # not ć: Croatian, Serbian and Bosnian write it too
    "cs": frozenset("řěů"),
    "vi": _LATIN_ALPHABETS["vi"] - frozenset(_ASCII + "àáâãèéêìíòóôõùúý"),
}
# py3langid's names for the plan languages it tells apart (Malay is read as Indonesian).
_IDENTIFIED = {"tr": "tr", "pl": "pl", "cs": "cs", "vi": "vi", "nl": "nl", "id": "id", "ms": "id",
               "sw": "sw", "uk": "uk"}  # fmt: skip


@lru_cache(maxsize=4096)
def _plan_script(char: str) -> str:
    """A letter's script, by the first word of its name (``arabic``, ``thai``, ...)."""
    script = _script(char)
    if script != "other":
        return script
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0].lower() if name else "other"


def _scripts(text: str) -> dict[str, list[str]]:
    letters: dict[str, list[str]] = {}
    for char in unicodedata.normalize("NFC", text).lower():
        if char.isalpha():
            letters.setdefault(_plan_script(char), []).append(char)
    return letters


def _identified(text: str, script: str) -> dict[str, float]:
    """py3langid's probability of each plan language, on ``text``'s letters of ``script``."""
    kept = "".join(c if not c.isalpha() or _plan_script(c) == script else " " for c in text)
    ranked: dict[str, float] = {}
    for language, probability in _model().rank(" ".join(kept.split())[:1000])[:8]:
        code = _IDENTIFIED.get(str(language), str(language))
        ranked[code] = ranked.get(code, 0.0) + float(probability)
    return ranked


def _sure(ranked: dict[str, float], language: str) -> bool:
    return ranked.get(language, 0.0) >= _min_probability


def _latin(text: str, letters: list[str]) -> str | None:
    seen = set(letters)
    fitting = [lang for lang, alphabet in _LATIN_ALPHABETS.items() if seen <= alphabet]
    for language in fitting:
        if seen & _LATIN_OWN.get(language, frozenset()):
            if language == "vi" and _LOOSE_MARK.search(unicodedata.normalize("NFC", text)):
                return None
            return language  # letters only it writes, among the languages this alphabet fits
    if len(letters) < MIN_LETTERS:
        return None
    ranked = _identified(text, "latin")
    return next((lang for lang in fitting if _sure(ranked, lang)), None)


def _arabic(text: str, letters: list[str]) -> str | None:
    seen = set(letters)
    if not seen <= _ARABIC_LETTERS:
        return None
    if seen & _URDU:
        return "ur"
    if seen & _PERSIAN:
        return "fa"
    ranked = _identified(text, "arabic")
    return max(("ar", "fa", "ur"), key=lambda lang: ranked.get(lang, 0.0))


def _cyrillic(text: str, letters: list[str]) -> str | None:
    seen = set(letters)
    if not seen <= _UKRAINIAN:
        return None  # ы, э, ё, ъ, ў, ... name Russian, Belarusian, Bulgarian, ...
    if seen & _UKRAINIAN_OWN:
        return "uk"
    if len(letters) < MIN_LETTERS:
        return None
    return "uk" if _sure(_identified(text, "cyrillic"), "uk") else None


@lru_cache(maxsize=1024)
def plan_language(text: str) -> str | None:
    """The language ``text`` is in, among :data:`READ_LANGUAGES` and
    :data:`PLAN_LANGUAGES`, or None.

    A text :func:`language_of` places is in that language. Otherwise, by its main script:
    Hebrew, Thai, Greek, Tamil and Bengali name their language; Devanagari is Hindi when
    it writes one of Hindi's commonest words or the identifier says so (not Marathi or
    Nepali); Arabic script is Urdu with a letter only Urdu writes (``ٹ ڈ ڑ ں ے ھ``),
    else Persian with one of Persian's (``پ چ ژ گ ی ک``), else what the identifier
    prefers among Arabic, Persian and Urdu. Cyrillic is Ukrainian when written in its
    alphabet with one of ``і ї є ґ``, or when the identifier is sure. Latin is Turkish,
    Polish, Czech or Vietnamese by their own letters (``ı ğ ş``, ``ł ą ę ...``,
    ``ř ě ů``, ``ư ơ ă đ`` and the tones), and otherwise what the identifier says with a
    probability of one half, when the text is written in that language's alphabet.
    """
    read = language_of(text)
    if read is not None:
        return read
    letters = _scripts(text)
    if not letters:
        return None
    script = max(letters, key=lambda s: len(letters[s]))
    mine = letters[script]
    if script in _BY_SCRIPT:
        if (script == "hebrew" and _YIDDISH.search(text)) or _NOT_BENGALI.intersection(mine):
            return None
        return _BY_SCRIPT[script]
    if script == "devanagari":
        if _HINDI.search(text) or _sure(_identified(text, script), "hi"):
            return "hi"
        return None
    if script == "arabic":
        return _arabic(text, mine)
    if script == "cyrillic":
        return _cyrillic(text, mine)
    return _latin(text, mine) if script == "latin" else None


def fits_language(text: str, language: str) -> bool:
    """Whether ``text`` is written only in letters ``language`` writes (a reply too short
    to place may then be read in the question's language)."""
    letters = _scripts(text)
    if len(letters) != 1:
        return False
    ((script, mine),) = letters.items()
    seen = set(mine)
    if language in _LATIN_ALPHABETS:
        return script == "latin" and seen <= _LATIN_ALPHABETS[language]
    if language == "uk":
        return script == "cyrillic" and seen <= _UKRAINIAN
    if language in ("ar", "fa", "ur"):
        return script == "arabic" and seen <= _ARABIC_LETTERS
    wanted = {"hi": "devanagari", **{lang: s for s, lang in _BY_SCRIPT.items()}}
    return wanted.get(language) == script
