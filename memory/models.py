"""The memory graph and its receipts: data and integrity only.

Every row has an ``owner``; every selector filters on it. Constraints live in ``Meta`` so two
concurrent writers cannot create twins (see ``memory.services.apply``). ``Receipt`` and
``ReceiptDay`` keep the tables they had in the ``receipts`` app (``db_table``), which now only
holds the Saves page.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from memory import receipt_chain
from memory.keys import fold_key
from memory.owned import OwnedManager, OwnedQuerySet
from memory.triage import candidate_value
from memory.vocab import (
    SCOPE_READ,
    SCOPE_WRITE,
    CandidateStatus,
    CaptureDefault,
    Category,
    EdgeType,
    ErasureState,
    EventAction,
    Importance,
    ImportState,
    NodeOrigin,
    NodeState,
    Outcome,
    RevisionAction,
    RevisionActor,
    RevisionKind,
    SliceKind,
    Source,
    SuppressionKind,
    SuppressionReason,
    TimePrecision,
    TimeSource,
    TranscriptStatus,
)

Owner = settings.AUTH_USER_MODEL


class Node(models.Model):
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_nodes")
    label = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200, help_text="canonical_key(label)")
    category = models.CharField(max_length=32, choices=Category.choices, default=Category.OTHER)
    state = models.CharField(max_length=16, choices=NodeState.choices, default=NodeState.ACTIVE)
    summary = models.TextField(blank=True, default="")
    origin = models.CharField(
        max_length=16, choices=NodeOrigin.choices, default=NodeOrigin.EXTRACTED
    )
    mention_count = models.PositiveIntegerField(default=1)
    session_count = models.PositiveIntegerField(default=1)
    last_seen_at = models.DateTimeField(default=timezone.now)
    created_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "category", "canonical_key"], name="memory_node_unique_key"
            ),
            models.CheckConstraint(
                condition=~Q(canonical_key=""), name="memory_node_key_not_empty"
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "canonical_key"], name="memory_node_owner_key"),
            # memory.recall.loaders.load_profile_nodes: a profile question's first nodes of a
            # category, by state, in the lane's order (and, by its prefix, the browser's
            # facet counts by category and state).
            models.Index(
                fields=["owner", "category", "state", "-last_seen_at", "-mention_count", "id"],
                name="memory_node_profile_cat",
            ),
            # the same for "tell me about me": every category
            models.Index(
                fields=["owner", "state", "-last_seen_at", "-mention_count", "id"],
                name="memory_node_profile",
            ),
            models.Index(fields=["owner", "-updated_at"], name="memory_node_owner_upd"),
            # memory.selectors.node_list: the memory browser pages the owner's nodes by label.
            models.Index(fields=["owner", "label", "id"], name="memory_node_owner_label"),
            # memory.selectors.graph_data: the graph's most-mentioned nodes, all of them and
            # of one category.
            models.Index(
                fields=["owner", "-mention_count", "label", "id"], name="memory_node_graph"
            ),
            models.Index(
                fields=["owner", "category", "-mention_count", "label", "id"],
                name="memory_node_graph_cat",
            ),
        ]
        ordering = ["label"]

    def __str__(self) -> str:
        return self.label


class Alias(models.Model):
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_aliases")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="aliases")
    alias = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    objects = OwnedManager()

    class Meta:
        verbose_name_plural = "aliases"
        constraints = [
            # An alias names exactly one node of its owner: otherwise recall could not tell
            # two identities apart by it.
            models.UniqueConstraint(
                fields=["owner", "canonical_key"], name="memory_alias_unique_key"
            ),
            models.CheckConstraint(
                condition=~Q(canonical_key=""), name="memory_alias_key_not_empty"
            ),
        ]
        ordering = ["alias"]

    def __str__(self) -> str:
        return self.alias


class Slice(models.Model):
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_slices")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="slices")
    text = models.TextField()
    kind = models.CharField(max_length=32, choices=SliceKind.choices, default=SliceKind.OTHER)
    is_current = models.BooleanField(default=True)
    superseded_at = models.DateTimeField(null=True, blank=True)
    created_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    objects = OwnedManager()

    class Meta:
        indexes = [
            models.Index(fields=["node", "kind", "is_current"], name="memory_slice_node_kind"),
            # Recall reads the current slices of a few nodes by owner and node.
            models.Index(fields=["owner", "node", "is_current"], name="memory_slice_owner_node"),
            # A node's facts are paged by position (memory.selectors.node_slices_page).
            models.Index(fields=["node", "created_at", "id"], name="memory_slice_node_created"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.text[:80]


class Event(models.Model):
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_events")
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=32, choices=EventAction.choices, default=EventAction.OTHER)
    text = models.TextField()
    importance = models.CharField(
        max_length=32, choices=Importance.choices, default=Importance.ORDINARY
    )
    happened_at = models.DateTimeField(
        null=True, blank=True, help_text="When it happened; NULL when unknown, never 'now'."
    )
    happened_at_precision = models.CharField(
        max_length=8, choices=TimePrecision.choices, blank=True, default=""
    )
    happened_at_source = models.CharField(
        max_length=16, choices=TimeSource.choices, default=TimeSource.UNKNOWN
    )
    created_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, help_text="When ume learned it.")

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(happened_at__isnull=True, happened_at_precision="")
                | Q(happened_at__isnull=False) & ~Q(happened_at_precision=""),
                name="memory_event_precision_with_date",
            ),
        ]
        indexes = [
            models.Index(fields=["node", "-created_at"], name="memory_event_node_created"),
            # Recall reads the recent events of a few nodes by owner and node.
            models.Index(fields=["owner", "node"], name="memory_event_owner_node"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.text[:80]


class Edge(models.Model):
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_edges")
    from_node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="edges_out")
    to_node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="edges_in")
    type = models.CharField(max_length=32, choices=EdgeType.choices)
    label = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text='The relation as it was named ("works on"), kept beside its type.',
    )
    created_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    objects = OwnedManager()

    class Meta:
        constraints = [
            # Two relations of one type may differ by name ("works on", "leads").
            models.UniqueConstraint(
                fields=["owner", "from_node", "to_node", "type", "label"],
                name="memory_edge_unique_named",
            ),
            models.CheckConstraint(
                condition=~Q(from_node=models.F("to_node")), name="memory_edge_no_self_loop"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_node_id} {self.type} {self.to_node_id}"


class Candidate(models.Model):
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_candidates")
    label_guess = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200)
    # fold_key(canonical_key): the gate folds a new guess into a pending one with the same
    # subject ("Pottery classes" into "Pottery class"); set on save and by bulk writers.
    fold_key = models.CharField(max_length=200, blank=True, default="")
    category_guess = models.CharField(
        max_length=32, choices=Category.choices, default=Category.OTHER
    )
    confidence = models.FloatField(default=0.5)
    status = models.CharField(
        max_length=16, choices=CandidateStatus.choices, default=CandidateStatus.PENDING
    )
    reason = models.CharField(max_length=64, blank=True, default="")
    first_seen_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    mention_count = models.PositiveIntegerField(default=1)
    session_count = models.PositiveIntegerField(default=1)
    held_objects = models.JSONField(
        default=list,
        blank=True,
        help_text="Slices and events proposed on this label, written when it is promoted.",
    )
    possible_existing_node = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        Owner, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    promoted_node = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="promoted_from"
    )
    created_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    # When the words were said (the messages' own times, an import's included), apart from
    # when ume saw them (first_seen_at, last_seen_at): what the review card shows.
    first_said_at = models.DateTimeField(null=True, blank=True)
    last_said_at = models.DateTimeField(null=True, blank=True)
    # memory.triage.candidate_value of the counts, confidence and last_said_at: the queue's
    # order by value, read in index order. Set again by every writer of those fields.
    value = models.FloatField(default=0.0)
    # The cleanup run that expired it (its receipt says so), and when a person brought it
    # back: a restored guess is not expired as a one-off again (memory.services.cleanup).
    expired_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    restored_at = models.DateTimeField(null=True, blank=True)
    resembles = models.ForeignKey(
        "Suppression",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="held_candidates",
        help_text="Held: it looks like what this suppression forgets; the person decides. "
        "Only while the suppression is in force.",
    )
    held_why = models.CharField(max_length=200, blank=True, default="")

    objects = OwnedManager()

    class Meta:
        constraints = [
            # One pending candidate per label: concurrent ingests bump it, never twin it.
            models.UniqueConstraint(
                fields=["owner", "canonical_key"],
                condition=Q(status=CandidateStatus.PENDING),
                name="memory_candidate_one_pending",
            ),
            models.CheckConstraint(
                condition=~Q(canonical_key=""), name="memory_candidate_key_not_empty"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="memory_candidate_confidence_range",
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "status", "-last_seen_at"], name="memory_cand_queue"),
            # The queue sorted by confidence: read in order and stopped at the page, so the
            # join to the possible node is a probe per card, not a hash of every node.
            models.Index(
                fields=["owner", "status", "-confidence", "-last_seen_at", "-id"],
                name="memory_cand_confidence",
            ),
            models.Index(fields=["owner", "canonical_key"], name="memory_cand_owner_key"),
            models.Index(fields=["owner", "fold_key"], name="memory_cand_owner_fold"),
            # The queue by value (memory.triage), and the "start here" view: read in order,
            # stopped at the page.
            models.Index(fields=["owner", "status", "-value", "-id"], name="memory_cand_value"),
        ]
        ordering = ["-last_seen_at", "-id"]

    def __str__(self) -> str:
        return self.label_guess

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.fold_key and self.canonical_key:
            self.fold_key = fold_key(self.canonical_key)
        if self._state.adding and self.last_said_at is None:
            self.first_said_at = self.first_said_at or self.first_seen_at
            self.last_said_at = self.last_seen_at
        fields = kwargs.get("update_fields")
        if fields is None or not VALUE_INPUTS.isdisjoint(fields):
            # Bulk writers (memory.services.apply) set it themselves, as they do fold_key.
            self.value = self.value_now()
            if fields is not None:
                kwargs["update_fields"] = {*fields, "value"}
        super().save(*args, **kwargs)

    @property
    def held_by(self) -> Suppression | None:
        """The suppression in force this card is held by (it looks like what it forgets), or
        None: a lifted or expired suppression holds nothing, at once."""
        s = self.resembles if self.resembles_id else None
        return s if s is not None and s.is_active_at(timezone.now()) else None

    def value_now(self) -> float:
        """memory.triage.candidate_value of this row as it is."""
        return candidate_value(
            sessions=self.session_count,
            mentions=self.mention_count,
            confidence=self.confidence,
            last_said=self.last_said_at,
        )


# What Candidate.value is computed from: saving any of them sets it again.
VALUE_INPUTS = frozenset({"session_count", "mention_count", "confidence", "last_said_at"})


class Suppression(models.Model):
    """A durable tombstone on a canonical key: the gate never lets that label in again."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_suppressions")
    kind = models.CharField(max_length=16, choices=SuppressionKind.choices)
    canonical_key = models.CharField(max_length=200)
    core_key = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="memory.keys.core_key of the canonical key: what every spelling of the "
        "name shares (set with it, never typed).",
    )
    label = models.CharField(max_length=200)
    reason = models.CharField(max_length=16, choices=SuppressionReason.choices)
    source = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    suppressed_until = models.DateTimeField(
        null=True, blank=True, help_text="NULL means permanent."
    )
    lifted_at = models.DateTimeField(null=True, blank=True)
    hit_count = models.PositiveIntegerField(default=0)
    last_hit_at = models.DateTimeField(null=True, blank=True)
    signature = models.JSONField(
        default=dict,
        blank=True,
        help_text="What identifies the forgotten thing beside its key (memory.tombstones.sign): "
        "its names, their keys, its distinctive words, the variants of a person's name.",
    )
    vector = models.BinaryField(
        null=True, blank=True, help_text="Its name's meaning: int8 bytes of the local model."
    )
    vector_model = models.CharField(max_length=64, blank=True, default="")
    exceptions = models.JSONField(
        default=list,
        blank=True,
        help_text="Canonical keys a person kept although they look like this suppression.",
    )

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~Q(canonical_key=""), name="memory_suppression_key_not_empty"
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "kind", "canonical_key"], name="memory_supp_lookup"),
            models.Index(fields=["owner", "canonical_key"], name="memory_supp_owner_key"),
            models.Index(fields=["owner", "core_key"], name="memory_supp_owner_core"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind}:{self.canonical_key}"

    def is_active_at(self, when) -> bool:  # type: ignore[no-untyped-def]
        if self.lifted_at is not None:
            return False
        return self.suppressed_until is None or self.suppressed_until > when


