"""The conversation eval: long everyday conversations in, questions about them later.

Fixture (``eval/fixtures/conversations_*.json``, described in ``eval/fixtures/README.md``):
``people``, each with ``sessions`` (``id``, ``date``, ``messages``: ``[{id, role, content}]``)
and ``questions`` (``id``, ``type``, ``question``, ``answer``, ``evidence``: the message ids
that hold the answer). Types: ``single_fact``, ``across_sessions``, ``when``, ``paraphrase``
and ``nothing`` (nothing to find: ``evidence`` empty).

For each person a throwaway owner is created and every session goes through ume's real write
path (``ingest_text`` with the default extractor, the session date as source time). Then
every question is asked of :func:`memory.recall.recall` twice: with nothing reviewed (the
candidates waiting, as a new user has them) and with every candidate promoted. Beside them,
the same command computes a baseline: BM25 over the person's raw messages, with the same
words and stems.

Scores, per question type and overall (over the questions that have evidence):

- ``hit_at_5`` / ``hit_at_10``: share of questions where a message holding the answer is
  among the evidence of the first 5 / 10 items. An episode's evidence is its own message; a
  node's is the messages its evidence rows quote (for the node, its slices and its events);
  the baseline's is the message it returns.
- ``answer_recall``: mean share of the answer's words (stemmed, stop words out) found in the
  text of the first 10 items.
- ``quiet``: for ``nothing`` questions, the share that returned nothing at all.

ume is asked with its confidence gate off and answers as it would at the threshold
(``UME_RECALL_MIN_CONFIDENCE``, or ``--threshold``); ``--curve`` prints quiet and hit@5 at
several thresholds (:mod:`eval.curve`).
"""

from __future__ import annotations

import json
import math
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

from eval.curve import CURVE, check_threshold, kept
from eval.fixture_files import FixtureError, read_fixture_file
from memory.models import Candidate, Episode, Evidence
from memory.owned import Person
from memory.recall import EpisodeItem, RecallItem, recall
from memory.recall.text import terms
from memory.services.ingest import ingest_text
from memory.services.review import ReviewError, candidate_promote
from memory.transcripts import TranscriptError, messages_from_json
from memory.vocab import CandidateStatus

TYPES = ("single_fact", "across_sessions", "when", "paraphrase", "nothing")
SYSTEMS = ("bm25", "ume_unreviewed", "ume_promoted")
UME_SYSTEMS = ("ume_unreviewed", "ume_promoted")
LIMIT = 10
BM25_K1 = 1.2
BM25_B = 0.75


# --- reading a fixture ----------------------------------------------------------------------


def _need(cond: Any, message: str) -> None:
    if not cond:
        raise FixtureError(message)


def read_fixture(path: Path) -> dict[str, Any]:
    """Decode and check ``path``; every failure is a :class:`FixtureError` naming the file."""
    data: dict[str, Any] = read_fixture_file(path, validate_fixture)
    return data


