"""The episode lane of recall, loading part (selectors): every read is filtered by owner."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

import numpy as np
from django.conf import settings as django_settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone

# The module, not its names: memory.tombstones reads words through memory.recall, whose
# package imports this module, so its names may not be there yet when this one is imported.
from memory import tombstones as tombstones_module
from memory.keys import canonical_key
from memory.models import (
    Alias,
    Candidate,
    Episode,
    MemoryRule,
    Node,
    NodeKeyWord,
    RecallDoc,
    Suppression,
)
from memory.owned import Person
from memory.recall.confidence import question_weights
from memory.recall.documents import CORPUS_EPISODE, EMBED_CHARS
from memory.recall.embed import DIM, MODEL_NAME, quantize
from memory.recall.episodes import (
    EpisodeRow,
    EpisodeSettings,
    forgotten_names,
    rank_episodes,
    split_named,
)
from memory.recall.items import CorpusStats, EpisodeItem
from memory.recall.lanes import bm25_postings
from memory.recall.loaders import POSTINGS_QUERIES, IndexReads, load_postings
from memory.recall.provider import LocalEmbedder, for_model, question_vector
from memory.recall.slots import Slot
from memory.recall.statements import (
    column,
    converted,
    fetch,
    marks,
    owned_rows,
    owned_select,
    owner_id,
    table,
)
from memory.recall.text import terms
from memory.vocab import CandidateStatus, SuppressionReason

# Matching messages read per recall, where the words weigh most: three times the most the
# lane returns (half of recall's limit of 10 when memories match too, all of it otherwise),
# so that the thread context ranking adds can still reorder them. 60 gave the same
# conversation-eval figures and cost a third more per recall (docs/benchmarks.md).
EPISODE_CANDIDATES = 30
# A word in more messages than this is read only where the others matched (or, when every
# word is that common, where the least common one weighs most, the newest first): a person
# with 200,000 messages says "work" in thousands, and the lane needs 30 (see load_postings).
EPISODE_POSTINGS_PER_TERM = 300

# Suppression reasons that mean "forget it", not only "stop proposing it".
FORGETTING_REASONS = (SuppressionReason.DELETED, SuppressionReason.FORGOTTEN)


COUNT_QUERIES = 1  # how many episodes the owner has: all the lane reads when none
SETTINGS_QUERIES = 2  # the owner's rule, the forgetting suppressions
# and, when a forgetting suppression has distinctive words, the names the person keeps that
# share them (kept_names)
KEPT_QUERIES = 1
KEPT_WORDS = 40  # at most this many of the forgotten things' words looked up
# when the question named nodes: their aliases, then the labels of the nodes whose key holds
# their names' words (one query, the key-word lookup inside it)
NAME_QUERIES = 2
# the postings of the question's words (document frequencies, then postings; one more when
# a word is common), then the matching episodes by id with their threads' neighbours
CANDIDATE_QUERIES = POSTINGS_QUERIES + 1


def episode_settings(owner: Person, *, now: datetime | None = None) -> EpisodeSettings:
    """Whether the lane is on for ``owner``, and what it must never return: two statements
    (the rule, then the forgetting suppressions in force), the second only when it is on."""
    now = now or timezone.now()
    rule_columns = ("episodes", "excludes")
    rule = converted(MemoryRule, rule_columns, owned_rows(MemoryRule, rule_columns, owner))
    enabled, excludes = rule[0] if rule else (True, [])
    if not enabled:
        return EpisodeSettings(False, ())
    reasons = [str(reason) for reason in FORGETTING_REASONS]
    reason, lifted, until = (
        column(Suppression, name) for name in ("reason", "lifted_at", "suppressed_until")
    )
    rows = converted(
        Suppression,
        _TOMBSTONE_COLUMNS,
        owned_rows(
            Suppression,
            _TOMBSTONE_COLUMNS,
            owner,
            f"{reason} IN ({marks(len(reasons))}) AND {lifted} IS NULL"
            f" AND ({until} IS NULL OR {until} > %s)",
            [*reasons, connection.ops.adapt_datetimefield_value(now)],
        ),
    )
    rows.sort(key=lambda row: row[0])  # oldest first, whatever order the database read them in
    # A forgotten name, as people go on to say it (its distinctive parts); an excluded term
    # is the person's own words, matched as they wrote them.
    keys = set(forgotten_names(row[1] for row in rows))
    keys |= {canonical_key(term) for term in excludes or [] if isinstance(term, str)}
    tombstones = tuple(
        tombstones_module.tombstone(
            id=pk,
            key=key,
            label=label,
            signature=sig,
            vector=vector,
            vector_model=model,
            exceptions=kept or (),
        )
        for pk, key, label, sig, vector, model, kept in rows
    )
    floor = django_settings.UME_FORGET_MEANING_FLOOR
    return EpisodeSettings(
        True,
        tuple(sorted(k for k in keys if k)),
        tombstones=tombstones,
        meaning_floor=floor,
        kept=kept_names(owner, tombstones, floor=floor),
    )


def kept_names(
    owner: Person, tombstones: Sequence[tombstones_module.Tombstone], *, floor: float
) -> tuple[str, ...]:
    """The names of the owner's memories and waiting cards (not held) whose key has a word of
    something forgotten and that look like nothing forgotten (:func:`memory.tombstones.
    kept_beside`): "Mensah Plumbing" beside a forgotten "Ravi Mensah". One statement (the
    nodes by key word, their index; the pending cards by key), none when no tombstone has a
    word to share."""
    words = sorted({w for t in tombstones for w in tombstones_module.naming_words(t)})
    words = words[:KEPT_WORDS]
    if not words:
        return ()
    nodes = (
        Node.objects.for_owner(owner)
        .filter(
            id__in=NodeKeyWord.objects.for_owner(owner).filter(word__in=words).values("node_id"),
        )
        .order_by()
        .values_list("label")
    )
    keyed = Q()
    for word in words:
        keyed |= Q(canonical_key__contains=word)
    cards = (
        Candidate.objects.for_owner(owner)
        .filter(keyed, status=CandidateStatus.PENDING, resembles=None)
        .order_by()
        .values_list("label_guess")
    )
    labels = [label for (label,) in nodes.union(cards)]
    return tombstones_module.kept_beside(labels, tombstones, floor=floor)


_TOMBSTONE_COLUMNS = (
    "id",
    "canonical_key",
    "label",
    "signature",
    "vector",
    "vector_model",
    "exceptions",
)


def unforgotten(rows: Sequence[EpisodeRow], settings: EpisodeSettings) -> list[EpisodeRow]:
    """``rows`` less the messages that speak of something forgotten in other words (a
    nickname, a variant, a word close in meaning: :func:`memory.tombstones.hidden`). Dropped
    before ranking, so that neither they nor a reply's context can quote them, as the ranking
    drops those that say a forgotten name."""
    if not settings.tombstones or not rows:
        return list(rows)
    flags = tombstones_module.hidden(
        [r.text for r in rows],
        settings.tombstones,
        floor=settings.meaning_floor,
        beside=settings.kept,
    )
    return [row for row, hide in zip(rows, flags, strict=True) if not hide]


_COLUMNS = ("id", "transcript_id", "message_id", "seq", "role", "text", "said_at")
# read with each message from its recall document: its stem line, vector and vector's model
_DOC_COLUMNS = ("words", "vector", "model")


def _row(values: tuple[Any, ...], words: str | None, vector: Any, model: str | None) -> EpisodeRow:
    pk, transcript_id, message_id, seq, role, text, said_at = values
    return EpisodeRow(
        pk,
        transcript_id,
        message_id,
        seq,
        role,
        text,
        said_at,
        words=words or "",
        vector=None if vector is None else bytes(vector),
        model=model or "",
    )


def episode_count(owner: Person, reads: IndexReads | None = None) -> int:
    """How many episodes the owner has, from recall's index statistics (one small read,
    none when this recall has read them already)."""
    return (reads or IndexReads(owner)).stats(CORPUS_EPISODE).docs


def load_episode_candidates(
    owner: Person,
    index_terms: Iterable[str],
    total: int,
    names: Iterable[Sequence[str]] = (),
    reads: IndexReads | None = None,
) -> tuple[list[EpisodeRow], list[EpisodeRow]]:
    """``(candidates, neighbours)``: the owner's episodes that recall's inverted index finds
    for the stemmed ``index_terms`` (the question's own words) and ``names`` (the stemmed
    words of each alternative name of what it named), the :data:`EPISODE_CANDIDATES` where
    those words weigh most, and their neighbours in their threads (:func:`load_threads`).
    Reads the postings (:func:`memory.recall.loaders.load_postings`), never the whole
    corpus, then the rows by id for this owner only.

    A message names something only if it holds every word of one of its names, so of each
    name only its rarest word is looked up (a name with a word no message holds, none):
    "Clover Tundra 3705" reads the messages that say "3705", not every one that says
    "clover"."""
    own = {t for t in index_terms if t}
    alternatives = [sorted(set(alt)) for alt in names if alt]
    reads = reads or IndexReads(owner)
    df = reads.df(own.union(*alternatives), (RecallDoc.Kind.EPISODE,))
    wanted = {t for t in own if df.get(t)}
    for alt in alternatives:
        if all(df.get(t) for t in alt):
            wanted.add(min(alt, key=lambda t: (df[t], t)))
    if not wanted:
        return [], []
    postings = load_postings(
        owner,
        sorted(wanted),
        (RecallDoc.Kind.EPISODE,),
        per_term=EPISODE_POSTINGS_PER_TERM,
        df=df,
    )
    weights = bm25_postings(
        postings, CorpusStats(docs=total), sorted(wanted), [], df=df, min_share=0.0
    )
    best = sorted(weights, key=lambda ref: (-weights[ref], -ref[1]))[:EPISODE_CANDIDATES]
    return load_threads(owner, [i for _k, i in best])


@lru_cache(maxsize=64)
def _thread_statement(vendor: str, count: int) -> str:
    """The statement of :func:`load_threads` for ``count`` ids (written once per database
    and count: at most :data:`EPISODE_CANDIDATES` ids)."""
    e = table(Episode)
    owner, transcript, seq, role, pk = (
        column(Episode, name) for name in ("owner", "transcript", "seq", "role", "id")
    )
    wanted = ", ".join(f"n.{column(Episode, name)}" for name in _COLUMNS)
    documents = ", ".join(f"d.{column(RecallDoc, name)}" for name in _DOC_COLUMNS)
    d_owner, d_kind, d_ref = (column(RecallDoc, name) for name in ("owner", "kind", "ref_id"))
    return (
        f"SELECT {wanted}, {documents} FROM {e} c JOIN {e} n"
        f" ON n.{transcript} = c.{transcript}"
        f" AND n.{seq} BETWEEN c.{seq} - 2 AND c.{seq} + 2"
        f" AND (n.{seq} >= c.{seq} OR c.{role} = %s)"
        f" AND n.{owner} = c.{owner}"
        f" LEFT JOIN {table(RecallDoc)} d ON d.{d_owner} = n.{owner}"
        f" AND d.{d_kind} = %s AND d.{d_ref} = n.{pk}"
        f" WHERE c.{owner} = %s AND c.{pk} IN ({marks(count)})"
    )


def load_threads(owner: Person, ids: Sequence[int]) -> tuple[list[EpisodeRow], list[EpisodeRow]]:
    """``(candidates, neighbours)``: the owner's episodes ``ids`` (the newest first), and the
    messages next to them in their threads that are not among them: the two before a
    person's message (what it answers, and what that answers) and the two after any (a
    reply to it, and the reply to that answer: "the brakes again" - "did they quote?" -
    "£180", which ranking reads as one thread). One statement, none for no ids: each
    message by id, joined to its thread's range of the (transcript, seq) index; the owner
    is the first condition and each neighbour's owner must be the same. Each message comes
    with what recall's index kept of it (its stem line and vector, from its
    :class:`~memory.models.RecallDoc`, by the (owner, kind, ref) key). An episode deleted since
    it was indexed is simply absent.

    Sorted here, not in SQL: an ORDER BY on when it was said would lead the database to walk
    the owner's whole (owner, said_at) index instead of fetching these rows by id."""
    wanted = sorted(set(ids))
    if not wanted:
        return [], []
    statement = _thread_statement(connection.vendor, len(wanted))
    rows = fetch(statement, ["user", RecallDoc.Kind.EPISODE, owner_id(owner), *wanted])
    width = len(_COLUMNS)
    episodes = converted(Episode, _COLUMNS, [row[:width] for row in rows])
    by_id = {
        values[0]: _row(values, *row[width:]) for values, row in zip(episodes, rows, strict=True)
    }
    chosen = set(wanted)
    candidates = sorted(
        (row for pk, row in by_id.items() if pk in chosen),
        key=lambda row: (row.said_at, row.id),
        reverse=True,
    )
    neighbours = sorted((row for pk, row in by_id.items() if pk not in chosen), key=lambda r: r.id)
    return candidates, neighbours


