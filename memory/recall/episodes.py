"""The episode lane of recall, ranking part: what was said in conversations. Pure: no ORM.

Episodes come after confirmed memories (nodes and pages). :func:`rank_episodes` ranks the
rows the loaders (:mod:`memory.recall.episode_loaders`) return: BM25 over the message text (a
person's reply also matches, for less, on the message it answers and the one before that),
the person's own words above the assistant's, and floors so that loosely related messages
never fill the list; a message that shares only part of the question's words needs the
local embeddings to find it close in meaning.

**Forgetting**: an episode that mentions a forgotten label is never returned, nor quoted as
the message a reply answers. A label is forgotten when a node was deleted with make-it-stick,
a memory rule excludes it, or a candidate was rejected with "and forget what was said about
it". A forgotten name is also forgotten as people go on to say it (:func:`forgotten_names`):
without the words it was said with ("Moonbeam" for "Project Moonbeam") and by the parts
that pick it out, as the tombstones say (:mod:`memory.tombstones`: "Harriet", "Ms Vane" for
"Harriet Vane", never "Peter Vane"), never by a common word (a forgotten "Apple the company"
hides no "apple pie"). A plain reject-and-suppress ("stop proposing this") forgets nothing:
the conversation stays searchable.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from memory.keys import canonical_key, name_words, title_gender
from memory.recall.confidence import combine, coverage, role_factor, text_weight
from memory.recall.items import WHY_EPISODE, EpisodeItem
from memory.recall.slots import Slot
from memory.recall.text import (
    NOT_CONTENT,
    STOP_WORDS,
    is_distinctive,
    line_stems,
    stem,
    stem_line,
    words_of,
)

if TYPE_CHECKING:
    from memory.tombstones import Tombstone

# Ranking constants.
SHORT_REPLY_WORDS = 8  # a message this short is read together with the one it answers
REPLY_CONTEXT_WEIGHT = 0.8  # how much the answered message's words count for a short reply
THREAD_CONTEXT_WEIGHT = 0.4  # and the message before that (the thread the reply is in)
LONG_REPLY_CONTEXT_WEIGHT = 0.4  # the answered message's words for a longer reply
LONG_THREAD_CONTEXT_WEIGHT = 0.2  # and the message before that
REPLY_SNIPPET_WORDS = 12  # words of the answered message shown with a short reply
ROLE_WEIGHTS = {"user": 1.0, "assistant": 0.6, "system": 0.3}
RELATIVE_FLOOR = 0.35  # of the best episode's score
MIN_TERM_SHARE = 0.3  # of the idf weight of the query's words
# A message that matches less of the question's weight than MIN_TERM_SHARE, but at least
# this much, is kept when its meaning is close to the question's (cosine of the local
# embeddings at least SEMANTIC_RESCUE_FLOOR): "the drumming problem with my roommate" for
# "my roomate jonas started playing drums at 11pm". Semantic evidence alone never brings a
# message: it must share a word with the question. Calibrated on both conversation eval
# sets: results hold for floors from 0.15 to 0.25 and share floors from 0.1 to 0.2.
RESCUE_MIN_SHARE = 0.15
SEMANTIC_RESCUE_FLOOR = 0.2
# The rest of a story: once messages match the question well, a message that shares only a
# word of it (one word of many, or only a word of its frame) but is close in meaning to one
# of them (cosine at least CONTINUATION_FLOOR) is kept after them. A thing told across
# sessions is named in full once and then carried on in fewer words: "water coming through
# the ceiling of the back bedroom", weeks later "the roofer came... the bedroom ceiling
# still bears a stain". It never makes a question find something: without a good match it
# adds nothing. The floor is the semantic lane's (:data:`memory.recall.ranking.SEMANTIC_FLOOR`):
# the cosine below which this model's texts are unrelated.
CONTINUATION_FLOOR = 0.26
BM25_K1 = 1.2
BM25_B = 0.75


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
    # What recall's index kept of it at write time: its stem line (memory.recall.text.
    # stem_line; "" when not read, and ranking stems the text itself) and its vector (int8,
    # of the embedding model ``model``), which the loaders compare instead of embedding the
    # text again.
    words: str = field(default="", compare=False, repr=False)
    vector: bytes | None = field(default=None, compare=False, repr=False)
    model: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True)
class EpisodeSettings:
    enabled: bool
    forgotten: tuple[str, ...]  # canonical keys of forgotten labels and excluded terms
    # What the forgetting suppressions forget, to hide what speaks of it in other words
    # (memory.tombstones.hidden), and how close in meaning a word must be to count.
    tombstones: tuple[Tombstone, ...] = ()
    meaning_floor: float = 1.0
    # The names of what the person keeps that share a word with something forgotten and are
    # not it: a message says them of that other thing (memory.tombstones.hidden's beside).
    kept: tuple[str, ...] = ()


# --- ranking (pure) -------------------------------------------------------------------------


def is_short(text: str) -> bool:
    return len(text.split()) <= SHORT_REPLY_WORDS


def _mentions(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return bool(n) and any(
        list(words[i : i + n]) == list(phrase) for i in range(len(words) - n + 1)
    )


def forgotten_names(keys: Iterable[str]) -> tuple[str, ...]:
    """Every phrase that names what the forgotten ``keys`` name, for :func:`mentions_forgotten`:
    each key, and the name without the words it is said with ("project moonbeam" ->
    "moonbeam", when that word is distinctive). A part of a name of several words is not the
    name: whether "Harriet" or "Ms Vane" speaks of a forgotten "Harriet Vane", and "Peter Vane"
    does not, is the tombstones' to say (:func:`memory.tombstones.hidden`). A common word is
    never a name on its own (:func:`memory.recall.text.is_distinctive`): "apple the company"
    adds nothing, so "apple pie" stays; and a key of stop words only (a fragment such as
    "going") names nothing, so "going to Lisbon" stays. Sorted, without duplicates."""
    names: set[str] = set()
    for key in keys:
        if not key or all(word in STOP_WORDS for word in key.split()):
            continue
        names.add(key)
        words = name_words(key)
        if len(words) == 1:
            # "okafor" alone would hide "Mrs Okafor" for a forgotten "Mr Okafor": a part said
            # with a title is the tombstones' to judge (memory.tombstones.hidden).
            if is_distinctive(words[0]) and not title_gender(key):
                names.add(words[0])
            continue
        names.add(" ".join(words))
    return tuple(sorted(names))


def mentions_forgotten(text: str, forgotten: Sequence[str]) -> bool:
    """Whether ``text`` mentions one of the ``forgotten`` keys, as whole words, in any form
    that stems alike ("tarot readings" mentions "Tarot Reading"). Forgetting errs on the side
    of hiding: a message is never shown for a name the person asked ume to forget."""
    if not forgotten:
        return False
    words = canonical_key(text).split()
    if not words:
        return False
    stemmed = [stem(w) for w in words]
    for key in forgotten:
        phrase = key.split()
        if _mentions(words, phrase):
            return True
        if not title_gender(key) and _mentions(stemmed, [stem(w) for w in phrase]):
            return True
    return False


def _forgets(e: EpisodeRow, forgotten: Sequence[str]) -> bool:
    """:func:`mentions_forgotten` for a message, read from its stem line when it has one (a
    name said in its own words is said in its stems too, so the stems alone decide). A text
    with markup is read whole: its canonical key drops tags and decodes entities, which its
    stem line does not."""
    if not forgotten:
        return False
    if not e.words or "<" in e.text or "&" in e.text:
        return mentions_forgotten(e.text, forgotten)
    # A name said with a title is matched as written: "mrs" and "mr" stem alike, and "Mrs
    # Okafor" is not a forgotten "Mr Okafor".
    titled = [key for key in forgotten if title_gender(key)]
    if titled and mentions_forgotten(e.text, titled):
        return True
    padded = f" {line_stems(e.words)} "
    return any(
        _spans(padded, [stem(w) for w in key.split()]) for key in forgotten if key not in titled
    )


def _answered(
    e: EpisodeRow, by_pos: dict[tuple[int, int], EpisodeRow], hidden: set[tuple[int, int]]
) -> EpisodeRow | None:
    """The message a person's reply answers (the assistant's, just before it), unless it is
    hidden (it mentions a forgotten label)."""
    if e.role != "user":
        return None
    key = (e.transcript_id, e.seq - 1)
    previous = None if key in hidden else by_pos.get(key)
    return previous if previous is not None and previous.role != e.role else None


def _snippet(text: str) -> str:
    words = text.split()
    head = " ".join(words[:REPLY_SNIPPET_WORDS])
    return head + ("…" if len(words) > REPLY_SNIPPET_WORDS else "")


def split_named(
    subject: Sequence[str], names: Sequence[Sequence[str]]
) -> tuple[list[str], list[tuple[str, ...]]]:
    """The subject's words that no name covers, and the names found in it (each as its
    alternatives). A name counts when one of its alternatives is a phrase of the subject."""
    covered: set[int] = set()
    found: list[tuple[str, ...]] = []
    for alternatives in names:
        hit = False
        for alt in alternatives:
            phrase = canonical_key(alt).split()
            n = len(phrase)
            for i in range(len(subject) - n + 1 if n else 0):
                if list(subject[i : i + n]) == phrase:
                    covered.update(range(i, i + n))
                    hit = True
        if hit:
            found.append(tuple(alternatives))
    return [w for i, w in enumerate(subject) if i not in covered], found


def _key(e: EpisodeRow) -> tuple[int, int]:
    return (e.transcript_id, e.seq)


def _stem_words(text: str) -> list[str]:
    return [stem(w) for w in words_of(text)]


def _line(e: EpisodeRow) -> str:
    """The message's stem line: as recall's index kept it, else made now."""
    return e.words or stem_line(e.text)


def _spans(padded: str, phrase: Sequence[str]) -> list[tuple[int, int]]:
    """Where the stemmed ``phrase`` occurs in ``padded`` (stems with a space either side), as
    character ranges of whole words; overlapping occurrences each count, as word by word."""
    if not phrase:
        return []
    needle = f" {' '.join(phrase)} "
    found = []
    at = padded.find(needle)
    while at >= 0:
        found.append((at + 1, at + len(needle) - 1))
        at = padded.find(needle, at + 1)
    return found


def _counts(
    line: str,
    wanted: Collection[str],
    names: Sequence[Sequence[list[str]]],
    twins: Sequence[list[str]] = (),
) -> tuple[dict[str, float], int]:
    """Term frequencies of a message's stem ``line`` for the wanted terms and name groups
    (``=0``, ``=1``...), and its length in content terms. A name said only inside a twin's
    name ("Kafka" in "Kafka Connect") does not count: that message is about the twin. Read
    from the line with the string's own (C) operations: no word is stemmed here."""
    tokens = line.split()
    bag = Counter(tokens)
    # in the order the message first says them, as a walk over its words would add them
    present = sorted((w for w in wanted if w in bag), key=tokens.index)
    counts: dict[str, float] = {w: float(bag[w]) for w in present}
    length = len(tokens) - line.count(" " + NOT_CONTENT) - line.startswith(NOT_CONTENT)
    if names:
        padded = f" {line_stems(line)} "
        inside_twin = [span for twin in twins for span in _spans(padded, twin)]
        for g, alternatives in enumerate(names):
            hits = sum(
                1
                for alt in alternatives
                for start, end in _spans(padded, alt)
                if not any(start < t_end and t_start < end for t_start, t_end in inside_twin)
            )
            if hits:
                counts[f"={g}"] = float(hits)
    return counts, length


