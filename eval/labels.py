"""Card labels a person judged (``eval/fixtures/labels_*.json``): what ume does with each.

Each item is a sentence a person typed, a label an extractor could take from it, and whether
the person would keep a card under that label (``keep``; else the kind of junk: ``generic``,
``abstract``, ``fragment``, ``shorthand``). Two readings per item:

- **the standard** (:func:`held_back`, pure): given that sentence, would the label standard
  every extracted subject meets (:func:`memory.extractors.subjects.held`) hold the label
  back (or cut it to another label)? A junk label held back is caught; a keep held back is
  lost. Of those, the ones cut or respelled to another label ("Fam Camping" to "Family
  Camping") still make a card under it: counted apart as ``respelled``.
- **the proposer** (:func:`proposed`, pure): the offline extractor run on the sentence alone
  (as one user message, with no history). A keep label proposed (by its canonical key) is
  found; a junk label proposed is junk in the queue.

Figures: per kind and overall, the share of items caught (junk) or kept (keep) by the
standard, and the share proposed by the extractor. The standard is the precise measure of
the label rules; the proposer's figures also carry what it does not find at all.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eval.fixture_files import FixtureError, read_fixture_file
from memory.extractors.subjects import extract, held
from memory.keys import canonical_key
from memory.proposals import CandidateProposal, EvidenceSpan, NodeProposal
from memory.transcripts import Message

KINDS = ("keep", "generic", "abstract", "fragment", "shorthand")
SAID_AT = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Item:
    said: str
    label: str
    keep: bool
    kind: str


def _validate(data: Any) -> None:
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise FixtureError('expected an object with an "items" list')
    for at, item in enumerate(data["items"]):
        if not isinstance(item, dict):
            raise FixtureError(f"items[{at}]: expected an object")
        for key in ("said", "label"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise FixtureError(f"items[{at}].{key}: expected a non-empty string")
        if not isinstance(item.get("keep"), bool):
            raise FixtureError(f"items[{at}].keep: expected true or false")
        if item.get("kind") not in KINDS or (item["kind"] == "keep") != item["keep"]:
            raise FixtureError(
                f"items[{at}].kind: expected one of {', '.join(KINDS)}, 'keep' exactly when kept"
            )


def read_fixture(path: Path) -> list[Item]:
    data = read_fixture_file(path, _validate)
    return [Item(i["said"], i["label"], i["keep"], i["kind"]) for i in data["items"]]


def standard_labels(label: str, said: str) -> list[str]:
    """The labels the label standard leaves of ``label`` taken from ``said``: itself, another
    it was cut or respelled to, or none."""
    card = NodeProposal(label=label, evidence=(EvidenceSpan(message_id="M1", quote=said),))
    return [p.label for p in held([card]) if isinstance(p, NodeProposal)]


def held_back(label: str, said: str) -> bool:
    """Whether the label standard holds ``label`` back (or cuts it to another) when it was
    taken from ``said``."""
    key = canonical_key(label)
    return all(canonical_key(left) != key for left in standard_labels(label, said))


def proposed(label: str, said: str) -> bool:
    """Whether the offline extractor proposes ``label`` (by canonical key) from ``said``."""
    found = extract([Message("M1", "user", said, SAID_AT)], source_time=SAID_AT)
    keys = {
        canonical_key(p.label) for p in found if isinstance(p, (NodeProposal, CandidateProposal))
    }
    return canonical_key(label) in keys


@dataclass
class Tally:
    items: int = 0
    held_back: int = 0
    respelled: int = 0
    proposed: int = 0

    def as_json(self) -> dict[str, Any]:
        share = lambda n: round(n / self.items, 4) if self.items else 0.0  # noqa: E731
        return {
            "items": self.items,
            "held_back": self.held_back,
            "held_back_rate": share(self.held_back),
            "respelled": self.respelled,
            "proposed": self.proposed,
            "proposed_rate": share(self.proposed),
        }


def run_eval(items: list[Item]) -> dict[str, Any]:
    """Per kind (and for all junk together): how many items the standard holds back and how
    many the extractor proposes; and the items it gets wrong, for reading."""
    tallies: dict[str, Tally] = defaultdict(Tally)
    lost: list[str] = []
    leaked: list[str] = []
    for item in items:
        left = standard_labels(item.label, item.said)
        back = all(canonical_key(x) != canonical_key(item.label) for x in left)
        made = proposed(item.label, item.said)
        for name in (item.kind, "junk" if not item.keep else None):
            if name:
                tally = tallies[name]
                tally.items += 1
                tally.held_back += back
                tally.respelled += back and bool(left)
                tally.proposed += made
        if item.keep and back:
            lost.append(item.label)
        if not item.keep and made:
            leaked.append(f"{item.label} ({item.kind})")
    keep, junk = tallies["keep"], tallies["junk"]
    return {
        "items": len(items),
        "kinds": {name: tallies[name].as_json() for name in (*KINDS, "junk")},
        # The standard as a judge of junk: of what it holds back, how much a person calls
        # junk (precision), and how much of the junk it holds back (recall).
        "standard": {
            "junk_caught": _rate(junk.held_back, junk.items),
            "keeps_lost": _rate(keep.held_back, keep.items),
            "precision": _rate(junk.held_back, junk.held_back + keep.held_back),
            # held back as judged but still a card under another label
            "junk_respelled": _rate(junk.respelled, junk.items),
        },
        "proposer": {
            "keeps_found": _rate(keep.proposed, keep.items),
            "junk_proposed": _rate(junk.proposed, junk.items),
        },
        "lost": sorted(lost),
        "leaked": sorted(leaked),
    }


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
