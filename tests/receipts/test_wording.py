"""Wording on the dashboard: counts agree with their numbers, memories are named (not
numbered), unusual words are explained where they first appear, one date style."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.models import Receipt
from memory.services.ingest import ingest_proposals
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.django_db


def receipt_page(client: Any, receipt: Any) -> Any:
    return client.get(reverse("receipts:detail", args=[receipt.pk])).content.decode()


def test_counts_agree_with_their_numbers(client: Client, owner: User) -> None:
    client.force_login(owner)
    one = Receipt.objects.create(
        owner=owner, source="upload", outcome="wrote", counts={"slices": 1, "nodes": 1}
    )
    many = Receipt.objects.create(
        owner=owner, source="upload", outcome="wrote", counts={"slices": 2, "nodes": 3}
    )
    assert "<strong>1</strong> fact<" in receipt_page(client, one)
    assert "<strong>1</strong> new memory<" in receipt_page(client, one)
    assert "<strong>2</strong> facts<" in receipt_page(client, many)
    assert "<strong>3</strong> new memories<" in receipt_page(client, many)


def test_a_state_change_names_the_memory(client: Client, owner: User) -> None:
    client.force_login(owner)
    atlas = make_node(owner=owner, label="Atlas", category="project")
    receipt = ingest_proposals(
        owner=owner,
        objects=[
            {"object": "event", "on": "Atlas", "action": "paused", "text": "paused Atlas"},
        ],
        name="s.json",
        source="upload",
    )
    html = receipt_page(client, receipt)
    assert ">Atlas</a> active → paused" in html
    assert f"#{atlas.pk}<" not in html


def test_held_is_explained_on_the_receipt(client: Client, owner: User) -> None:
    client.force_login(owner)
    receipt = Receipt.objects.create(
        owner=owner, source="upload", outcome="wrote", counts={"candidates": 1, "held": 2}
    )
    html = receipt_page(client, receipt)
    assert "<strong>2</strong> details held" in html
    assert "Held: facts and events about a guess still waiting for review" in html


def test_categories_are_capitalised_and_confidence_is_a_labelled_bar(
    client: Client, owner: User
) -> None:
    client.force_login(owner)
    make_candidate(owner=owner, label="Piano", category_guess="life_event", confidence=0.85)
    html = client.get(reverse("review:queue")).content.decode()
    assert ">Life event</span>" in html
    assert '<label for="conf-' in html and ">Confidence</label>" in html
    assert '<meter id="conf-' in html and 'value="0.85"' in html and "85%" in html


def test_the_card_dates_use_the_one_date_style(client: Client, owner: User) -> None:
    client.force_login(owner)
    candidate = make_candidate(owner=owner, label="Piano")
    html = client.get(reverse("review:queue")).content.decode()
    seen = timezone.localtime(candidate.last_seen_at)
    assert f"{seen:%-d %b %Y, %H:%M}</time>" in html and " ago<" not in html


def test_an_undo_summary_agrees_with_its_numbers(owner: User) -> None:
    from memory.models import MemoryRule
    from memory.services.erase import receipt_undo

    MemoryRule.objects.create(owner=owner, capture_default="auto")
    objects = [{"object": "node", "label": "Atlas", "category": "project", "confidence": 0.95}]
    ingest = ingest_proposals(owner=owner, objects=objects, name="a.json", source="upload")
    undo = receipt_undo(receipt=ingest, suppress=True)
    assert "deleted 1 node, 0 candidates (Atlas), 0 slices, 0 events" in undo.summary
    assert "1 label suppressed" in undo.summary and "(s)" not in undo.summary


def test_held_has_a_tooltip_in_the_saves_list(client: Client, owner: User) -> None:
    client.force_login(owner)
    Receipt.objects.create(
        owner=owner, source="upload", outcome="wrote", counts={"candidates": 1, "held": 2}
    )
    html = client.get(reverse("receipts:list")).content.decode()
    assert 'title="Held: facts and events about a guess' in html