def rank_episodes(
    query_terms: Sequence[str],
    candidates: Sequence[EpisodeRow],
    neighbours: Sequence[EpisodeRow],
    total: int,
    *,
    names: Sequence[Sequence[str]] = (),
    twins: Sequence[str] = (),
    forgotten: Sequence[str] = (),
    limit: int = 10,
    closeness: Callable[[Sequence[str]], Sequence[float]] | None = None,
    frame_terms: Sequence[str] = (),
    likeness: Callable[[Sequence[str], Sequence[str]], Sequence[float]] | None = None,
    weights: Mapping[str, float] | None = None,
    slot: Slot | None = None,
) -> list[EpisodeItem]:
    """Episodes for stemmed ``query_terms`` and ``names``, best first, at most ``limit``.

    Pure. ``names`` are the things the question named, each as its alternative names (a
    label and its aliases): a message that says any of them matches that name ("Mum" for a
    question about "Maggie"), unless it is said only inside one of ``twins``: the names of
    other things that hold a name the question used ("Kafka Connect" for "Kafka"), which the
    question did not ask about (the identity guard). Scores are BM25 over the message (with
    the answered message's words at :data:`REPLY_CONTEXT_WEIGHT`, and the one before it at
    :data:`THREAD_CONTEXT_WEIGHT`, for a person's short reply; at
    :data:`LONG_REPLY_CONTEXT_WEIGHT` and :data:`LONG_THREAD_CONTEXT_WEIGHT` for a longer
    one), times the speaker's weight (the person's own words first), normalised to the best
    (0..1]. An episode must match :data:`MIN_TERM_SHARE` of the question's idf weight (a word
    no message contains weighs no more than the rarest word one does) and reach
    :data:`RELATIVE_FLOOR` of the best score. Nothing that mentions a ``forgotten`` key is
    returned, nor quoted as the message a reply answers. With ``closeness`` (texts -> their
    semantic similarity to the question), a message under :data:`MIN_TERM_SHARE` but at
    :data:`RESCUE_MIN_SHARE` or more is kept when its similarity reaches
    :data:`SEMANTIC_RESCUE_FLOOR`; ``closeness`` is called at most once, and only when there
    is such a message.

    ``frame_terms`` are the stemmed words of the question's frame ("end" of "how much did it
    end up costing"): they score like its words but weigh nothing towards the share, so they
    never decide whether there is something to find. With ``likeness`` (texts, anchors ->
    each text's best similarity to an anchor), a message that matched some word but was left
    out (by the share, the rescue or the relative floor) is kept after the others when it is
    at least :data:`CONTINUATION_FLOOR` close to one of them, or is the person's reply in a
    thread one of them opened (:func:`continuations`); when the question named something,
    only if it names it too (itself or through its thread).

    Each item's confidence (:mod:`memory.recall.confidence`) is the share of the question's
    words and names it holds, itself or through the messages it is read with, weighted by
    ``weights`` (stem -> weight, :func:`memory.recall.confidence.question_weights`; 1 for a
    word it does not give, a name by its rarest word), times who said it, times what
    ``slot`` (:class:`memory.recall.slots.Slot`, of the question) says of a message that holds
    only the question's names.
    """
    words = _QueryWords.of(query_terms, names, twins, frame_terms)
    if not words.keys or not candidates or total <= 0:
        return []
    thread = _Thread.of([*neighbours, *candidates], forgotten)
    stats = _term_stats(thread, words, total)
    scored, left = _split_by_share(thread.pool, stats, words, closeness)
    if not scored:
        return []
    best = max(s for s, _e in scored)
    kept = [(s / best, e) for s, e in scored if s / best >= RELATIVE_FLOOR]
    left += [(s, e) for s, e in scored if s / best < RELATIVE_FLOOR]
    kept.sort(key=lambda se: (-se[0], -se[1].said_at.timestamp(), -se[1].id))
    if likeness is not None and len(kept) < limit:
        kept += _story(kept, left, best, thread, stats, words, likeness)
    key_weights = _key_weights(words, names, weights or {})
    return [
        _item(score, e, thread, _confidence(e, stats, key_weights, slot or Slot()))
        for score, e in kept[: max(0, limit)]
    ]


