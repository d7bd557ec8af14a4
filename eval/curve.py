"""The quiet/hit trade-off over recall's confidence threshold, for the conversation and
LoCoMo evals. Pure.

An eval asks recall with the gate off (``min_confidence=0``), keeps each item's confidence,
and then answers as recall would at each threshold (:func:`memory.recall.confidence.gate`):
everything when the best item reaches it, nothing otherwise. One run gives the whole curve.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.recall.confidence import passes

CURVE = (0.0, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def check_threshold(value: float) -> float:
    """``value`` when it is a threshold (0..1); a ValueError naming it otherwise."""
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"a threshold is between 0 and 1, got {value}")
    return value


def kept(confidences: Sequence[float], threshold: float) -> int:
    """How many of an answer's items recall keeps at ``threshold``: all or none."""
    return len(confidences) if passes(confidences, threshold) else 0
