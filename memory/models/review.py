"""The review queue and what binds the gate: candidates waiting for a person, suppressions
(durable tombstones), conversations erased by a delete-all, and each person's memory rule.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Q
from django.utils import timezone

from memory.keys import fold_key
from memory.models.base import Owned, Owner, Receipted, Recorded, owner_key
from memory.models.graph import Node
from memory.triage import candidate_value
from memory.vocab import (
    CandidateStatus,
    CaptureDefault,
    Category,
    SuppressionKind,
    SuppressionReason,
)


class Candidate(Recorded, Receipted):
    owner = owner_key("memory_candidates")
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


class Suppression(Recorded):
    """A durable tombstone on a canonical key: the gate never lets that label in again."""

    owner = owner_key("memory_suppressions")
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


class ErasedConversation(Owned):
    """A conversation a person's delete-all erased, kept only as a keyed digest of its messages
    (``memory.services.erased``) so that the same conversation sent again -- a client's
    retry, an old export imported -- is not read again. Never its words."""

    owner = owner_key("memory_erased_conversations")
    digest = models.CharField(max_length=64)
    erased_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "digest"], name="memory_erasedconversation_one_per_digest"
            ),
        ]

    def __str__(self) -> str:
        return f"erased conversation {self.digest[:12]}"


class MemoryRule(Recorded):
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
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"rules for {self.owner.get_username()}"