def _key_weights(
    words: _QueryWords, names: Sequence[Sequence[str]], weights: Mapping[str, float]
) -> dict[str, float]:
    """What each of the question's keys weighs towards an item's confidence: a word by
    ``weights``, a name (``=i``, numbered as :class:`_QueryWords` numbers them) by its
    rarest word."""
    named = [alts for alts in names if any(_stem_words(a) for a in alts)]
    out = {t: weights.get(t, 1.0) for t in words.wanted}
    for i, alternatives in enumerate(named):
        out[f"={i}"] = max(text_weight(a) for a in alternatives)
    return out


def _confidence(
    e: EpisodeRow, stats: _TermStats, key_weights: Mapping[str, float], slot: Slot
) -> float:
    """How much of the question the message holds (its context counting as the lane
    counts it), times who said it and to whom (:func:`memory.recall.confidence.role_factor`),
    times less when it holds only the question's names."""
    tf = stats.tf[_key(e)]
    lexical = coverage(key_weights, {k: tf.get(k, 0.0) for k in key_weights})
    held = [k for k in key_weights if tf.get(k, 0.0) > 0]
    named = [k for k in key_weights if k.startswith("=")]
    factor = role_factor(e.role, e.text) * slot.names_factor(held, key_weights, named)
    return combine(lexical, factor=factor)