class ErasedConversation(models.Model):
    """A conversation a person's delete-all erased, kept only as a keyed digest of its messages
    (``memory.services.erased``) so that the same conversation sent again -- a client's
    retry, an old export imported -- is not read again. Never its words."""

    owner = models.ForeignKey(
        Owner, on_delete=models.CASCADE, related_name="memory_erased_conversations"
    )
    digest = models.CharField(max_length=64)
    erased_at = models.DateTimeField(default=timezone.now)

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "digest"], name="memory_erasedconversation_one_per_digest"
            ),
        ]

    def __str__(self) -> str:
        return f"erased conversation {self.digest[:12]}"


class TranscriptQuerySet(OwnedQuerySet["Transcript"]):
    """The pending workers' claims (``memory.services.ingest.ingest_pending``): each a
    queryset in the order the workers take them. A transcript a save stored to process in its
    own request (``inline``) is never one of them: if that request stopped before recording
    its outcome, its client was not told it was saved, and only a retry of it may apply it."""

    def _queued(self) -> TranscriptQuerySet:
        return self.filter(inline=False)

    def waiting(self) -> TranscriptQuerySet:
        """Uploaded and not yet processed, oldest first."""
        return self._queued().filter(status=TranscriptStatus.PENDING).order_by("created_at", "id")

    def retry_due(self, now: datetime, max_attempts: int) -> TranscriptQuerySet:
        """Retryable failures whose wait is over: attempts² minutes after the last try."""
        due = Q()
        for tried in range(1, max_attempts):
            due |= Q(attempts=tried, processed_at__lt=now - timedelta(minutes=tried * tried))
        return (
            self._queued()
            .filter(due, status=TranscriptStatus.FAILED, receipt__detail__retryable=True)
            .order_by("processed_at", "id")
        )

    def abandoned(self, claimed_before: datetime, max_attempts: int) -> TranscriptQuerySet:
        """Claimed before ``claimed_before`` and never finished (the worker was killed or ran
        out of memory), with attempts left."""
        return (
            self._queued()
            .filter(
                status=TranscriptStatus.PROCESSING,
                claimed_at__lt=claimed_before,
                attempts__lt=max_attempts,
            )
            .order_by("claimed_at", "id")
        )

    def given_up(self, claimed_before: datetime, max_attempts: int) -> TranscriptQuerySet:
        """Abandoned with no attempt left: a worker died on it ``max_attempts`` times."""
        return self._queued().filter(
            status=TranscriptStatus.PROCESSING,
            claimed_at__lt=claimed_before,
            attempts__gte=max_attempts,
        )

    def orphaned(self, before: datetime) -> TranscriptQuerySet:
        """Stored by a save that processes it itself, whose request stopped before finishing
        (stored or claimed before ``before``, the lease, and never done)."""
        return self.filter(inline=True).filter(
            Q(status=TranscriptStatus.PENDING, created_at__lt=before)
            | Q(status=TranscriptStatus.PROCESSING, claimed_at__lt=before)
        )


