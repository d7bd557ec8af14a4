"""The dashboard's deletions: undo an ingest from its receipt, delete all my memory. The owner,
another user and an anonymous visitor each get what they should."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from memory.models import Candidate, MemoryRule, Node, Receipt, Suppression
from memory.services.cleanup import cleanup_run
from memory.services.ingest import ingest_proposals
from tests.factories import make_node, make_suppression

pytestmark = pytest.mark.django_db

DOC = [
    {"object": "node", "label": "Atlas", "category": "project", "confidence": 0.95},
    {"object": "candidate", "label": "Chess", "confidence": 0.6},
]


@pytest.fixture
def receipt(owner: User) -> Any:
    MemoryRule.objects.create(owner=owner, capture_default="auto")
    return ingest_proposals(owner=owner, objects=DOC, name="chat.json", source="upload")


def test_the_receipt_page_offers_undo_and_the_confirm_page_lists_what_goes(
    client: Client, owner: User, receipt: Any
) -> None:
    client.force_login(owner)

    detail = client.get(reverse("receipts:detail", args=[receipt.pk]))
    confirm = client.get(reverse("receipts:undo-confirm", args=[receipt.pk]))

    assert reverse("receipts:undo-confirm", args=[receipt.pk]) in detail.content.decode()
    assert confirm.status_code == 200
    page = confirm.content.decode()
    assert "Atlas" in page and "Chess" in page
    assert f'action="{reverse("receipts:undo", args=[receipt.pk])}"' in page
    assert Node.objects.filter(label="Atlas").exists()  # asking is not doing


def test_posting_the_undo_deletes_and_redirects_to_the_undo_receipt(
    client: Client, owner: User, receipt: Any
) -> None:
    client.force_login(owner)

    response = client.post(reverse("receipts:undo", args=[receipt.pk]), {"suppress": "on"})

    undo = Receipt.objects.get(detail__undone_receipt=receipt.pk)
    assert response.status_code == 302
    assert response["Location"] == reverse("receipts:detail", args=[undo.pk])
    assert undo.source == "review"
    assert not Node.objects.filter(label="Atlas").exists()
    assert not Candidate.objects.exists()
    assert set(Suppression.objects.values_list("label", flat=True)) == {"Atlas", "Chess"}
    page = client.get(response["Location"]).content.decode()
    assert "undid receipt" in page
    again = client.get(reverse("receipts:detail", args=[receipt.pk])).content.decode()
    assert reverse("receipts:undo-confirm", args=[receipt.pk]) not in again


def test_an_unchecked_box_undoes_without_suppressing(
    client: Client, owner: User, receipt: Any
) -> None:
    client.force_login(owner)

    client.post(reverse("receipts:undo", args=[receipt.pk]), {})

    assert not Node.objects.filter(label="Atlas").exists()
    assert not Suppression.objects.exists()


def test_a_refused_undo_says_why(client: Client, owner: User, receipt: Any) -> None:
    client.force_login(owner)
    client.post(reverse("receipts:undo", args=[receipt.pk]), {})

    response = client.post(reverse("receipts:undo", args=[receipt.pk]), {}, follow=True)
    confirm = client.get(reverse("receipts:undo-confirm", args=[receipt.pk]), follow=True)

    assert "already undone" in response.content.decode()
    assert "already undone" in confirm.content.decode()


def test_another_user_and_a_visitor_cannot_undo(
    client: Client, other_user: User, receipt: Any
) -> None:
    url = reverse("receipts:undo", args=[receipt.pk])
    anonymous = client.post(url, {})
    client.force_login(other_user)
    other = client.post(url, {})
    other_confirm = client.get(reverse("receipts:undo-confirm", args=[receipt.pk]))

    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    assert other.status_code == other_confirm.status_code == 404
    assert Node.objects.filter(label="Atlas").exists()


def test_undo_is_post_only(client: Client, owner: User, receipt: Any) -> None:
    client.force_login(owner)
    assert client.get(reverse("receipts:undo", args=[receipt.pk])).status_code == 405


def test_delete_all_needs_the_typed_word(
    client: Client, owner: User, other_user: User, receipt: Any
) -> None:
    make_node(owner=other_user, label="Theirs")
    client.force_login(owner)
    url = reverse("receipts:delete-all")

    page = client.get(url)
    wrong = client.post(url, {"confirm": "delete", "keep_suppressions": "on"})

    assert page.status_code == 200 and 'name="keep_suppressions"' in page.content.decode()
    assert "checked" in page.content.decode()  # keep-suppressions is on by default
    assert wrong.status_code == 400 and "Type DELETE" in wrong.content.decode()
    assert Node.objects.for_owner(owner).exists()


def test_delete_all_deletes_mine_only_and_keeps_suppressions_when_asked(
    client: Client, owner: User, other_user: User, receipt: Any
) -> None:
    make_node(owner=other_user, label="Theirs")
    make_suppression(owner=owner, label="Golf")
    client.force_login(owner)

    response = client.post(
        reverse("receipts:delete-all"), {"confirm": "DELETE", "keep_suppressions": "on"}
    )

    assert response.status_code == 302 and response["Location"] == reverse("receipts:list")
    assert not Node.objects.for_owner(owner).exists()
    assert not Candidate.objects.for_owner(owner).exists()
    assert list(Suppression.objects.for_owner(owner).values_list("label", flat=True)) == ["Golf"]
    assert Node.objects.for_owner(other_user).filter(label="Theirs").exists()
    [left] = Receipt.objects.for_owner(owner)
    assert left.detail["action"] == "erase_all" and left.source == "review"


def test_delete_all_without_the_box_drops_suppressions_too(
    client: Client, owner: User, receipt: Any
) -> None:
    make_suppression(owner=owner, label="Golf")
    client.force_login(owner)

    client.post(reverse("receipts:delete-all"), {"confirm": "DELETE"})

    assert not Suppression.objects.for_owner(owner).exists()


def test_a_visitor_cannot_delete_all(client: Client, owner: User, receipt: Any) -> None:
    response = client.post(reverse("receipts:delete-all"), {"confirm": "DELETE"})

    assert response.status_code == 302 and "/login/" in response["Location"]
    assert Node.objects.for_owner(owner).exists()


def test_cleanup_undo_and_delete_all_receipts_render(
    client: Client, owner: User, receipt: Any
) -> None:
    make_node(owner=owner, label="that thing", category="other")
    [report] = cleanup_run(user=owner)
    assert report.receipt is not None
    client.force_login(owner)

    cleanup_page = client.get(reverse("receipts:detail", args=[report.receipt.pk]))
    client.post(reverse("receipts:delete-all"), {"confirm": "DELETE"})
    [left] = Receipt.objects.for_owner(owner)
    erase_page = client.get(reverse("receipts:detail", args=[left.pk]))
    saves = client.get(reverse("receipts:list"))

    assert cleanup_page.status_code == erase_page.status_code == saves.status_code == 200
    assert "junk nodes removed" in cleanup_page.content.decode()
    assert "deleted all memory" in erase_page.content.decode()
    assert "Delete everything this ingest wrote" not in erase_page.content.decode()


def test_the_confirm_page_does_not_call_a_suppressed_guess_waiting(
    client: Client, owner: User, receipt: Any
) -> None:
    from memory.services.review import candidate_reject

    candidate_reject(candidate=Candidate.objects.get(label_guess="Chess"), by=owner, suppress=True)
    client.force_login(owner)
    page = client.get(reverse("receipts:undo-confirm", args=[receipt.pk])).content.decode()
    assert "0 guesses waiting for review" in page
    assert "1 guess you already turned down: Chess (suppressed)" in page


def test_undo_puts_last_seen_back_to_the_mention_before(owner: User, receipt: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from memory.models import Evidence
    from memory.services.erase import receipt_undo

    earlier = timezone.now() - timedelta(days=3)
    atlas = Node.objects.get(label="Atlas")
    Node.objects.filter(pk=atlas.pk).update(last_seen_at=earlier, created_at=earlier)
    Evidence.objects.filter(node=atlas).update(created_at=earlier)
    chess = Candidate.objects.get(label_guess="Chess")
    Candidate.objects.filter(pk=chess.pk).update(last_seen_at=earlier, first_seen_at=earlier)
    Evidence.objects.filter(candidate=chess).update(created_at=earlier)
    Receipt.objects.filter(pk=receipt.pk).update(created_at=earlier)

    again = ingest_proposals(owner=owner, objects=DOC, name="later.json", source="upload")
    atlas.refresh_from_db()
    assert atlas.last_seen_at > earlier
    receipt_undo(receipt=again)
    atlas.refresh_from_db()
    chess.refresh_from_db()
    assert atlas.last_seen_at == earlier
    assert chess.last_seen_at == earlier


def test_the_undo_receipt_lists_what_it_deleted_and_what_it_could_not_revert(
    client: Client, owner: User
) -> None:
    """The page says a list of what was not reverted follows: it does follow, line by line,
    beside what was deleted; an undo that reverted everything says so."""
    from django.utils.html import escape

    from memory.services.erase import receipt_undo
    from memory.services.nodes import node_update

    MemoryRule.objects.create(owner=owner, capture_default="auto")
    boxing = make_node(owner=owner, label="Boxing", state="active")
    objects = [
        {"object": "node", "label": "Atlas", "category": "project", "confidence": 0.95},
        {
            "object": "event",
            "on": "Boxing",
            "action": "paused",
            "text": "paused boxing",
            "confidence": 0.9,
        },
    ]
    first = ingest_proposals(owner=owner, objects=objects, name="chat.json", source="upload")
    node_update(node=Node.objects.get(pk=boxing.pk), state="stopped")  # changed again since
    undo = receipt_undo(receipt=first)
    assert undo.detail["not_reverted"], "the state changed since cannot be put back"
    client.force_login(owner)
    page = client.get(reverse("receipts:detail", args=[undo.pk])).content.decode()
    assert "Not reverted:" in page
    for line in undo.detail["not_reverted"]:
        assert f"<li>{escape(line)}</li>" in page
    assert "Deleted: Atlas" in page

    clean = ingest_proposals(
        owner=owner, objects=[objects[0] | {"label": "Beacon"}], name="other.json", source="upload"
    )
    page = client.get(
        reverse("receipts:detail", args=[receipt_undo(receipt=clean).pk])
    ).content.decode()
    assert "Deleted: Beacon" in page and "Everything this save changed was reverted." in page
    assert "Not reverted:" not in page