def validate_fixture(data: Any) -> None:
    """Check the shape before anything is written. Raises :class:`FixtureError`."""
    _need(isinstance(data, dict), "the fixture must be a JSON object")
    people = data.get("people")
    _need(isinstance(people, list) and people, "missing 'people' list")
    seen_people: set[str] = set()
    seen_questions: set[str] = set()
    for i, person in enumerate(people):
        where = f"people[{i}]"
        _need(isinstance(person, dict), f"{where} must be an object")
        pid = person.get("id")
        _need(
            isinstance(pid, str) and pid and pid not in seen_people, f"{where}: needs a unique 'id'"
        )
        seen_people.add(pid)
        sessions = person.get("sessions")
        _need(isinstance(sessions, list) and sessions, f"{where} needs a 'sessions' list")
        message_ids: set[str] = set()
        for j, session in enumerate(sessions):
            swhere = f"{where}.sessions[{j}]"
            _need(isinstance(session, dict), f"{swhere} must be an object")
            _need(_date(session.get("date")) is not None, f"{swhere}: 'date' must be YYYY-MM-DD")
            messages = session.get("messages")
            _need(isinstance(messages, list) and messages, f"{swhere} needs a 'messages' list")
            try:
                parsed = messages_from_json(messages)
            except TranscriptError as exc:
                raise FixtureError(f"{swhere}: {exc}") from exc
            for k, message in enumerate(messages):
                mid = message.get("id")
                _need(
                    isinstance(mid, str) and mid and mid not in message_ids,
                    f"{swhere}.messages[{k}] needs an 'id' unique for the person",
                )
                message_ids.add(mid)
            _need(len(parsed) == len(messages), f"{swhere}: every message must be kept")
        questions = person.get("questions")
        _need(isinstance(questions, list) and questions, f"{where} needs a 'questions' list")
        for j, q in enumerate(questions):
            qwhere = f"{where}.questions[{j}]"
            _need(isinstance(q, dict), f"{qwhere} must be an object")
            qid = q.get("id")
            _need(
                isinstance(qid, str) and qid and qid not in seen_questions,
                f"{qwhere} needs a unique 'id'",
            )
            seen_questions.add(qid)
            _need(q.get("type") in TYPES, f"{qwhere}: 'type' must be one of {', '.join(TYPES)}")
            _need(
                isinstance(q.get("question"), str) and q["question"].strip(),
                f"{qwhere}: no question",
            )
            evidence = q.get("evidence")
            _need(
                isinstance(evidence, list) and all(e in message_ids for e in evidence),
                f"{qwhere}: 'evidence' must list message ids of this person",
            )
            _need(
                (q["type"] == "nothing") == (not evidence),
                f"{qwhere}: a 'nothing' question has no evidence, every other type has some",
            )
            _need(isinstance(q.get("answer", ""), str), f"{qwhere}: 'answer' must be text")


def _date(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        day = datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        return None
    return day.replace(hour=12, tzinfo=UTC)


# --- the baseline: BM25 over the raw messages (pure) ----------------------------------------


@dataclass(frozen=True)
class Message:
    id: str
    text: str


def bm25_messages(messages: Sequence[Message], question: str, limit: int = LIMIT) -> list[Message]:
    """The ``limit`` best messages for ``question`` by plain BM25 over each message's words;
    none when no word of the question is in any message."""
    wanted = set(terms(question))
    if not wanted or not messages:
        return []
    docs = [terms(m.text) for m in messages]
    df: dict[str, int] = defaultdict(int)
    for words in docs:
        for w in set(words) & wanted:
            df[w] += 1
    n = len(docs)
    avg = sum(len(d) for d in docs) / n or 1.0
    scored: list[tuple[float, int]] = []
    for i, words in enumerate(docs):
        tf: dict[str, int] = defaultdict(int)
        for w in words:
            if w in wanted:
                tf[w] += 1
        if not tf:
            continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(words) / avg)
        score = sum(
            math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) * f * (BM25_K1 + 1) / (f + norm)
            for w, f in tf.items()
        )
        scored.append((score, i))
    scored.sort(key=lambda si: (-si[0], si[1]))
    return [messages[i] for _score, i in scored[:limit]]


# --- scoring (pure) -------------------------------------------------------------------------


@dataclass(frozen=True)
class Returned:
    """What one system returned for one question: per item, the message ids it rests on and
    its text, and for ume its confidence."""

    evidence: tuple[frozenset[str], ...]
    texts: tuple[str, ...]
    confidence: tuple[float, ...] = ()

    def at(self, threshold: float) -> Returned:
        """What recall would have returned at ``threshold`` (:mod:`eval.curve`)."""
        n = kept(self.confidence, threshold)
        return Returned(self.evidence[:n], self.texts[:n], self.confidence[:n])


def answer_recall(answer: str, texts: Iterable[str]) -> float:
    wanted = set(terms(answer))
    if not wanted:
        return 1.0
    found: set[str] = set()
    for text in texts:
        found |= set(terms(text)) & wanted
    return len(found) / len(wanted)


def hit_at(returned: Returned, evidence: Iterable[str], k: int) -> bool:
    wanted = set(evidence)
    return any(wanted & ids for ids in returned.evidence[:k])


@dataclass
class Tally:
    questions: int = 0
    hits5: int = 0
    hits10: int = 0
    recall_sum: float = 0.0
    quiet: int = 0

    def add(self, qtype: str, returned: Returned, q: dict[str, Any]) -> None:
        self.questions += 1
        if qtype == "nothing":
            self.quiet += not returned.texts
            return
        self.hits5 += hit_at(returned, q["evidence"], 5)
        self.hits10 += hit_at(returned, q["evidence"], 10)
        self.recall_sum += answer_recall(q.get("answer", ""), returned.texts[:LIMIT])

    def as_json(self, qtype: str) -> dict[str, Any]:
        n = self.questions
        if qtype == "nothing":
            return {"questions": n, "quiet": round(self.quiet / n, 4) if n else 1.0}
        return {
            "questions": n,
            "hit_at_5": round(self.hits5 / n, 4) if n else 1.0,
            "hit_at_10": round(self.hits10 / n, 4) if n else 1.0,
            "answer_recall": round(self.recall_sum / n, 4) if n else 1.0,
        }


