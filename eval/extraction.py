"""The extraction eval: run the rules extractor and the gate on golden conversations and score.

Fixture format (``eval/fixtures/extraction_golden.json``): ``{"fixtures": [...]}`` where each
fixture has ``id``, ``category``, ``messages`` (``{id, role, content, ts?}``),
``primary_subject`` (``{label, type}`` or null), ``expect_claims`` (kept for model evals, not
scored here), ``must_save``, ``forbid_claims`` (sentences) and ``control_messages`` (message
ids, or literal texts). Optional ``source_time`` (ISO) anchors relative dates.

Each fixture runs :func:`memory.extractors.rules.extract` and then
:func:`memory.gate.plan_writes` on an empty snapshot with the default ``capture_default=review``
(so new identities become candidates, with their details held on them). Scores per fixture:

- ``saved_ok``: something was written or proposed (``plan.has_writes``) when ``must_save``,
  nothing when it is false.
- ``subject_exact``: the canonical key of ``primary_subject.label`` equals the key of a planned
  label (new nodes, candidates, targets of slices and events, edge ends);
  ``subject_contained``: that key appears, as whole words, inside one of those keys. Both are
  ``None`` when the fixture has no primary subject.
- ``control_leak``: a control message reached the plan: some planned item cites it as
  evidence, or the canonical key of its text appears (whole words) in a planned label, text
  or evidence quote.
- ``forbidden_leak``: the plan states a forbidden claim. The rule, deterministic and lexical:
  a claim splits into a subject (its words before the first verb of a fixed list; "the user",
  "user" and "I" mean the speaker) and a predicate (the remaining content words, stop words
  dropped, lightly stemmed). It leaks when one planned item has a matching subject and states
  every predicate word. An item states the words of its text (slices, events), of its type and
  destination (edges: "uses" also states run/store/build/host/power), or of its label (nodes
  and candidates). Words after "not", "never", "no longer", "rather than", "instead of" or a
  contrastive "over" ("spaces over tabs") are not stated, and a question (text ending in "?") states nothing; evidence quotes are the
  source itself and are never counted. The subject matches when its key words are all in the
  item's subject label; the speaker matches any item except edges and items about a person,
  family member or partner.
- ``passed``: ``saved_ok``, no leaks, and ``subject_exact`` unless there is no primary subject.

Totals: ``must_save_recall`` (share of must-save fixtures with ``saved_ok``),
``no_save_precision`` (share of must-not-save fixtures where nothing was planned),
``subject_exact_rate`` and ``subject_contained_rate`` (over fixtures with a primary subject),
``control_leaks`` and ``forbidden_leaks`` (counts of fixtures), ``pass_rate``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from memory.extractors.rules import extract
from memory.gate import Snapshot, WritePlan, plan_writes
from memory.keys import canonical_key
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
)
from memory.transcripts import TranscriptError, messages_from_json

# A fixed clock: the eval must not depend on when it runs.
EVAL_NOW = datetime(2026, 1, 1, tzinfo=UTC)
PERSONAL = frozenset({"person", "family", "relationship"})


class FixtureError(ValueError):
    """The fixture data is not in the extraction golden format."""


# --- words ----------------------------------------------------------------------------------

_STOP_WORDS = frozenset(
    """the a an to of in on at for with and or it its that this their his her they them is are
    was were be been being has have had do does did as by from into than then there which who
    user users assistant i me my we our something""".split()
)
_SPEAKER = ("the user", "user", "i", "the users")
_CLAIM_VERBS = frozenset(
    """is are was were has have had does do did will would can could should uses use used runs
    run stores store prefers prefer likes like loves love hates hate lives live works
    called calls decided decides fixed capped goes go went moved moves joined joins started
    starts stopped stops still never always no not asked requested returned renders rendered
    dislikes visiting visits saved saves takes took""".split()
)
_NEGATION = re.compile(
    r"\b(?:not|never|no\s+longer|rather\s+than|instead\s+of|over)\b|n't\b", re.IGNORECASE
)
_EDGE_WORDS = {"uses": ("use", "run", "store", "build", "host", "power")}


def stem(word: str) -> str:
    """A light stemmer, enough for "uses"/"use", "boxing"/"boxes", "running"/"runs"."""
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2]:
                word = word[:-1]
            return word
    return word


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in canonical_key(text).split() if w not in _STOP_WORDS}


def stated_stems(text: str) -> set[str]:
    """Stems a text asserts: nothing for a question, nothing after a negation."""
    if text.rstrip().endswith("?"):
        return set()
    asserted = _NEGATION.split(text, maxsplit=1)[0]
    return content_stems(asserted)


def _has_phrase(haystack: str, needle: str) -> bool:
    return bool(needle) and f" {needle} " in f" {haystack} "


# --- what the plan says ---------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One planned statement: who it is about, which stems it states, what it cites."""

    subject: str
    category: str
    stems: frozenset[str]
    texts: tuple[str, ...]
    evidence: tuple[EvidenceSpan, ...]
    is_edge: bool = False


