"""What was said: transcripts (uploaded or ingested sources), their episodes (the messages
recall searches), the evidence that ties a memory to the words behind it, and chat imports.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import models
from django.db.models import Q
from django.utils import timezone

from memory.models.base import Owned, Recorded, owner_key
from memory.models.graph import Edge, Event, Node, Slice
from memory.models.review import Candidate
from memory.owned import OwnedQuerySet
from memory.vocab import (
    ImportState,
    TranscriptStatus,
)


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


class Transcript(Recorded):
    """An uploaded or ingested source. Identical content is stored once per owner."""

    owner = owner_key("memory_transcripts")
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

    # Its own queries on top of the owned ones (django-stubs types a manager override as misc).
    objects = TranscriptQuerySet.as_manager()  # type: ignore[misc]

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


class Episode(Owned):
    """One message of a conversation, kept as it was said: searchable, with provenance.

    Written in the same transaction as the rest of a save (``memory.services.episodes``) and
    removed with the transcript it came from (undo of an ingest, delete-all, retention).
    """

    owner = owner_key("memory_episodes")
    transcript = models.ForeignKey(Transcript, on_delete=models.CASCADE, related_name="episodes")
    message_id = models.CharField(max_length=80)
    seq = models.PositiveIntegerField(help_text="Position of the message in its transcript.")
    role = models.CharField(max_length=16)
    text = models.TextField()
    said_at = models.DateTimeField(
        help_text="The message's time, else the transcript's source time, else when it was ingested."
    )
    learned_at = models.DateTimeField(default=timezone.now, help_text="When ume learned it.")

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


class Evidence(Recorded):
    """Why a memory exists: the source message and the quoted span that justified it."""

    owner = owner_key("memory_evidence")
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


class ChatImport(Recorded):
    """A whole chat export (ChatGPT, Claude, JSON Lines): one transcript per conversation.

    The counts are fixed when the export has been read; progress afterwards is the status of
    its transcripts. The same file (by SHA-256) is imported once per owner.
    """

    owner = owner_key("memory_imports")
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
