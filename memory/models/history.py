"""What changed and what was erased: revisions (undo and restore), erasures, and the
deletion barrier a delete-all leaves.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from memory.models.base import Owned, Owner, Recorded, owner_key
from memory.vocab import (
    ErasureState,
    RevisionAction,
    RevisionActor,
    RevisionKind,
)


class DeletionBarrier(Owned):
    """The last time anything of this owner was deleted; in-flight writes older than it abort."""

    owner = models.OneToOneField(Owner, on_delete=models.CASCADE, related_name="memory_barrier")
    barrier_at = models.DateTimeField(default=timezone.now)
    erasing_since = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set while a requested delete-all waits for the workers: every write is "
        "refused until it is done.",
    )

    def __str__(self) -> str:
        return f"{self.owner_id} @ {self.barrier_at:%Y-%m-%d %H:%M:%S}"


class Erasure(Owned):
    """A delete-all that waits for the pending workers (``ingest --pending``), which delete
    in chunks, each in its own transaction, counting as they go (so a worker killed midway
    leaves a claim another worker resumes). ``receipt`` is the receipt left at the end."""

    owner = owner_key("memory_erasures")
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

    class Meta:
        indexes = [models.Index(fields=["state", "requested_at"], name="memory_erasure_queue")]
        ordering = ["-requested_at", "-id"]

    def __str__(self) -> str:
        return f"delete all of {self.owner_id} ({self.state})"


class Revision(Recorded):
    """One change of a node, slice, event, alias, edge or page: who, why, and what it became.

    Written by ``memory.services.history`` in the same transaction as the change. It keeps a
    compact snapshot of the object's own fields (never evidence or the node page), so the
    history of a deleted object outlives it until retention or delete-all removes it; that is
    why ``object_id`` and ``node_id`` are plain numbers, not foreign keys.
    """

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