@dataclass(frozen=True)
class _QueryWords:
    """What :func:`rank_episodes` looks for in each message."""

    groups: list[list[list[str]]]  # each named thing: its alternative names, as stemmed words
    twin_words: list[list[str]]  # names of other things that hold a name the question used
    wanted: list[str]  # the question's own stemmed words
    keys: list[str]  # wanted, then one "=i" per named thing: what the share counts
    echoes: list[str]  # the frame's words: they score but weigh nothing towards the share
    scored: frozenset[str]  # wanted and echoes: the words counted in a message
    # each message's counts, once per question (a message is also read as another's context)
    seen: dict[tuple[int, int], tuple[dict[str, float], int]] = field(
        default_factory=dict, compare=False
    )

    @classmethod
    def of(
        cls,
        query_terms: Sequence[str],
        names: Sequence[Sequence[str]],
        twins: Sequence[str],
        frame_terms: Sequence[str],
    ) -> _QueryWords:
        groups = [
            [alt for alt in (_stem_words(a) for a in alternatives) if alt] for alternatives in names
        ]
        groups = [g for g in groups if g]
        wanted = list(dict.fromkeys(t for t in query_terms if t))
        echoes = [t for t in dict.fromkeys(frame_terms) if t and t not in wanted]
        return cls(
            groups=groups,
            twin_words=[w for w in (_stem_words(t) for t in twins) if w],
            wanted=wanted,
            keys=wanted + [f"={i}" for i in range(len(groups))],
            echoes=echoes,
            scored=frozenset(wanted) | frozenset(echoes),
        )

    def read(self, e: EpisodeRow) -> tuple[dict[str, float], int]:
        """The message's term frequencies and length (:func:`_counts`), counted once per
        question: not to be changed."""
        known = self.seen.get(_key(e))
        if known is None:
            known = self.seen[_key(e)] = _counts(
                _line(e), self.scored, self.groups, self.twin_words
            )
        return known

    def counts(self, e: EpisodeRow) -> tuple[dict[str, float], int]:
        """:meth:`read`, as a copy the caller may change."""
        counts, length = self.read(e)
        return dict(counts), length


