"""Episodes: the messages of every conversation that enters ume, kept as they were said.

A message the person asked not to keep ("off the record", "scratch that") is not kept as an
episode, nor is the reply to it: recall never quotes it back.

Entry points (stable; other code depends on them):

- ``episodes_record(*, transcript, messages, now=None) -> list[int]``: called inside the
  save's transaction by every path a conversation enters (``ingest``, uploads,
  ``ingest --pending``, ``POST /v1/conversations``, MCP ``save_conversation``). Recording the
  same transcript twice writes nothing new. Returns the new episodes' ids.
- ``episodes_insert(...)`` then ``episodes_index(*, owner_id, inserted)``: the same in two
  steps, for a writer of several conversations in one transaction (an import's groups), which
  indexes all their episodes in one recall write.
- ``episodes_delete(*, owner, transcript_ids=None, before=None) -> int``: removes the owner's
  episodes of those transcripts (all of them when ``transcript_ids`` is None), optionally only
  those learned before ``before`` (retention). Returns how many were deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from django.utils import timezone

from memory.extractors.asides import withheld
from memory.models import Episode, Transcript
from memory.owned import Person
from memory.services.bulk import insert_rows
from memory.services.recall_index import recall_index_add_episodes, recall_index_refresh
from memory.transcripts import Message, episode_rows


def _not_kept(messages: Sequence[Message]) -> set[int]:
    """Positions of the messages the person asked not to keep (:mod:`memory.extractors.
    asides`: "off the record", "scratch that" and the message it takes back), and of the
    reply to each, which says it back."""
    asked = withheld(messages)
    replies = {at + 1 for at in asked if at + 1 < len(messages) and messages[at + 1].role != "user"}
    return asked | replies


def episodes_record(
    *, transcript: Transcript, messages: Sequence[Message], now: datetime | None = None
) -> list[int]:
    """Keep each message of ``transcript`` as an episode of its owner, but those the person
    asked not to keep (:func:`_not_kept`); the new ids."""
    inserted = episodes_insert(transcript=transcript, messages=messages, now=now)
    if not inserted:
        return []
    return episodes_index(owner_id=transcript.owner_id, inserted={transcript.pk: inserted})


def episodes_insert(
    *, transcript: Transcript, messages: Sequence[Message], now: datetime | None = None
) -> dict[str, str]:
    """:func:`episodes_record` without recall's index: the rows only, for a caller that
    indexes the episodes of several transcripts at once (:func:`episodes_index`, in the same
    transaction). The new episodes' texts by message id."""
    now = now or timezone.now()
    skipped = _not_kept(messages)
    rows = episode_rows(list(messages), source_time=transcript.source_time, now=now)
    rows = [row for row in rows if row.seq not in skipped]
    if not rows:
        return {}
    existing = set(
        Episode.objects.filter(transcript=transcript).values_list("message_id", flat=True)
    )
    fresh = [row for row in rows if row.message_id not in existing]
    if not fresh:
        return {}
    insert_rows(
        Episode,
        ("owner", "transcript", "message_id", "seq", "role", "text", "said_at", "learned_at"),
        (
            (
                transcript.owner_id,
                transcript.pk,
                row.message_id,
                row.seq,
                row.role,
                row.text,
                row.said_at,
                now,
            )
            for row in fresh
        ),
    )
    return {row.message_id: row.text for row in fresh}


def episodes_index(*, owner_id: int, inserted: Mapping[int, Mapping[str, str]]) -> list[int]:
    """Index in recall the episodes :func:`episodes_insert` just kept (``inserted``: by
    transcript id, the new texts by message id), their ids read back in one query (the
    insert returns none) and written to the index in one go; the new ids."""
    texts = {
        pk: inserted[transcript_id][message_id]
        for pk, transcript_id, message_id in Episode.objects.filter(
            transcript_id__in=list(inserted)
        )
        .order_by("id")
        .values_list("id", "transcript_id", "message_id")
        if message_id in inserted[transcript_id]
    }
    if texts:
        recall_index_add_episodes(owner_id=owner_id, episodes=list(texts), texts=texts)
    return list(texts)


def episodes_delete(
    *,
    owner: Person,
    transcript_ids: Iterable[int] | None = None,
    before: datetime | None = None,
) -> int:
    """Delete the owner's episodes (of ``transcript_ids`` if given; learned before ``before`` if
    given). Always scoped to the owner: another person's transcript ids delete nothing."""
    rows = Episode.objects.for_owner(owner)
    if transcript_ids is not None:
        rows = rows.filter(transcript_id__in=list(transcript_ids))
    if before is not None:
        rows = rows.filter(learned_at__lt=before)
    ids = list(rows.values_list("id", flat=True))
    deleted, _by_model = rows.delete()
    recall_index_refresh(owner_id=owner.pk, episodes=ids)
    return deleted
