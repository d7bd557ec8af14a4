"""What recall indexes for each node, page and episode: its fields with their weights, its
stemmed terms with field-weighted frequencies, its length, and the text its vector is
embedded from. Pure: no ORM; ``memory.services.recall_index`` reads the rows and writes."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from memory.recall.text import line_terms, stem_line, terms

NODE_FIELD_WEIGHTS = {
    "label": 3.0,
    "alias": 3.0,
    "summary": 1.5,
    "slice": 1.0,
    "event": 1.0,
    "category": 1.0,
}
PAGE_FIELD_WEIGHTS = {"title": 3.0, "topic": 2.0, "summary": 1.5, "body": 1.0}
EPISODE_FIELD_WEIGHTS = {"text": 1.0}
WEIGHTS = {"node": NODE_FIELD_WEIGHTS, "page": PAGE_FIELD_WEIGHTS, "episode": EPISODE_FIELD_WEIGHTS}
MAX_TERM_LENGTH = 64  # longer "words" (hashes, pasted blobs) are not indexed
EMBED_CHARS = 2000  # the start of a long document is what its vector describes

CORPUS_MEMORY = "memory"  # nodes and pages: one BM25 corpus, as ranking has always seen them
CORPUS_EPISODE = "episode"


def corpus_of(kind: str) -> str:
    return CORPUS_EPISODE if kind == "episode" else CORPUS_MEMORY


@dataclass(frozen=True)
class DocText:
    """One document as the index stores it."""

    kind: str
    ref_id: int
    tf: dict[str, float]  # stemmed term -> field-weighted frequency
    length: float  # field-weighted length in words
    embed_text: str
    words: str = ""  # an episode's stem line (memory.recall.text.stem_line); "" otherwise


def node_fields(
    *,
    label: str,
    summary: str,
    category: str,
    aliases: Sequence[str] = (),
    slices: Sequence[str] = (),
    events: Sequence[str] = (),
) -> list[tuple[str, str]]:
    fields = [("label", label), ("summary", summary), ("category", category.replace("_", " "))]
    fields += [("alias", a) for a in aliases]
    fields += [("slice", s) for s in slices]
    fields += [("event", e) for e in events]
    return fields


def page_fields(*, title: str, topic: str, summary: str, body: str) -> list[tuple[str, str]]:
    return [("title", title), ("topic", topic), ("summary", summary), ("body", body)]


def weighted_terms(kind: str, fields: Sequence[tuple[str, str]]) -> tuple[dict[str, float], float]:
    """``(term -> field-weighted frequency, field-weighted length in words)``."""
    weights = WEIGHTS[kind]
    counts: dict[str, float] = defaultdict(float)
    length = 0.0
    for name, text in fields:
        if not text:
            continue
        weight = weights[name]
        length += weight * len(text.split())
        for term in terms(text):
            if len(term) <= MAX_TERM_LENGTH:
                counts[term] += weight
    return dict(counts), length


def embed_text(kind: str, fields: Sequence[tuple[str, str]]) -> str:
    """The text a document's vector is embedded from: a node's label, aliases, summary and
    current slices (not its events, which are dated changes, nor its category word); a page's
    title, topic and summary, else the start of its body; an episode's words."""
    keep = {
        "node": ("label", "alias", "summary", "slice"),
        "page": ("title", "topic", "summary"),
        "episode": ("text",),
    }[kind]
    parts = [text for name, text in fields if name in keep and text]
    if kind == "page" and len(parts) < 2:
        parts += [text for name, text in fields if name == "body" and text]
    return ". ".join(parts)[:EMBED_CHARS]


def document(kind: str, ref_id: int, fields: Sequence[tuple[str, str]]) -> DocText:
    if kind == "episode":
        return episode_document(ref_id, "\n".join(text for _name, text in fields if text))
    tf, length = weighted_terms(kind, fields)
    return DocText(kind, ref_id, tf, length, embed_text(kind, fields))


def episode_document(ref_id: int, text: str) -> DocText:
    """An episode's document: its terms, length and vector text as :func:`weighted_terms` and
    :func:`embed_text` give them, and its stem line, from which the terms are counted (each
    word tokenised and stemmed once)."""
    words = stem_line(text) if text else ""
    counts: dict[str, float] = defaultdict(float)
    for term in line_terms(words):
        if len(term) <= MAX_TERM_LENGTH:
            counts[term] += EPISODE_FIELD_WEIGHTS["text"]
    length = EPISODE_FIELD_WEIGHTS["text"] * len(text.split())
    return DocText("episode", ref_id, dict(counts), length, text[:EMBED_CHARS], words)