class Transcript(models.Model):
    """An uploaded or ingested source. Identical content is stored once per owner."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_transcripts")
    name = models.CharField(max_length=255)
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    source = models.CharField(max_length=16, default="upload")
    source_time = models.DateTimeField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=TranscriptStatus.choices, default=TranscriptStatus.PENDING
    )
    error = models.TextField(blank=True, default="")
    size_bytes = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    inline = models.BooleanField(
        default=False,
        help_text="stored by a save that processes it in its own request: the pending workers "
        "never apply it; a retry of the same content does",
    )
    chat_import = models.ForeignKey(
        "ChatImport",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="transcripts",
        help_text="the chat export this conversation came from, if any",
    )
    conversation_key = models.CharField(
        max_length=120,
        blank=True,
        default="",
        help_text="format:id of the exported conversation, so that a newer export of it "
        "stores only its new messages",
    )

    objects = TranscriptQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "sha256"], name="memory_transcript_unique_sha"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "created_at"], name="memory_transcript_queue"),
            models.Index(
                fields=["owner", "conversation_key"],
                name="memory_transcript_conversation",
                condition=~models.Q(conversation_key=""),
            ),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class Episode(models.Model):
    """One message of a conversation, kept as it was said: searchable, with provenance.

    Written in the same transaction as the rest of a save (``memory.services.episodes``) and
    removed with the transcript it came from (undo of an ingest, delete-all, retention).
    """

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_episodes")
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="episodes")
    message_id = models.CharField(max_length=80)
    seq = models.PositiveIntegerField(help_text="Position of the message in its transcript.")
    role = models.CharField(max_length=16)
    text = models.TextField()
    said_at = models.DateTimeField(
        help_text="The message's time, else the transcript's source time, else when it was ingested."
    )
    learned_at = models.DateTimeField(default=timezone.now, help_text="When ume learned it.")

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "message_id"], name="memory_episode_unique_message"
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "-said_at"], name="memory_episode_owner_said"),
            models.Index(fields=["transcript", "seq"], name="memory_episode_transcript_seq"),
        ]
        ordering = ["transcript_id", "seq"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:80]}"


class Evidence(models.Model):
    """Why a memory exists: the source message and the quoted span that justified it."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_evidence")
    transcript = models.ForeignKey(
        Transcript, null=True, blank=True, on_delete=models.SET_NULL, related_name="evidence"
    )
    receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.CharField(max_length=16, default="command")
    message_id = models.CharField(max_length=64, blank=True, default="")
    message_ts = models.DateTimeField(null=True, blank=True)
    quote = models.TextField()
    node = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="evidence"
    )
    slice = models.ForeignKey(
        Slice, null=True, blank=True, on_delete=models.SET_NULL, related_name="evidence"
    )
    event = models.ForeignKey(
        Event, null=True, blank=True, on_delete=models.SET_NULL, related_name="evidence"
    )
    edge = models.ForeignKey(
        Edge, null=True, blank=True, on_delete=models.SET_NULL, related_name="evidence"
    )
    candidate = models.ForeignKey(
        Candidate, null=True, blank=True, on_delete=models.SET_NULL, related_name="evidence"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = OwnedManager()

    class Meta:
        verbose_name_plural = "evidence"
        ordering = ["created_at", "id"]
        indexes = [
            # The queue's source filter: which transcripts pending guesses came from
            # (memory.selectors.queue_transcripts), without the evidence of nodes.
            models.Index(
                fields=["transcript", "candidate"],
                condition=Q(transcript__isnull=False, candidate__isnull=False),
                name="memory_evid_transcript_cand",
            ),
        ]

    def __str__(self) -> str:
        return self.quote[:80]


class Page(models.Model):
    """A note page: a longer piece of memory (a conversation summary, a design note)."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_pages")
    title = models.CharField(max_length=200)
    canonical_key = models.CharField(max_length=200)
    topic = models.CharField(max_length=200, blank=True, default="")
    summary = models.TextField(blank=True, default="")
    body = models.TextField(blank=True, default="")
    node = models.ForeignKey(
        Node, null=True, blank=True, on_delete=models.SET_NULL, related_name="pages"
    )
    created_receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "canonical_key"], name="memory_page_unique_key"
            ),
        ]
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title


class MemoryRule(models.Model):
    owner = models.OneToOneField(Owner, on_delete=models.CASCADE, related_name="memory_rule")
    custom_instructions = models.TextField(blank=True, default="")
    includes = models.JSONField(
        default=list, blank=True, help_text="Terms; if any, only matching memories are kept."
    )
    excludes = models.JSONField(
        default=list,
        blank=True,
        help_text="Terms; matching memories are never kept (wins over includes).",
    )
    custom_categories = models.JSONField(default=list, blank=True)
    capture_default = models.CharField(
        max_length=16, choices=CaptureDefault.choices, default=CaptureDefault.REVIEW
    )
    auto_collect = models.BooleanField(default=True)
    retention_days = models.PositiveIntegerField(null=True, blank=True)
    episodes = models.BooleanField(
        default=True,
        help_text="Recall also returns what was said in conversations (episodes), not only "
        "reviewed memories.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = OwnedManager()

    def __str__(self) -> str:
        return f"rules for {self.owner.get_username()}"


def default_scopes() -> list[str]:
    return [SCOPE_READ, SCOPE_WRITE]


class AccessToken(models.Model):
    """A per-tool bearer token. Only the SHA-256 of the secret is stored."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_tokens")
    name = models.CharField(max_length=100, help_text="The tool this token is for.")
    prefix = models.CharField(max_length=24, unique=True)
    secret_sha256 = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=default_scopes)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class DeletionBarrier(models.Model):
    """The last time anything of this owner was deleted; in-flight writes older than it abort."""

    owner = models.OneToOneField(Owner, on_delete=models.CASCADE, related_name="memory_barrier")
    barrier_at = models.DateTimeField(default=timezone.now)
    erasing_since = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set while a requested delete-all waits for the workers: every write is "
        "refused until it is done.",
    )

    objects = OwnedManager()

    def __str__(self) -> str:
        return f"{self.owner_id} @ {self.barrier_at:%Y-%m-%d %H:%M:%S}"


