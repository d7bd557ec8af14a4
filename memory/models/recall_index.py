"""Recall's index, kept at write time: one document per recallable row, its terms and their
counts, the words of node keys, and the per-person statistics that score them.
"""

from __future__ import annotations

import secrets

from django.db import models

from memory.models.base import Owned, owner_key
from memory.models.graph import Node


class RecallDoc(Owned):
    """One searchable document of recall's index: a node (label, aliases, summary, current
    slices, events), a page, or an episode. Written by ``memory.services.recall_index`` in
    the same transaction as the row it describes; ``ref_id`` is that row's id."""

    class Kind(models.TextChoices):
        NODE = "node", "node"
        PAGE = "page", "page"
        EPISODE = "episode", "episode"

    # No index of its own: the (owner, kind, ref) and (owner, seq) indexes start with it, and
    # with a plain one PostgreSQL read a person's memories' vectors through it, every message's
    # document too (docs/benchmarks.md, "Many people on one server").
    owner = owner_key("+", db_index=False)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    ref_id = models.BigIntegerField()
    length = models.FloatField(help_text="Field-weighted length in words, for BM25.")
    model = models.CharField(max_length=64, blank=True, default="", help_text="Embedding model")
    vector = models.BinaryField(
        null=True,
        blank=True,
        help_text="int8, unit length x 127: as many bytes as the model has dimensions; NULL "
        "when the model could not be reached (reindex --missing fills it).",
    )
    staged_model = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="The model reindex is moving this owner to (memory.services.recall_vectors).",
    )
    staged_vector = models.BinaryField(
        null=True,
        blank=True,
        help_text="The vector of staged_model, waiting for the swap; recall never reads it.",
    )
    seq = models.BigIntegerField(
        default=0,
        help_text="The owner's index write that wrote it (RecallStats.seq): in commit order, "
        "so a cache can read only what was written since its copy.",
    )
    words = models.TextField(
        blank=True,
        default="",
        help_text="An episode's words as stems, in order (memory.recall.text.stem_line), so "
        "a question never tokenises a message again; empty for nodes and pages.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "kind", "ref_id"], name="memory_recalldoc_unique_ref"
            ),
        ]
        indexes = [models.Index(fields=["owner", "seq"], name="memory_recalldoc_owner_seq")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.ref_id}"


class RecallTerm(Owned):
    """A posting: a stemmed term of one document with its field-weighted frequency (and the
    document's length, so BM25 reads nothing else for the documents a query matches)."""

    term = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=RecallDoc.Kind.choices)
    ref_id = models.BigIntegerField()
    tf = models.FloatField()
    length = models.FloatField()

    class Meta:
        indexes = [
            # Covers every column recall reads, so postings come from the index alone.
            models.Index(
                fields=["owner", "term", "kind", "tf", "ref_id", "length"],
                name="memory_recallterm_owner_term",
            ),
            # A document's postings: rewriting or deleting it (memory.services.recall_index),
            # and recall's read of a common word's postings in the documents a rarer word
            # found (memory.recall.loaders.load_postings), which it covers: by the term index
            # that read walks every posting of the common word, by this one a few per
            # document (docs/benchmarks.md, "Figures behind the code's choices").
            models.Index(
                fields=["owner", "kind", "ref_id", "term", "tf", "length"],
                name="memory_recallterm_doc",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.term} in {self.kind} #{self.ref_id}"


class RecallTermCount(Owned):
    """How many of the owner's documents of a kind hold a term: BM25's document frequency,
    kept by every write of recall's index (``memory.services.recall_index``, under the
    owner's index lock) so that recall reads one row per word of a question instead of
    counting the word's postings (a common word is in tens of thousands of messages)."""

    owner = owner_key("+", db_index=False)
    kind = models.CharField(max_length=8, choices=RecallDoc.Kind.choices)
    term = models.CharField(max_length=64)
    docs = models.IntegerField()

    class Meta:
        constraints = [
            # memory.recall.loaders.term_counts: the counts of a question's words.
            models.UniqueConstraint(
                fields=["owner", "term", "kind"], name="memory_recalltermcount_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.term}: {self.docs} {self.kind} documents"


class NodeKeyWord(Owned):
    """A word of a node's canonical key: the gate's "may belong to" hints look nodes up by
    word here instead of scanning every key of the owner with ``LIKE '%word%'``. Kept with
    recall's index (``memory.services.recall_index``), which every node write refreshes."""

    # No index of its own: the (owner, word, node) index below starts with the owner.
    owner = owner_key("+", db_index=False)
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="+")
    word = models.CharField(max_length=200)

    class Meta:
        indexes = [
            # memory.selectors.gate_snapshot: the owner's nodes with one of these key words.
            models.Index(fields=["owner", "word", "node"], name="memory_nodekeyword_word"),
        ]

    def __str__(self) -> str:
        return f"{self.word} in node #{self.node_id}"


def random_epoch() -> int:
    return secrets.randbits(62)


class RecallStats(Owned):
    """Per owner and corpus (``memory``: nodes and pages; ``episode``): how many documents and
    their total length, for BM25, and a version (a new random number on every index write)
    that keys the in-process caches, so they are never stale after a write from any process."""

    corpus = models.CharField(max_length=8)
    docs = models.BigIntegerField(default=0)
    total_length = models.FloatField(default=0.0)
    version = models.BigIntegerField(default=0)
    seq = models.BigIntegerField(
        default=0, help_text="Index writes so far, counted under this row's lock."
    )
    model = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="The embedding model serving this owner's vectors: recall embeds questions "
        "with it and compares them only with its vectors; reindex changes it (empty: the "
        "configured model, until the first write).",
    )
    epoch = models.BigIntegerField(
        default=random_epoch,
        help_text="Random, set when the row is created: a cached copy of another row (an owner "
        "deleted and created again with the same id) is never taken for this one's.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "corpus"], name="memory_recallstats_unique_corpus"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.corpus}: {self.docs} documents, version {self.version}"
