"""How sure recall is of each item it returns: a confidence in 0..1 read from the evidence of
the match, and the gate that answers nothing when the best evidence is weak. Pure: no ORM.

The evidence, strongest first (docs/recall-quality.md):

- **Names.** A memory whose label or alias the question names covers the words of that name;
  a question that is only a name ("who is Bea?") is covered whole by it.
- **Coverage.** The share of the question's content words the item holds, each word weighted
  by how rare it is in English (:func:`term_weight`, from wordfreq): matching "cholesterol"
  says more than matching "said". A word found only in the message a reply answers counts
  for the weight the episode lane gives that context.
- **Meaning.** The cosine of the local embeddings, where a lane measured it: above
  :data:`SEMANTIC_WEAK` it counts, up to :data:`SEMANTIC_CAP` on its own (meaning alone never
  makes an item certain).
- **Agreement.** When the lexical and semantic lanes both found an item, a part
  (:data:`AGREEMENT_SHARE`) of the remaining doubt goes.
- **Who said it.** What an assistant said about the person is weaker evidence than what the
  person said: an episode's confidence is scaled by :data:`ROLE_FACTORS`, and so is what the
  person said of the one they talk to (:func:`addressed`).
- **What it asks for** (:mod:`memory.recall.slots`). An answer none of whose items holds an
  answer of the kind the question asks for (a time for "when", a number for "how much") is
  weaker, and so is a message that holds only the question's names.

The score of an item ranks it among the others of one answer; its confidence is comparable
across questions, which is what the gate (:func:`gate`) needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Protocol, TypeVar

from wordfreq import zipf_frequency

from memory.recall.items import WHY_ALIAS, Doc
from memory.recall.text import content, stem, terms, words_of

# A word as common as EVERYDAY_ZIPF or more ("what", "like", "time") weighs 1; each
# RARITY_SPAN below that adds 1, up to MAX_WEIGHT (a name English does not know).
EVERYDAY_ZIPF = 6.0
RARITY_SPAN = 2.0
MAX_WEIGHT = 2.5
# Meaning: cosines at or under SEMANTIC_WEAK are what unrelated texts score with the local
# model; SEMANTIC_STRONG is a close paraphrase. On its own, meaning reaches SEMANTIC_CAP.
SEMANTIC_WEAK = 0.2
SEMANTIC_STRONG = 0.45
SEMANTIC_CAP = 0.7
AGREEMENT_SHARE = 0.25
ROLE_FACTORS = {"user": 1.0, "assistant": 0.6, "system": 0.3}
# A profile question ("what are my projects") is answered by the memories of its category.
PROFILE_CONFIDENCE = 0.9
ALIAS_FACTOR = 0.95
_ORDINAL = ("st", "nd", "rd", "th")


# Words that say when, not what ("on 3 May 2023"): a message is dated by when it was said,
# and rarely repeats its own date, so they weigh nothing towards what it holds.
DATE_WORDS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday".split()
)
# A message that asks a question ("what got you into running?") tells nothing on its own.
QUESTION_FACTOR = 0.7
# A person's message that speaks of the one they talk to more than of themselves ("that
# charity race sounds great, Mel! you must be proud") says what the other did: as weak as
# what the other said (ROLE_FACTORS["assistant"]).
ADDRESSED_FACTOR = 0.6
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'll|you'd|u|ur)\b")
_FIRST_PERSON = re.compile(
    r"\b(?:i|my|me|mine|myself|i'm|i've|i'll|i'd|we|our|us|ours|we're|we've|im|ive)\b"
)


@lru_cache(maxsize=8192)
def term_weight(word: str) -> float:
    """How much a lower-case word of a question says about what it asks: 1 for an everyday
    word, more the rarer it is in English (wordfreq's small list, shipped with the package);
    0 for a date word (a month, a weekday, a number)."""
    if word in DATE_WORDS or word.isdigit() or (word[:-2].isdigit() and word[-2:] in _ORDINAL):
        return 0.0
    zipf = zipf_frequency(word, "en", wordlist="small")
    return min(MAX_WEIGHT, 1.0 + max(0.0, EVERYDAY_ZIPF - zipf) / RARITY_SPAN)


def question_weights(words: Iterable[str]) -> dict[str, float]:
    """The question's content words as ``stem -> weight`` (:func:`term_weight`; a stem two
    words share keeps the larger weight)."""
    weights: dict[str, float] = {}
    for word in content(words):
        key = stem(word)
        weights[key] = max(weights.get(key, 0.0), term_weight(word))
    return weights


def asks(text: str) -> bool:
    """Whether a message ends by asking: what it says last is a question, not a fact."""
    return text.rstrip().endswith("?")


def addressed(text: str) -> bool:
    """Whether a message speaks of the one it is said to more than of its speaker: more
    second-person words ("you", "your") than first-person ones ("I", "my", "we")."""
    key = text.lower().replace("’", "'")
    return len(_SECOND_PERSON.findall(key)) > len(_FIRST_PERSON.findall(key))


def role_factor(role: str, text: str) -> float:
    """How much a message of ``role`` and ``text`` says of the person: by who said it
    (:data:`ROLE_FACTORS`), less when it asks (:data:`QUESTION_FACTOR`) and, for the person's
    own words, when they speak of the one they talk to (:data:`ADDRESSED_FACTOR`)."""
    factor = ROLE_FACTORS.get(role, ROLE_FACTORS["system"])
    if asks(text):
        factor *= QUESTION_FACTOR
    if role == "user" and addressed(text):
        factor *= ADDRESSED_FACTOR
    return factor


def text_weight(text: str) -> float:
    """The weight of a name of several words: that of its rarest content word."""
    return max((term_weight(w) for w in content(words_of(text))), default=1.0)


def coverage(weights: Mapping[str, float], matched: Mapping[str, float]) -> float:
    """The weighted share of the question's words an item holds: ``matched`` maps a word to
    how fully the item holds it (1 in its own text, less through context); 0 without words
    (a question of date words only is covered by any item that holds one of them)."""
    total = sum(weights.values())
    if total <= 0:
        return 1.0 if any(matched.get(t, 0.0) > 0 for t in weights) else 0.0
    held = sum(w * min(1.0, max(0.0, matched.get(t, 0.0))) for t, w in weights.items())
    return held / total


def semantic_part(cosine: float | None) -> float:
    """What meaning alone says: 0 at or under :data:`SEMANTIC_WEAK`, rising to
    :data:`SEMANTIC_CAP` at :data:`SEMANTIC_STRONG`."""
    if cosine is None or cosine <= SEMANTIC_WEAK:
        return 0.0
    share = min(1.0, (cosine - SEMANTIC_WEAK) / (SEMANTIC_STRONG - SEMANTIC_WEAK))
    return SEMANTIC_CAP * share


def combine(lexical: float, cosine: float | None = None, *, factor: float = 1.0) -> float:
    """One confidence from the lexical coverage and the cosine (None: not measured): the
    stronger of the two, with :data:`AGREEMENT_SHARE` of the remaining doubt gone when both
    speak; times ``factor`` (who said it, an alias); rounded to 4 places, in 0..1."""
    meaning = semantic_part(cosine)
    value = max(lexical, meaning)
    if lexical > 0 and meaning > 0:
        value += (1.0 - value) * AGREEMENT_SHARE
    return round(min(1.0, max(0.0, value * factor)), 4)


def doc_terms(doc: Doc) -> set[str]:
    """The stemmed content words of what recall holds of a memory or page: its label and
    aliases, summary, current facts, events and page fields."""
    parts = [doc.label, *doc.aliases, doc.summary, *(text for text, _kind in doc.slices)]
    parts += [*doc.event_texts, *(text for _name, text in doc.fields)]
    return set(terms(" ".join(parts)))


def doc_confidence(
    doc: Doc,
    why: str,
    weights: Mapping[str, float],
    cosine: float | None = None,
    named: Iterable[str] = (),
) -> float:
    """A memory's or page's confidence for a question of ``weights``
    (:func:`question_weights`): the words it holds (with ``named``, the stems of the
    question's words that named it), its cosine to the question when the semantic lane
    measured it, a little less when only an alias named it."""
    held = doc_terms(doc) | set(named)
    lexical = coverage(weights, {t: 1.0 for t in weights if t in held})
    factor = ALIAS_FACTOR if why.split("+")[0] == WHY_ALIAS else 1.0
    return combine(lexical, cosine, factor=factor)


class Confident(Protocol):
    @property
    def confidence(self) -> float: ...


T = TypeVar("T", bound=Confident)


def passes(confidences: Sequence[float], threshold: float) -> bool:
    """Whether an answer whose items have ``confidences`` is given at ``threshold``: when it
    has an item and the best reaches the threshold."""
    return bool(confidences) and max(confidences) >= threshold


def gate(items: Sequence[T], threshold: float) -> tuple[T, ...]:
    """The items an answer keeps at ``threshold``: all of them when the best reaches it,
    none otherwise (the answer is then ``no_recall`` with reason ``nothing_close``). A weak
    item beside a strong one stays: it follows the strong one in rank, and its confidence
    tells the assistant how far to trust it."""
    return tuple(items) if passes([item.confidence for item in items], threshold) else ()