def _held_item(p: AnyProposal, categories: dict[str, str]) -> Item:
    if isinstance(p, (SliceProposal, EventProposal)):
        cat = categories.get(canonical_key(p.on), p.category)
        return Item(p.on, cat, frozenset(stated_stems(p.text)), (p.on, p.text), p.evidence)
    if isinstance(p, EdgeProposal):
        return _edge_item(p.from_label, p.to_label, p.type, p.evidence)
    label = p.label if isinstance(p, (NodeProposal, CandidateProposal)) else ""
    cat = p.category if isinstance(p, (NodeProposal, CandidateProposal)) else "other"
    return Item(label, cat, frozenset(content_stems(label)), (label,), p.evidence)


def _edge_item(source: str, dest: str, kind: str, evidence: tuple[EvidenceSpan, ...]) -> Item:
    stems = content_stems(f"{kind.replace('_', ' ')} {dest}") | set(_EDGE_WORDS.get(kind, ()))
    return Item(source, "other", frozenset(stems), (source, dest), evidence, is_edge=True)


def plan_items(plan: WritePlan) -> list[Item]:
    categories = {n.key: n.category for n in plan.new_nodes}
    categories.update({c.key: c.category for c in plan.new_candidates})
    items: list[Item] = []
    for n in plan.new_nodes:
        items.append(
            Item(n.label, n.category, frozenset(content_stems(n.label)), (n.label,), n.evidence)
        )
    for c in plan.new_candidates:
        items.append(
            Item(c.label, c.category, frozenset(content_stems(c.label)), (c.label,), c.evidence)
        )
        items.extend(_held_item(h, categories) for h in c.held)
    for s in plan.new_slices:
        cat = categories.get(s.target.key, "other")
        items.append(
            Item(
                s.target_label,
                cat,
                frozenset(stated_stems(s.text)),
                (s.target_label, s.text),
                s.evidence,
            )
        )
    for e in plan.new_events:
        cat = categories.get(e.target.key, "other")
        items.append(
            Item(
                e.target_label,
                cat,
                frozenset(stated_stems(e.text)),
                (e.target_label, e.text),
                e.evidence,
            )
        )
    for edge in plan.new_edges:
        items.append(_edge_item(edge.source.label, edge.dest.label, edge.type, edge.evidence))
    return items


def planned_labels(plan: WritePlan) -> set[str]:
    """Keys of every label the plan writes or proposes."""
    labels = [n.label for n in plan.new_nodes] + [c.label for c in plan.new_candidates]
    labels += [u.label for u in plan.node_updates] + [b.label for b in plan.candidate_bumps]
    labels += [s.target_label for s in plan.new_slices] + [e.target_label for e in plan.new_events]
    for edge in plan.new_edges:
        labels += [edge.source.label, edge.dest.label]
    return {k for k in (canonical_key(label) for label in labels) if k}


# --- scoring --------------------------------------------------------------------------------


def split_claim(claim: str) -> tuple[str | None, set[str]]:
    """(subject key, or None for the speaker; predicate stems) of a forbidden claim."""
    words = claim.strip().rstrip(".").split()
    lowered = [w.lower().strip(",") for w in words]
    cut = next((i for i, w in enumerate(lowered) if w in _CLAIM_VERBS), len(words))
    subject = " ".join(lowered[:cut])
    predicate = " ".join(words[cut:])
    if subject in _SPEAKER or not subject:
        return None, content_stems(predicate)
    subject_key = " ".join(w for w in canonical_key(subject).split() if w not in _STOP_WORDS)
    return subject_key, content_stems(predicate)


def claim_leaks(claim: str, items: Iterable[Item]) -> bool:
    subject, predicate = split_claim(claim)
    if not predicate:
        return False
    for item in items:
        if subject is None:
            about = not item.is_edge and item.category not in PERSONAL
        else:
            about = set(subject.split()) <= set(canonical_key(item.subject).split())
        if about and predicate <= item.stems:
            return True
    return False


