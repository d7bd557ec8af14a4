"""The dashboard as a person uses it, in real headless Chromium."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from memory.models import Alias, Candidate, Node, Receipt, Suppression
from memory.services.ingest import ingest_text
from tests.e2e.conftest import expected_console_error, sign_in
from tests.factories import make_candidate, make_node

pytestmark = pytest.mark.browser


def card(page: Any, candidate: Any) -> Any:
    return page.locator(f"#candidate-{candidate.pk}")


def expect_text(locator: Any, text: Any) -> None:
    from playwright.sync_api import expect

    expect(locator).to_contain_text(text)


def test_sign_in(page: Any, person: Any) -> None:
    page.goto("/review/")
    assert "/login/" in page.url  # login required
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    expect_text(page.locator("[role=alert]"), "correct username and password")
    sign_in(page)
    expect_text(page.locator("h1"), "Review")
    expect_text(page.locator("nav.sidenav"), "ada")


def test_triage_with_the_mouse(signed_in: Any, person: Any) -> None:
    page = signed_in
    chess = make_candidate(owner=person, label="Chess", category_guess="interest")
    tea = make_candidate(owner=person, label="Tea", category_guess="preference")
    page.reload()
    expect_text(page.locator("#pending-count"), "2")
    card(page, chess).get_by_role("button", name="Reject", exact=True).click()
    expect_text(card(page, chess), "Rejected “Chess”")
    expect_text(page.locator("#pending-count"), "1")
    card(page, tea).get_by_role("button", name="Promote").click()
    expect_text(card(page, tea), "Promoted “Tea”")
    expect_text(page.locator("#pending-count"), "0")
    # undo the promotion: the card comes back and the node goes away
    card(page, tea).get_by_role("button", name="Undo").click()
    expect_text(card(page, tea), "Promote")
    expect_text(page.locator("#pending-count"), "1")
    assert not Node.objects.filter(label="Tea").exists()
    assert Candidate.objects.get(pk=chess.pk).status == "rejected"


def test_triage_with_the_keyboard(signed_in: Any, person: Any) -> None:
    page = signed_in
    now = timezone.now()
    labels = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]
    made = [
        make_candidate(owner=person, label=label, last_seen_at=now - timedelta(minutes=i))
        for i, label in enumerate(labels)
    ]
    page.reload()
    page.keyboard.press("?")
    help_dialog = page.locator("#keys-help")
    expect_text(help_dialog, "reject and suppress similar")
    page.keyboard.press("Escape")
    page.keyboard.press("j")  # Alpha
    page.keyboard.press("r")
    expect_text(card(page, made[0]), "Rejected “Alpha”")
    page.keyboard.press("s")  # focus moved on to Bravo by itself
    expect_text(card(page, made[1]), "similar ones stop")
    page.keyboard.press("p")  # Charlie
    expect_text(card(page, made[2]), "Promoted “Charlie”")
    page.keyboard.press("k")  # focus moved on to Delta: back to Charlie's decided card
    page.keyboard.press("u")
    expect_text(card(page, made[2]), "Undone")
    # select Delta and Echo with x, then bulk-reject them
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.keyboard.press("j")
    page.keyboard.press("x")
    page.get_by_role("button", name="Reject selected").click()
    expect_text(page.locator(".flash"), "Rejected “Delta” and “Echo”.")
    statuses = dict(Candidate.objects.values_list("label_guess", "status"))
    assert statuses == {
        "Alpha": "rejected",
        "Bravo": "suppressed",
        "Charlie": "pending",
        "Delta": "rejected",
        "Echo": "rejected",
    }


def test_u_undoes_the_last_decision_after_the_focus_moved_on(signed_in: Any, person: Any) -> None:
    """A mistaken "s" (suppress for ever) is undone by "u" even once the focus has moved to
    the next card and beyond, and "u" again does not undo an older decision."""
    page = signed_in
    now = timezone.now()
    made = [
        make_candidate(owner=person, label=label, last_seen_at=now - timedelta(minutes=i))
        for i, label in enumerate(["Kayak", "Lute", "Mango", "Nougat"])
    ]
    page.reload()
    page.keyboard.press("j")  # Kayak
    page.keyboard.press("r")
    expect_text(card(page, made[0]), "Rejected “Kayak”")
    page.keyboard.press("s")  # the focus moved on to Lute by itself: suppressed by mistake
    expect_text(card(page, made[1]), "similar ones stop")
    page.keyboard.press("j")  # on past Mango, to Nougat
    page.keyboard.press("j")
    page.keyboard.press("u")
    expect_text(card(page, made[1]), "Undone")
    lute = Candidate.objects.get(pk=made[1].pk)
    assert lute.status == "pending"
    assert not Suppression.objects.for_owner(person).filter(lifted_at__isnull=True).exists()
    page.keyboard.press("u")  # the undone decision was the last: nothing older is undone
    page.wait_for_timeout(300)
    assert Candidate.objects.get(pk=made[0].pk).status == "rejected"
    assert Candidate.objects.get(pk=made[2].pk).status == "pending"


def test_u_pressed_before_the_card_settles_undoes_that_decision(
    signed_in: Any, person: Any
) -> None:
    """htmx settles a swapped card a moment after it is in the page; a "u" pressed in that
    moment undoes the decision just shown, not the one before it. The settle delay is
    stretched to a second so the moment is wide enough to press in every run."""
    page = signed_in
    now = timezone.now()
    made = [
        make_candidate(owner=person, label=label, last_seen_at=now - timedelta(minutes=i))
        for i, label in enumerate(["Oboe", "Piano", "Quince"])
    ]
    page.reload()
    page.evaluate("htmx.config.defaultSettleDelay = 1000")
    page.keyboard.press("j")  # Oboe
    page.keyboard.press("r")
    expect_text(card(page, made[0]), "Rejected “Oboe”")
    page.keyboard.press("s")  # the focus moves on to Piano by itself
    expect_text(card(page, made[1]), "similar ones stop")
    page.keyboard.press("u")  # Piano's card is in the page and not yet settled
    expect_text(card(page, made[1]), "Undone")
    assert Candidate.objects.get(pk=made[1].pk).status == "pending"
    assert Candidate.objects.get(pk=made[0].pk).status == "rejected"


def test_double_click_writes_once(signed_in: Any, person: Any) -> None:
    page = signed_in
    chess = make_candidate(owner=person, label="Chess")
    page.reload()
    card(page, chess).get_by_role("button", name="Promote").dblclick()
    expect_text(card(page, chess), "Chess")
    page.wait_for_timeout(300)
    assert Node.objects.filter(label="Chess").count() == 1
    assert Receipt.objects.filter(source="review").count() == 1


def test_promote_with_an_edited_label(signed_in: Any, person: Any) -> None:
    page = signed_in
    guess = make_candidate(owner=person, label="Kubernetes a Lot", category_guess="project")
    page.reload()
    this = card(page, guess)
    this.get_by_label("Label").fill("Kubernetes")
    this.get_by_label("Category").select_option("tool")
    this.get_by_label(re.compile("Keep “Kubernetes a Lot” as another name")).check()
    this.get_by_role("button", name="Promote").click()
    expect_text(this, "Promoted “Kubernetes”")
    this.get_by_role("link", name="Kubernetes").click()
    expect_text(page.locator("h1"), "Kubernetes")
    node = Node.objects.get(label="Kubernetes")
    assert node.category == "tool"
    assert Alias.objects.filter(node=node, alias="Kubernetes a Lot").exists()


def test_merge_into_an_existing_node(signed_in: Any, person: Any) -> None:
    page = signed_in
    boxing = make_node(owner=person, label="Boxing", category="skill")
    make_node(owner=person, label="Atlas", category="project")
    guess = make_candidate(owner=person, label="Kickboxing class")
    page.reload()
    this = card(page, guess)
    this.get_by_text("Merge into an existing memory").click()
    this.get_by_placeholder("Type a label or alias").press_sequentially("box", delay=40)
    radio = this.get_by_role("radio", name=re.compile("Boxing"))
    radio.wait_for()
    assert this.get_by_role("radio", name=re.compile("Atlas")).count() == 0
    radio.check()
    this.get_by_role("button", name="Merge").click()
    expect_text(this, "Merged into “Boxing”")
    assert Alias.objects.filter(node=boxing, alias="Kickboxing class").exists()


def test_suppress_and_a_reingest_stays_blocked(signed_in: Any, person: Any) -> None:
    page = signed_in
    text = "User: I started learning the cello last week.\n"
    ingest_text(owner=person, text=text, name="monday.txt")
    cello = Candidate.objects.for_owner(person).get(canonical_key="cello")
    page.reload()
    this = card(page, cello)
    this.get_by_label("Suppress for how long").select_option("month")
    this.get_by_role("button", name="Reject & suppress").click()
    expect_text(this, "similar ones stop")
    # the same content again, and a new conversation that mentions it
    again = ingest_text(owner=person, text=text, name="monday-again.txt")
    later = ingest_text(
        owner=person, text="User: I started learning the cello again today.\n", name="friday.txt"
    )
    assert again.outcome == "duplicate"
    assert {"kind": "candidate", "label": "Cello", "reason": "suppressed_blocked"} in [
        {k: r[k] for k in ("kind", "label", "reason")} for r in later.rejected
    ] or later.reasons.get("suppressed_blocked")
    assert not Candidate.objects.for_owner(person).filter(status="pending").exists()
    assert not Node.objects.for_owner(person).filter(canonical_key="cello").exists()
    suppression = Suppression.objects.for_owner(person).get(canonical_key="cello")
    assert suppression.hit_count >= 1
    page.goto("/memory/suppressions/")
    row = page.locator(f"#suppression-{suppression.pk}")
    expect_text(row, "Cello")
    expect_text(row, str(suppression.hit_count))


def test_filter_the_saves_page(signed_in: Any, person: Any) -> None:
    page = signed_in
    Receipt.objects.create(owner=person, source="upload", outcome="wrote", summary="wrote Atlas")
    Receipt.objects.create(
        owner=person, source="api", outcome="llm_failed", summary="endpoint timed out"
    )
    page.goto("/saves/")
    expect_text(page.locator("#saves-results"), "wrote Atlas")
    page.locator("select[name=outcome]").select_option("llm_failed")
    page.wait_for_url(re.compile(r"outcome=llm_failed"))
    results = page.locator("#saves-results")
    expect_text(results, "endpoint timed out")
    assert "wrote Atlas" not in results.inner_text()
    results.get_by_text("endpoint timed out").click()  # expand the row
    expect_text(results.locator("details[open]"), "Full receipt")
    # the filtered view is a link
    page.goto("/saves/?source=upload")
    expect_text(page.locator("#saves-results"), "wrote Atlas")
    response = page.goto("/saves/?outcome=bogus")
    assert response.status == 400
    expect_text(page.locator("[role=alert]"), "That filter can’t be read")
    expected_console_error(page, "status of 400")


def test_the_saves_page_loads_the_receipts_chain_state_after_it(
    signed_in: Any, person: Any
) -> None:
    """The chain's line is fetched by htmx once the page is in, under the page's CSP, and
    says the chain is whole; a receipt edited behind ume's back shows as broken."""
    page = signed_in
    Receipt.objects.create(owner=person, source="upload", outcome="wrote", summary="a")
    Receipt.objects.create(owner=person, source="api", outcome="wrote", summary="b")
    page.goto("/saves/")
    expect_text(page.locator("#chain-state"), "Receipts chain: intact (2 receipts")
    # The page checks what came since it last verified (older edits are the command's job):
    # a receipt written after that and edited behind ume's back shows as a break.
    later = Receipt.objects.create(owner=person, source="api", outcome="wrote", summary="c")
    Receipt.objects.filter(pk=later.pk).update(summary="quietly rewritten")
    page.goto("/saves/")
    expect_text(page.locator("#chain-state[role=alert]"), "content changed")


