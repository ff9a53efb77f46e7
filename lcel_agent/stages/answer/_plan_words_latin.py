"""The words plans are read by in the Latin-script plan languages: Turkish, Vietnamese,
Indonesian and Malay, Polish, Swahili, Dutch and Czech (how, :mod:`._plan_lexicon`)."""

from __future__ import annotations

from ._plan_lexicon import WORD_END as _E
from ._plan_lexicon import WORD_START as _B
from ._plan_lexicon import Lexicon, any_of, both, lexicon, near, nfc

__all__ = ["LATIN"]


def _turkish(text: str) -> str:
    # Turkish's capitals: I is ı's, İ is i's (str.lower would make İ an i and a dot).
    return nfc(text).replace("İ", "i").replace("I", "ı")


# Turkish: the act verb's stem with 1sg future -(y)AcAğIm, optative -(y)AyIm / 1pl -(y)AlIm,
# or the present -iyorum said of what comes next ("hemen bakıyorum").
_TR_C = any_of("bak", "bul", "sor", "öğren", "araştır", "çağır", "getir", "kullan", r"göz\s+at", "aç",
             r"kontrol\s+ed", r"teyit\s+ed", r"check\s+ed", r"göz\s+gezdir")  # fmt: skip
_TR_V = any_of(
    "ara", "sorgula", "incele", "doğrula", "tara", "hesapla", "yokla", "denetle", "doğrula", "oku"
)
# "I need to look": the verbal noun with 1sg -m and gerek/lazım ("bakmam gerekiyor").
_TR_NEED = any_of("bak", "bul", "sor", "öğren", "araştır", "aç", "oku", "ara", "sorgula", "incele", "doğrula",
                  r"kontrol\s+et", r"teyit\s+et", r"gözden\s+geçir")  # fmt: skip
_TR = [
    _B
    + rf"(?:{_TR_C}(?:acağım|eceğim|ayım|eyim|alım|elim)|{_TR_V}(?:yacağım|yeceğim|yayım|yeyim|yalım|yelim)"
    r"|bakıyorum|arıyorum|araştırıyorum|kontrol\s+ediyorum|sorguluyorum|inceliyorum)" + _E,
    _B + rf"{_TR_NEED}m[ae]m\s+(?:gerek\w*|lazım)" + _E,
    _B + r"(?:arama|araştırma|kontrol|sorgu|sorgulama|inceleme)\s+yap(?:acağım|ayım|alım)" + _E,
]
_TR_UNLESS = _B + r"(?:ister(?:se|sen|seniz|siniz)|dilerseniz|eğer|arzu\s+ederseniz)" + _E

# Vietnamese: "tôi sẽ", "để tôi", "tôi cần", "chúng ta hãy" within three words of an act verb.
# A subject pronoun opens its clause: after a stop, a comma or a linking word, never after
# a noun it would then own ("đồng nghiệp của tôi sẽ kiểm tra": my colleague will check).
_VI_OPENS = (
    r"(?:^|(?<=[,;:.!?]\s*)|(?<=(?:^|\s)(?:bây giờ|giờ|giờ thì|trước tiên|trước hết|đầu tiên|tiếp theo|sau đó"
    r"|rồi|vậy|vậy thì|nên|thì|ok|okay|vâng|dạ|được rồi|được|và|nhưng|xong|ngay bây giờ)\s+))"
)
_VI_INTENT = (
    rf"(?:{_VI_OPENS}(?:tôi|mình|em|tớ|chúng tôi|chúng mình)\s+(?:sẽ|cần|phải|xin|đi|muốn)"
    r"|"
    + _B
    + r"(?:(?:để|hãy để|cho)\s+(?:tôi|mình|em|tớ)|(?:chúng ta|chúng mình|mình|ta)\s+(?:hãy|cùng)|hãy\s+cùng))"
)
_VI_ACT = any_of("kiểm tra", "tìm kiếm", "tìm", "tra cứu", "tra", "xem", "gọi", "lấy", "dùng", "sử dụng",
               "truy vấn", "hỏi", "xác minh", "tham khảo", "mở", "đọc") + _E  # fmt: skip
_VI = [near(_VI_INTENT, _VI_ACT, 3)]
_VI_UNLESS = _B + r"(?:nếu|sẽ không|không thể|chưa thể|có muốn|có cần)" + _E

