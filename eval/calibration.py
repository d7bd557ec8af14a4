"""Confidence calibration: of the cards shown at a confidence, the share a person would accept.

The labelled set (``eval/fixtures/calibration_*.json``, written in our own words, never from a
held-out fixture) is ``{"fixtures": [{id, messages, source_time?, accept: [labels]}]}``: the
labels a person would keep from that conversation. Everything else proposed is a card the
person would reject. Each fixture runs the ``subjects`` extractor (the rules, then the subject
proposer) and the
gate on an empty memory with review on, so every proposal is a card; a card is accepted when it
is one subject with an ``accept`` label (the same folded key, or one label's words inside the
other's: "Rescue Greyhound" for "Greyhound").

:func:`table` bins the cards by confidence and prints the accepted share per bin, with the
expected calibration error (the count-weighted gap between a bin's mean confidence and its
accepted share). :func:`fit` refits :data:`memory.confidence.WEIGHTS` on the proposer's
subjects (every subject it considered, before its floor) by L2-regularised logistic regression,
so the floor also learns what to drop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from eval.fixture_files import FixtureError
from memory.confidence import FEATURES, WEIGHTS, Evidence
from memory.extractors.rules import extract as rules_extract
from memory.extractors.subjects import extract, scored
from memory.gate import Snapshot, plan_writes
from memory.keys import canonical_key, fold_key
from memory.transcripts import Message, TranscriptError, messages_from_json

EVAL_NOW = datetime(2026, 6, 1).astimezone()
BINS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


@dataclass(frozen=True)
class Card:
    fixture: str
    label: str
    confidence: float
    reason: str
    accepted: bool


def _words(label: str) -> set[str]:
    return set(fold_key(canonical_key(label)).split())


def accepted(label: str, wanted: Sequence[str]) -> bool:
    """One subject with a wanted label: the same folded key, or one's words in the other's."""
    mine = _words(label)
    for other in wanted:
        theirs = _words(other)
        if mine and theirs and (mine <= theirs or theirs <= mine):
            return True
    return False


def _read(fixture: dict[str, Any]) -> tuple[list[Message], datetime | None, list[str]]:
    if not isinstance(fixture, dict) or not isinstance(fixture.get("accept"), list):
        raise FixtureError(
            f"fixture {fixture.get('id') if isinstance(fixture, dict) else '?'}: "
            "needs messages and an accept list"
        )
    try:
        messages = messages_from_json({"messages": fixture.get("messages")})
    except TranscriptError as exc:
        raise FixtureError(f"fixture {fixture.get('id')}: {exc}") from exc
    when = fixture.get("source_time")
    source_time = datetime.fromisoformat(when.replace("Z", "+00:00")) if when else None
    return messages, source_time, [str(label) for label in fixture["accept"]]


def cards(fixtures: Sequence[dict[str, Any]]) -> list[Card]:
    """Every card the extractor and the gate would show, and whether a person accepts it."""
    out: list[Card] = []
    for fixture in fixtures:
        messages, source_time, wanted = _read(fixture)
        plan = plan_writes(extract(messages, source_time=source_time), Snapshot.empty(now=EVAL_NOW))
        for c in plan.new_candidates:
            out.append(
                Card(fixture["id"], c.label, c.confidence, c.reason, accepted(c.label, wanted))
            )
    return out


def table(rows: Sequence[Card]) -> dict[str, Any]:
    """Confidence bins -> cards, their mean confidence and the share accepted; and the ECE."""
    bins = []
    gap = 0.0
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = [r for r in rows if low <= r.confidence < high]
        if not inside:
            continue
        mean = sum(r.confidence for r in inside) / len(inside)
        share = sum(r.accepted for r in inside) / len(inside)
        gap += len(inside) * abs(mean - share)
        bins.append(
            {
                "bin": f"{low:.1f}-{min(high, 1.0):.1f}",
                "cards": len(inside),
                "mean_confidence": round(mean, 3),
                "accepted": round(share, 3),
            }
        )
    return {
        "cards": len(rows),
        "accepted": sum(r.accepted for r in rows),
        "bins": bins,
        "ece": round(gap / len(rows), 4) if rows else None,
    }


def subject_rows(fixtures: Sequence[dict[str, Any]]) -> list[tuple[Evidence, bool]]:
    """Every subject the proposer considered (before its floor), labelled."""
    rows = []
    for fixture in fixtures:
        messages, source_time, wanted = _read(fixture)
        found = rules_extract(messages, source_time=source_time)
        for evidence, subject in scored(messages, source_time=source_time, found=found):
            if evidence.first_person > 0:  # the others are never proposed
                rows.append((evidence, accepted(subject.phrase.label, wanted)))
    return rows


def fit(
    rows: Sequence[tuple[Evidence, bool]], *, l2: float = 0.01, steps: int = 20000
) -> dict[str, float]:
    """Logistic-regression weights for :data:`memory.confidence.FEATURES` (``sessions`` does
    not vary within one batch: kept as it is)."""
    fitted = [f for f in FEATURES if f != "sessions"]
    index = [FEATURES.index(f) for f in fitted]
    x = np.array([[e.vector()[i] for i in index] for e, _ok in rows], dtype=float)
    y = np.array([1.0 if ok else 0.0 for _e, ok in rows])
    w = np.zeros(len(fitted))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / len(y) + l2 * np.r_[0.0, w[1:]]
        w -= 0.5 * grad
    out = dict(WEIGHTS)
    out.update({name: round(float(v), 2) for name, v in zip(fitted, w, strict=True)})
    return out
