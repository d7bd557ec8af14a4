"""Receipts: one row per save attempt, so a quiet system can be told from a broken one."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Outcome(models.TextChoices):
    WROTE = "wrote"
    MEANINGFUL_NO_WRITE = "meaningful_no_write", "meaningful no-write"
    LLM_FAILED = "llm_failed", "extractor failed"
    DB_WRITE_FAILED = "db_write_failed", "database write failed"
    DUPLICATE = "duplicate"
    REJECTED_INPUT = "rejected_input", "rejected input"
    DELETION_CONFLICT = "deletion_conflict", "dropped: a deletion happened meanwhile"


class Source(models.TextChoices):
    UPLOAD = "upload"
    COMMAND = "command"
    MCP = "mcp", "MCP"
    API = "api", "API"
    REVIEW = "review"
    CLEANUP = "cleanup"


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

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-created_at"], name="receipts_owner_created"),
            models.Index(fields=["owner", "outcome", "-created_at"], name="receipts_owner_outcome"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.get_outcome_display()} ({self.source}) #{self.pk}"

    def as_json(self) -> dict:
        """The receipt shape every interface prints (DESIGN.md)."""
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
