"""The History tab, "restore this version", the edit form's revision and the admin."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries

from memory.models import Node, Revision
from memory.services.details import slice_update
from memory.services.nodes import node_delete, node_update
from tests.factories import make_node, make_slice, make_suppression
from tests.htmx import HX

pytestmark = pytest.mark.django_db


@pytest.fixture
def boxing(owner: User) -> Node:
    node = make_node(owner=owner, label="Boxing")
    node_update(node=node, summary="once a week")
    node_update(node=node, summary="twice a week", state="paused")
    return Node.objects.get(pk=node.pk)


def test_the_tab_lists_who_changed_what_with_a_restore_button(
    client: Client, owner: User, boxing: Node
) -> None:
    client.force_login(owner)
    page = client.get(reverse("memory:node-history", args=[boxing.pk])).content.decode()
    assert "<del>once a week</del> → <ins>twice a week</ins>" in page
    assert "<del>Active</del> → <ins>Paused</ins>" in page  # the state's label, not its value
    assert f"by {owner.get_username()}" not in page  # made outside a request: by ume
    assert page.count('data-action="restore"') == 1  # revision 2; 3 is the current one
    node_page = client.get(reverse("memory:node", args=[boxing.pk])).content.decode()
    assert reverse("memory:node-history", args=[boxing.pk]) in node_page


def test_dates_and_choices_read_as_a_person_reads_them(
    client: Client, owner: User, boxing: Node
) -> None:
    from datetime import date

    from memory.models import Event
    from memory.services.details import event_update
    from tests.factories import make_event

    event = make_event(node=boxing, text="first fight")
    event_update(
        event=Event.objects.get(pk=event.pk),
        text="first fight",
        action="started",
        happened_on=date(2025, 6, 14),
    )
    client.force_login(owner)
    page = client.get(reverse("memory:node-history", args=[boxing.pk])).content.decode()
    assert "<ins>14 June 2025</ins>" in page
    assert "2025-06-14T" not in page  # never the stored ISO timestamp
    assert "<ins>Day</ins>" in page  # the date's precision by its label


def test_the_tab_reads_a_constant_number_of_queries(
    client: Client, owner: User, boxing: Node, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    client.force_login(owner)
    for n in range(5):
        slice_update(
            slice=make_slice(node=boxing, text=f"fact {n}"), text=f"fact {n}!", kind="other"
        )
    url = reverse("memory:node-history", args=[boxing.pk])
    # session, user, node and its aliases, the revisions, their parents outside the page, and
    # the pending count every page shows: the same for 3 revisions or 300
    with django_assert_num_queries(7):
        client.get(url, **HX)


def test_restore_this_version_is_a_new_revision_by_the_person(
    client: Client, owner: User, boxing: Node
) -> None:
    client.force_login(owner)
    url = reverse("memory:node-restore", args=[boxing.pk])
    answer = client.post(url, {"kind": "node", "id": boxing.pk, "revision": 2}, **HX)
    assert answer.status_code == 200
    assert "back to revision 2" in answer.content.decode()
    boxing.refresh_from_db()
    assert (boxing.summary, boxing.state, boxing.revision) == ("once a week", "active", 4)
    newest = Revision.objects.get(kind="node", object_id=boxing.pk, number=4)
    assert (newest.action, newest.actor, newest.actor_name) == (
        "rolled_back",
        "person",
        owner.get_username(),
    )
    plain = client.post(url, {"kind": "node", "id": boxing.pk, "revision": 3})
    assert plain.status_code == 302


def test_a_refused_restore_says_why_and_changes_nothing(
    client: Client, owner: User, boxing: Node
) -> None:
    client.force_login(owner)
    node_update(node=boxing, label="Kickboxing")
    node_update(node=boxing, label="Boxing club")
    make_suppression(owner=owner, label="Kickboxing")
    url = reverse("memory:node-restore", args=[boxing.pk])
    answer = client.post(url, {"kind": "node", "id": boxing.pk, "revision": 4}, **HX)
    assert answer.status_code == 400
    assert "suppressed" in answer.content.decode()
    assert Node.objects.get(pk=boxing.pk).label == "Boxing club"


def test_another_user_and_a_visitor_get_nothing(
    client: Client, other_user: User, boxing: Node
) -> None:
    url = reverse("memory:node-history", args=[boxing.pk])
    assert client.get(url).status_code == 302  # to sign in
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    restore = reverse("memory:node-restore", args=[boxing.pk])
    assert client.post(restore, {"kind": "node", "id": boxing.pk, "revision": 2}).status_code == 404


def test_a_deleted_memory_keeps_a_read_only_history_page(
    client: Client, owner: User, boxing: Node
) -> None:
    client.force_login(owner)
    node_id = boxing.pk
    node_delete(node=boxing)
    page = client.get(reverse("memory:node-history", args=[node_id])).content.decode()
    assert "was deleted" in page and "Deleted: <s>Boxing</s>" in page
    assert 'data-action="restore"' not in page


def test_a_save_over_a_newer_revision_shows_both_versions_and_saves_nothing(
    client: Client, owner: User, boxing: Node
) -> None:
    client.force_login(owner)
    form = {"label": "Boxing", "category": "skill", "state": "paused", "summary": "mine"}
    answer = client.post(
        reverse("memory:node-edit", args=[boxing.pk]), {**form, "revision": 2}, **HX
    )
    assert answer.status_code == 409
    page = answer.content.decode()
    assert "twice a week" in page and "mine" in page
    assert 'name="revision" value="3"' in page  # saving again is deliberate
    assert Node.objects.get(pk=boxing.pk).summary == "twice a week"
    saved = client.post(
        reverse("memory:node-edit", args=[boxing.pk]), {**form, "revision": 3}, **HX
    )
    assert saved.status_code == 200
    assert Node.objects.get(pk=boxing.pk).summary == "mine"


def test_the_admin_shows_history_read_only(client: Client, boxing: Node) -> None:
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-1-tests")
    client.force_login(admin)
    assert client.get(reverse("admin:memory_revision_changelist")).status_code == 200
    assert client.get(reverse("admin:memory_revision_add")).status_code == 403
    rev = Revision.objects.filter(object_id=boxing.pk).first()
    assert rev is not None
    delete = reverse("admin:memory_revision_delete", args=[rev.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 403
    assert Revision.objects.filter(pk=rev.pk).exists()


def test_a_fact_saved_over_a_newer_revision_shows_both_and_saves_nothing(
    client: Client, owner: User, boxing: Node
) -> None:
    client.force_login(owner)
    fact = make_slice(node=boxing, text="trains twice a week")
    slice_update(slice=fact, text="trains three times a week", kind="other")  # revision 2
    url = reverse("memory:detail-edit", args=["slice", fact.pk])
    answer = client.post(url, {"text": "trains daily", "kind": "other", "revision": 1}, **HX)
    assert answer.status_code == 409
    page = answer.content.decode()
    assert "trains three times a week" in page and "trains daily" in page
    fact.refresh_from_db()
    assert (fact.text, fact.revision) == ("trains three times a week", 2)
    saved = client.post(url, {"text": "trains daily", "kind": "other", "revision": 2}, **HX)
    assert saved.status_code == 200
    fact.refresh_from_db()
    assert (fact.text, fact.revision) == ("trains daily", 3)


def test_saving_again_after_a_conflict_keeps_the_other_tabs_change(
    client: Client, owner: User
) -> None:
    """Two tabs on one memory: the other tab pauses it; this tab, opened before, edits the
    summary. The conflict form keeps "paused" (this tab never touched the state) and this
    tab's summary, so saving it again writes both instead of reverting the state."""
    node = make_node(owner=owner, label="Boxing", state="active")
    node_update(node=node, summary="once a week")  # the version this tab's form shows
    shown = Node.objects.get(pk=node.pk).revision
    node_update(node=Node.objects.get(pk=node.pk), state="paused")  # the other tab
    client.force_login(owner)
    url = reverse("memory:node-edit", args=[node.pk])
    form = {"label": "Boxing", "category": "skill", "state": "active", "revision": shown}
    response = client.post(url, form | {"summary": "twice a week"}, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert re.search(r'<option value="paused" selected>', html)  # theirs: not touched here
    assert not re.search(r'<option value="active" selected>', html)
    assert re.search(r"<textarea[^>]*>\s*twice a week</textarea>", html)  # mine
    assert re.search(rf'name="revision" value="{shown + 1}"', html)
    conflict = html[html.index('class="table conflict"') : html.index("</table>")]
    assert "summary" in conflict and "state" not in conflict
    again = client.post(
        url, form | {"state": "paused", "summary": "twice a week", "revision": shown + 1}, **HX
    )
    assert again.status_code == 200
    saved = Node.objects.get(pk=node.pk)
    assert (saved.state, saved.summary) == ("paused", "twice a week")
