"""The review queue at scale, in real headless Chromium: it opens on "start here", batches are
made with the keyboard or on a whole group and taken back with one "u", and expired guesses
come back with Restore."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from memory.models import Candidate, Node
from memory.services.cleanup import cleanup_run
from tests.factories import make_candidate

pytestmark = pytest.mark.browser


def expect_text(locator: Any, text: Any) -> None:
    from playwright.sync_api import expect

    expect(locator).to_contain_text(text)


def statuses(person: Any) -> dict[str, str]:
    return dict(Candidate.objects.for_owner(person).values_list("label_guess", "status"))


def test_the_queue_opens_on_the_cards_that_matter_most(signed_in: Any, person: Any) -> None:
    page = signed_in
    now = timezone.now()
    for i in range(24):
        make_candidate(owner=person, label=f"Once {i:02d}", last_seen_at=now - timedelta(hours=i))
    make_candidate(owner=person, label="Pepper", session_count=12, mention_count=20)
    page.goto("/review/")
    expect_text(page.locator(".tabs [aria-current=page]"), "Start here")
    expect_text(page.locator(".start-intro"), "25 pending")
    cards = page.locator("#queue .card[data-candidate]")
    assert cards.count() == 20
    expect_text(cards.first, "Pepper")
    expect_text(cards.first.locator(".meta"), "in 12 conversations")
    page.get_by_role("link", name="See them all").click()
    page.wait_for_url("**/review/?view=all")
    expect_text(page.locator(".tabs [aria-current=page]"), "All")
    assert page.locator("#id_category").is_visible()


def test_a_batch_with_the_keyboard_and_one_u_to_take_it_back(signed_in: Any, person: Any) -> None:
    page = signed_in
    now = timezone.now()
    made = [
        make_candidate(owner=person, label=label, last_seen_at=now - timedelta(minutes=i))
        for i, label in enumerate(["Alpha", "Bravo", "Charlie"])
    ]
    page.reload()
    page.keyboard.press("j")  # Alpha
    page.keyboard.press("x")
    page.keyboard.press("j")  # Bravo
    page.keyboard.press("x")
    page.keyboard.press("Shift+P")  # promote every selected card
    expect_text(page.locator(".flash"), "Promoted “Alpha” and “Bravo”.")
    expect_text(page.locator(".undo-bar"), "Undo 2 decisions")
    assert set(Node.objects.for_owner(person).values_list("label", flat=True)) == {
        "Alpha",
        "Bravo",
    }
    page.keyboard.press("u")  # the whole batch, from anywhere on the page
    expect_text(page.locator(".flash"), "Undone: “Alpha” and “Bravo” back in the queue.")
    assert not Node.objects.for_owner(person).exists()
    assert statuses(person) == {"Alpha": "pending", "Bravo": "pending", "Charlie": "pending"}
    # X selects every card shown, S suppresses them all
    page.keyboard.press("j")
    page.keyboard.press("Shift+X")
    assert page.locator(".card input.select:checked").count() == 3
    page.keyboard.press("Shift+S")
    expect_text(page.locator(".flash"), "Suppressed")
    assert set(statuses(person).values()) == {"suppressed"}
    assert made[2].pk in [c.pk for c in Candidate.objects.filter(status="suppressed")]


def test_the_queue_by_category_and_a_batch_on_one_group(signed_in: Any, person: Any) -> None:
    page = signed_in
    for label, category in [
        ("Chess", "interest"),
        ("Jazz", "interest"),
        ("Lisbon", "place"),
        ("Asthma", "health"),
    ]:
        make_candidate(owner=person, label=label, category_guess=category)
    page.goto("/review/")
    page.get_by_role("link", name="By category").click()
    page.wait_for_url("**/review/groups/category/")
    interest = page.locator("section.queue-group", has=page.get_by_role("heading", name="Interest"))
    expect_text(interest, "2 guesses")
    # the keyboard works in groups too: j to a card, X selects its whole group only
    page.keyboard.press("j")
    page.keyboard.press("Shift+X")
    checked = page.locator(".card input.select:checked")
    assert checked.count() == len(
        page.locator("section.queue-group").first.locator(".card input.select").all()
    )
    interest.get_by_role("button", name="Reject all").click()
    expect_text(page.locator(".flash"), "Rejected “")
    page.wait_for_url("**/review/groups/category/")
    assert statuses(person) == {
        "Chess": "rejected",
        "Jazz": "rejected",
        "Lisbon": "pending",
        "Asthma": "pending",
    }
    assert (
        page.locator(
            "section.queue-group", has=page.get_by_role("heading", name="Interest")
        ).count()
        == 0
    )
    page.get_by_role("button", name="Undo 2 decisions").click()
    expect_text(page.locator(".flash"), "back in the queue")
    expect_text(page.locator("#groups"), "Chess")
    assert set(statuses(person).values()) == {"pending"}


def test_an_expired_guess_comes_back_with_restore(signed_in: Any, person: Any) -> None:
    page = signed_in
    make_candidate(
        owner=person,
        label="Naples",
        confidence=0.6,
        last_seen_at=timezone.now() - timedelta(days=20),
    )
    cleanup_run(now=timezone.now(), user=person)
    page.goto("/review/")
    expect_text(page.locator(".notice"), "Cleanup expired 1 guess lately")
    page.get_by_role("link", name="See them and restore any").click()
    page.wait_for_url("**/review/expired/")
    expect_text(page.locator("#expired"), "Naples")
    page.get_by_role("button", name="Restore", exact=True).click()
    expect_text(page.locator(".flash"), "Back in the queue: “Naples”")
    assert statuses(person) == {"Naples": "pending"}