def test_delete_a_node_with_make_it_stick(signed_in: Any, person: Any) -> None:
    page = signed_in
    node = make_node(owner=person, label="Cello", category="skill", aliases=("violoncello",))
    page.goto(f"/memory/nodes/{node.pk}/")
    page.get_by_role("link", name=re.compile("Delete “Cello”")).click()
    stick = page.get_by_label("Make it stick")
    assert stick.is_checked()  # on by default
    page.get_by_role("button", name="Delete for good").click()
    expect_text(page.locator(".flash"), "Deleted “Cello”")
    assert not Node.objects.filter(pk=node.pk).exists()
    assert set(Suppression.objects.values_list("canonical_key", flat=True)) == {
        "cello",
        "violoncello",
    }
    ingest_text(owner=person, text="User: I started learning the cello.\n", name="again.txt")
    assert not Node.objects.for_owner(person).filter(canonical_key="cello").exists()
    assert not Candidate.objects.for_owner(person).filter(status="pending").exists()


def test_phone_width_has_no_sideways_scroll(signed_in: Any, person: Any) -> None:
    page = signed_in
    make_candidate(owner=person, label="A rather long label for a narrow phone screen")
    page.set_viewport_size({"width": 375, "height": 740})
    for path in ["/review/", "/saves/", "/memory/", "/memory/suppressions/", "/review/uploads/"]:
        page.goto(path)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, path


def test_reject_and_forget_what_was_said(signed_in: Any, person: Any) -> None:
    page = signed_in
    ingest_text(
        owner=person,
        text='{"objects": [{"object": "node", "label": "Tarot", "category": "interest", '
        '"confidence": 0.6, "evidence": [{"message_id": "m1", "quote": "tarot"}]}], '
        '"messages": [{"id": "m1", "role": "user", "content": "My aunt read my tarot cards."}]}',
        name="chat",
        extractor="proposals",
    )
    tarot = Candidate.objects.for_owner(person).get(canonical_key="tarot")
    page.reload()
    card(page, tarot).get_by_role("button", name="Reject & forget what was said").click()
    expect_text(card(page, tarot), "what was said about it is forgotten")
    assert Suppression.objects.for_owner(person).get(canonical_key="tarot").reason == "forgotten"
    from memory.recall import recall

    assert recall(person, "aunt tarot cards").no_recall
