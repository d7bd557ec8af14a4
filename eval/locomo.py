"""The LoCoMo adapter: real long conversations that nobody on the team wrote, read from a folder.

LoCoMo (Maharana et al. 2024) is a set of long two-person conversations, each a JSON file:
``speaker_a``, ``speaker_b``, ``session_N`` (turns ``{speaker, dia_id, text}``),
``session_N_date_time`` ("1:56 pm on 8 May, 2023"), ``events_session_N`` (per speaker, the
reference events of that person's life in that session) and ``qa`` (questions with their
``answer``, the ``evidence`` turns and a ``category``). The data is not in the repository: the
command reads a folder of it (``eval_locomo PATH``). This module holds only the reader and the
scoring; what follows is how ume is measured on it, the same on every conversation:

- Each speaker is one person in ume (a throwaway owner). Each session is one transcript: the
  person's turns as the user, the other speaker's as the assistant, every message dated with
  the session's date and carrying its ``dia_id`` as its message id. Sessions are ingested in
  order through the real write path with the chosen extractor.
- **Coverage**: a reference event of a speaker is covered when one of that person's units
  shares at least 2 content words with it and at least half of the smaller content-word set
  (:func:`overlaps`). A unit is a candidate's label with each text it holds, a fact or an
  event with its memory's label, or a label of 2+ content words. Content words: lower case,
  stop words dropped, a light stemmer (:func:`light_stem`), both speakers' names dropped.
- **Junk**: the share of proposed labels (candidates' and memories') that are fragments,
  pronouns, generic words or sentence pieces (:func:`junk_reason`).
- **Candidates per 100 turns**: pending candidates per 100 of the person's own turns.
- **Recall**: each question goes to the people it names (both when it names both; a question
  that names neither is not asked) with ``recall(limit=10)``. A question is a hit at k when an
  item in the top k of any person asked comes from an evidence turn (*provenance*: an episode
  with that message id, or a memory whose evidence cites it) or, looser, when an item's text
  overlaps an evidence turn's text by the coverage rule (*overlap*). Adversarial questions
  (about something never said) also count how often nothing came back (*quiet*). ume is
  asked with its confidence gate off and answers as it would at the threshold
  (``UME_RECALL_MIN_CONFIDENCE``, or ``--threshold``); ``--curve`` adds quiet and hit@5 at
  several thresholds (:mod:`eval.curve`).
- **Baselines**: BM25 (``rank_bm25.BM25Okapi``, stop words dropped) over the person's own raw
  turns (``bm25``), and over every turn of the person's sessions, both speakers' (``bm25_all``),
  asked the same questions.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from rank_bm25 import BM25Okapi

from eval.conversations import _promote_all
from eval.curve import CURVE, check_threshold, kept
from memory.models import Candidate, Episode, Event, Evidence, Node, Slice
from memory.owned import Person
from memory.policy import FILLERS, PRONOUNS, is_junk_label
from memory.recall import EpisodeItem, RecallItem, recall
from memory.recall.text import STOP_WORDS
from memory.services.ingest import ingest_text
from memory.vocab import CandidateStatus

CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop", 5: "adversarial"}
SYSTEMS = ("bm25", "bm25_all", "ume_unreviewed", "ume_promoted")
# ``--variant review``: nothing reviewed, as a new user has it; ``promote``: every candidate
# promoted first.
VARIANTS = ("review", "promote")
SYSTEM_OF = {"review": "ume_unreviewed", "promote": "ume_promoted"}


def _systems(variants: Sequence[str]) -> tuple[str, ...]:
    return ("bm25", "bm25_all", *(SYSTEM_OF[v] for v in VARIANTS if v in variants))


LIMIT = 10


class LocomoError(ValueError):
    """A folder or file that is not LoCoMo's format; the message names the file."""


# --- reading --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str


