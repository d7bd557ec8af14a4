"""Text for recall: words, stop words, stems and terms. Pure: no ORM.

Stems are the original Porter (1980) algorithm as ``snowballstemmer`` ships it, cached per
word, since the same few thousand words recur across every document and query."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer
from wordfreq import zipf_frequency

from memory.keys import canonical_key

STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any anything are as at be because
    been before being below between both but by can could did do does doing done down during
    each else ever every everything few for from further get got had has have having he her
    here hers herself him himself his how i if in into is it its itself just know knew let
    me mention mentioned might mine more most much must my myself no nor not now of off on
    once only or other our ours ourselves out over own please recall remember remind s said
    same say she should so some something still such t tell than that the their theirs them
    themselves then there these they thing things this those through to told too under until
    up us very was we were what whatever when where which while who whom whose why will with
    would you your yours yourself
    new news latest update updates happening happened going doing lately recent recently
    currently current status info details stuff
    """.split()
)


_PORTER = snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter (1980) stem of a lower-case word; words under three letters, and words that
    are not all letters (numbers, codes), are kept as they are."""
    if len(word) < 3 or not word.isalpha():
        return word
    return str(_PORTER.stemWord(word))


def is_content(token: str) -> bool:
    """Whether ``token`` is a content word: not a stop word, and not one letter (a digit is
    kept)."""
    return token not in STOP_WORDS and (len(token) > 1 or token.isdigit())


def content(tokens: Iterable[str]) -> list[str]:
    """``tokens`` less stop words and one-letter words (digits are kept)."""
    return [t for t in tokens if is_content(t)]


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def words_of(text: str) -> list[str]:
    """The words of ``canonical_key(text)``, with a fast path for ASCII text (where the key's
    words are exactly the runs of letters and digits, lower-cased)."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    return canonical_key(text).split()


def probe(term: str) -> str:
    """A string every word with Porter stem ``term`` contains: the stem itself, less a final
    "e" or "i" that stemming may have added or changed ("hope" from "hoping", "happi")."""
    return term[:-1] if len(term) > 1 and term[-1] in "ei" else term


def terms(text: str) -> list[str]:
    """Stemmed content terms of ``text`` (canonical key words, stop words removed)."""
    return [stem(token) for token in content(words_of(text))]


#: Marks a word of a :func:`stem_line` that is not a content term ("_the"). No word holds it:
#: a canonical key turns every run of punctuation into a space.
NOT_CONTENT = "_"


def stem_line(text: str) -> str:
    """Every word of ``text`` (:func:`words_of`) as its stem, in order, space-separated, a word
    that is not a content term marked with :data:`NOT_CONTENT`: what recall's index keeps of a
    message at write time, so that a question reads it instead of tokenising and stemming the
    message again (:func:`line_terms`, :func:`line_stems`). Depends on the stop words and the
    stemmer, as the postings do: a change to either needs ``reindex``."""
    return " ".join(map(_line_word, words_of(text)))


@lru_cache(maxsize=65536)
def _line_word(word: str) -> str:
    """A word of a :func:`stem_line`: its stem, marked when it is not a content term (read
    once per word, not once per time a message says it)."""
    return stem(word) if is_content(word) else NOT_CONTENT + stem(word)


def line_terms(line: str) -> list[str]:
    """The content terms of a :func:`stem_line`: ``terms(text)``."""
    return [t for t in line.split() if t[0] != NOT_CONTENT]


def line_stems(line: str) -> str:
    """The stems of every word of a :func:`stem_line`, space-separated (the stems of
    ``words_of(text)``)."""
    return line.replace(NOT_CONTENT, "")


#: A word English uses at least this often (the Zipf scale: 4 is ten times per million words)
#: is common: "apple" (4.8), "going" (5.9), "Mary" (4.8). Rarer ones are distinctive:
#: "Harriet" (3.6), "Vane" (3.0), "Moonbeam" and most surnames (not in the list at all).
COMMON_ZIPF = 4.0


@lru_cache(maxsize=8192)
def is_distinctive(word: str) -> bool:
    """Whether ``word`` (a lower-case key word) picks out a name on its own: at least three
    letters, not a stop word, and rarer than :data:`COMMON_ZIPF` in English by wordfreq's
    small list, which ships in the package (a word not in it, or not English, is rare)."""
    if len(word) < 3 or word in STOP_WORDS or word.isdigit():
        return False
    return bool(zipf_frequency(word, "en", wordlist="small") < COMMON_ZIPF)