def control_leaks(controls: Sequence[tuple[str, str]], items: Sequence[Item]) -> bool:
    """``controls`` are (message id, text) pairs; see the module docstring for the rule."""
    for message_id, text in controls:
        key = canonical_key(text)
        for item in items:
            if message_id and any(span.message_id == message_id for span in item.evidence):
                return True
            quotes = [span.quote for span in item.evidence]
            if key and any(_has_phrase(canonical_key(t), key) for t in (*item.texts, *quotes)):
                return True
    return False


def _controls(fixture: dict[str, Any], messages: dict[str, str]) -> list[tuple[str, str]]:
    controls = []
    for entry in fixture.get("control_messages") or []:
        entry = str(entry)
        controls.append((entry, messages[entry]) if entry in messages else ("", entry))
    return controls


def _source_time(fixture: dict[str, Any], where: str) -> datetime | None:
    raw = fixture.get("source_time")
    if not raw:
        return None
    try:
        moment = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
    except ValueError as exc:
        raise FixtureError(f"{where}: source_time {raw!r} is not ISO 8601") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def score_fixture(fixture: dict[str, Any], where: str = "fixture") -> dict[str, Any]:
    if not isinstance(fixture, dict) or "messages" not in fixture:
        raise FixtureError(f"{where}: expected an object with messages")
    try:
        messages = messages_from_json(fixture["messages"])
    except TranscriptError as exc:
        raise FixtureError(f"{where}: {exc}") from exc
    proposals = extract(messages, source_time=_source_time(fixture, where))
    plan = plan_writes(proposals, Snapshot.empty(now=EVAL_NOW))
    items = plan_items(plan)
    labels = planned_labels(plan)
    subject = fixture.get("primary_subject") or None
    subject_key = canonical_key(str(subject.get("label", ""))) if subject else ""
    exact = (subject_key in labels) if subject else None
    contained = any(_has_phrase(k, subject_key) for k in labels) if subject else None
    must_save = bool(fixture.get("must_save"))
    saved_ok = plan.has_writes == must_save
    texts = {m.id: m.content for m in messages}
    control_leak = control_leaks(_controls(fixture, texts), items)
    forbidden = [c for c in fixture.get("forbid_claims") or [] if claim_leaks(str(c), items)]
    passed = saved_ok and not control_leak and not forbidden and exact is not False
    return {
        "id": str(fixture.get("id", where)),
        "category": str(fixture.get("category", "")),
        "must_save": must_save,
        "saved": plan.has_writes,
        "saved_ok": saved_ok,
        "subject": subject.get("label") if subject else None,
        "subject_exact": exact,
        "subject_contained": contained,
        "control_leak": control_leak,
        "forbidden_leak": bool(forbidden),
        "forbidden_claims_leaked": forbidden,
        "labels": sorted(
            {c.label for c in plan.new_candidates} | {n.label for n in plan.new_nodes}
        ),
        "passed": passed,
    }


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def score_extraction(
    fixture_data: Any, on_fixture: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Score a decoded golden file (``{"fixtures": [...]}`` or a bare list). Pure.

    ``on_fixture(fixture_id)`` is called after each fixture (a command's progress bar)."""
    fixtures = fixture_data.get("fixtures") if isinstance(fixture_data, dict) else fixture_data
    if not isinstance(fixtures, list):
        raise FixtureError('expected {"fixtures": [...]} or a list of fixtures')
    per = []
    for i, f in enumerate(fixtures):
        per.append(score_fixture(f, f"fixture {i}"))
        if on_fixture is not None:
            on_fixture(str(per[-1].get("id", i)))
    must = [r for r in per if r["must_save"]]
    must_not = [r for r in per if not r["must_save"]]
    with_subject = [r for r in per if r["subject_exact"] is not None]
    return {
        "fixtures": len(per),
        "must_save_recall": _rate(sum(r["saved_ok"] for r in must), len(must)),
        "no_save_precision": _rate(sum(r["saved_ok"] for r in must_not), len(must_not)),
        "subject_exact_rate": _rate(
            sum(bool(r["subject_exact"]) for r in with_subject), len(with_subject)
        ),
        "subject_contained_rate": _rate(
            sum(bool(r["subject_contained"]) for r in with_subject), len(with_subject)
        ),
        "control_leaks": sum(r["control_leak"] for r in per),
        "forbidden_leaks": sum(r["forbidden_leak"] for r in per),
        "pass_rate": _rate(sum(r["passed"] for r in per), len(per)),
        "per_fixture": per,
    }