@dataclass
class SystemReport:
    by_type: dict[str, Tally] = field(default_factory=lambda: {t: Tally() for t in TYPES})
    overall: Tally = field(default_factory=Tally)

    def add(self, q: dict[str, Any], returned: Returned) -> None:
        self.by_type[q["type"]].add(q["type"], returned, q)
        if q["type"] != "nothing":
            self.overall.add(q["type"], returned, q)

    def as_json(self) -> dict[str, Any]:
        return {
            "overall": self.overall.as_json("overall"),
            "by_type": {t: self.by_type[t].as_json(t) for t in TYPES},
        }


# --- running --------------------------------------------------------------------------------


def _evidence_of_nodes(
    owner: Person, message_of: dict[tuple[int, str], str]
) -> dict[int, set[str]]:
    """Node id -> fixture message ids its evidence rows quote (its own, its slices', its
    events')."""
    out: dict[int, set[str]] = defaultdict(set)
    rows = (
        Evidence.objects.for_owner(owner)
        .filter(Q(node__isnull=False) | Q(slice__isnull=False) | Q(event__isnull=False))
        .values_list("node_id", "slice__node_id", "event__node_id", "transcript_id", "message_id")
    )
    for node_id, slice_node, event_node, transcript_id, message_id in rows:
        fixture_id = message_of.get((transcript_id, message_id))
        if fixture_id is None:
            continue
        for nid in (node_id, slice_node, event_node):
            if nid is not None:
                out[nid].add(fixture_id)
    return out


def _ume_returned(
    owner: Person,
    question: str,
    node_evidence: dict[int, set[str]],
    episode_of: dict[int, str],
) -> Returned:
    result = recall(owner, question, limit=LIMIT, min_confidence=0.0)
    evidence: list[frozenset[str]] = []
    texts: list[str] = []
    for item in result.items:
        if isinstance(item, EpisodeItem):
            evidence.append(frozenset({episode_of.get(item.id, "")}))
            texts.append(f"{item.text} {item.reply_to}")
        elif isinstance(item, RecallItem):
            ids = node_evidence.get(item.id, set()) if item.kind == "node" else set()
            evidence.append(frozenset(ids))
            parts = [item.label, item.summary, *(s.text for s in item.slices)]
            parts += [e.text for e in item.events]
            texts.append(" ".join(parts))
    confidence = tuple(item.confidence for item in result.items)
    return Returned(tuple(evidence), tuple(texts), confidence)


def _promote_all(owner: Person) -> int:
    promoted = 0
    for candidate in (
        Candidate.objects.for_owner(owner).filter(status=CandidateStatus.PENDING).order_by("id")
    ):
        try:
            candidate_promote(candidate=candidate, by=owner)
        except ReviewError:
            continue  # decided meanwhile, or its label clashes: it stays as it is
        promoted += 1
    return promoted


Answers = dict[str, dict[str, Returned]]  # question id -> system -> what it returned


