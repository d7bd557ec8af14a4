"""The dashboard tells the truth and lets a person fix any single thing, in real Chromium:
counts that follow in-place actions, fixing one fact on a node page, a merge that shows what
it will change, a lifted suppression that moves at once, and every page at phone width. The
``page`` fixture fails any of these on a browser console error."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memory.models import Candidate, Slice, Suppression, Transcript
from memory.services.ingest import ingest_text
from tests.factories import (
    make_candidate,
    make_edge,
    make_event,
    make_node,
    make_slice,
    make_suppression,
)

pytestmark = pytest.mark.browser


def expect_text(locator: Any, text: Any) -> None:
    from playwright.sync_api import expect

    expect(locator).to_contain_text(text)


def test_counts_follow_decisions_and_uploads(signed_in: Any, person: Any, tmp_path: Path) -> None:
    page = signed_in
    first = make_candidate(owner=person, label="Chess")
    make_candidate(owner=person, label="Tea")
    page.reload()
    expect_text(page.locator("#queue-count"), "2 pending")
    page.locator(f"#candidate-{first.pk}").get_by_role("button", name="Reject", exact=True).click()
    expect_text(page.locator("#queue-count"), "1 pending")
    expect_text(page.locator("#pending-count"), "1")

    notes = tmp_path / "notes.txt"
    notes.write_text("User: I started learning the cello last week.\n", encoding="utf-8")
    page.goto("/review/uploads/")
    page.get_by_label("Transcripts").set_input_files(str(notes))
    page.get_by_role("button", name="Upload").click()
    expect_text(page.locator("#upload-panel .results"), "Read as a conversation")
    # the badge follows the upload without a reload
    expect_text(page.locator("#pending-count"), "2")


def test_delete_one_wrong_fact_then_undo_it(signed_in: Any, person: Any) -> None:
    page = signed_in
    sofia = make_node(owner=person, label="Sofia Almeida", category="person", aliases=("Manager",))
    wrong = make_slice(node=sofia, text="Is Sofia Almeida")
    make_slice(node=sofia, text="Leads the platform team")
    make_event(node=sofia, text="joined Northwind", action="joined")
    page.goto(f"/memory/nodes/{sofia.pk}/")
    page.get_by_role("button", name="Delete the fact “Is Sofia Almeida”").click()
    facts = page.locator("#facts")
    expect_text(facts, "Deleted the fact “Is Sofia Almeida”.")
    assert "Is Sofia Almeida" not in facts.locator("ul.facts").inner_text()
    assert not Slice.objects.filter(pk=wrong.pk).exists()
    facts.get_by_role("button", name="Undo").click()
    expect_text(page.locator("#facts"), "Undone")
    assert Slice.objects.filter(pk=wrong.pk).exists()

    # rename the alias in place
    aliases = page.locator("#aliases")
    aliases.get_by_text("Edit").click()
    aliases.get_by_label("Alias", exact=True).fill("My manager")
    aliases.get_by_role("button", name="Save").click()
    expect_text(page.locator("#aliases"), "Saved the alias.")
    assert list(sofia.aliases.values_list("alias", flat=True)) == ["My manager"]


def test_edit_loads_a_facts_form_in_place_and_saves_it(signed_in: Any, person: Any) -> None:
    """Edit fetches the form of that one fact (the page renders none), then saves in place."""
    page = signed_in
    atlas = make_node(owner=person, label="Atlas", category="project")
    fact = make_slice(node=atlas, text="invoices in dollars")
    make_slice(node=atlas, text="runs on a single server")
    page.goto(f"/memory/nodes/{atlas.pk}/")
    facts = page.locator("#facts")
    assert facts.locator("form").count() == 0
    page.locator(f"#fix-slice-{fact.pk}").click()
    facts.locator("textarea[name=text]").fill("invoices in euros")
    facts.get_by_role("button", name="Save").click()
    expect_text(page.locator("#facts"), "Saved the fact.")
    expect_text(page.locator(f"#slice-{fact.pk}"), "invoices in euros")
    assert Slice.objects.get(pk=fact.pk).text == "invoices in euros"


def test_m_opens_the_merge_form_and_puts_the_cursor_in_its_search(
    signed_in: Any, person: Any
) -> None:
    page = signed_in
    make_node(owner=person, label="Boxing", category="skill")
    guess = make_candidate(owner=person, label="Kickboxing class")
    page.reload()
    page.keyboard.press("j")
    page.keyboard.press("m")
    search = page.locator(f"#merge-{guess.pk} [data-picker]")
    from playwright.sync_api import expect

    expect(search).to_be_focused()
    page.keyboard.type("box", delay=40)
    card = page.locator(f"#candidate-{guess.pk}")
    card.get_by_role("radio", name=re.compile("Boxing")).wait_for()


def test_a_merge_shows_what_it_will_change_and_asks_about_the_state(
    signed_in: Any, person: Any
) -> None:
    page = signed_in
    atlas = make_node(owner=person, label="Atlas", category="project")
    said = [{"message_id": "M0", "quote": "I paused the Atlas mobile app"}]
    objects = [
        {"object": "node", "label": "Atlas Mobile App", "category": "project", "evidence": said},
        {
            "object": "event",
            "on": "Atlas Mobile App",
            "action": "paused",
            "text": "paused until the web version is stable",
            "evidence": said,
        },
    ]
    ingest_text(
        owner=person, text=json.dumps({"objects": objects}), name="m.json", extractor="proposals"
    )
    guess = Candidate.objects.for_owner(person).get(label_guess="Atlas Mobile App")
    page.goto("/review/")
    card = page.locator(f"#candidate-{guess.pk}")
    card.get_by_text("Merge into an existing memory").click()
    card.get_by_placeholder("Type a label or alias").press_sequentially("atl", delay=40)
    card.get_by_role("radio", name=re.compile("^ ?Atlas")).first.wait_for()
    preview = card.locator(f"#merge-preview-{guess.pk}")
    expect_text(preview, "Merging into “Atlas” will:")
    expect_text(preview, "date unknown")
    state = preview.get_by_label(re.compile("Also change the state of “Atlas”"))
    assert not state.is_checked()
    card.get_by_role("button", name="Merge", exact=True).click()
    expect_text(card, "Merged into “Atlas”")
    atlas.refresh_from_db()
    assert atlas.state == "active"


def test_a_lifted_suppression_leaves_active_at_once(signed_in: Any, person: Any) -> None:
    page = signed_in
    tea = make_suppression(owner=person, label="Tea", source="review:candidate:20")
    page.goto("/memory/suppressions/")
    page.get_by_role("button", name="Lift the suppression on Tea").click()
    expect_text(page.locator("#suppression-lists [role=status]"), "Lifted the suppression")
    ended = page.locator("#suppression-lists table").last
    expect_text(ended, "Tea")
    assert page.locator("#suppression-lists table").count() == 1  # Active is empty now
    assert Suppression.objects.get(pk=tea.pk).lifted_at is not None


def _populate(person: Any) -> Any:
    atlas = make_node(owner=person, label="Atlas invoicing for freelancers", category="project")
    boxing = make_node(owner=person, label="Boxing", category="skill", aliases=("boxe",))
    make_slice(node=atlas, text="A long fact about the tax report export " * 3)
    make_event(node=atlas, text="launched the beta for a handful of freelancers", action="launched")
    make_edge(from_node=atlas, to_node=boxing, type="related_to")
    for i in range(6):
        make_node(owner=person, label=f"Memory number {i}", category="interest")
    make_suppression(
        owner=person,
        label="A suppressed label that is rather long indeed",
        source="review:candidate:20",
        hit_count=12,
    )
    make_candidate(owner=person, label="A rather long label for a narrow phone screen")
    ingest_text(owner=person, text="User: I started learning the cello.\n", name="x" * 60 + ".txt")
    assert Transcript.objects.for_owner(person).exists()
    return atlas


def test_every_page_fits_a_phone_and_the_graph_stays_legible(signed_in: Any, person: Any) -> None:
    page = signed_in
    atlas = _populate(person)
    transcript = Transcript.objects.for_owner(person).first()
    assert transcript is not None
    receipt = transcript.receipt
    assert receipt is not None
    page.set_viewport_size({"width": 390, "height": 844})
    for path in [
        "/review/",
        "/saves/",
        f"/saves/{receipt.pk}/",
        "/memory/",
        f"/memory/nodes/{atlas.pk}/",
        "/memory/graph/",
        "/memory/suppressions/",
        "/review/uploads/",
    ]:
        page.goto(path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{path} is {overflow}px wider than the phone"
    page.goto("/memory/suppressions/")
    lift = page.get_by_role("button", name=re.compile("Lift the suppression"))
    box = lift.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390  # Lift is on screen
    page.goto("/memory/graph/")
    heights = page.evaluate(
        "Array.from(document.querySelectorAll('.gnode text')).map(t => t.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 11, heights  # legible, not ~7px
    page.get_by_text("The same memories as a list").click()
    expect_text(page.locator(".graph-list"), "Atlas invoicing for freelancers")


def test_filter_and_sort_the_queue_in_place(signed_in: Any, person: Any) -> None:
    page = signed_in
    make_candidate(owner=person, label="Piano", category_guess="skill", confidence=0.6)
    make_candidate(owner=person, label="Chess", category_guess="skill", confidence=0.9)
    make_candidate(owner=person, label="Lisbon", category_guess="place", confidence=0.8)
    page.goto("/review/?view=all")  # the queue opens on "start here"; the filters are here
    page.locator("form.filters select[name=category]").select_option("skill")
    page.wait_for_url(re.compile(r"category=skill"))
    expect_text(page.locator("#queue .count"), "2 match this filter · 3 pending")
    page.locator("form.filters select[name=sort]").select_option("confidence")
    page.wait_for_url(re.compile(r"sort=confidence"))
    from playwright.sync_api import expect

    expect(page.locator("#queue h2")).to_have_text(["Chess", "Piano"])