# Indonesian and Malay: "saya akan", "biar saya", "mari kita" within three words of an act
# verb, and "saya cek dulu" (I'll just check).
_ID_ACT = any_of(
    "memeriksa", "periksa", "mengecek", "cek", "check", "mencari", "cari", "mencarikan", "carikan",
    "melihat", "lihat", "menelusuri", "telusuri", "memanggil", "panggil", "menggunakan", "gunakan",
    "memakai", "pakai", "mengambil", "ambil", "mendapatkan", "dapatkan", "menanyakan", "tanyakan",
    "menyemak", "semak", "meninjau", "tinjau", "memastikan", "pastikan", "mengakses", "akses",
    "membuka", "buka", "membaca", "baca",
) + _E  # fmt: skip
# As in Vietnamese, the subject opens its clause ("rekan saya akan memeriksa": my colleague).
_ID_OPENS = (
    r"(?:^|(?<=[,;:.!?]\s*)|(?<=(?:^|\s)(?:sekarang|kemudian|lalu|selanjutnya|pertama|pertama-tama|oke|ok|baik"
    r"|baiklah|nah|jadi|maka|setelah\s+itu|sebentar|dan|tapi|namun|kalau\s+begitu|ya|sip|siap|dulu)\s+))"
)
_ID_INTENT = (
    rf"(?:{_ID_OPENS}(?:saya|aku|kami|gue|gua)\s+(?:akan|perlu|harus|mau|ingin|hendak|coba|cuba|nak)"
    r"|" + _B + r"(?:biar|biarkan|izinkan|ijinkan|mari|ayo|coba)\s+(?:saya|aku|kami|kita|gue))"
)
_ID = [
    near(_ID_INTENT, _ID_ACT, 3),
    _ID_OPENS
    + r"(?:saya|aku)\s+(?:cek|periksa|cari|lihat|semak)(?:kan)?\s+(?:dulu|dahulu|sebentar|sekarang)"
    + _E,
]
_ID_UNLESS = (
    _B + r"(?:jika|kalau|bila|apabila|seandainya|andai|tidak\s+akan|tak\s+akan|apakah)" + _E
)

# Polish: 1sg perfective future (a future by its form), "let's" (sprawdźmy), and "I must /
# I intend to / let me" with an act infinitive.
_PL_INFINITIVE = any_of(
    "sprawdzić", "poszukać", "wyszukać", "znaleźć", "odszukać", "użyć", "wywołać", "pobrać",
    "zapytać", "odczytać", "otworzyć", "obliczyć", "zajrzeć", "ustalić", "zweryfikować",
    "skorzystać", "przejrzeć", r"dowiedzieć\s+się", "szukać", "sprawdzać", "wyszukiwać",
) + _E  # fmt: skip
_PL = [
    _B + r"(?<!\bnie\s)(?:sprawdzę|poszukam|wyszukam|znajdę|odnajdę|odszukam|użyję|wywołam|pobiorę|"
    r"zapytam|odczytam|otworzę|przeliczę|obliczę|zajrzę|spojrzę|zerknę|ustalę|zweryfikuję|skorzystam|"
    r"przejrzę|zobaczę|dowiem\s+się|sprawdźmy|poszukajmy|zobaczmy|wyszukajmy|sprawdzimy|poszukamy|"
    r"zajrzyjmy)" + _E,
    near(
        _B
        + r"(?:muszę|powinienem|powinnam|zamierzam|chcę|spróbuję|będę|pozwól(?:cie)?\s+mi|daj(?:cie)?\s+mi)",
        _PL_INFINITIVE,
        3,
    ),
]
_PL_UNLESS = _B + r"(?:jeśli|jeżeli|gdyby|o\s+ile)" + _E

# Swahili: ni-/tu-ta- (future) on an act verb, with an object marker or none; ngoja/hebu
# ni-...-e (let me); tu-...-e (let's).
_SW_OBJ = "(?:ku|mw|m|ki|vi|li|ya|zi|wa|i|u)?"
_SW_ACT = any_of("angalia", "tafuta", "tafutia", "kagua", "chunguza", "pata", "uliza", "hakiki",
               "hakikisha", "tazama", "soma", "fungua", "thibitisha", "ita", "pigia", "fuatilia")  # fmt: skip
_SW_SUBJ = any_of("angalie", "tafute", "kague", "chunguze", "tumie", "pate", "ulize", "hakikishe",
                "tazame", "fungue", "thibitishe", "fuatilie")  # fmt: skip