class ChatImport(models.Model):
    """A whole chat export (ChatGPT, Claude, JSON Lines): one transcript per conversation.

    The counts are fixed when the export has been read; progress afterwards is the status of
    its transcripts. The same file (by SHA-256) is imported once per owner.
    """

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_imports")
    name = models.CharField(max_length=255)
    format = models.CharField(max_length=16)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField(default=0)
    source = models.CharField(max_length=16, default="upload")
    conversations = models.PositiveIntegerField(default=0, help_text="conversations in the file")
    stored = models.PositiveIntegerField(default=0, help_text="new transcripts stored")
    duplicates = models.PositiveIntegerField(
        default=0, help_text="conversations already stored by an earlier import"
    )
    empty = models.PositiveIntegerField(default=0, help_text="conversations with no message kept")
    broken = models.PositiveIntegerField(
        default=0, help_text="conversations that could not be read (each has its own receipt)"
    )
    skipped = models.JSONField(
        default=dict, blank=True, help_text="messages skipped, by reason (system, tool, hidden...)"
    )
    attachments = models.PositiveIntegerField(default=0)
    error = models.TextField(
        blank=True, default="", help_text="why reading stopped early (the rest was not stored)"
    )
    state = models.CharField(
        max_length=8,
        choices=ImportState.choices,
        default=ImportState.READ,
        help_text="waiting: stored for the pending workers to read; read: every conversation "
        "stored (progress is then its transcripts'); failed: reading stopped (uploading the "
        "same file again retries it)",
    )
    position = models.PositiveIntegerField(
        default=0, help_text="conversations read so far: a reading taken over resumes here"
    )
    attempts = models.PositiveIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "sha256"], name="memory_chatimport_unique_sha")
        ]
        indexes = [models.Index(fields=["state", "created_at"], name="memory_chatimport_queue")]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ChatImportChunk(models.Model):
    """A piece of an uploaded export's bytes, kept in the database (so a worker on any host
    can read it) until the pending workers have read the export."""

    chat_import = models.ForeignKey(ChatImport, on_delete=models.CASCADE, related_name="chunks")
    seq = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["chat_import", "seq"], name="memory_importchunk_seq")
        ]

    def __str__(self) -> str:
        return f"{self.chat_import_id} #{self.seq}"