@dataclass
class StoredMeaning:
    """The vectors of the messages read, as recall's index stored them at write time (by
    text: the same text has the same vector), so the episode lane's semantic checks embed
    only the question, whatever the messages' length. Only vectors of ``model`` (the model
    serving the owner's messages) and of its ``dim`` count. A message without one (written
    while an endpoint was down, or before a model change ``reindex`` has not caught up with)
    is embedded here, once, when ``embed_missing`` is given (the bundled model: cheap and
    always there); otherwise it is found by its words only (a row of zeros). A stored vector
    is of the message's first :data:`~memory.recall.documents.EMBED_CHARS` characters, as
    the semantic lane's are, and int8: each is scaled back to unit length."""

    stored: dict[str, bytes]
    dim: int = DIM
    embed_missing: Callable[[Sequence[str]], np.ndarray] | None = None

    @classmethod
    def of(
        cls,
        rows: Iterable[EpisodeRow],
        *,
        model: str = MODEL_NAME,
        dim: int = DIM,
        embed_missing: Callable[[Sequence[str]], np.ndarray] | None = None,
    ) -> StoredMeaning:
        stored = {
            row.text: row.vector
            for row in rows
            if row.vector is not None and row.model == model and len(row.vector) == dim
        }
        return cls(stored, dim, embed_missing)

    def of_texts(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length row per text (float32, ``(len(texts), dim)``)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        missing = [t for t in dict.fromkeys(texts) if t not in self.stored]
        if missing:
            if self.embed_missing is not None:
                # as the index embeds a message: its first EMBED_CHARS characters
                fresh = quantize(self.embed_missing([t[:EMBED_CHARS] for t in missing]))
            else:
                fresh = [bytes(self.dim)] * len(missing)
            self.stored.update(zip(missing, fresh, strict=True))
        rows = np.frombuffer(b"".join(self.stored[t] for t in texts), dtype=np.int8)
        vectors = rows.reshape(len(texts), self.dim).astype(np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def name_alternatives(owner: Person, nodes: Sequence[tuple[int, str]]) -> list[tuple[str, ...]]:
    """For each ``(node id, label)``: the label and the node's aliases (one statement)."""
    aliases: dict[int, list[str]] = {nid: [] for nid, _label in nodes}
    wanted = sorted(aliases)
    rows = owned_rows(
        Alias, ("id", "node", "alias"), owner, f"node_id IN ({marks(len(wanted))})", wanted
    )
    for _id, node_id, alias in sorted(rows):
        aliases[node_id].append(alias)
    return [(label, *aliases[nid]) for nid, label in nodes]


def twin_labels(
    owner: Person, names: Sequence[Sequence[str]], named_ids: Iterable[int]
) -> list[str]:
    """Labels of the owner's other nodes whose key holds one of ``names`` as whole words
    ("Kafka Connect" for "Kafka"). The gate's key-word index
    (:class:`~memory.models.NodeKeyWord`) narrows them down in the database to the nodes
    whose key holds every word of one of the names (one grouped lookup by word, counting
    each name's words apart, inside the query that reads their labels); the check of whole
    words in order is done here. Never a scan of every label, and no posting list in Python:
    a label whose words are common ("Amber Cedar 12" among thousands of "amber" and "cedar"
    keys) brings back only the keys that hold all three."""
    keys = {k for alternatives in names for k in (canonical_key(a) for a in alternatives) if k}
    wanted = {key: sorted(set(key.split())) for key in keys}
    if not wanted:
        return []
    words = sorted(set().union(*wanted.values()))
    word, node = column(NodeKeyWord, "word"), column(NodeKeyWord, "node")
    # Per name: how many of its words a node's key holds; a twin holds them all.
    holds, held_params = [], []
    for key_words in wanted.values():
        holds.append(
            f"COUNT(DISTINCT CASE WHEN {word} IN ({marks(len(key_words))}) THEN {word} END)"
            f" = {len(key_words)}"
        )
        held_params += key_words
    named = sorted(set(named_ids))
    where = f"{word} IN ({marks(len(words))})"
    if named:
        where += f" AND {node} NOT IN ({marks(len(named))})"
    holding, holding_params = owned_select(NodeKeyWord, ("node",), owner, where, [*words, *named])
    holding += f" GROUP BY {node} HAVING {' OR '.join(holds)}"
    rows = owned_rows(
        Node,
        ("label", "canonical_key"),
        owner,
        f"{column(Node, 'id')} IN ({holding})",
        [*holding_params, *held_params],
    )
    return sorted(
        label for label, key in rows if any(f" {k} " in f" {key} " and k != key for k in keys)
    )


Closeness = Callable[[Sequence[str]], list[float]]
Likeness = Callable[[Sequence[str], Sequence[str]], list[float]]


def _meaning_checks(
    owner: Person, model: str, question: str, rows: Sequence[EpisodeRow]
) -> tuple[Closeness | None, Likeness | None]:
    """The episode lane's semantic checks over ``rows`` with the model serving the owner's
    messages: how close each text is to the ``question`` (embedded on first use), and how
    like its anchors. Neither when that model is not available (the lane ranks by words);
    when the question cannot be embedded, closeness is 0 for every text."""
    embedder = for_model(model)
    if embedder is None:
        return None, None
    local = isinstance(embedder, LocalEmbedder)
    asked: list[tuple[str, np.ndarray] | None] = []

    def question_of() -> tuple[str, np.ndarray] | None:
        if not asked:
            asked.append(question_vector(owner.pk, embedder.name, question))
        return asked[0]

    def meaning() -> StoredMeaning | None:
        got = question_of()
        if got is None:
            return None
        return StoredMeaning.of(
            rows, model=got[0], dim=len(got[1]), embed_missing=embedder.embed if local else None
        )

    kept: list[StoredMeaning | None] = []

    def stored() -> StoredMeaning | None:
        if not kept:
            kept.append(meaning())
        return kept[0]

    def closeness(texts: Sequence[str]) -> list[float]:
        got, known = question_of(), stored()
        if got is None or known is None:
            return [0.0] * len(texts)
        return [float(v) for v in known.of_texts(texts) @ got[1]]

    def likeness(texts: Sequence[str], anchors: Sequence[str]) -> list[float]:
        known = stored()
        if known is None:
            return [0.0] * len(texts)
        near = known.of_texts(texts) @ known.of_texts(anchors).T
        return [float(v) for v in near.max(axis=1)]

    return closeness, likeness


def recall_episodes(
    owner: Person,
    subject: Sequence[str],
    *,
    named: Sequence[tuple[int, str]] = (),
    limit: int,
    frame: Sequence[str] = (),
    reads: IndexReads | None = None,
    slot: Slot | None = None,
) -> list[EpisodeItem]:
    """The episode lane for ``owner``: what was said about the question's ``subject`` words
    and the ``named`` nodes (``(id, label)``; a message naming one by any alias matches).
    The ``frame``'s words ("end" in "how much did it end up costing") are looked up too, as
    words an answer may echo, never as what the question is about
    (:func:`memory.recall.episodes.rank_episodes`).

    Nothing when the owner has no episodes or turned the lane off. Reads
    :data:`COUNT_QUERIES`; when there are episodes, :data:`SETTINGS_QUERIES` (and
    :data:`KEPT_QUERIES` when something forgotten has words to share); when the lane is on, :data:`NAME_QUERIES` if the question named nodes, and :data:`CANDIDATE_QUERIES`
    (the matching messages with their threads). ``reads``:
    what recall has read from the index already (the count, and the words' frequencies),
    which the lane does not read again. ``slot``: what the question asks for, which weighs on
    each message's confidence (:class:`memory.recall.slots.Slot`)."""
    if not subject:
        return []
    reads = reads or IndexReads(owner)
    total = episode_count(owner, reads)
    if not total:
        return []
    settings = episode_settings(owner)
    if not settings.enabled:
        return []
    names = name_alternatives(owner, named) if named else []
    rest, found = split_named(subject, names)
    twins = twin_labels(owner, found, [nid for nid, _label in named]) if named else []
    query_terms = list(dict.fromkeys(terms(" ".join(rest))))
    frame_terms = [t for t in dict.fromkeys(terms(" ".join(frame))) if t not in query_terms]
    name_terms = [terms(alt) for alternatives in found for alt in alternatives]
    if not query_terms and not any(name_terms):
        return []
    candidates, neighbours = load_episode_candidates(
        owner, [*query_terms, *frame_terms], total, names=name_terms, reads=reads
    )
    candidates, neighbours = unforgotten(candidates, settings), unforgotten(neighbours, settings)
    closeness, likeness = _meaning_checks(
        owner, reads.stats(CORPUS_EPISODE).model, " ".join(subject), [*candidates, *neighbours]
    )
    return rank_episodes(
        query_terms,
        candidates,
        neighbours,
        total,
        names=found,
        twins=twins,
        forgotten=settings.forgotten,
        limit=limit,
        closeness=closeness,
        frame_terms=frame_terms,
        likeness=likeness,
        weights=question_weights(rest),
        slot=slot,
    )
