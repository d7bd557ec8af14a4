"""The one definition of a canonical key. The gate, aliases, suppressions, recall and the evals
all call :func:`canonical_key`; nothing else normalises labels."""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from memory.markup import TAG

# Letters that NFKD does not decompose into a base letter plus marks.
_FOLD = str.maketrans(
    {
        "ø": "o",
        "Ø": "o",
        "đ": "d",
        "Đ": "d",
        "ł": "l",
        "Ł": "l",
        "ħ": "h",
        "ı": "i",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "þ": "th",
        "ð": "d",
    }
)
_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


#: Keys of texts up to this long are cached (labels, aliases, short facts), so the cache stays
#: small (at most 8,192 of them, about 2 MB) whatever a save holds: cleanup reads every
#: label of a large memory once, and a worker keeps its cache between requests.
CACHED_KEY_CHARS = 200


def canonical_key(text: str) -> str:
    """Fold ``text`` to the key two labels share when they name the same thing.

    Unicode-aware: compatibility-decomposed (NFKD), combining marks dropped, case-folded,
    every run of punctuation, symbols or whitespace collapsed to one space. So "Zoë" and "Zoe"
    share a key, "Dr. Kowalski" becomes "dr kowalski", and letters of any script survive.
    HTML tags are dropped and entities decoded first, so a label and its marked-up spelling
    ("<b>Figma</b>", "R&amp;D") share a key, and so does a suppression of either.

    Pure, so the keys of short texts are cached (a save asks for the same labels' keys many
    times: the extractor, the policy, the gate and the recall index each fold them). ASCII
    text takes a shorter path with the same result: NFKD, the combining marks and the
    folding table change nothing in it, and casefold is lower (``tests/memory/test_keys.py``
    checks that both paths agree).
    """
    if not text:
        return ""
    if len(text) <= CACHED_KEY_CHARS:
        return _cached_key(text)
    return _key(text)


@lru_cache(maxsize=1 << 13)
def _cached_key(text: str) -> str:
    return _key(text)


def _key(text: str) -> str:
    if "<" in text:
        text = TAG.sub(" ", text)
    if "&" in text:
        text = html.unescape(text)
    if text.isascii():
        return _NON_WORD.sub(" ", text.lower()).strip()
    return _unicode_key(text)


def _unicode_key(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    folded = stripped.casefold().translate(_FOLD)
    return _NON_WORD.sub(" ", folded).strip()


def key_tokens(text: str) -> list[str]:
    """The words of the canonical key, in order."""
    key = canonical_key(text)
    return key.split() if key else []