@dataclass(frozen=True)
class _Thread:
    """The messages read, by position, without those that mention something forgotten."""

    by_pos: dict[tuple[int, int], EpisodeRow]
    hidden: set[tuple[int, int]]
    pool: list[EpisodeRow]

    @classmethod
    def of(cls, rows: Sequence[EpisodeRow], forgotten: Sequence[str]) -> _Thread:
        by_pos = {(e.transcript_id, e.seq): e for e in rows}
        hidden = {key for key, e in by_pos.items() if _forgets(e, forgotten)}
        pool = [e for e in by_pos.values() if (e.transcript_id, e.seq) not in hidden]
        return cls(by_pos=by_pos, hidden=hidden, pool=pool)

    def answered(self, e: EpisodeRow) -> EpisodeRow | None:
        return _answered(e, self.by_pos, self.hidden)

    def context(self, e: EpisodeRow) -> list[tuple[EpisodeRow, float]]:
        """The messages a reply is read with, each with its weight: the message it answers,
        and the one before that."""
        previous = self.answered(e)
        if previous is None:
            return []
        short = is_short(e.text)
        thread = [(previous, REPLY_CONTEXT_WEIGHT if short else LONG_REPLY_CONTEXT_WEIGHT)]
        before = self.by_pos.get((e.transcript_id, e.seq - 2))
        if before is not None and (e.transcript_id, e.seq - 2) not in self.hidden:
            thread.append((before, THREAD_CONTEXT_WEIGHT if short else LONG_THREAD_CONTEXT_WEIGHT))
        return thread