class Erasure(models.Model):
    """A delete-all that waits for the pending workers (``ingest --pending``), which delete
    in chunks, each in its own transaction, counting as they go (so a worker killed midway
    leaves a claim another worker resumes). ``receipt`` is the receipt left at the end."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="memory_erasures")
    source = models.CharField(max_length=16, default="cleanup")
    keep_suppressions = models.BooleanField(default=True)
    state = models.CharField(
        max_length=8, choices=ErasureState.choices, default=ErasureState.WAITING
    )
    counts = models.JSONField(default=dict, blank=True, help_text="rows deleted so far, by kind")
    attempts = models.PositiveIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = OwnedManager()

    class Meta:
        indexes = [models.Index(fields=["state", "requested_at"], name="memory_erasure_queue")]
        ordering = ["-requested_at", "-id"]

    def __str__(self) -> str:
        return f"delete all of {self.owner_id} ({self.state})"


class RateCount(models.Model):
    """The counter of one key (requests of a token a minute, failed sign-ins of an account or an
    address in a quarter hour) in its current window, incremented atomically in the database so
    that a limit holds across every process and host. One row per key: a new window resets it."""

    key = models.CharField(max_length=200, unique=True)
    bucket = models.BigIntegerField(
        help_text="The current window's number: seconds since the epoch // its length."
    )
    count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.key} #{self.bucket}: {self.count}"


class RecallDoc(models.Model):
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
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+", db_index=False)
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

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "kind", "ref_id"], name="memory_recalldoc_unique_ref"
            ),
        ]
        indexes = [models.Index(fields=["owner", "seq"], name="memory_recalldoc_owner_seq")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.ref_id}"


class RecallTerm(models.Model):
    """A posting: a stemmed term of one document with its field-weighted frequency (and the
    document's length, so BM25 reads nothing else for the documents a query matches)."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
    term = models.CharField(max_length=64)
    kind = models.CharField(max_length=8, choices=RecallDoc.Kind.choices)
    ref_id = models.BigIntegerField()
    tf = models.FloatField()
    length = models.FloatField()

    objects = OwnedManager()

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


class RecallTermCount(models.Model):
    """How many of the owner's documents of a kind hold a term: BM25's document frequency,
    kept by every write of recall's index (``memory.services.recall_index``, under the
    owner's index lock) so that recall reads one row per word of a question instead of
    counting the word's postings (a common word is in tens of thousands of messages)."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+", db_index=False)
    kind = models.CharField(max_length=8, choices=RecallDoc.Kind.choices)
    term = models.CharField(max_length=64)
    docs = models.IntegerField()

    objects = OwnedManager()

    class Meta:
        constraints = [
            # memory.recall.loaders.term_counts: the counts of a question's words.
            models.UniqueConstraint(
                fields=["owner", "term", "kind"], name="memory_recalltermcount_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.term}: {self.docs} {self.kind} documents"


class NodeKeyWord(models.Model):
    """A word of a node's canonical key: the gate's "may belong to" hints look nodes up by
    word here instead of scanning every key of the owner with ``LIKE '%word%'``. Kept with
    recall's index (``memory.services.recall_index``), which every node write refreshes."""

    # No index of its own: the (owner, word, node) index below starts with the owner.
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+", db_index=False)
    node = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="+")
    word = models.CharField(max_length=200)

    objects = OwnedManager()

    class Meta:
        indexes = [
            # memory.selectors.gate_snapshot: the owner's nodes with one of these key words.
            models.Index(fields=["owner", "word", "node"], name="memory_nodekeyword_word"),
        ]

    def __str__(self) -> str:
        return f"{self.word} in node #{self.node_id}"


def random_epoch() -> int:
    return secrets.randbits(62)


