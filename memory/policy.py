"""Pure predicates the gate (and cleanup) share: junk labels, bad titles, memory-rule matching."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory.keys import canonical_key
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


def is_junk_label(label: str) -> bool:
    """Empty, a single character, only digits, or made only of pronouns and fillers."""
    key = canonical_key(label)
    if len(key.replace(" ", "")) < 2 or key.replace(" ", "").isdigit():
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


def label_rejection(label: str) -> str | None:
    if is_junk_label(label):
        return RejectReason.JUNK_LABEL.value
    if is_bad_title(label):
        return RejectReason.BAD_TITLE.value
    return None


def _contains_phrase(haystack_words: Sequence[str], phrase_words: Sequence[str]) -> bool:
    n = len(phrase_words)
    if n == 0:
        return False
    return any(
        list(haystack_words[i : i + n]) == list(phrase_words)
        for i in range(len(haystack_words) - n + 1)
    )


def rules_rejection(
    texts: Iterable[str], *, includes: Sequence[str], excludes: Sequence[str]
) -> str | None:
    """Memory-rule verdict on every text an object carries. Excludes win over includes.

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
