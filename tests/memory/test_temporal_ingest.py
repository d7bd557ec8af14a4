"""When it happened, through the real command: stated dates, phrases resolved against the
transcript's own time, and NULL -- never "now" -- when the text does not say."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from memory.models import Candidate, Event, MemoryRule
from memory.services.review import candidate_promote


@pytest.fixture
def auto(owner: User) -> Any:
    return MemoryRule.objects.create(owner=owner, capture_default="auto")


def ingest(tmp_path: Any, text: Any, **opts: Any) -> None:
    path = tmp_path / "chat.txt"
    path.write_text(text)
    call_command("ingest", str(path), user="owner", json=True, **opts)


def test_a_stated_month(owner: User, auto: Any, tmp_path: Path) -> None:
    ingest(tmp_path, "User: I moved to Berlin in March 2021.")
    event = Event.objects.get(node__label="Berlin")
    assert (
        event.action,
        event.happened_at,
        event.happened_at_precision,
        event.happened_at_source,
    ) == (
        "moved",
        datetime(2021, 3, 1, tzinfo=UTC),
        "month",
        "stated",
    )
    assert event.created_at.year == datetime.now(tz=UTC).year  # learned now, happened then


def test_a_relative_phrase_resolves_against_the_source_time(
    owner: User, auto: Any, tmp_path: Path
) -> None:
    ingest(tmp_path, "User: I started boxing last week.", source_time="2026-05-10")
    event = Event.objects.get(node__label="Boxing")
    assert (event.happened_at, event.happened_at_precision, event.happened_at_source) == (
        datetime(2026, 5, 3, tzinfo=UTC),
        "week",
        "resolved_phrase",
    )


def test_a_message_timestamp_anchors_its_own_phrases(
    owner: User, auto: Any, tmp_path: Path
) -> None:
    path = tmp_path / "chat.json"
    path.write_text(
        '[{"role": "user", "content": "I started boxing yesterday.", "ts": "2026-02-11T09:00:00Z"}]'
    )
    call_command("ingest", str(path), user="owner", json=True, source_time="2026-05-10")
    event = Event.objects.get()
    assert (event.happened_at, event.happened_at_precision) == (
        datetime(2026, 2, 10, tzinfo=UTC),
        "day",
    )


def test_no_date_in_the_text_leaves_happened_at_null(
    owner: User, auto: Any, tmp_path: Path
) -> None:
    ingest(tmp_path, "User: I started boxing.", source_time="2026-05-10")
    event = Event.objects.get()
    assert (event.happened_at, event.happened_at_precision, event.happened_at_source) == (
        None,
        "",
        "unknown",
    )


def test_a_relative_phrase_without_any_anchor_stays_unknown(
    owner: User, auto: Any, tmp_path: Path
) -> None:
    ingest(tmp_path, "User: I started boxing last week.")
    assert Event.objects.get().happened_at is None


def test_the_date_survives_review(owner: User, tmp_path: Path) -> None:
    ingest(tmp_path, "User: I moved to Berlin in March 2021.")
    candidate = Candidate.objects.get(label_guess="Berlin")
    node = candidate_promote(candidate=candidate, by=owner)
    event = node.events.get()
    assert (event.happened_at, event.happened_at_precision) == (
        datetime(2021, 3, 1, tzinfo=UTC),
        "month",
    )
