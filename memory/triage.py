"""What makes a guess on the review queue worth a person's time (pure).

**Value** (:func:`candidate_value`) orders the queue. A subject the person brought up in
many conversations comes first; then one they mentioned often; then how sure the extractor
was; and, between guesses alike in all that, the one said more recently. It is a sum, so
each part can be read on its own (docs/architecture.md, "Triage"):

    value = 2.0 × ln(1 + conversations)
          + 0.5 × ln(1 + mentions)
          + 1.0 × confidence
          + 0.25 × years from 2000 to when it was last said

Logarithms, because the tenth conversation about a dog says less than the second. The
recency term grows by a quarter a year, so it orders guesses the same way whatever day it is
read on, and the value can be stored (``Candidate.value``) and read in index order: a guess
said in three conversations four years ago (2.77) still outranks one said once last week
(1.39 + 1.0 = 2.39, the other terms equal), but one said in two conversations last month
outranks one said in three conversations five years ago. The value changes only when a
guess's counts, confidence or last said time do, and every writer of those sets it again.

**One-off, low-value guesses** (:func:`is_one_off`): said in one conversation only, at most
twice, with less confidence than automatic capture needs. Cleanup expires them
``UME_ONE_OFF_DAYS`` after ume last saw them; if they matter they come up again, and a
mention brings the same card back with its history.

**Subjects** (:func:`subject_groups`): the review queue can group the guesses that name the
same thing: "Pepper" with "Pepper's vet" and "greyhound Pepper".
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from functools import lru_cache

from memory.keys import name_words

SESSION_WEIGHT = 2.0
MENTION_WEIGHT = 0.5
CONFIDENCE_WEIGHT = 1.0
RECENCY_PER_YEAR = 0.25
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_YEAR_SECONDS = 365.25 * 24 * 3600
# At most this many mentions are counted as one conversation's worth in the one-off rule.
ONE_OFF_MAX_MENTIONS = 2


def candidate_value(
    *, sessions: int, mentions: int, confidence: float, last_said: datetime | None
) -> float:
    """The value of a guess (see the module docstring); higher is shown first. A guess with
    no known time (``last_said`` None) gets no recency: it sorts as if said in 2000."""
    recency = 0.0
    if last_said is not None:
        recency = max(0.0, (last_said - _EPOCH).total_seconds() / _YEAR_SECONDS)
    # Not rounded: a minute more recent is a difference of about 5e-7, and it must still
    # order two guesses alike in everything else.
    return (
        SESSION_WEIGHT * math.log1p(max(0, sessions))
        + MENTION_WEIGHT * math.log1p(max(0, mentions))
        + CONFIDENCE_WEIGHT * min(1.0, max(0.0, confidence))
        + RECENCY_PER_YEAR * recency
    )


def is_one_off(*, sessions: int, mentions: int, confidence: float, auto_confidence: float) -> bool:
    """A guess said in one conversation only, at most :data:`ONE_OFF_MAX_MENTIONS` times, and
    less sure than ``auto_confidence`` (what automatic capture would write directly)."""
    return sessions <= 1 and mentions <= ONE_OFF_MAX_MENTIONS and confidence < auto_confidence


@lru_cache(maxsize=1 << 15)
def _name(key: str) -> tuple[str, ...]:
    """The name words of canonical ``key`` that can say what it is about. Cached: the grouped
    view reads every pending guess's key on each visit."""
    # Imported here: the models import this module for candidate_value, and recall's package
    # imports the models.
    from memory.recall.text import STOP_WORDS

    words = [w for w in name_words(key) if w not in STOP_WORDS and len(w) > 1]
    return tuple(words or key.split())


def subject_groups(keys: dict[int, str]) -> dict[int, int]:
    """Each guess's subject: for every guess (id -> canonical key), the id of the guess whose
    name its own name contains ("pepper s vet" and "greyhound pepper" -> the guess "pepper";
    "pepper s vet bill" -> "pepper s vet" -> "pepper"), followed to the shortest such name;
    a guess whose name contains no other guess's is its own subject.

    Names are compared as the canonical key's name words less stop words and a possessive
    "s" (:func:`memory.keys.name_words`), by runs of up to three words, the longest first.
    When two guesses have the same name ("Wedding", "my sister's wedding"), the one said in
    fewer words is the subject (then the lower id). Pure; O(guesses).
    """
    names = {cid: _name(key) for cid, key in keys.items()}
    by_name: dict[tuple[str, ...], int] = {}
    for cid in sorted(names, key=lambda cid: (len(keys[cid]), cid)):
        by_name.setdefault(names[cid], cid)
    parent: dict[int, int] = {}
    for cid, words in names.items():
        parent[cid] = _contained(words, by_name, cid)
    roots: dict[int, int] = {}
    for cid in names:
        root = cid
        while parent[root] != root:  # each step is a strictly shorter name: it ends
            root = parent[root]
        roots[cid] = root
    return roots


def _contained(words: tuple[str, ...], by_name: dict[tuple[str, ...], int], own: int) -> int:
    """The guess named by the longest run of ``words`` shorter than all of them, else ``own``
    (or the first guess of the very same name)."""
    same = by_name.get(words, own)
    if same != own:
        return same
    for size in range(min(3, len(words) - 1), 0, -1):
        for start in range(len(words) - size + 1):
            hit = by_name.get(words[start : start + size])
            if hit is not None and hit != own:
                return hit
    return own