class RecallStats(models.Model):
    """Per owner and corpus (``memory``: nodes and pages; ``episode``): how many documents and
    their total length, for BM25, and a version (a new random number on every index write)
    that keys the in-process caches, so they are never stale after a write from any process."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
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

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "corpus"], name="memory_recallstats_unique_corpus"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.corpus}: {self.docs} documents, version {self.version}"


class Revision(models.Model):
    """One change of a node, slice, event, alias, edge or page: who, why, and what it became.

    Written by ``memory.services.history`` in the same transaction as the change. It keeps a
    compact snapshot of the object's own fields (never evidence or the node page), so the
    history of a deleted object outlives it until retention or delete-all removes it; that is
    why ``object_id`` and ``node_id`` are plain numbers, not foreign keys.
    """

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=RevisionKind.choices)
    object_id = models.BigIntegerField()
    node_id = models.BigIntegerField(
        null=True, blank=True, help_text="The node the object belongs to (its own id for a node)."
    )
    number = models.PositiveIntegerField(help_text="1 for the creation, then one more a change.")
    parent = models.PositiveIntegerField(
        null=True, blank=True, help_text="The revision this one follows (None for the first)."
    )
    action = models.CharField(max_length=16, choices=RevisionAction.choices)
    actor = models.CharField(max_length=16, choices=RevisionActor.choices)
    actor_name = models.CharField(
        max_length=150, blank=True, default="", help_text="The person, token or source."
    )
    token = models.ForeignKey(
        "memory.AccessToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    receipt = models.ForeignKey(
        "Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=255, blank=True, default="")
    snapshot = models.JSONField(default=dict, help_text="The object's fields after the change.")
    created_at = models.DateTimeField(default=timezone.now)

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "kind", "object_id", "number"], name="memory_revision_unique"
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "node_id", "-created_at"], name="memory_revision_node"),
            models.Index(fields=["owner", "created_at"], name="memory_revision_owner_at"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.object_id} r{self.number} {self.action}"


class IdempotencyKey(models.Model):
    """The first result of a write sent with an idempotency key, so that a retry with the same
    key returns it instead of writing again. Per owner; cleanup removes expired keys."""

    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    scope = models.CharField(max_length=200, help_text="The route or tool it was sent to.")
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request's arguments.")
    status = models.PositiveSmallIntegerField(default=0, help_text="0 while the write runs.")
    response = models.JSONField(default=dict, blank=True)
    holder = models.CharField(
        max_length=32, blank=True, default="", help_text="The request running the write."
    )
    lease_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="While the write runs, until when its holder keeps the key; a retry after "
        "that (the holder died) takes the key over.",
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    objects = OwnedManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="memory_idempotencykey_unique"),
        ]
        indexes = [models.Index(fields=["expires_at"], name="memory_idemkey_expires")]

    def __str__(self) -> str:
        return f"{self.key} ({self.scope})"


#: The details a person may correct one by one, by the name used in URLs and receipts (the
#: nouns people use for them are ``memory.vocab.DETAIL_NOUNS``).
DETAIL_KINDS: dict[str, type[models.Model]] = {
    "slice": Slice,
    "event": Event,
    "alias": Alias,
    "edge": Edge,
}


# --- receipts (docs/architecture.md, "Receipts") -------------------------------------------

# (owner id, local day, outcome, source): the key of one ``ReceiptDay`` row.
DayKey = tuple[int, date, str, str]
COUNTED = frozenset({"owner", "owner_id", "outcome", "source", "created_at"})
DAYS_PER_STATEMENT = 500  # rows per counting statement (SQLite's limit on parameters)


def day_key(owner_id: int, created_at: datetime, outcome: str, source: str) -> DayKey:
    """The ``ReceiptDay`` row a receipt is counted in: its local day (``TIME_ZONE``)."""
    return (owner_id, timezone.localdate(created_at), outcome, source)


def days_add(deltas: Counter[DayKey]) -> None:
    """Add ``deltas`` to the per-day counts in one statement, and drop the rows left at zero.

    An insert that adds to the row already there (``ON CONFLICT ... DO UPDATE``, which SQLite
    and PostgreSQL both have), so two writers counting the same day never lose a count.
    """
    # In key order, so two writers lock the rows they share in the same order.
    changes = sorted((key, n) for key, n in deltas.items() if n)
    if not changes:
        return
    table = connection.ops.quote_name(ReceiptDay._meta.db_table)
    with connection.cursor() as cursor:
        for start in range(0, len(changes), DAYS_PER_STATEMENT):
            chunk = changes[start : start + DAYS_PER_STATEMENT]
            params: list[Any] = []
            for (owner_id, day, outcome, source), n in chunk:
                params += [owner_id, day, outcome, source, n]
            cursor.execute(
                f"INSERT INTO {table} (owner_id, day, outcome, source, count) VALUES "
                + ", ".join(["(%s, %s, %s, %s, %s)"] * len(chunk))
                + " ON CONFLICT (owner_id, day, outcome, source) "
                f"DO UPDATE SET count = {table}.count + excluded.count",
                params,
            )
    if any(n < 0 for _, n in changes):
        ReceiptDay.objects.filter(
            owner_id__in={key[0] for key, _ in changes}, count__lte=0
        ).delete()


def _counted(rows: Iterable[tuple[int, datetime, str, str]]) -> Counter[DayKey]:
    counts: Counter[DayKey] = Counter()
    for owner_id, created_at, outcome, source in rows:
        counts[day_key(owner_id, created_at, outcome, source)] += 1
    return counts


def _tally_pks(pks: list[int]) -> Counter[DayKey]:
    counts: Counter[DayKey] = Counter()
    for start in range(0, len(pks), 2000):
        counts.update(Receipt.objects.filter(pk__in=pks[start : start + 2000])._tally())
    return counts


class _ReturnedBigInteger(models.BigIntegerField):
    db_returning = True  # the INSERT computes it: read it back in the same statement


class _ReturnedChar(models.CharField):
    db_returning = True


def chain_bulk(receipts: list[Any]) -> None:
    """Chain receipts about to be inserted in one statement, in list order. PostgreSQL's
    trigger chains each row as it goes in (it needs only the digest); for SQLite, one read
    of the owners' heads, then each row's seq and hashes computed here."""
    fresh = [r for r in receipts if r.seq is None]
    for receipt in fresh:
        receipt.content_hash = receipt_chain.digest(receipt.chain_values())
    if connection.vendor != "sqlite" or not fresh:
        return
    owners = {r.owner_id for r in fresh}
    heads = {
        owner_id: (seq, head)
        for owner_id, seq, head in ReceiptChain.objects.filter(owner_id__in=owners).values_list(
            "owner_id", "seq", "head"
        )
    }
    for receipt in fresh:
        seq, head = heads.get(receipt.owner_id, (0, ""))
        receipt.seq, receipt.prev_hash = seq + 1, head
        receipt.content_hash = receipt_chain.link(head, seq + 1, receipt.content_hash)
        heads[receipt.owner_id] = (receipt.seq, receipt.content_hash)


def checkpoints_write(chained: dict[int, list[tuple[int, str]]]) -> None:
    """One signed ``ReceiptCheckpoint`` per owner for the chained receipts deleted."""
    now = timezone.now()
    rows = []
    for owner_id, pairs in sorted(chained.items()):
        runs = receipt_chain.ranges(pairs)
        rows.append(
            ReceiptCheckpoint(
                owner_id=owner_id,
                removed=len(pairs),
                runs=runs,
                created_at=now,
                signature=receipt_chain.checkpoint_sign(owner_id, len(pairs), runs, now),
            )
        )
    if rows:
        ReceiptCheckpoint.objects.bulk_create(rows)


class ReceiptQuerySet(OwnedQuerySet["Receipt"]):
    """Every bulk write keeps ``ReceiptDay`` equal to a recount, in the same transaction."""

    def _tally(self) -> Counter[DayKey]:
        rows = self.order_by().values_list("owner_id", "created_at", "outcome", "source")
        return _counted(rows.iterator(chunk_size=2000))

    def delete(self) -> tuple[int, dict[str, int]]:
        """Delete, move the per-day counts, and leave each owner a signed checkpoint of
        what went, so the chain still verifies (``ReceiptCheckpoint``)."""
        with transaction.atomic(savepoint=False):
            rows = self.order_by().values_list(
                "owner_id", "created_at", "outcome", "source", "seq", "content_hash"
            )
            gone: Counter[DayKey] = Counter()
            chained: dict[int, list[tuple[int, str]]] = {}
            for owner_id, created_at, outcome, source, seq, value in rows.iterator(2000):
                gone[day_key(owner_id, created_at, outcome, source)] += 1
                if seq is not None:
                    chained.setdefault(owner_id, []).append((seq, value))
            result = super().delete()
            days_add(Counter({key: -n for key, n in gone.items()}))
            checkpoints_write(chained)
        return result

    delete.alters_data = True  # type: ignore[attr-defined]

    def update(self, **kwargs: Any) -> int:
        if not COUNTED.intersection(kwargs):
            return super().update(**kwargs)
        with transaction.atomic(savepoint=False):
            pks = list(self.values_list("pk", flat=True))
            before = _tally_pks(pks)
            result = super().update(**kwargs)
            after = _tally_pks(pks)
            after.subtract(before)
            days_add(after)
        return result

    update.alters_data = True  # type: ignore[attr-defined]

    def bulk_update(  # type: ignore[override]
        self, objs: Iterable[Any], fields: Iterable[str], *args: Any, **kwargs: Any
    ) -> int:
        # Django's bulk_update writes through ``update`` above, which moves the counts.
        objs = list(objs)
        result = super().bulk_update(objs, fields, *args, **kwargs)
        for receipt in objs:
            receipt._day = receipt._key()
        return result

    bulk_update.alters_data = True  # type: ignore[attr-defined]

    def bulk_create(  # type: ignore[override]
        self, objs: Iterable[Any], *args: Any, **kwargs: Any
    ) -> list[Any]:
        if kwargs.get("ignore_conflicts") or kwargs.get("update_conflicts"):
            # Which rows went in is not known afterwards: refuse rather than miscount.
            raise ValueError("Receipt.objects.bulk_create counts every row: no conflict options")
        objs = list(objs)
        with transaction.atomic(savepoint=False):
            chain_bulk(objs)
            made: list[Any] = super().bulk_create(objs, *args, **kwargs)
            days_add(_counted((r.owner_id, r.created_at, r.outcome, r.source) for r in made))
        for receipt in made:
            receipt._day = receipt._key()
        return made


class Receipt(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="receipts"
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    token = models.ForeignKey(
        "memory.AccessToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    extractor = models.CharField(max_length=16, blank=True, default="")
    subject = models.CharField(
        max_length=255, blank=True, default="", help_text="The file, transcript or action."
    )
    counts = models.JSONField(default=dict, blank=True)
    rejected = models.JSONField(default=list, blank=True)
    reasons = models.JSONField(default=dict, blank=True, help_text="Rejection reason -> count.")
    detail = models.JSONField(default=dict, blank=True, help_text="The plan and what it wrote.")
    summary = models.CharField(max_length=500, blank=True, default="")
    error = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    undone_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The chain (docs/architecture.md, "Receipts chain"): this receipt's place in its owner's
    # chain, the hash of the one before it, and its own hash. Set by the INSERT itself.
    seq = _ReturnedBigInteger(null=True, blank=True)
    prev_hash = _ReturnedChar(max_length=64, blank=True, default="")
    content_hash = _ReturnedChar(max_length=64, blank=True, default="")
    origin_hash = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text="Imported from another ume's export: the hash it had in that chain (hashed "
        "with the rest). Empty for a receipt made here.",
    )

    objects = ReceiptQuerySet.as_manager()

    class Meta:
        db_table = "receipts_receipt"  # the table it had in the receipts app (no data moved)
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="receipts_owner_created"),
            models.Index(fields=["owner", "outcome", "-created_at"], name="receipts_owner_outcome"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["owner", "seq"], name="receipts_owner_seq_unique")
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_outcome_display()} ({self.source}) #{self.pk}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, and move this receipt's count in ``ReceiptDay`` in the same transaction:
        +1 when it is created, -1/+1 when its outcome, source, owner or day changes."""
        update_fields = kwargs.get("update_fields")
        adding = self._state.adding
        if adding:
            self._chain_insert()
        elif update_fields is None or receipt_chain.HASHED_FIELDS.intersection(update_fields):
            self._reseal()
            if update_fields is not None:
                kwargs["update_fields"] = [*update_fields, "content_hash"]
        try:
            self._save_counted(adding, *args, **kwargs)
        except BaseException:
            if adding:
                self.seq, self.prev_hash, self.content_hash = None, "", ""
            raise

    def _save_counted(self, adding: bool, *args: Any, **kwargs: Any) -> None:
        update_fields = kwargs.get("update_fields")
        if not adding and update_fields is not None and not COUNTED.intersection(update_fields):
            super().save(*args, **kwargs)
            return
        with transaction.atomic(savepoint=False):
            old = self._day
            if not adding and old is None:
                row = Receipt.objects.filter(pk=self.pk).values_list(
                    "owner_id", "created_at", "outcome", "source"
                )
                old = next((day_key(*r) for r in row), None)
            super().save(*args, **kwargs)
            new = self._key()
            if new != old:
                deltas: Counter[DayKey] = Counter({new: 1})
                if old is not None:
                    deltas[old] -= 1
                days_add(deltas)
        self._day = new

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        with transaction.atomic(savepoint=False):
            result = super().delete(*args, **kwargs)
            days_add(Counter({self._key(): -1}))
            if self.seq is not None:
                checkpoints_write({self.owner_id: [(self.seq, self.content_hash)]})
        return result

    def chain_values(self) -> dict[str, Any]:
        values = {name: getattr(self, name) for name in receipt_chain.HASHED}
        values[receipt_chain.ORIGIN] = self.origin_hash
        return values

    def _chain_insert(self) -> None:
        """Set what the INSERT chains this receipt with: its digest, and (SQLite) the
        expressions that read the owner's chain head in the same statement. On PostgreSQL
        the ``receipts_chain_seal`` trigger does that, holding the head row's lock, so two
        saves for one owner at once queue on it instead of forking the chain; SQLite takes
        one writer at a time anyway. Either way the INSERT returns seq and both hashes."""
        content = receipt_chain.digest(self.chain_values())
        if self.seq is not None or connection.vendor != "sqlite":
            self.content_hash = content
            return
        head = "(SELECT {} FROM receipts_chain WHERE owner_id = %s)"
        seq = head.format("COALESCE(MAX(seq), 0) + 1")
        prev = head.format("COALESCE(MAX(head), '')")
        owner = [self.owner_id]
        self.seq = RawSQL(seq, owner)  # type: ignore[assignment]
        self.prev_hash = RawSQL(prev, owner)  # type: ignore[assignment]
        self.content_hash = RawSQL(  # type: ignore[assignment]
            f"SHA256({prev} || ':' || {seq} || ':' || %s)", [*owner, *owner, content]
        )

    def _reseal(self) -> None:
        """A receipt filled in by the transaction that created it (an ingest's outcome and
        counts, a decision's detail) gets its hash again; its place in the chain stays."""
        if self.seq is not None:
            content = receipt_chain.digest(self.chain_values())
            self.content_hash = receipt_chain.link(self.prev_hash, self.seq, content)

    _day: DayKey | None = None  # the ReceiptDay row this receipt is counted in, once saved

    def _key(self) -> DayKey:
        return day_key(self.owner_id, self.created_at, self.outcome, self.source)

    @classmethod
    def from_db(  # type: ignore[override]
        cls, db: str | None, field_names: Any, values: Any, **kwargs: Any
    ) -> Receipt:
        receipt = super().from_db(db, field_names, values, **kwargs)
        names = set(field_names)
        if {"owner_id", "created_at", "outcome", "source"} <= names:
            receipt._day = receipt._key()
        return receipt

    def as_json(self) -> dict:
        """The receipt shape every interface prints (docs/architecture.md, "Receipts")."""
        return {
            "receipt_id": self.pk,
            "outcome": self.outcome,
            "counts": self.counts,
            "rejected": self.rejected,
            "source": self.source,
            "summary": self.summary,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "created_at": self.created_at.isoformat(),
        }


