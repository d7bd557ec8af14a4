"""How sure a proposed subject is, from its evidence, as a probability a person would accept it.

A logistic model over what the evidence shows (pure, no ORM): how often the subject was said,
in how many messages and conversations, whether the person said it of themselves ("I", "my",
"we"), whether it is a name, how specific its words are (wordfreq) and how close its sentences
are to a life (the embedding model; on our labelled set it turned out to add nothing, and its
fitted weight says so). The rules' own subjects keep their fixed confidence. The weights were
fitted on a labelled set written in our own words
(``eval/fixtures/calibration_subjects.json``) and are checked by ``manage.py eval_calibration``,
which prints the table of confidence bins against the share a person accepts: a card shown at
about 0.8 should be accepted about 80% of the time. Refit there, never by hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FEATURES = (
    "bias",
    "mentions",
    "messages",
    "sessions",
    "first_person",
    "name",
    "specificity",
    "life",
)
# Fitted by ``manage.py eval_calibration --fit`` on eval/fixtures/calibration_subjects.json.
WEIGHTS: dict[str, float] = {
    "bias": -0.8,
    "mentions": 0.09,
    "messages": 0.09,
    # Not fitted: a batch is one conversation, so the labelled set cannot vary it. A prior:
    # a subject brought up again in another conversation raises the odds about 2.7 times.
    "sessions": 1.0,
    "first_person": 0.56,
    "name": 2.43,
    "specificity": 0.62,
    "life": -0.09,
}


@dataclass(frozen=True)
class Evidence:
    """What was seen of one subject. Counts start at 1 for a subject said once."""

    mentions: int = 1
    messages: int = 1
    sessions: int = 1
    first_person: float = 0.0  # share of its mentions in the speaker's own framing
    name: bool = False
    specificity: float = 0.0  # 0..1, :func:`memory.extractors.subjects.phrases.rarity`
    life: float = 0.0  # 0..1, closeness of its sentences to a life

    def vector(self) -> list[float]:
        return [
            1.0,
            math.log1p(max(0, self.mentions - 1)),
            math.log1p(max(0, self.messages - 1)),
            math.log1p(max(0, self.sessions - 1)),
            max(0.0, min(1.0, self.first_person)),
            1.0 if self.name else 0.0,
            max(0.0, min(1.0, self.specificity)),
            max(0.0, min(1.0, self.life)),
        ]


def confidence(evidence: Evidence, weights: dict[str, float] | None = None) -> float:
    """The probability a person accepts the subject, rounded to two places."""
    w = weights or WEIGHTS
    z = sum(w[name] * x for name, x in zip(FEATURES, evidence.vector(), strict=True))
    return round(1.0 / (1.0 + math.exp(-z)), 2)