@dataclass(frozen=True)
class _TermStats:
    """BM25's inputs over the pool: term counts and lengths per message, idf, and the share
    each of the question's keys weighs."""

    tf: dict[tuple[int, int], dict[str, float]]
    lengths: dict[tuple[int, int], float]
    idf: dict[str, float]
    share: dict[str, float]
    avg: float

    def score(self, e: EpisodeRow) -> float:
        key = _key(e)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * self.lengths[key] / self.avg)
        raw = sum(self.idf[t] * f * (BM25_K1 + 1) / (f + norm) for t, f in self.tf[key].items())
        return raw * ROLE_WEIGHTS.get(e.role, 0.5)


def _term_stats(thread: _Thread, words: _QueryWords, total: int) -> _TermStats:
    tf: dict[tuple[int, int], dict[str, float]] = {}
    lengths: dict[tuple[int, int], float] = {}
    df: dict[str, int] = dict.fromkeys([*words.keys, *words.echoes], 0)
    for e in thread.pool:
        counts, length = words.counts(e)
        for w in counts:
            df[w] += 1
        for message, weight in thread.context(e):
            context, context_length = words.read(message)
            for w, f in context.items():
                counts[w] = counts.get(w, 0.0) + weight * f
            length += int(weight * context_length)
        tf[_key(e)] = counts
        lengths[_key(e)] = float(length)
    n = max(total, len(thread.pool))
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in df}
    seen = [idf[t] for t in words.keys if df[t]]
    cap = max(seen) if seen else 0.0
    avg = (sum(lengths.values()) / len(lengths)) if lengths else 1.0
    return _TermStats(
        tf=tf,
        lengths=lengths,
        idf=idf,
        share={t: idf[t] if df[t] else cap for t in words.keys},
        avg=avg or 1.0,
    )


Scored = list[tuple[float, EpisodeRow]]


