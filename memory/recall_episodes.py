"""The episode lane of recall: what was said in conversations, searchable, with provenance.

Episodes come after confirmed memories (nodes and pages). The lane has three parts:

- **loaders** (selectors, every read filtered by owner): :func:`episode_settings` reads the
  owner's ``episodes`` rule and the labels the person asked ume to forget;
  :func:`load_episode_candidates` reads the episodes that contain a query word, and the
  neighbouring messages of those that are short replies;
- **ranking** (:func:`rank_episodes`), a pure function over what the loaders return: BM25 over
  the message text (a short reply also matches on the message it answers, at half weight),
  the person's own words above the assistant's, floors so that loosely related messages never
  fill the list;
- **forgetting**: an episode that mentions a forgotten label is never returned. A label is
  forgotten when a node was deleted with make-it-stick, a memory rule excludes it, or a
  candidate was rejected with "and forget what was said about it". A plain
  reject-and-suppress ("stop proposing this") forgets nothing: the conversation stays
  searchable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from memory.keys import canonical_key
from memory.models import Episode, MemoryRule, Suppression
from memory.vocab import SuppressionReason

WHY_EPISODE = "episode"

# Ranking constants.
EPISODE_CANDIDATES = 400  # most recent matching messages read per recall
SHORT_REPLY_WORDS = 8  # a message this short is read together with the one it answers
REPLY_CONTEXT_WEIGHT = 0.5  # how much the answered message's words count for a short reply
REPLY_SNIPPET_WORDS = 12  # words of the answered message shown with a short reply
ROLE_WEIGHTS = {"user": 1.0, "assistant": 0.6, "system": 0.3}
RELATIVE_FLOOR = 0.35  # of the best episode's score
MIN_TERM_SHARE = 0.5  # of the idf weight of the query's words
BM25_K1 = 1.2
BM25_B = 0.75

# Suppression reasons that mean "forget it", not only "stop proposing it".
FORGETTING_REASONS = (SuppressionReason.DELETED, SuppressionReason.FORGOTTEN)


# --- what the lane returns ------------------------------------------------------------------


@dataclass(frozen=True)
class EpisodeItem:
    """One message, as recall returns it: what was said, by whom, when, and where."""

    id: int
    text: str
    role: str
    said_at: datetime
    transcript_id: int
    message_id: str
    why: str
    score: float
    reply_to: str = ""  # a few words of the message a short reply answers
    kind: str = "episode"

    @property
    def label(self) -> str:
        return self.text

    @property
    def category(self) -> str:
        return ""

    @property
    def state(self) -> str:
        return ""

    def context_line(self) -> str:
        who = "you" if self.role == "user" else self.role
        line = f'Said on {self.said_at:%Y-%m-%d} by {who}: "{_one_line(self.text)}"'
        if self.reply_to:
            line += f' (in reply to "{self.reply_to}")'
        return line

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "id": self.id,
            "text": self.text,
            "role": self.role,
            "said_at": self.said_at.isoformat(),
            "transcript_id": self.transcript_id,
            "message_id": self.message_id,
            "why": self.why,
            "score": round(self.score, 4),
        }
        if self.reply_to:
            data["reply_to"] = self.reply_to
        return data


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class EpisodeRow:
    """An episode as ranking sees it."""

    id: int
    transcript_id: int
    message_id: str
    seq: int
    role: str
    text: str
    said_at: datetime


@dataclass(frozen=True)
class EpisodeSettings:
    enabled: bool
    forgotten: tuple[str, ...]  # canonical keys of forgotten labels and excluded terms


# --- loaders (selectors) --------------------------------------------------------------------

COUNT_QUERIES = 1  # how many episodes the owner has: all the lane reads when none
SETTINGS_QUERIES = 2  # the owner's rule, the forgetting suppressions
CANDIDATE_QUERIES = 1  # the matching episodes
NEIGHBOUR_QUERIES = 1  # the neighbours of short replies, when there are any


def episode_settings(owner: Any, *, now: datetime | None = None) -> EpisodeSettings:
    """Whether the lane is on for ``owner``, and what it must never return."""
    now = now or timezone.now()
    rule = MemoryRule.objects.filter(owner=owner).values_list("episodes", "excludes").first()
    enabled, excludes = rule if rule is not None else (True, [])
    if not enabled:
        return EpisodeSettings(False, ())
    keys = set(
        Suppression.objects.filter(
            owner=owner, reason__in=FORGETTING_REASONS, lifted_at__isnull=True
        )
        .filter(Q(suppressed_until__isnull=True) | Q(suppressed_until__gt=now))
        .values_list("canonical_key", flat=True)
    )
    keys |= {canonical_key(term) for term in excludes or [] if isinstance(term, str)}
    return EpisodeSettings(True, tuple(sorted(k for k in keys if k)))


def _row(values: tuple[Any, ...]) -> EpisodeRow:
    return EpisodeRow(*values)


_COLUMNS = ("id", "transcript_id", "message_id", "seq", "role", "text", "said_at")


def episode_count(owner: Any) -> int:
    return Episode.objects.filter(owner=owner).count()


def load_episode_candidates(
    owner: Any, probes: Iterable[str]
) -> tuple[list[EpisodeRow], list[EpisodeRow]]:
    """``(candidates, neighbours)``: the owner's most recent episodes containing one of
    ``probes`` (at most :data:`EPISODE_CANDIDATES`), and the messages next to those that are
    short replies or answered by short replies."""
    probes = sorted({p for p in probes if p})
    if not probes:
        return [], []
    contains = Q()
    for probe in probes:
        contains |= Q(text__icontains=probe)
    candidates = [
        _row(values)
        for values in Episode.objects.filter(contains, owner=owner)
        .order_by("-said_at", "-id")
        .values_list(*_COLUMNS)[:EPISODE_CANDIDATES]
    ]
    wanted: dict[int, set[int]] = {}
    have = {(c.transcript_id, c.seq) for c in candidates}
    for c in candidates:
        seqs = wanted.setdefault(c.transcript_id, set())
        seqs.add(c.seq + 1)  # a short reply to this message
        if _is_short(c.text):
            seqs.add(c.seq - 1)  # the message this short reply answers
    near = Q()
    for transcript_id, seqs in sorted(wanted.items()):
        missing = sorted(s for s in seqs if s >= 0 and (transcript_id, s) not in have)
        if missing:
            near |= Q(transcript_id=transcript_id, seq__in=missing)
    neighbours: list[EpisodeRow] = []
    if near:
        neighbours = [
            _row(values)
            for values in Episode.objects.filter(near, owner=owner)
            .order_by("id")
            .values_list(*_COLUMNS)
        ]
    return candidates, neighbours


# --- ranking (pure) -------------------------------------------------------------------------


def _is_short(text: str) -> bool:
    return len(text.split()) <= SHORT_REPLY_WORDS


def _stems(text: str, cache: dict[str, str]) -> list[str]:
    from memory.retrieval import terms

    return terms(text, cache)


def _mentions(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return bool(n) and any(
        list(words[i : i + n]) == list(phrase) for i in range(len(words) - n + 1)
    )


def mentions_forgotten(text: str, forgotten: Sequence[str], cache: dict[str, str]) -> bool:
    """Whether ``text`` mentions one of the ``forgotten`` keys, as whole words, in any form
    that stems alike ("tarot readings" mentions "Tarot Reading"). Forgetting errs on the side
    of hiding: a message is never shown for a name the person asked ume to forget."""
    if not forgotten:
        return False
    from memory.retrieval import stem

    words = canonical_key(text).split()
    if not words:
        return False
    stemmed = [cache.get(w) or cache.setdefault(w, stem(w)) for w in words]
    for key in forgotten:
        phrase = key.split()
        if _mentions(words, phrase) or _mentions(stemmed, [stem(w) for w in phrase]):
            return True
    return False


def _answered(
    e: EpisodeRow, by_pos: dict[tuple[int, int], EpisodeRow], hidden: set[tuple[int, int]]
) -> EpisodeRow | None:
    """The message a short reply answers, unless it is hidden (it mentions a forgotten label)."""
    if not _is_short(e.text):
        return None
    key = (e.transcript_id, e.seq - 1)
    return None if key in hidden else by_pos.get(key)


def _snippet(text: str) -> str:
    words = text.split()
    head = " ".join(words[:REPLY_SNIPPET_WORDS])
    return head + ("…" if len(words) > REPLY_SNIPPET_WORDS else "")


def rank_episodes(
    query_terms: Sequence[str],
    candidates: Sequence[EpisodeRow],
    neighbours: Sequence[EpisodeRow],
    total: int,
    *,
    forgotten: Sequence[str] = (),
    limit: int = 10,
) -> list[EpisodeItem]:
    """Episodes for stemmed ``query_terms``, best first, at most ``limit``.

    Pure. Scores are BM25 over the message (with the answered message's words at
    :data:`REPLY_CONTEXT_WEIGHT` for a short reply), times the speaker's weight (the person's
    own words first), normalised to the best (0..1]. An episode must match
    :data:`MIN_TERM_SHARE` of the query's idf weight and reach :data:`RELATIVE_FLOOR` of the
    best score. Nothing that mentions a ``forgotten`` key is returned, nor quoted as the
    message a reply answers.
    """
    wanted = list(dict.fromkeys(t for t in query_terms if t))
    if not wanted or not candidates or total <= 0:
        return []
    cache: dict[str, str] = {}
    by_pos = {(e.transcript_id, e.seq): e for e in [*neighbours, *candidates]}
    hidden = {key for key, e in by_pos.items() if mentions_forgotten(e.text, forgotten, cache)}
    pool = [e for e in by_pos.values() if (e.transcript_id, e.seq) not in hidden]
    wanted_set = set(wanted)
    tf: dict[tuple[int, int], dict[str, float]] = {}
    own: dict[tuple[int, int], set[str]] = {}
    lengths: dict[tuple[int, int], float] = {}
    df: dict[str, int] = dict.fromkeys(wanted, 0)
    for e in pool:
        key = (e.transcript_id, e.seq)
        words = _stems(e.text, cache)
        present = {w for w in words if w in wanted_set}
        own[key] = present
        for w in present:
            df[w] += 1
        counts: dict[str, float] = {}
        for w in words:
            if w in wanted_set:
                counts[w] = counts.get(w, 0.0) + 1.0
        length = float(len(words))
        previous = _answered(e, by_pos, hidden)
        if previous is not None:
            context = _stems(previous.text, cache)
            for w in context:
                if w in wanted_set:
                    counts[w] = counts.get(w, 0.0) + REPLY_CONTEXT_WEIGHT
            length += REPLY_CONTEXT_WEIGHT * len(context)
        tf[key] = counts
        lengths[key] = length
    n = max(total, len(pool))
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    weight_total = sum(idf.values())
    avg = (sum(lengths.values()) / len(lengths)) if lengths else 1.0
    avg = avg or 1.0
    scored: list[tuple[float, EpisodeRow]] = []
    for e in pool:
        key = (e.transcript_id, e.seq)
        counts = tf[key]
        if not counts:
            continue
        if len(idf) > 1 and sum(idf[t] for t in counts) < MIN_TERM_SHARE * weight_total:
            continue
        norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[key] / avg)
        raw = sum(idf[t] * f * (BM25_K1 + 1) / (f + norm) for t, f in counts.items())
        raw *= ROLE_WEIGHTS.get(e.role, 0.5)
        if raw > 0:
            scored.append((raw, e))
    if not scored:
        return []
    best = max(s for s, _e in scored)
    scored = [(s / best, e) for s, e in scored if s / best >= RELATIVE_FLOOR]
    scored.sort(key=lambda se: (-se[0], -se[1].said_at.timestamp(), -se[1].id))
    items: list[EpisodeItem] = []
    for score, e in scored[: max(0, limit)]:
        previous = _answered(e, by_pos, hidden)
        reply_to = _snippet(previous.text) if previous is not None else ""
        items.append(
            EpisodeItem(
                id=e.id,
                text=e.text,
                role=e.role,
                said_at=e.said_at,
                transcript_id=e.transcript_id,
                message_id=e.message_id,
                why=WHY_EPISODE,
                score=score,
                reply_to=reply_to,
            )
        )
    return items


def recall_episodes(owner: Any, query_terms: Sequence[str], *, limit: int) -> list[EpisodeItem]:
    """The episode lane for ``owner``: nothing when the owner has no episodes or turned the
    lane off. Reads :data:`COUNT_QUERIES`; when there are episodes, :data:`SETTINGS_QUERIES`;
    when the lane is on, :data:`CANDIDATE_QUERIES` (+ :data:`NEIGHBOUR_QUERIES` when a
    matching message has neighbours to read)."""
    if not query_terms:
        return []
    total = episode_count(owner)
    if not total:
        return []
    settings = episode_settings(owner)
    if not settings.enabled:
        return []
    from memory.retrieval import _probe

    candidates, neighbours = load_episode_candidates(owner, {_probe(t) for t in query_terms})
    return rank_episodes(
        query_terms, candidates, neighbours, total, forgotten=settings.forgotten, limit=limit
    )
