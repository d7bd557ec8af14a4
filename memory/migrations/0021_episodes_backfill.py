"""Existing transcripts get their episodes: one row per message, as new ingests write them."""

from __future__ import annotations

from django.db import migrations

from memory.transcripts import TranscriptError, episode_rows, parse_transcript


def backfill(apps, schema_editor):  # type: ignore[no-untyped-def]
    Transcript = apps.get_model("memory", "Transcript")
    Episode = apps.get_model("memory", "Episode")
    done = Transcript.objects.filter(status="done", episodes__isnull=True).order_by("pk")
    for transcript in done.iterator(chunk_size=200):
        try:
            messages = parse_transcript(transcript.text, name=transcript.name)
        except (TranscriptError, RecursionError):
            continue  # a proposals-only save or text that no longer parses: nothing was said
        ingested = transcript.processed_at or transcript.created_at
        rows = episode_rows(messages, source_time=transcript.source_time, now=ingested)
        Episode.objects.bulk_create(
            [
                Episode(
                    owner_id=transcript.owner_id,
                    transcript_id=transcript.pk,
                    message_id=row.message_id,
                    seq=row.seq,
                    role=row.role,
                    text=row.text,
                    said_at=row.said_at,
                    learned_at=ingested,
                )
                for row in rows
            ],
            batch_size=500,
        )


class Migration(migrations.Migration):
    dependencies = [("memory", "0020_episodes")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
