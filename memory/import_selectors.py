"""Reads for chat imports: every one takes the owner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from memory.models import ChatImport, Transcript
from memory.owned import Person
from memory.vocab import ImportState, TranscriptStatus


@dataclass(frozen=True)
class ImportProgress:
    """Where an import's conversations are: processed, failed, still waiting."""

    chat_import: ChatImport
    done: int
    failed: int  # failed processing, plus conversations that could not be read
    waiting: int

    @property
    def total(self) -> int:
        return self.chat_import.stored + self.chat_import.broken

    @property
    def reading(self) -> bool:
        """The export is still being split into conversations (or waits for a worker to)."""
        return self.chat_import.state in (ImportState.WAITING, ImportState.READING)

    @property
    def finished(self) -> bool:
        return not self.reading and self.waiting == 0

    @property
    def percent(self) -> int:
        return 100 if not self.total else int(100 * (self.done + self.failed) / self.total)


def _with_counts(qs: QuerySet[ChatImport]) -> QuerySet[ChatImport]:
    return qs.annotate(
        n_done=Count("transcripts", filter=Q(transcripts__status=TranscriptStatus.DONE)),
        n_failed=Count("transcripts", filter=Q(transcripts__status=TranscriptStatus.FAILED)),
        n_waiting=Count(
            "transcripts",
            filter=Q(
                transcripts__status__in=[TranscriptStatus.PENDING, TranscriptStatus.PROCESSING]
            ),
        ),
    )


def _progress(row: Any) -> ImportProgress:
    return ImportProgress(
        chat_import=row,
        done=row.n_done,
        failed=row.n_failed + row.broken,
        waiting=row.n_waiting,
    )


def chat_import_progress(owner: Person, import_id: int) -> ImportProgress | None:
    """One import of ``owner`` with its progress (one query), or None."""
    row = _with_counts(ChatImport.objects.for_owner(owner).filter(pk=import_id)).first()
    return _progress(row) if row is not None else None


def chat_imports_recent(owner: Person, *, limit: int = 10) -> list[ImportProgress]:
    """The owner's latest imports with their progress, newest first (one query)."""
    rows = _with_counts(ChatImport.objects.for_owner(owner)).order_by("-created_at", "-id")
    return [_progress(row) for row in rows[:limit]]


#: How many of an import's conversations its page lists (the rest are on the Saves page).
CONVERSATIONS_SHOWN = 200


def chat_import_conversations(
    owner: Person, import_id: int, *, limit: int = CONVERSATIONS_SHOWN
) -> list[Transcript]:
    """The conversations one import of ``owner`` stored, in the export's order, each with its
    receipt (one query; never a transcript's text)."""
    return list(
        Transcript.objects.for_owner(owner)
        .filter(chat_import_id=import_id)
        .select_related("receipt")
        .only(
            "id", "name", "status", "error", "receipt__id", "receipt__outcome", "receipt__summary"
        )
        .order_by("id")[:limit]
    )
