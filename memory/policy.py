"""Pure predicates the gate (and cleanup) share: junk labels, bad titles, bad labels (fragments
that name nothing), memory-rule matching."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from memory.keys import CACHED_KEY_CHARS, canonical_key, core_key, fold_key, titles_differ
from memory.markup import TAG, label_text
from memory.vocab import RejectReason

PRONOUNS = frozenset(
    """i me my mine myself you your yours yourself he him his she her hers it its we us our ours
    they them their theirs this that these those someone somebody something anyone anything
    everyone everything nobody nothing one ones thing things stuff who what which there here""".split()
)
FILLERS = frozenset(
    """ok okay k kk yes yeah yep yup no nope nah um umm uh uhh hmm hm lol lmao haha hi hello hey
    yo thanks thank thx ty cool nice great awesome sure fine well so like just really very also
    please pls oh ah wow bye good morning night afternoon evening a an the and or but of to in on
    at for with now new""".split()
)
# Request and meta phrases: things said to an assistant, never names of memories.
REQUEST_PHRASES = (
    "save this",
    "save that",
    "save the",
    "remember this",
    "remember that",
    "remember to",
    "note this",
    "this conversation",
    "the conversation",
    "this chat",
    "can you",
    "could you",
    "would you",
    "will you",
    "please",
    "help me",
    "tell me",
    "show me",
    "send me",
    "try again",
    "retry",
    "continue",
    "user asked",
    "user requested",
    "the user",
    "the assistant",
)
_REQUEST_KEYS = tuple(canonical_key(p) for p in REQUEST_PHRASES)
MAX_TITLE_WORDS = 12
MAX_KEY_CHARS = 200  # the canonical_key columns; NFKD and folding can make a key longer


# A one-letter name carried by its symbols: "C++", "C#", "F#".
_SYMBOL_NAME = re.compile(r"^[^\W\d_][+#]{1,2}$")


def is_junk_label(label: str) -> bool:
    """Empty, a single character, only digits, or made only of pronouns and fillers."""
    key = canonical_key(label)
    compact = key.replace(" ", "")
    if len(compact) < 2 and not _SYMBOL_NAME.match(label.strip()):
        return True
    if compact.isdigit():
        return True
    words = key.split()
    return all(word in PRONOUNS or word in FILLERS for word in words)


def is_bad_title(label: str) -> bool:
    """Not a name: too long, a sentence or question, a request, or led by a pronoun."""
    stripped = label.strip()
    key = canonical_key(stripped)
    words = key.split()
    if len(words) > MAX_TITLE_WORDS or len(key) > MAX_KEY_CHARS:
        return True
    if stripped.endswith(("?", "!")) or (stripped.endswith(".") and len(words) > 3):
        return True
    padded = f" {key} "
    if any(padded.startswith(f" {phrase} ") or f" {phrase} " in padded for phrase in _REQUEST_KEYS):
        return True
    return (
        bool(words) and words[0] in {"i", "we", "you", "he", "she", "they", "it"} and len(words) > 1
    )


# --- bad labels: fragments of a sentence, never the name of anything ---------------------

# A name never starts with an auxiliary, a light verb, a pronoun or a connective...
_FRAGMENT_START = frozenset(
    """is are was were be been am has have had do does did gonna get gets got just very really
    it its he she they we you me us them his hers their theirs our your yours mine also still
    again than about for of to at by from with into as went came made took tried said told
    felt thought wanted needed seemed off""".split()
)
# A light verb's gerund leads a fragment only when a function word follows ("Having Some of",
# "Going There"); "Getting Things Done" and "Being Mortal" are titles.
_LIGHT_LEADS = frozenset("being having doing going getting".split())
_FUNCTION_WORDS = frozenset(
    """some any a an the of to at in on up out it there here that this my your our his her
    their them me us you so too""".split()
)
# ...and never ends on a word that needs something after it ("Taste of", "Having Some of").
_FRAGMENT_END = frozenset(
    """of for to at in on by with from about into onto than as and or but nor the a an some
    any my your our their his her its is are was were be been am has have had do does did
    there that which who whose whom very really just so too ago""".split()
)
# A time phrase is when something happened, not what ("Few Days", "For Weeks", "Two Weeks").
_TIME_UNITS = frozenset(
    """second seconds minute minutes hour hours day days week weeks month months year years
    decade decades ago yesterday today tomorrow tonight lately recently""".split()
)
_QUANTITIES = frozenset(
    """a an one two three four five six seven eight nine ten eleven twelve few several couple
    many some last next this past each every other few""".split()
)
# A bare gerund of a light verb or a function word ("Going", "Having", "Justing").
_LIGHT_STEMS = frozenset(
    """go be have do get make tak tri try say think feel see look want need come put keep let
    seem know just realli gonna wan mean start stop"""
    """ us""".split()
)
_CUT_START = re.compile(r"^[&+/\\.,;:!?)\]}|>_*~-]")
_CUT_END = re.compile(r"[&/\\,;:(\[{|<_*~-]$|(?<![\w.])'$")
_MARKUP_LEFT = re.compile(r"</?[A-Za-z]|/>|&[A-Za-z]+;|&#\d+;|\*\*|__|`|\]\(|^#+\s")


def _gerund_stem(word: str) -> str | None:
    if len(word) > 4 and word.endswith("ing"):
        stem = word[:-3]
        if len(stem) > 2 and stem[-1] == stem[-2]:
            stem = stem[:-1]  # "getting" -> "get"
        return stem
    return None


def is_bad_label(label: str) -> bool:
    """A fragment, not a name: markup left in it, cut at punctuation inside a name ("<b>R",
    "D Tracker</b>", "&T"), led by an auxiliary, light verb, pronoun or connective ("Was
    There", "Having Some of", "Is Important"), ending on a word that needs another ("Taste
    of"), a time phrase or one ending a label ("Few Days", "Coffee Two Weeks"), or a bare gerund
    of a light verb ("Going", "Justing"). Names with inner punctuation pass: "R&D Tracker",
    "C++", "Node.js", "AT&T", "O'Neill", "Tomás"."""
    text = label.strip()
    if not text:
        return False  # empty labels are junk, reported as such
    if _is_cut(text):
        return True
    words = [w for w in (w.strip("\"'“”‘’.,!?()").lower() for w in text.split()) if w]
    if not words:
        return True
    if words[0] in _FRAGMENT_START or words[-1] in _FRAGMENT_END:
        return True
    if words[0] in _LIGHT_LEADS and len(words) > 1 and words[1] in _FUNCTION_WORDS:
        return True
    if "i" in words[1:-1]:
        return True  # a clause with the speaker inside it ("Off That Stuff I Baked")
    if words[-1] in _TIME_UNITS and (
        len(words) == 1
        or all(w in _QUANTITIES or w in _TIME_UNITS for w in words[:-1])
        or words[-2] in _QUANTITIES
        or words[-2].isdigit()
    ):
        return True
    if len(words) == 1:
        stem = _gerund_stem(words[0])
        if stem is not None and (stem in _LIGHT_STEMS or stem.rstrip("e") in _LIGHT_STEMS):
            return True
    return False


def clean_label(label: str) -> str:
    """The label as stored and keyed: balanced markup removed, entities decoded, whitespace
    collapsed. The gate cleans every label it reads with this, so one spelling and its
    marked-up variants are one label, one key and one suppression."""
    return label_text(label)


def _is_cut(label: str) -> bool:
    text = label.strip()
    return bool(
        _MARKUP_LEFT.search(text)
        or TAG.search(text)
        or _CUT_START.search(text)
        or _CUT_END.search(text)
    )


def label_rejection(label: str) -> str | None:
    """The reason a label may not name a memory, or None. Markup and names cut at punctuation
    are ``bad_label`` even where what is left would be junk ("<b>R"). Pure: the verdicts on
    labels of up to ``CACHED_KEY_CHARS`` are cached, as their keys are (a save judges the
    same labels again and again)."""
    if len(label) <= CACHED_KEY_CHARS:
        return _cached_rejection(label)
    return _rejection(label)


@lru_cache(maxsize=1 << 12)
def _cached_rejection(label: str) -> str | None:
    return _rejection(label)


def _rejection(label: str) -> str | None:
    if label.strip() and _is_cut(label):
        return RejectReason.BAD_LABEL.value
    if is_junk_label(label):
        return RejectReason.JUNK_LABEL.value
    if is_bad_title(label):
        return RejectReason.BAD_TITLE.value
    if is_bad_label(label):
        return RejectReason.BAD_LABEL.value
    return None


def _contains_phrase(haystack_words: Sequence[str], phrase_words: Sequence[str]) -> bool:
    n = len(phrase_words)
    if n == 0:
        return False
    return any(
        list(haystack_words[i : i + n]) == list(phrase_words)
        for i in range(len(haystack_words) - n + 1)
    )


def excluded_name(label: str, excludes: Sequence[str]) -> bool:
    """Whether the name ``label`` is an exclude term said with or without the words a name is
    said with (:func:`memory.keys.core_key`: a title, a relation, "project"): an excluded
    "Mr Adebayo" excludes a card "Adebayo" and an excluded "Project Moonbeam" a "Moonbeam",
    as a suppression of them would. A title of the other gender is someone else: "Mrs
    Adebayo" is not an excluded "Mr Adebayo"; and a name with more words is another name
    ("Luka Markovic" is not an excluded "Dr Markovic")."""
    key = canonical_key(label)
    if not key or not excludes:
        return False
    mine = {core_key(key), fold_key(key)}
    for term in excludes:
        theirs = canonical_key(term)
        if (
            theirs
            and not titles_differ(key, theirs)
            and mine & {core_key(theirs), fold_key(theirs)}
        ):
            return True
    return False


def rules_rejection(
    texts: Iterable[str], *, includes: Sequence[str], excludes: Sequence[str], label: str = ""
) -> str | None:
    """Memory-rule verdict on every text an object carries, and on its ``label`` (or the
    label of the memory it is a detail of) as a name (:func:`excluded_name`). Excludes win
    over includes.

    Terms match whole words, case- and accent-insensitively ("Dr. Kowalski" matches
    "dr kowalski"; "box" does not match "boxing").
    """
    if not includes and not excludes:
        return None
    word_lists = [canonical_key(text).split() for text in texts if text]
    for term in excludes:
        term_words = canonical_key(term).split()
        if any(_contains_phrase(words, term_words) for words in word_lists):
            return RejectReason.EXCLUDED_BY_RULE.value
    if label and excluded_name(label, excludes):
        return RejectReason.EXCLUDED_BY_RULE.value
    if includes:
        for term in includes:
            term_words = canonical_key(term).split()
            if any(_contains_phrase(words, term_words) for words in word_lists):
                return None
        return RejectReason.OUTSIDE_INCLUDE_RULES.value
    return None


def matches_phrase(text: str, phrase: str) -> bool:
    """Whole-word, accent- and case-insensitive containment of ``phrase`` in ``text``."""
    return _contains_phrase(canonical_key(text).split(), canonical_key(phrase).split())
