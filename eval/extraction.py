"""The extraction eval: run the offline (``rules``) extractor and the gate on golden
conversations and score.

Fixture format (``eval/fixtures/extraction_golden.json``): ``{"fixtures": [...]}`` where each
fixture has ``id``, ``category``, ``messages`` (``{id, role, content, ts?}``),
``primary_subject`` (``{label, type}`` or null), ``expect_claims`` (kept for model evals, not
scored here), ``must_save``, ``forbid_claims`` (sentences) and ``control_messages`` (message
ids, or literal texts). Optional ``source_time`` (ISO) anchors relative dates.

Each fixture runs the ``rules`` extractor (the rule recognisers, then the subject proposer:
:func:`memory.extractors.subjects.extract`) and then
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
``control_leaks`` and ``forbidden_leaks`` (counts of fixtures), ``pass_rate``, and:

- ``label_recall``: share of the fixtures' ``expect_labels`` (``{label, category, state?}``)
  whose canonical key is among the planned new nodes and candidates;
- ``category_accuracy``: of those found, the share filed under the expected category;
  ``state_accuracy``: of those found that name a ``state``, the share whose planned state
  (the node's, else the state its last event implies) is that state;
- ``junk_label_rate``: the share of planned labels (new nodes and candidates, all fixtures)
  that are fragments by :func:`is_fragment`, a check of the eval's own, kept apart from the
  gate's so the gate cannot grade itself;
- ``dated_event_rate``: of the planned events whose own text states a time
  (:func:`states_time`), the share that carry ``happened_at``; ``events_with_time`` is that
  count.

The extractor is the rules extractor unless another ``extract`` function is passed (the
``--extractor llm`` option of the command). An extractor failure (an LLM's malformed answer)
fails that fixture and is counted in ``extractor_failures``; the run goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eval.fixture_files import FixtureError
from memory.extractors import ExtractorFailed
from memory.extractors.subjects import extract
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
from memory.transcripts import Message, TranscriptError, messages_from_json
from memory.vocab import ACTION_STATE

Extract = Callable[..., list[AnyProposal]]

# A fixed clock: the eval must not depend on when it runs.
EVAL_NOW = datetime(2026, 1, 1, tzinfo=UTC)
PERSONAL = frozenset({"person", "family", "relationship"})


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


# --- fragments and times (the eval's own lexicon, independent of the gate) -----------------

_MARKUP = re.compile(r"</?[A-Za-z][^<>]*>|\*\*|__|`|\]\(|^#+\s|&[a-z]+;")
_FRAGMENT_START = frozenset(
    """is are was were be been being am has have had having do does did doing going gonna get
    got getting make made making take took taking try trying just very really so such some any
    few many much more most of for to at in on by with from about than as there here this that
    these those it its he she they we you i me my your our their his her them who what which
    when where why how not no yes and or but if then also still again""".split()
)
_FRAGMENT_END = frozenset(
    """of for to at in on by with from about than as and or but the a an some any my your our
    their his her its is are was were be been have has had do did there that this it going
    ago""".split()
)
_TIME_UNITS = frozenset(
    """day days week weeks month months year years hour hours minute minutes time times
    yesterday today tomorrow tonight ago morning evening night weekend""".split()
)
_COUNTS = frozenset(
    """a an one two three four five six seven eight nine ten few several couple many some
    last next this past for every each""".split()
)
_LIGHT_GERUNDS = frozenset(
    """being having doing going getting making taking trying saying thinking feeling justing
    seeing looking wanting needing coming putting""".split()
)


def is_fragment(label: str) -> bool:
    """A planned label that is not the name of anything: markup, a verb phrase, a time phrase,
    a stop-word fragment, or a name cut at punctuation ("<b>R", "D Tracker</b>")."""
    text = label.strip()
    if not text or _MARKUP.search(text):
        return True
    if not (text[0].isalnum() or text[0] in "\"'“‘(") or text[-1] in "&-'/,;:":
        return True
    words = [w.lower().strip(".,;:!?\"'") for w in text.split()]
    words = [w for w in words if w]
    if not words:
        return True
    if words[0] in _FRAGMENT_START or words[-1] in _FRAGMENT_END:
        return True
    if words[-1] in _TIME_UNITS and (
        len(words) == 1 or words[-2] in _COUNTS or words[-2].isdigit()
    ):
        return True  # "Few Days", "Coffee Two Weeks"; "Strange Day" names a day
    return len(words) == 1 and words[0] in _LIGHT_GERUNDS


_MONTH_WORDS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_WEEKDAY_WORDS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_STATED_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|last\s+(?:night|week|month|year|weekend|summer|winter|spring|"
    r"autumn|fall|" + _WEEKDAY_WORDS + "|" + _MONTH_WORDS + r")|this\s+(?:morning|week|month|year|"
    r"weekend)|(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|"
    r"couple\s+of)\s+(?:days?|weeks?|months?|years?)\s+ago|(?:in|since|on|from)\s+(?:"
    + _MONTH_WORDS
    + "|"
    + _WEEKDAY_WORDS
    + r")(?!s\b|\s+(?:mornings|evenings|nights|afternoons)\b)|(?:19|20)\d\d|on\s+\d{1,2}(?:st|nd|rd|th)?\b|(?:"
    + _MONTH_WORDS
    + r")\s+\d{1,2}\b)",
    re.IGNORECASE,
)


def states_time(text: str) -> bool:
    """Whether a sentence states when something happened (a date or a relative phrase); a
    schedule ("on Saturdays", "on Sunday mornings") is no time."""
    return bool(_STATED_TIME.search(text))


def _planned_events(plan: WritePlan) -> list[tuple[str, datetime | None]]:
    """(text, happened_at) of every event the plan writes or holds on a candidate."""
    events: list[tuple[str, datetime | None]] = [(e.text, e.happened_at) for e in plan.new_events]
    for c in plan.new_candidates:
        events += [(h.text, h.happened_at) for h in c.held if isinstance(h, EventProposal)]
    return events


def _planned_categories(plan: WritePlan) -> dict[str, tuple[str, str | None]]:
    """key -> (category, state) of every new node and candidate."""
    out: dict[str, tuple[str, str | None]] = {}
    state: str | None
    for n in plan.new_nodes:
        state = n.state
        for e in plan.new_events:
            if e.target.key == n.key and e.new_state:
                state = e.new_state
        out.setdefault(n.key, (n.category, state))
    for c in plan.new_candidates:
        state = None
        for h in c.held:
            if isinstance(h, NodeProposal) and h.state:
                state = h.state
            if isinstance(h, EventProposal) and h.action in ACTION_STATE:
                state = ACTION_STATE[h.action]
        out.setdefault(c.key, (c.category, state))
    return out


def _label_scores(expected: list[Any], found: dict[str, tuple[str, str | None]]) -> dict[str, int]:
    tally = {"expected": 0, "found": 0, "category_ok": 0, "with_state": 0, "state_ok": 0}
    for entry in expected:
        key = canonical_key(str(entry.get("label", "")))
        tally["expected"] += 1
        if key not in found:
            continue
        category, state = found[key]
        tally["found"] += 1
        tally["category_ok"] += category == entry.get("category")
        if entry.get("state"):
            tally["with_state"] += 1
            tally["state_ok"] += state == entry["state"]
    return tally


def score_fixture(
    fixture: dict[str, Any], where: str = "fixture", extract_fn: Extract | None = None
) -> dict[str, Any]:
    if not isinstance(fixture, dict) or "messages" not in fixture:
        raise FixtureError(f"{where}: expected an object with messages")
    try:
        messages = messages_from_json(fixture["messages"])
    except TranscriptError as exc:
        raise FixtureError(f"{where}: {exc}") from exc
    try:
        proposals = run_extractor(extract_fn or extract, messages, _source_time(fixture, where))
        failure = ""
    except ExtractorFailed as exc:  # an LLM's bad answer fails this fixture, not the run
        proposals, failure = [], str(exc)
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
    passed = saved_ok and not control_leak and not forbidden and exact is not False and not failure
    planned = sorted({c.label for c in plan.new_candidates} | {n.label for n in plan.new_nodes})
    expected = fixture.get("expect_labels") or []
    if not isinstance(expected, list):
        raise FixtureError(f"{where}: expect_labels must be a list")
    timed = [(text, at) for text, at in _planned_events(plan) if states_time(text)]
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
        "extractor_failed": failure,
        "labels": planned,
        "junk_labels": [label for label in planned if is_fragment(label)],
        "label_tally": _label_scores(expected, _planned_categories(plan)),
        "events_with_time": len(timed),
        "dated_events": sum(at is not None for _, at in timed),
        "passed": passed,
    }


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def run_extractor(
    extract_fn: Extract, messages: list[Message], source_time: datetime | None
) -> list[AnyProposal]:
    return extract_fn(messages, source_time=source_time)


def score_extraction(
    fixture_data: Any,
    extract_fn: Extract | None = None,
    on_fixture: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Score a decoded golden file (``{"fixtures": [...]}`` or a bare list). Pure with the
    rules extractor.

    ``on_fixture(fixture_id)`` is called after each fixture (a command's progress bar)."""
    fixtures = fixture_data.get("fixtures") if isinstance(fixture_data, dict) else fixture_data
    if not isinstance(fixtures, list):
        raise FixtureError('expected {"fixtures": [...]} or a list of fixtures')
    per = []
    for i, f in enumerate(fixtures):
        per.append(score_fixture(f, f"fixture {i}", extract_fn))
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
        **_totals(per),
        "per_fixture": per,
    }


def _totals(per: list[dict[str, Any]]) -> dict[str, Any]:
    tally = {k: sum(r["label_tally"][k] for r in per) for k in per[0]["label_tally"]} if per else {}
    labels = sum(len(r["labels"]) for r in per)
    timed = sum(r["events_with_time"] for r in per)
    return {
        "extractor_failures": sum(bool(r["extractor_failed"]) for r in per),
        "label_recall": _rate(tally.get("found", 0), tally.get("expected", 0)),
        "category_accuracy": _rate(tally.get("category_ok", 0), tally.get("found", 0)),
        "state_accuracy": _rate(tally.get("state_ok", 0), tally.get("with_state", 0)),
        "labels_planned": labels,
        "junk_label_rate": _rate(sum(len(r["junk_labels"]) for r in per), labels),
        "events_with_time": timed,
        "dated_event_rate": _rate(sum(r["dated_events"] for r in per), timed),
    }