@dataclass(frozen=True)
class Session:
    number: int
    when: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Conversation:
    name: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    events: dict[str, tuple[tuple[int, str], ...]]
    """Per speaker, (session number, reference event)."""
    questions: tuple[dict[str, Any], ...]


_WHEN = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I
)
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november december".split()
    )
}


def parse_when(value: Any) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` -> an aware UTC datetime; ``None`` when it does not read."""
    if not isinstance(value, str):
        return None
    match = _WHEN.match(value)
    if not match:
        return None
    hour, minute, half, day, month_name, year = match.groups()
    month = _MONTHS.get(month_name.lower())
    if month is None or not 1 <= int(hour) <= 12:
        return None
    hour24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    try:
        return datetime(int(year), month, int(day), hour24, int(minute), tzinfo=UTC)
    except ValueError:
        return None


def _session_numbers(data: dict[str, Any]) -> list[int]:
    numbers = []
    for key in data:
        match = re.fullmatch(r"session_(\d+)", key)
        if match:
            numbers.append(int(match.group(1)))
    return sorted(numbers)


def read_conversation(path: Path) -> Conversation:
    """One LoCoMo conversation file; every failure is a :class:`LocomoError` naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise LocomoError(f"{path}: not readable JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise LocomoError(f"{path}: a conversation must be a JSON object")
    first, second = data.get("speaker_a"), data.get("speaker_b")
    if (
        not (
            isinstance(first, str) and isinstance(second, str) and first.strip() and second.strip()
        )
        or first == second
    ):
        raise LocomoError(f"{path}: needs two different 'speaker_a' and 'speaker_b'")
    speakers: tuple[str, str] = (first, second)
    sessions: list[Session] = []
    for number in _session_numbers(data):
        turns_data = data[f"session_{number}"]
        if not isinstance(turns_data, list):
            raise LocomoError(f"{path}: session_{number} must be a list of turns")
        if not turns_data:
            continue
        when = parse_when(data.get(f"session_{number}_date_time"))
        if when is None:
            raise LocomoError(f"{path}: session_{number}_date_time is missing or unreadable")
        turns = []
        for i, turn in enumerate(turns_data):
            if not (
                isinstance(turn, dict)
                and turn.get("speaker") in speakers
                and isinstance(turn.get("dia_id"), str)
                and isinstance(turn.get("text"), str)
            ):
                raise LocomoError(
                    f"{path}: session_{number}[{i}] needs speaker (one of the two), dia_id, text"
                )
            turns.append(Turn(turn["dia_id"], turn["speaker"], turn["text"]))
        sessions.append(Session(number, when, tuple(turns)))
    if not sessions:
        raise LocomoError(f"{path}: no sessions")
    events: dict[str, list[tuple[int, str]]] = {speakers[0]: [], speakers[1]: []}
    for number in _session_numbers(data):
        block = data.get(f"events_session_{number}")
        if not isinstance(block, dict):
            continue
        for speaker in speakers:
            items = block.get(speaker) or []
            if isinstance(items, list):
                events[speaker] += [(number, e) for e in items if isinstance(e, str) and e.strip()]
    qa = data.get("qa", [])
    if not isinstance(qa, list):
        raise LocomoError(f"{path}: 'qa' must be a list")
    questions = tuple(
        q
        for q in qa
        if isinstance(q, dict)
        and isinstance(q.get("question"), str)
        and q.get("category") in CATEGORIES
    )
    return Conversation(
        name=path.stem,
        speakers=speakers,
        sessions=tuple(sessions),
        events={k: tuple(v) for k, v in events.items()},
        questions=questions,
    )


def read_folder(path: Path, only: Sequence[str] = ()) -> list[Conversation]:
    """Every ``*.json`` conversation of ``path`` (or a single file), by name; ``only`` keeps
    the named ones."""
    if path.is_file():
        files = [path]
    elif path.is_dir():
        files = sorted(path.glob("*.json"), key=lambda p: (len(p.stem), p.stem))
    else:
        raise LocomoError(f"{path}: no such file or folder")
    if only:
        files = [f for f in files if f.stem in set(only)]
    if not files:
        raise LocomoError(f"{path}: no LoCoMo conversation (*.json) found")
    return [read_conversation(f) for f in files]


# --- the matching rule (pure) ---------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def light_stem(word: str) -> str:
    """A light stemmer: a possessive, then one of -ies, -ing, -ed, -es, -s, as long as three
    letters stay ("classes" -> "class", "painting" -> "paint", "studies" -> "study")."""
    if word.endswith("'s"):
        word = word[:-2]
    word = word.replace("'", "")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if len(word) - len(suffix) >= 3 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]  # "running" -> "runn" -> "run"
            return word
    if len(word) > 4 and word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str, names: Iterable[str] = ()) -> frozenset[str]:
    """Lower case, stop words and the given names dropped, lightly stemmed."""
    dropped = {n.lower() for name in names for n in _WORD.findall(name.lower())}
    out = set()
    for word in _WORD.findall(text.lower()):
        bare = word.replace("'s", "").replace("'", "")
        if bare in STOP_WORDS or bare in dropped or len(bare) < 2:
            continue
        out.add(light_stem(word))
    return frozenset(out)


def overlaps(a: frozenset[str], b: frozenset[str]) -> bool:
    """At least 2 shared content words, and at least half of the smaller set."""
    shared = len(a & b)
    return shared >= 2 and shared >= 0.5 * min(len(a), len(b))


# --- junk labels (pure) ---------------------------------------------------------------------

GENERIC = frozenset(
    """
    thing things stuff time times day days week weeks year years way ways lot lots bit people
    person guy guys someone everyone anyone life world place today tomorrow yesterday moment
    idea ideas kind sort part piece end start one ones fun sure yeah yes okay ok hey hi hello
    thanks thank wow great good nice cool awesome amazing really totally
    """.split()
)
_FUNCTION = frozenset(
    """
    a an the and or but so to of in on at for with from by as if than then that this these those
    is are was were be been am do does did have has had will would can could should my your our
    their his her its it i you we they he she me us them very really just also too not
    """.split()
)
MAX_LABEL_WORDS = 6


_INNER_PRONOUNS = (PRONOUNS - {"my", "one", "ones", "thing", "things", "stuff"}) | {
    "i'm",
    "im",
    "i've",
    "i'd",
    "it's",
    "we're",
    "they're",
    "you're",
}
# Adverbs by their suffix ("basically", "seriously", "finally"), not every word in -ly
# ("family", "july").
_ADVERB = re.compile(r"^\w{2,}(?:ally|ously|ively|fully|ently|antly|edly|ately|ingly|lessly)$")
_CLAUSE_WORDS = frozenset("when because cause if than while whether since until".split())
_TRAILING_ADVERBS = frozenset(
    "lately here there together ever again now today tonight anymore already yet soon".split()
)


def junk_reason(label: str) -> str | None:
    """Why a proposed label is junk, or ``None``. In order: ``pronoun`` (only pronouns),
    ``fragment`` (a cut piece of a sentence: it starts or ends on a function word, on an
    adverb in -ly, or ends on an adverb of time or place), ``sentence`` (a clause, not a name:
    a pronoun or a clause word inside, or longer than a label is) and ``generic`` (no word but
    generic ones and fillers). A conservative judge: a label it passes may still be one a
    person would not keep; the report lists every proposed label beside its verdicts."""
    words = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", label.lower())
    if not words or all(w in PRONOUNS - {"thing", "things", "stuff"} for w in words):
        return "pronoun"
    first, last = words[0], words[-1]
    if len(words) > 1 and (first in _FUNCTION - {"my"} or last in _FUNCTION):
        return "fragment"
    if _ADVERB.search(first) or _ADVERB.search(last):
        return "fragment"
    if len(words) > 1 and last in _TRAILING_ADVERBS:
        return "fragment"
    if len(words) > MAX_LABEL_WORDS or any(w in _INNER_PRONOUNS | _CLAUSE_WORDS for w in words):
        return "sentence"
    if is_junk_label(label) or all(
        w in GENERIC or w in FILLERS or w in _FUNCTION or w in STOP_WORDS for w in words
    ):
        return "generic"
    return None


# --- the baseline (pure) --------------------------------------------------------------------


def bm25_tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


class Baseline:
    """BM25Okapi over a list of turns, asked questions one at a time."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.turns = list(turns)
        corpus = [bm25_tokens(t.text) for t in self.turns]
        self.index = BM25Okapi(corpus) if any(corpus) else None

    def ask(self, question: str, limit: int = LIMIT) -> list[Turn]:
        query = bm25_tokens(question)
        if self.index is None or not query:
            return []
        scores = self.index.get_scores(query)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return [self.turns[i] for i in order[:limit] if scores[i] > 0]


# --- scoring (pure) -------------------------------------------------------------------------


@dataclass(frozen=True)
class Returned:
    """One system's answer to one question for one person: per item, the turns it rests on
    and its text."""

    evidence: tuple[frozenset[str], ...]
    texts: tuple[str, ...]
    confidence: tuple[float, ...] = ()

    def at(self, threshold: float) -> Returned:
        """What recall would have returned at ``threshold`` (:mod:`eval.curve`)."""
        n = kept(self.confidence, threshold)
        return Returned(self.evidence[:n], self.texts[:n], self.confidence[:n])


def hits(
    answers: Sequence[Returned],
    evidence: Sequence[str],
    evidence_words: Sequence[frozenset[str]],
    k: int,
) -> tuple[bool, bool]:
    """(provenance hit, overlap hit) at ``k`` over the answers of every person asked."""
    wanted = set(evidence)
    provenance = any(wanted & ids for r in answers for ids in r.evidence[:k])
    loose = provenance or any(
        overlaps(content_words(text), words)
        for r in answers
        for text in r.texts[:k]
        for words in evidence_words
    )
    return provenance, loose


@dataclass
class Tally:
    questions: int = 0
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(
        self, answers: Sequence[Returned], evidence: Sequence[str], words: Sequence[frozenset[str]]
    ) -> None:
        self.questions += 1
        for k in (5, 10):
            provenance, loose = hits(answers, evidence, words, k)
            self.counts[f"hit_at_{k}"] += provenance
            self.counts[f"overlap_at_{k}"] += loose
        self.counts["quiet"] += all(not r.texts for r in answers)

    def as_json(self) -> dict[str, Any]:
        n = self.questions
        out: dict[str, Any] = {"questions": n}
        for key in ("hit_at_5", "hit_at_10", "overlap_at_5", "overlap_at_10", "quiet"):
            out[key] = round(self.counts[key] / n, 4) if n else None
        return out


def route(question: str, speakers: Sequence[str]) -> list[str]:
    """The speakers a question names (by any word of their name)."""
    words = set(_WORD.findall(question.lower()))
    named = []
    for speaker in speakers:
        parts = {p for p in _WORD.findall(speaker.lower()) if len(p) > 1}
        if words & parts or {w.removesuffix("'s") for w in words} & parts:
            named.append(speaker)
    return named


def coverage(events: Sequence[str], units: Sequence[frozenset[str]], names: Sequence[str]) -> int:
    """How many of ``events`` one of ``units`` covers."""
    covered = 0
    for event in events:
        words = content_words(event, names)
        if any(overlaps(words, unit) for unit in units):
            covered += 1
    return covered


# --- running --------------------------------------------------------------------------------


def _messages(session: Session, person: str) -> list[dict[str, Any]]:
    return [
        {
            "id": turn.dia_id,
            "role": "user" if turn.speaker == person else "assistant",
            "content": turn.text,
            "ts": session.when.isoformat(),
        }
        for turn in session.turns
        if turn.text.strip()
    ]


def _node_evidence(owner: Person) -> dict[int, set[str]]:
    """Memory id -> the turns its evidence rows (its own, its facts', its events') quote."""
    out: dict[int, set[str]] = defaultdict(set)
    rows = (
        Evidence.objects.for_owner(owner)
        .filter(Q(node__isnull=False) | Q(slice__isnull=False) | Q(event__isnull=False))
        .values_list("node_id", "slice__node_id", "event__node_id", "message_id")
    )
    for node_id, slice_node, event_node, message_id in rows:
        for nid in (node_id, slice_node, event_node):
            if nid is not None and message_id:
                out[nid].add(message_id)
    return out


def _ume_answer(owner: Person, question: str, node_evidence: dict[int, set[str]]) -> Returned:
    result = recall(owner, question, limit=LIMIT, min_confidence=0.0)
    evidence: list[frozenset[str]] = []
    texts: list[str] = []
    episode_ids = [item.id for item in result.items if isinstance(item, EpisodeItem)]
    message_of = dict(
        Episode.objects.for_owner(owner).filter(pk__in=episode_ids).values_list("pk", "message_id")
    )
    for item in result.items:
        if isinstance(item, EpisodeItem):
            evidence.append(frozenset({message_of.get(item.id, "")}))
            texts.append(item.text)
        elif isinstance(item, RecallItem):
            ids = node_evidence.get(item.id, set()) if item.kind == "node" else set()
            evidence.append(frozenset(ids))
            parts = [item.label, item.summary, *(s.text for s in item.slices)]
            parts += [e.text for e in item.events]
            texts.append(" ".join(parts))
    confidence = tuple(item.confidence for item in result.items)
    return Returned(tuple(evidence), tuple(texts), confidence)


def units_of(owner: Person, names: Sequence[str]) -> tuple[list[frozenset[str]], list[str]]:
    """The person's proposed and saved units as content-word sets, and every proposed label."""
    units: list[frozenset[str]] = []
    labels: list[str] = []

    def add(text: str) -> None:
        words = content_words(text, names)
        if words:
            units.append(words)

    for label, held in (
        Candidate.objects.for_owner(owner)
        .filter(status=CandidateStatus.PENDING)
        .values_list("label_guess", "held_objects")
    ):
        labels.append(label)
        if len(content_words(label, names)) >= 2:
            add(label)
        for obj in held or []:
            text = obj.get("text") if isinstance(obj, dict) else None
            if isinstance(text, str):
                add(f"{label} {text}")
    for label in Node.objects.for_owner(owner).values_list("label", flat=True):
        labels.append(label)
        if len(content_words(label, names)) >= 2:
            add(label)
    for model in (Slice, Event):
        for label, text in model.objects.for_owner(owner).values_list("node__label", "text"):
            add(f"{label} {text}")
    return units, labels


@dataclass
class Totals:
    events: int = 0
    covered: int = 0
    labels: int = 0
    junk: int = 0
    junk_by_reason: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    candidates: int = 0
    own_turns: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "covered": self.covered,
            "coverage": round(self.covered / self.events, 4) if self.events else None,
            "labels": self.labels,
            "junk": self.junk,
            "junk_rate": round(self.junk / self.labels, 4) if self.labels else 0.0,
            "junk_by_reason": dict(self.junk_by_reason),
            "candidates": self.candidates,
            "own_turns": self.own_turns,
            "candidates_per_100_turns": (
                round(100 * self.candidates / self.own_turns, 2) if self.own_turns else 0.0
            ),
        }


@dataclass(frozen=True)
class Asked:
    """One routed question: its category, its evidence turns (ids and content words), and
    what each system returned for each person asked (ume with its gate off)."""

    category: str
    evidence: list[str]
    words: list[frozenset[str]]
    answers: dict[str, list[Returned]]


@dataclass
class Report:
    extraction: Totals = field(default_factory=Totals)
    per_person: list[dict[str, Any]] = field(default_factory=list)
    asked: list[Asked] = field(default_factory=list)
    unrouted: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)


def tally(
    asked: Sequence[Asked], systems: Sequence[str], threshold: float
) -> dict[str, dict[str, Tally]]:
    """Per system and category (and ``answerable``, every category but the adversarial
    one), the tallies with ume's answers at ``threshold`` (:mod:`eval.curve`)."""
    out = {s: {c: Tally() for c in (*CATEGORIES.values(), "answerable")} for s in systems}
    for q in asked:
        for system in systems:
            answers = q.answers[system]
            if system in SYSTEM_OF.values():
                answers = [r.at(threshold) for r in answers]
            out[system][q.category].add(answers, q.evidence, q.words)
            if q.category != "adversarial":
                out[system]["answerable"].add(answers, q.evidence, q.words)
    return out


def curve(
    asked: Sequence[Asked], systems: Sequence[str], thresholds: Sequence[float] = CURVE
) -> list[dict[str, Any]]:
    """Per threshold, each ume system's quiet rate on adversarial questions and its hit@5
    over the answerable ones."""
    ume = [s for s in systems if s in SYSTEM_OF.values()]
    rows = []
    for threshold in thresholds:
        tallies = tally(asked, ume, threshold)
        row: dict[str, Any] = {"threshold": threshold}
        for system in ume:
            row[system] = {
                "quiet": tallies[system]["adversarial"].as_json()["quiet"],
                "hit_at_5": tallies[system]["answerable"].as_json()["hit_at_5"],
            }
        rows.append(row)
    return rows


def _ingest_person(
    conversation: Conversation, person: str, extractor: str | None, sessions: int | None
) -> tuple[Person, dict[str, int]]:
    owner = get_user_model().objects.create_user(
        username=f"eval-locomo-{uuid.uuid4().hex[:12]}", password=None
    )
    outcomes: dict[str, int] = defaultdict(int)
    for session in conversation.sessions[:sessions]:
        messages = _messages(session, person)
        if not messages:
            continue
        receipt = ingest_text(
            owner=owner,
            text=json.dumps({"messages": messages}, ensure_ascii=False),
            name=f"{conversation.name} {person} session {session.number}",
            source="command",
            extractor=extractor,
            source_time=session.when,
        )
        outcomes[str(receipt.outcome)] += 1
    return owner, dict(outcomes)


def _score_extraction(
    report: Report,
    conversation: Conversation,
    person: str,
    owner: Person,
    turns: int,
    sessions: int | None,
) -> dict[str, Any]:
    names = conversation.speakers
    units, labels = units_of(owner, names)
    kept = {s.number for s in conversation.sessions[:sessions]}
    events = [text for number, text in conversation.events.get(person, ()) if number in kept]
    covered = coverage(events, units, names)
    junk = [(label, junk_reason(label)) for label in labels]
    candidates = Candidate.objects.for_owner(owner).filter(status=CandidateStatus.PENDING).count()
    totals = report.extraction
    totals.events += len(events)
    totals.covered += covered
    totals.labels += len(labels)
    totals.junk += sum(1 for _label, why in junk if why)
    for _label, why in junk:
        if why:
            totals.junk_by_reason[why] += 1
    totals.candidates += candidates
    totals.own_turns += turns
    return {
        "events": len(events),
        "covered": covered,
        "labels": len(labels),
        "proposed": sorted(labels)[:300],
        "junk": sorted(label for label, why in junk if why)[:100],
        "candidates": candidates,
        "own_turns": turns,
    }


def run_conversation(
    conversation: Conversation,
    report: Report,
    *,
    extractor: str | None = None,
    sessions: int | None = None,
    variants: Sequence[str] = VARIANTS,
) -> None:
    """Ingest both speakers, score extraction, ask every routed question of each system."""
    kept = conversation.sessions[:sessions]
    kept_ids = {turn.dia_id for s in kept for turn in s.turns}
    text_of = {turn.dia_id: turn.text for s in kept for turn in s.turns}
    owners: dict[str, Person] = {}
    try:
        baselines: dict[str, tuple[Baseline, Baseline]] = {}
        for person in conversation.speakers:
            owner, outcomes = _ingest_person(conversation, person, extractor, sessions)
            owners[person] = owner
            own = [t for s in kept for t in s.turns if t.speaker == person]
            every = [t for s in kept for t in s.turns]
            baselines[person] = (Baseline(own), Baseline(every))
            row = _score_extraction(report, conversation, person, owner, len(own), sessions)
            report.per_person.append(
                {"conversation": conversation.name, "person": person, "receipts": outcomes, **row}
            )
        answers: dict[str, dict[int, list[Returned]]] = {s: defaultdict(list) for s in SYSTEMS}
        routed: dict[int, list[str]] = {}
        for i, q in enumerate(conversation.questions):
            people = route(q["question"], conversation.speakers)
            evidence = [e for e in q.get("evidence") or [] if isinstance(e, str)]
            if not people or (evidence and not set(evidence) & kept_ids):
                report.unrouted += not people
                continue
            routed[i] = people
        for variant in VARIANTS:
            if variant not in variants:
                continue
            mode = SYSTEM_OF[variant]
            if variant == "promote":
                for owner in owners.values():
                    _promote_all(owner)
            evidence_of = {p: _node_evidence(o) for p, o in owners.items()}
            for i, people in routed.items():
                q = conversation.questions[i]
                for person in people:
                    answers[mode][i].append(
                        _ume_answer(owners[person], q["question"], evidence_of[person])
                    )
        for i, people in routed.items():
            q = conversation.questions[i]
            for person in people:
                for system, baseline in zip(("bm25", "bm25_all"), baselines[person], strict=True):
                    found = baseline.ask(q["question"])
                    answers[system][i].append(
                        Returned(
                            tuple(frozenset({t.dia_id}) for t in found),
                            tuple(t.text for t in found),
                        )
                    )
        for i in routed:
            q = conversation.questions[i]
            evidence = [e for e in q.get("evidence") or [] if isinstance(e, str)]
            report.asked.append(
                Asked(
                    category=CATEGORIES[q["category"]],
                    evidence=evidence,
                    words=[content_words(text_of[e]) for e in evidence if e in text_of],
                    answers={system: answers[system][i] for system in _systems(variants)},
                )
            )
    finally:
        for owner in owners.values():
            get_user_model().objects.filter(pk=owner.pk).delete()


def run_eval(
    conversations: Sequence[Conversation],
    *,
    extractor: str | None = None,
    sessions: int | None = None,
    variants: Sequence[str] = VARIANTS,
    threshold: float | None = None,
    with_curve: bool = False,
) -> dict[str, Any]:
    """The report: extraction figures, then per system and question category the hit rates,
    with ume at ``threshold`` (``UME_RECALL_MIN_CONFIDENCE`` when None); with
    ``with_curve``, the trade-off over :data:`eval.curve.CURVE` too."""
    at = settings.UME_RECALL_MIN_CONFIDENCE if threshold is None else check_threshold(threshold)
    started = time.perf_counter()
    report = Report()
    for conversation in conversations:
        run_conversation(
            conversation, report, extractor=extractor, sessions=sessions, variants=variants
        )
    tallies = tally(report.asked, _systems(variants), at)
    out = {
        "conversations": [c.name for c in conversations],
        "extraction": report.extraction.as_json(),
        "people": report.per_person,
        "threshold": at,
        "systems": {
            system: {category: t.as_json() for category, t in by_category.items()}
            for system, by_category in tallies.items()
        },
        "unrouted_questions": report.unrouted,
        "seconds": round(time.perf_counter() - started, 2),
    }
    if with_curve:
        out["curve"] = curve(report.asked, _systems(variants))
    return out
