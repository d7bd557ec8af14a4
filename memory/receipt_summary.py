"""The one-line summary of a receipt: "2 nodes (Boxing, Atlas), 3 slices, 1 candidate;
skipped 4: suppressed, low confidence"."""

from __future__ import annotations

from typing import Any

from memory.vocab import RejectReason

_PARTS = (
    ("nodes", "node", "nodes"),
    ("nodes_updated", "node updated", "nodes updated"),
    ("slices", "slice", "slices"),
    ("events", "event", "events"),
    ("edges", "edge", "edges"),
    ("candidates", "candidate", "candidates"),
    ("candidate_bumps", "candidate seen again", "candidates seen again"),
)
_REASON_LABELS = dict(RejectReason.choices)


def summarise(counts: dict[str, Any], detail: dict[str, Any], reasons: dict[str, int]) -> str:
    labels = [n["label"] for n in detail.get("created", {}).get("nodes", [])]
    pieces = []
    for key, one, many in _PARTS:
        n = int(counts.get(key, 0) or 0)
        if not n:
            continue
        text = f"{n} {one if n == 1 else many}"
        if key == "nodes" and labels:
            shown = ", ".join(labels[:3]) + (", …" if len(labels) > 3 else "")
            text += f" ({shown})"
        pieces.append(text)
    line = ", ".join(pieces) if pieces else "nothing written"
    skipped = sum(reasons.values())
    if skipped:
        names = ", ".join(
            _REASON_LABELS.get(r, r.replace("_", " "))
            for r in sorted(reasons, key=lambda r: -reasons[r])
        )
        line += f"; skipped {skipped}: {names}"
    return line[:500]