def run_person(person: dict[str, Any], answers: Answers) -> dict[str, Any]:
    """Ingest one person's sessions for a throwaway owner, ask every question three ways
    (ume with its gate off: :func:`score` applies a threshold)."""
    user_model = get_user_model()
    owner = user_model.objects.create_user(
        username=f"eval-conversations-{uuid.uuid4().hex[:12]}", password=None
    )
    try:
        transcripts: dict[int, str] = {}
        raw: list[Message] = []
        outcomes: dict[str, int] = defaultdict(int)
        for session in person["sessions"]:
            receipt = ingest_text(
                owner=owner,
                text=json.dumps({"messages": session["messages"]}, ensure_ascii=False),
                name=f"{person['id']} {session['id']}",
                source="command",
                source_time=_date(session["date"]),
            )
            outcomes[receipt.outcome] += 1
            transcript_id = (receipt.detail or {}).get("transcript")
            if transcript_id is not None:
                transcripts[transcript_id] = session["id"]
            raw += [Message(m["id"], m["content"]) for m in session["messages"]]
        message_of = {
            (transcript_id, mid): mid
            for transcript_id in transcripts
            for mid in Episode.objects.filter(transcript_id=transcript_id).values_list(
                "message_id", flat=True
            )
        }
        episode_of = dict(Episode.objects.for_owner(owner).values_list("pk", "message_id"))
        for q in person["questions"]:
            answers[q["id"]] = {}
            found = bm25_messages(raw, q["question"])
            answers[q["id"]]["bm25"] = Returned(
                tuple(frozenset({m.id}) for m in found), tuple(m.text for m in found)
            )
        node_evidence = _evidence_of_nodes(owner, message_of)
        for q in person["questions"]:
            answers[q["id"]]["ume_unreviewed"] = _ume_returned(
                owner, q["question"], node_evidence, episode_of
            )
        promoted = _promote_all(owner)
        node_evidence = _evidence_of_nodes(owner, message_of)
        for q in person["questions"]:
            answers[q["id"]]["ume_promoted"] = _ume_returned(
                owner, q["question"], node_evidence, episode_of
            )
        return {"id": person["id"], "receipts": dict(outcomes), "promoted": promoted}
    finally:
        user_model.objects.filter(pk=owner.pk).delete()


def _answer(system: str, returned: Returned, threshold: float) -> Returned:
    return returned.at(threshold) if system in UME_SYSTEMS else returned


def score(
    questions: Sequence[dict[str, Any]], answers: Answers, threshold: float
) -> tuple[dict[str, SystemReport], list[dict[str, Any]]]:
    """Per system, the report over ``questions`` with ume's answers at ``threshold``; and
    per question what each returned, where its evidence ranked, and ume's best confidence."""
    reports = {system: SystemReport() for system in SYSTEMS}
    detail: list[dict[str, Any]] = []
    for q in questions:
        row: dict[str, Any] = {"id": q["id"], "type": q["type"]}
        for system in SYSTEMS:
            returned = _answer(system, answers[q["id"]][system], threshold)
            reports[system].add(q, returned)
            rank = next(
                (i + 1 for i, ids in enumerate(returned.evidence) if set(q["evidence"]) & ids),
                None,
            )
            row[system] = {"returned": len(returned.texts), "evidence_rank": rank}
            if system in UME_SYSTEMS:
                best = answers[q["id"]][system].confidence
                row[system]["best_confidence"] = max(best, default=0.0)
        detail.append(row)
    return reports, detail


def curve(
    questions: Sequence[dict[str, Any]], answers: Answers, thresholds: Sequence[float] = CURVE
) -> list[dict[str, Any]]:
    """Per threshold, each ume system's quiet rate on the nothing questions and its hit@5
    over the answerable ones."""
    rows = []
    for threshold in thresholds:
        reports, _detail = score(questions, answers, threshold)
        row: dict[str, Any] = {"threshold": threshold}
        for system in UME_SYSTEMS:
            report = reports[system]
            row[system] = {
                "quiet": report.by_type["nothing"].as_json("nothing")["quiet"],
                "hit_at_5": report.overall.as_json("overall")["hit_at_5"],
            }
        rows.append(row)
    return rows


def run_eval(
    data: dict[str, Any], *, threshold: float | None = None, with_curve: bool = False
) -> dict[str, Any]:
    """The report: per system, overall and per question type, and per question, with ume
    at ``threshold`` (``UME_RECALL_MIN_CONFIDENCE`` when None); with ``with_curve``, the
    trade-off over :data:`eval.curve.CURVE` too."""
    validate_fixture(data)
    at = settings.UME_RECALL_MIN_CONFIDENCE if threshold is None else check_threshold(threshold)
    started = time.perf_counter()
    answers: Answers = {}
    people = [run_person(person, answers) for person in data["people"]]
    questions = [q for person in data["people"] for q in person["questions"]]
    reports, detail = score(questions, answers, at)
    report = {
        "people": people,
        "questions": len(detail),
        "threshold": at,
        "systems": {system: reports[system].as_json() for system in SYSTEMS},
        "per_question": detail,
        "seconds": round(time.perf_counter() - started, 2),
    }
    if with_curve:
        report["curve"] = curve(questions, answers)
    return report