class ReceiptDay(models.Model):
    """How many receipts ``owner`` got on one local day with one outcome and source.

    Kept by every write of ``Receipt`` (create, save, bulk create, update, delete; see
    ``ReceiptQuerySet``) in the same transaction, so the Saves page's month chart reads at
    most a few hundred of these instead of every receipt of the month (docs/architecture.md).
    An owner's rows go with the owner. Days are in ``TIME_ZONE``: changing it needs the
    counts rebuilt (docs/architecture.md, "Saves chart").
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    outcome = models.CharField(max_length=24, choices=Outcome.choices)
    source = models.CharField(max_length=16, choices=Source.choices)
    count = models.IntegerField(default=0)

    objects = OwnedManager()

    class Meta:
        db_table = "receipts_receiptday"  # the table it had in the receipts app
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "day", "outcome", "source"], name="receipts_day_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.outcome} {self.source}: {self.count}"


class ReceiptChain(models.Model):
    """The head of an owner's receipts chain: the last seq given and its hash, kept by the
    database in the INSERT of every receipt (the triggers of migration
    ``0067_receipt_chain``), and how far the chain was last verified, signed with an HMAC
    keyed on ``SECRET_KEY`` (docs/architecture.md, "Receipts chain")."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    seq = models.BigIntegerField(db_default=0)
    head = models.CharField(max_length=64, db_default="")
    verified_seq = models.BigIntegerField(db_default=0)
    verified_hash = models.CharField(max_length=64, db_default="")
    verified_sig = models.CharField(max_length=64, db_default="")
    verified_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedManager()

    class Meta:
        db_table = "receipts_chain"

    def __str__(self) -> str:
        return f"chain of {self.owner_id}: {self.seq}"


class ReceiptCheckpoint(models.Model):
    """What a deletion took out of an owner's chain: how many receipts, and as runs
    ``[first seq, last seq, hash of the last]``, so the receipts after a gap still link;
    signed with an HMAC keyed on ``SECRET_KEY`` (``memory.receipt_chain``)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    removed = models.PositiveIntegerField()
    runs = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)
    signature = models.CharField(max_length=64)

    objects = OwnedManager()

    class Meta:
        db_table = "receipts_checkpoint"
        indexes = [models.Index(fields=["owner", "id"], name="receipts_checkpoint_owner")]

    def __str__(self) -> str:
        return f"checkpoint of {self.owner_id}: {self.removed} removed"
