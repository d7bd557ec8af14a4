"""Reads behind the list pages (memory.selectors): what they return, scoped to the owner."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from memory.models import Evidence, Transcript
from memory.selectors import node_list, node_pair_counts, nodes_matching, queue_transcripts
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.django_db


def _transcript(owner: Any, name: Any, minutes_ago: Any) -> Any:
    return Transcript.objects.create(
        owner=owner,
        name=name,
        text="",
        sha256=name,
        created_at=timezone.now() - timedelta(minutes=minutes_ago),
    )


def test_queue_transcripts_lists_the_sources_of_pending_guesses_newest_first(
    owner: User, other_user: User
) -> None:
    older = _transcript(owner, "older", 10)
    newer = _transcript(owner, "newer", 1)
    decided = _transcript(owner, "decided", 5)
    nodes_only = _transcript(owner, "nodes only", 3)
    _transcript(owner, "silent", 2)  # no evidence at all
    theirs = _transcript(other_user, "theirs", 0)
    for transcript, label, status in [
        (older, "Piano", "pending"),
        (newer, "Chess", "pending"),
        (newer, "Go", "rejected"),
        (decided, "Golf", "rejected"),
        (theirs, "Tennis", "pending"),
    ]:
        who = transcript.owner
        guess = make_candidate(owner=who, label=label, status=status)
        Evidence.objects.create(owner=who, candidate=guess, transcript=transcript, quote=label)
    node = make_node(owner=owner, label="Atlas")
    Evidence.objects.create(owner=owner, node=node, transcript=nodes_only, quote="Atlas")
    Evidence.objects.create(owner=owner, node=node, quote="no transcript")

    assert queue_transcripts(owner) == [(newer.pk, "newer"), (older.pk, "older")]
    assert queue_transcripts(other_user) == [(theirs.pk, "theirs")]


def test_the_browser_counts_from_the_pairs_equal_its_lists(owner: User, other_user: User) -> None:
    for i, (category, state) in enumerate(
        [("skill", "active"), ("skill", "paused"), ("project", "active"), ("project", "active")]
    ):
        make_node(owner=owner, label=f"Node {i}", category=category, state=state)
    make_node(owner=other_user, label="Theirs", category="skill", state="active")
    pairs = node_pair_counts(owner)

    for category in ("", "skill", "project", "person"):
        for state in ("", "active", "paused"):
            expected = node_list(owner, category=category, state=state).count()
            assert nodes_matching(pairs, category=category, state=state) == expected
    assert nodes_matching(pairs) == 4
