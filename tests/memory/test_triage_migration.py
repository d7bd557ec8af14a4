"""``memory.0070_triage_said_value``: guesses stored before it get when they were said (their
quotes' own times) and their value on the queue; the migration goes back and forth."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection

from memory.models import Candidate
from tests.migrations import apps_before, migrate, migrate_to_latest

BEFORE = [("memory", "0069_speed_recalldoc_owner_index")]
SAID = datetime(2021, 5, 2, 20, 15, tzinfo=UTC)


@pytest.fixture
def before_triage(transactional_db: None) -> Iterator[Any]:
    """The historical apps just before the migration; back to head afterwards."""
    with apps_before(BEFORE) as apps:
        yield apps


def test_old_guesses_get_their_said_times_and_value(before_triage: Any) -> None:
    apps = before_triage
    user = apps.get_model("auth", "User").objects.create(username="old")
    Transcript = apps.get_model("memory", "Transcript")
    Candidate_ = apps.get_model("memory", "Candidate")
    Evidence = apps.get_model("memory", "Evidence")
    chat = Transcript.objects.create(
        owner=user, name="c", text="c", sha256="c" * 64, source_time=SAID + timedelta(days=9)
    )
    seen = datetime(2026, 1, 5, tzinfo=UTC)
    quoted = Candidate_.objects.create(
        owner=user, label_guess="Pepper", canonical_key="pepper", fold_key="pepper",
        first_seen_at=seen, last_seen_at=seen, session_count=3, mention_count=4, confidence=0.7,
    )  # fmt: skip
    bare = Candidate_.objects.create(
        owner=user, label_guess="Naples", canonical_key="naples", fold_key="naples",
        first_seen_at=seen, last_seen_at=seen,
    )  # fmt: skip
    Evidence.objects.create(owner=user, candidate=quoted, quote="a", message_ts=SAID)
    Evidence.objects.create(owner=user, candidate=quoted, quote="b", transcript=chat)
    migrate_to_latest()
    pepper = Candidate.objects.get(pk=quoted.pk)
    assert (pepper.first_said_at, pepper.last_said_at) == (SAID, SAID + timedelta(days=9))
    assert pepper.value == pepper.value_now() > 0
    naples = Candidate.objects.get(pk=bare.pk)
    assert (naples.first_said_at, naples.last_said_at) == (seen, seen)  # no quote: when seen
    assert naples.value == naples.value_now() < pepper.value
    assert pepper.expired_receipt_id is None and pepper.restored_at is None
    # and back: the fields go, the rows stay
    migrate(BEFORE)
    columns = {c.name for c in connection.introspection.get_table_description(
        connection.cursor(), Candidate._meta.db_table
    )}  # fmt: skip
    assert "value" not in columns and "first_said_at" not in columns
    assert Candidate_.objects.count() == 2
