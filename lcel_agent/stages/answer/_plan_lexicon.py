"""How a plan is read in a language beyond the ten: the :class:`Lexicon` and the pieces
its patterns are written with (the words themselves are in :mod:`._plan_words_latin` and
:mod:`._plan_words_scripts`).

A language's lexicon has one pattern, ``says``: a sentence says the model will act when it
holds a first-person intent together with a verb of looking something up or calling
(check, search, look up, find, call, use, open, read, ...). How a language marks the intent
decides how the pattern is written:

* where intent is words of their own (Dutch "ik ga", "laat me"; Indonesian "saya akan",
  "biar saya"; Vietnamese "tôi sẽ", "để tôi"; Thai "ผมจะ", "ขอ"), those words and an act
  verb in one sentence: within a few words (:func:`near`) in Indonesian, Vietnamese and
  Thai, which never put the verb far from them, anywhere in the sentence (:func:`both`)
  in Dutch, which puts it last;
* where the verb carries it (Turkish ``-acağım``, ``-ayım``; Polish, Ukrainian and Czech
  perfective 1sg ``sprawdzę``, ``перевірю``, ``zkontroluji``; Arabic ``سأ``, Hebrew ``א``,
  Swahili ``nita-``, Greek ``θα``/``ας`` with a 1sg form; Hindi and Urdu ``-ूँगा``,
  ``کروں گا``; Bengali ``-ব``; Tamil ``-வேன்``, ``-கிறேன்``; Persian ``می‌کنم``), those
  forms of act verbs, and an intent word ("I must", "let me", "let's") with an act
  verb's infinitive or subjunctive.

First-person forms only: "it will rain", "the store will open", "he will check", "you
can check" are answers. So are the past ("I checked: sunny"), a negated form ("I won't
check"), and, by :mod:`._plans`, a sentence that is a question ("Shall I check tomorrow
too?"), one with ``unless`` (a condition: "if you want, I'll check tomorrow too") and a
plan quoted from someone else. Precision comes first: a false plan costs a model call,
and given twice it can stop a run.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import regex

__all__ = ["WORD_END", "WORD_START", "Lexicon", "any_of", "both", "lexicon", "near", "nfc"]

#: A word starts here (regex's ``\w`` holds combining marks: an Indic word stays whole).
WORD_START = r"(?<!\w)"
#: A word ends here.
WORD_END = r"(?!\w)"


def any_of(*words: str) -> str:
    """One of ``words`` (regular expressions), as a group."""
    return "(?:" + "|".join(words) + ")"


def near(intent: str, act: str, gap: int) -> str:
    """``intent``, then ``act`` within ``gap`` words."""
    return rf"{intent}(?:\s+\S+){{0,{gap}}}?\s+{act}"


def both(intent: str, act: str) -> str:
    """``intent`` and ``act`` anywhere in the sentence, in either order."""
    return rf"^(?=.*?{intent})(?=.*?{act})"


def nfc(text: str) -> str:
    """``text`` composed (NFC), its apostrophes one (``’`` and ``ʼ`` as ``'``)."""
    return unicodedata.normalize("NFC", text).replace("’", "'").replace("ʼ", "'")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """How plans read in one language."""

    says: regex.Pattern[str]
    """A sentence that says the model will act."""
    unless: regex.Pattern[str] | None
    """A sentence that holds this is no plan: a condition ("if you want"), an offer."""
    fold: Callable[[str], str]
    """Writing variants made one (marks, letter forms), applied to text and patterns."""


def lexicon(says: list[str], unless: str | None, fold: Callable[[str], str] = nfc) -> Lexicon:
    """A language's lexicon: any of ``says``, unless ``unless``, on text made one by ``fold``."""
    # Patterns are folded as texts are, so they can be written as the language writes.
    pattern = regex.compile("|".join(fold(p) for p in says), regex.IGNORECASE)
    return Lexicon(pattern, regex.compile(fold(unless), regex.IGNORECASE) if unless else None, fold)
