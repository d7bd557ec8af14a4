"""Django admin: tokens shown once and never listed, revoke and lift actions, read-only receipts."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from memory.models import AccessToken, Node, Receipt, Suppression
from memory.services.tokens import token_authenticate, token_create
from tests.factories import make_node, make_slice, make_suppression


@pytest.fixture
def admin_client(client: Client, db: None) -> Client:
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    client.force_login(admin)
    return client


def test_every_model_has_an_admin(admin_client: Client) -> None:
    for name in (
        "node",
        "slice",
        "event",
        "edge",
        "candidate",
        "suppression",
        "transcript",
        "evidence",
        "page",
        "memoryrule",
        "accesstoken",
        "deletionbarrier",
    ):
        assert admin_client.get(reverse(f"admin:memory_{name}_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:memory_receipt_changelist")).status_code == 200


def test_creating_a_token_shows_the_secret_once(admin_client: Client, owner: User) -> None:
    response = admin_client.post(
        reverse("admin:memory_accesstoken_add"),
        {"owner": owner.pk, "name": "Claude Desktop", "scopes": ["memory:write"]},
        follow=True,
    )
    assert response.status_code == 200
    found = re.search(r"(ume_[A-Za-z0-9_\-]{20,})", response.content.decode())
    assert found is not None
    secret = found.group(1)
    token = AccessToken.objects.get()
    assert token.scopes == ["memory:read", "memory:write"]  # write implies read
    assert token_authenticate(secret) == token
    assert secret not in token.secret_sha256
    listing = admin_client.get(reverse("admin:memory_accesstoken_changelist")).content.decode()
    assert token.prefix in listing and secret not in listing
    change = admin_client.get(
        reverse("admin:memory_accesstoken_change", args=[token.pk])
    ).content.decode()
    assert secret not in change and token.secret_sha256 not in change


def test_a_token_needs_a_scope(admin_client: Client, owner: User) -> None:
    response = admin_client.post(
        reverse("admin:memory_accesstoken_add"), {"owner": owner.pk, "name": "x", "scopes": []}
    )
    assert response.status_code == 200 and not AccessToken.objects.exists()


def test_revoke_action(admin_client: Client, owner: User) -> None:
    token, secret = token_create(owner=owner, name="bot")
    admin_client.post(
        reverse("admin:memory_accesstoken_changelist"),
        {"action": "revoke", "_selected_action": [token.pk]},
    )
    token.refresh_from_db()
    assert token.revoked_at is not None and token_authenticate(secret) is None


def test_lift_action_and_filters(admin_client: Client, owner: User) -> None:
    suppression = make_suppression(owner=owner, label="Piano")
    listing = admin_client.get(
        reverse("admin:memory_suppression_changelist")
        + "?kind__exact=candidate&reason__exact=rejected"
    )
    assert b"Piano" in listing.content
    admin_client.post(
        reverse("admin:memory_suppression_changelist"),
        {"action": "lift", "_selected_action": [suppression.pk]},
    )
    assert Suppression.objects.get().lifted_at is not None


def test_receipts_are_read_only(admin_client: Client, owner: User) -> None:
    receipt = Receipt.objects.create(owner=owner, source="command", outcome="wrote")
    assert admin_client.get(reverse("admin:memory_receipt_add")).status_code == 403
    page = admin_client.get(reverse("admin:memory_receipt_change", args=[receipt.pk]))
    assert page.status_code == 200 and b'name="outcome"' not in page.content
    assert (
        admin_client.post(
            reverse("admin:memory_receipt_delete", args=[receipt.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert Receipt.objects.filter(pk=receipt.pk).exists()


def test_old_links_to_the_receipt_admin_still_arrive(admin_client: Client, owner: User) -> None:
    receipt = Receipt.objects.create(owner=owner, source="command", outcome="wrote")
    old = admin_client.get(f"/admin/receipts/receipt/{receipt.pk}/change/?_changelist_filters=x")
    assert old.status_code == 302
    assert old["Location"] == (
        reverse("admin:memory_receipt_change", args=[receipt.pk]) + "?_changelist_filters=x"
    )
    listing = admin_client.get("/admin/receipts/receipt/", follow=True)
    assert listing.redirect_chain[-1][0] == reverse("admin:memory_receipt_changelist")
    assert listing.status_code == 200


def test_node_admin_search(admin_client: Client, owner: User) -> None:
    make_node(owner=owner, label="Universal Memory Engine", aliases=("UME",))
    assert (
        b"Universal Memory Engine"
        in admin_client.get(reverse("admin:memory_node_changelist") + "?q=UME").content
    )


def test_memory_rule_terms_are_typed_per_line_or_comma_separated(admin_client: Client) -> None:
    from memory.models import MemoryRule

    person = get_user_model().objects.create_user("daniel", password="pw-for-tests-1")
    add = reverse("admin:memory_memoryrule_add")
    form = {
        "owner": person.pk,
        "custom_instructions": "",
        "includes": "Daniel, Gym\nRunning",
        "excludes": "salary\n\n  salary  \nhealth",
        "custom_categories": "",
        "capture_default": "review",
        "auto_collect": "on",
        "created_at_0": "2026-01-01",
        "created_at_1": "10:00:00",
        "updated_at_0": "2026-01-01",
        "updated_at_1": "10:00:00",
    }
    response = admin_client.post(add, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    rule = MemoryRule.objects.for_owner(person).get()
    assert rule.includes == ["Daniel", "Gym", "Running"]
    assert rule.excludes == ["salary", "health"]
    change = admin_client.get(reverse("admin:memory_memoryrule_change", args=[rule.pk]))
    html = change.content.decode()
    assert "Daniel\nGym\nRunning</textarea>" in html
    assert "rules for daniel" in html and "rules for 1" not in html


def test_custom_categories_are_typed_as_terms_and_validated(
    admin_client: Client, owner: User
) -> None:
    from memory.models import MemoryRule
    from memory.services.tokens import token_create

    rule = MemoryRule.objects.create(owner=owner)
    change = reverse("admin:memory_memoryrule_change", args=[rule.pk])
    form = {
        "custom_instructions": "",
        "includes": "",
        "excludes": "",
        "custom_categories": "pets\nGardening, pets",
        "capture_default": "review",
        "auto_collect": "on",
        "created_at_0": "2026-01-01",
        "created_at_1": "10:00:00",
        "updated_at_0": "2026-01-01",
        "updated_at_1": "10:00:00",
    }
    assert admin_client.post(change, form).status_code == 302
    rule.refresh_from_db()
    assert rule.custom_categories == ["pets", "Gardening"]
    secret = token_create(owner=owner, name="reader")[1]
    answer = Client().get("/v1/rules", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert answer.status_code == 200 and answer.json()["custom_categories"] == ["pets", "Gardening"]
    # over the rules' limits: a form error, nothing saved
    refused = admin_client.post(change, {**form, "custom_categories": "x" * 81})
    assert refused.status_code == 200 and "at most 80 characters" in refused.content.decode()
    many = "\n".join(f"category {i}" for i in range(33))
    refused = admin_client.post(change, {**form, "custom_categories": many})
    assert "at most 32 terms" in refused.content.decode()
    rule.refresh_from_db()
    assert rule.custom_categories == ["pets", "Gardening"]
    page = admin_client.get(change).content.decode()
    assert "pets\nGardening</textarea>" in page


def test_the_rule_add_form_offers_only_people_without_a_rule(admin_client: Client) -> None:
    from memory.models import MemoryRule

    has_rule = get_user_model().objects.create_user("hasrule", password="pw-for-tests-1")
    MemoryRule.objects.create(owner=has_rule)
    get_user_model().objects.create_user("norule", password="pw-for-tests-1")
    html = admin_client.get(reverse("admin:memory_memoryrule_add")).content.decode()
    assert ">norule</option>" in html and ">hasrule</option>" not in html
    assert "edit their rule instead" in html


def test_the_token_owner_is_an_autocomplete_not_a_number(admin_client: Client) -> None:
    html = admin_client.get(reverse("admin:memory_accesstoken_add")).content.decode()
    assert "admin-autocomplete" in html
    assert 'class="vForeignKeyRawIdAdminField"' not in html


def test_admin_edits_keep_recall_index_in_step(admin_client: Client, owner: User) -> None:
    from memory.models import Page
    from memory.recall import recall

    node = make_node(owner=owner, label="Kiln", category="interest")
    response = admin_client.post(
        reverse("admin:memory_page_add"),
        {
            "owner": owner.pk,
            "title": "Glazing notes",
            "canonical_key": "glazing notes",
            "topic": "",
            "summary": "celadon needs a reduction firing",
            "body": "",
            "created_at_0": "2026-01-05",
            "created_at_1": "10:00:00",
            "updated_at_0": "2026-01-05",
            "updated_at_1": "10:00:00",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    page = Page.objects.for_owner(owner).get()
    assert [i.id for i in recall(owner, "which firing does celadon need").items] == [page.pk]
    admin_client.post(reverse("admin:memory_page_delete", args=[page.pk]), {"post": "yes"})
    assert recall(owner, "which firing does celadon need").items == ()
    slice_row = make_slice(node=node, text="bisque firing on Sundays")
    assert [i.label for i in recall(owner, "when is the bisque").items] == ["Kiln"]
    admin_client.post(reverse("admin:memory_slice_delete", args=[slice_row.pk]), {"post": "yes"})
    assert recall(owner, "when is the bisque").items == ()


def test_deleting_a_person_in_the_admin_deletes_their_large_memory_in_chunks(
    admin_client: Client, owner: User, other_user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user admin deletes through ``account_delete`` (tests/memory/test_erase_large.py
    shows why): with small chunks, 120 facts take several statements, and everything of
    theirs goes, nobody else's."""
    from memory.models import Slice
    from memory.services import erase

    monkeypatch.setattr(erase, "ERASE_CHUNK", 50)
    node = make_node(owner=owner, label="Allotment", category="project")
    Slice.objects.bulk_create(
        [Slice(owner=owner, node=node, text=f"sowed row {i}", kind="other") for i in range(120)]
    )
    theirs = make_node(owner=other_user, label="Allotment", category="project")
    calls = []
    real = erase.delete_owned

    def counted(model: Any, who: Any) -> Any:
        calls.append(model)
        return real(model, who)

    monkeypatch.setattr(erase, "delete_owned", counted)
    response = admin_client.post(
        reverse("admin:auth_user_delete", args=[owner.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not get_user_model().objects.filter(pk=owner.pk).exists()
    assert not Slice.objects.for_owner(owner.pk).exists()
    assert Slice in calls  # through the chunked path
    assert Node.objects.filter(pk=theirs.pk).exists()