def _split_by_share(
    pool: Sequence[EpisodeRow],
    stats: _TermStats,
    words: _QueryWords,
    closeness: Callable[[Sequence[str]], Sequence[float]] | None,
) -> tuple[Scored, Scored]:
    """Messages that match enough of the question (or are rescued by their meaning), and
    those that matched some word but not enough (kept for :func:`continuations`)."""
    weight_total = sum(stats.share.values())
    scored: Scored = []
    doubtful: Scored = []
    left: Scored = []  # matched some word, not kept (yet)
    for e in pool:
        counts = stats.tf[_key(e)]
        if not counts:
            continue
        raw = stats.score(e)
        if raw <= 0:
            continue
        if not any(t in stats.share for t in counts):
            left.append((raw, e))  # only the frame's words
            continue
        covered = (
            sum(stats.share.get(t, 0.0) for t in counts) / weight_total if weight_total else 1.0
        )
        if not (len(words.keys) > 1 and covered < MIN_TERM_SHARE):
            scored.append((raw, e))
        elif closeness is not None and covered >= RESCUE_MIN_SHARE:
            doubtful.append((raw, e))
        else:
            left.append((raw, e))
    if doubtful and closeness is not None:
        near = closeness([e.text for _raw, e in doubtful])
        for d, sim in zip(doubtful, near, strict=True):
            (scored if sim >= SEMANTIC_RESCUE_FLOOR else left).append(d)
    return scored, left


def _story(
    kept: Scored,
    left: Scored,
    best: float,
    thread: _Thread,
    stats: _TermStats,
    words: _QueryWords,
    likeness: Callable[[Sequence[str], Sequence[str]], Sequence[float]],
) -> Scored:
    """The rest of the story the kept messages tell (:func:`continuations`)."""
    if words.groups:
        # the question named something: the rest of the story names it too (the identity
        # guard: "Lena loves bouldering" is not about Ana, however close)
        left = [(s, e) for s, e in left if any(k.startswith("=") for k in stats.tf[_key(e)])]
    opened = {_key(e) for _s, e in kept}
    threaded = {
        _key(e)
        for _s, e in left
        if thread.answered(e) is not None
        and not words.read(e)[0]
        and {(e.transcript_id, e.seq - 1), (e.transcript_id, e.seq - 2)} & opened
    }
    return continuations(kept, [(s / best, e) for s, e in left], likeness, threaded)


def _item(score: float, e: EpisodeRow, thread: _Thread, confidence: float = 0.0) -> EpisodeItem:
    previous = thread.answered(e) if is_short(e.text) else None
    return EpisodeItem(
        id=e.id,
        text=e.text,
        role=e.role,
        said_at=e.said_at,
        transcript_id=e.transcript_id,
        message_id=e.message_id,
        why=WHY_EPISODE,
        score=score,
        reply_to=_snippet(previous.text) if previous is not None else "",
        confidence=confidence,
    )


def continuations(
    kept: Sequence[tuple[float, EpisodeRow]],
    left: Sequence[tuple[float, EpisodeRow]],
    likeness: Callable[[Sequence[str], Sequence[str]], Sequence[float]],
    threaded: Collection[tuple[int, int]] = (),
) -> list[tuple[float, EpisodeRow]]:
    """Of the messages ``left`` out (each with its score relative to the best match), the
    rest of the story the ``kept`` ones tell: the person's replies in a thread a kept message
    opened (``threaded``, by ``(transcript, seq)``: they matched only through it, as the
    answer to the assistant's follow-up question), and those at least
    :data:`CONTINUATION_FLOOR` close in meaning to a kept message. Best score first, each
    scored no higher than the last kept message, so that they follow the good matches and
    never displace one. Pure; calls ``likeness`` once, and only for messages not threaded,
    when there is something kept."""
    if not kept or not left:
        return []
    ask = [(score, e) for score, e in left if _key(e) not in threaded]
    near = likeness([e.text for _s, e in ask], [e.text for _s, e in kept]) if ask else []
    sims = {id(e): sim for (_s, e), sim in zip(ask, near, strict=True)}
    floor = min(s for s, _e in kept)
    found = [
        (min(score, floor), sims.get(id(e), 1.0), e)
        for score, e in left
        if sims.get(id(e), 1.0) >= CONTINUATION_FLOOR
    ]
    found.sort(key=lambda f: (-f[0], -f[1], -f[2].said_at.timestamp(), -f[2].id))
    return [(score, e) for score, _sim, e in found]