_SW = [
    _B + rf"(?:ni|tu)ta(?:{_SW_OBJ}{_SW_ACT}|tumia|linganisha|piga\s+simu)" + _E,
    _B + rf"(?:ngoja|ngojeni|hebu|wacha|acha|niache|niruhusu)\s+ni{_SW_OBJ}{_SW_SUBJ}" + _E,
    _B + rf"tu{_SW_SUBJ}" + _E,
    _B + rf"(?:ni)?na(?:hitaji|taka|paswa)\s+ku(?:{_SW_ACT}|tumia)" + _E,
]
_SW_UNLESS = _B + r"(?:[um]ki\w+|ikiwa|iwapo|kama\s+(?:unataka|ungependa|mnataka|mngependa))" + _E

# Dutch: "ik ga / ik zal / laat me / laten we / eerst moet ik / ik kijk even" and an act verb
# in one sentence (Dutch puts the infinitive last, after the object).
_NL_INTENT = (
    _B + r"(?:ik\s+(?:ga|zal|moet|wil)|laat\s+(?:me|mij)|laten\s+we"
    r"|(?:ga|zal|moet)\s+ik"
    r"|(?:eerst|nu|daarna|dan|vervolgens|straks|meteen)\s+(?:kijk|zoek|check|controleer|bekijk|raadpleeg)\s+ik"
    r"|even\s+(?:kijken|zoeken|checken|nakijken|opzoeken)"
    r"|ik\s+(?:kijk|zoek|check|controleer)\s+(?:het\s+|dat\s+|dit\s+)?(?:even|nu|eerst|meteen|snel))"
    + _E
)
_NL_ACT = _B + any_of(
    "controleren", "checken", "zoeken", "opzoeken", "bekijken", "kijken", "nakijken", "opvragen",
    "ophalen", "aanroepen", "gebruiken", "vinden", "raadplegen", "nagaan", "uitzoeken", "zoek", "kijk",
    "check", "controleer", "bekijk", "raadpleeg", "navragen", "nazoeken", "openen", "lezen", "doorlezen",
    "berekenen",
) + _E  # fmt: skip
# The separable "opzoeken" in the present, said of what comes next: "ik zoek de koers op".
_NL = [both(_NL_INTENT, _NL_ACT), _B + r"ik\s+zoek\s.*\sop\s*[.!]?$"]
_NL_UNLESS = (
    _B
    + r"(?:niet|geen|indien|mocht|mochten|ervan\s+uit|als\s+(?:u|je|jij|jullie)\s+(?:dat\s+)?(?:wilt|wil|wenst))"
    + _E
    + r"|^\s*als"
    + _E
)

# Czech: 1sg perfective future (zkontroluji), 1pl and "let's", "I must / let me" + infinitive.
_CS_INFINITIVE = any_of(
    "zkontrolovat", "vyhledat", "najít", r"podívat\s+se", "použít", "zjistit", "ověřit",
    "prohledat", "načíst", "otevřít", "spočítat", r"zeptat\s+se", "hledat", "prověřit", "vytáhnout", "stáhnout",
) + _E  # fmt: skip
_CS = [
    _B
    + r"(?:zkontroluji|zkontroluju|vyhledám|najdu|podívám\s+se|se\s+podívám|použiji|použiju|zjistím|"
    r"ověřím|prohledám|načtu|otevřu|vytáhnu|stáhnu|spočítám|zeptám\s+se|se\s+zeptám|projdu|prověřím|nahlédnu|mrknu|"
    r"zkontrolujeme|vyhledáme|podíváme\s+se|se\s+podíváme|zkontrolujme|podívejme\s+se|vyhledejme|"
    r"zavolám\s+(?:nástroj|funkci))" + _E,
    near(
        _B
        + r"(?:musím|potřebuji|potřebuju|chci|budu|zkusím|nechte\s+mě|nech\s+mě|dovolte\s+mi|pojďme|pojď(?:te)?)",
        _CS_INFINITIVE,
        2,
    ),
]
_CS_UNLESS = _B + r"(?:pokud|jestli|jestliže|kdyby|\w+-li)" + _E

#: How plans read in each Latin-script plan language.
LATIN: dict[str, Lexicon] = {
    "tr": lexicon(_TR, _TR_UNLESS, _turkish),
    "vi": lexicon(_VI, _VI_UNLESS),
    "id": lexicon(_ID, _ID_UNLESS),
    "pl": lexicon(_PL, _PL_UNLESS),
    "sw": lexicon(_SW, _SW_UNLESS),
    "nl": lexicon(_NL, _NL_UNLESS),
    "cs": lexicon(_CS, _CS_UNLESS),
}
