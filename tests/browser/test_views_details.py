"""The node page's edit and delete of one fact, event, alias or link, with Undo; the owner,
another user and an anonymous visitor."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries

from memory.models import Alias, Edge, Event, Receipt, Slice
from tests.factories import make_edge, make_event, make_node, make_slice
from tests.htmx import HX

pytestmark = pytest.mark.django_db


@pytest.fixture
def sofia(owner: User) -> Any:
    node = make_node(owner=owner, label="Sofia Almeida", category="person", aliases=("Manager",))
    make_slice(node=node, text="Is Sofia Almeida")
    make_event(node=node, text="joined Northwind", action="joined")
    make_edge(from_node=node, to_node=make_node(owner=owner, label="Northwind", category="work"))
    return node


def rows(node: Any) -> Any:
    return {
        "slice": node.slices.get(),
        "event": node.events.get(),
        "alias": node.aliases.get(),
        "edge": node.edges_out.get(),
    }


def test_the_node_page_offers_edit_and_delete_for_every_detail(
    client: Client, owner: User, sofia: Any
) -> None:
    client.force_login(owner)
    html = client.get(reverse("memory:node", args=[sofia.pk])).content.decode()
    for kind, row in rows(sofia).items():
        # Edit fetches the detail's form (memory:detail-form), which posts to detail-edit.
        assert reverse("memory:detail-form", args=[kind, row.pk]) in html
        assert reverse("memory:detail-delete", args=[kind, row.pk]) in html


def test_the_node_page_renders_no_edit_form_and_one_delete_form(
    client: Client, owner: User, sofia: Any
) -> None:
    """Each detail has an Edit link and a delete button, not forms of its own: the nav's
    sign-out, the node edit form, the add-alias form and the one form every delete button
    submits."""
    client.force_login(owner)
    html = client.get(reverse("memory:node", args=[sofia.pk])).content.decode()
    assert html.count("<form") == 4
    assert '<form id="detail-delete" method="post" hidden>' in html
    assert "csrfmiddlewaretoken" in html.split('id="detail-delete"', 1)[1].split("</form>")[0]
    for kind, row in rows(sofia).items():
        assert reverse("memory:detail-edit", args=[kind, row.pk]) not in html
        delete = reverse("memory:detail-delete", args=[kind, row.pk])
        assert f'form="detail-delete" formaction="{delete}" name="node" value="{sofia.pk}"' in html


@pytest.mark.parametrize(
    ("kind", "field", "region"),
    [
        ("slice", '<textarea name="text"', "facts"),
        ("event", '<textarea name="text"', "timeline"),
        ("alias", 'name="alias" value="Manager"', "aliases"),
        ("edge", '<select name="type">', "links"),
    ],
)
def test_edit_fetches_the_details_form_in_place_of_its_link(
    client: Client, owner: User, sofia: Any, kind: Any, field: Any, region: Any
) -> None:
    client.force_login(owner)
    row = rows(sofia)[kind]
    response = client.get(reverse("memory:detail-form", args=[kind, row.pk]), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    # The swap target: the element that replaces the Edit link, under the link's id.
    assert html.lstrip().startswith(f'<details id="fix-{kind}-{row.pk}" class="fix" open>')
    assert "<html" not in html
    edit = reverse("memory:detail-edit", args=[kind, row.pk])
    assert f'hx-post="{edit}" hx-target="#{region}"' in html
    assert f'name="revision" value="{row.revision}"' in html and field in html


def test_the_form_of_a_link_says_which_ends_page_it_is_on(
    client: Client, owner: User, sofia: Any
) -> None:
    client.force_login(owner)
    edge = rows(sofia)["edge"]
    form = reverse("memory:detail-form", args=["edge", edge.pk])
    html = client.get(form + f"?node={edge.to_node_id}", **HX).content.decode()
    assert f'name="node" value="{edge.to_node_id}"' in html
    # Not one of its ends: the page of the link's start.
    html = client.get(form + "?node=999999", **HX).content.decode()
    assert f'name="node" value="{edge.from_node_id}"' in html


def test_without_javascript_edit_is_a_page_with_the_form(
    client: Client, owner: User, sofia: Any
) -> None:
    client.force_login(owner)
    fact = sofia.slices.get()
    html = client.get(reverse("memory:detail-form", args=["slice", fact.pk])).content.decode()
    assert "<html" in html and "Edit the fact" in html
    assert f'action="{reverse("memory:detail-edit", args=["slice", fact.pk])}"' in html
    assert reverse("memory:node", args=[sofia.pk]) in html  # the way back


def test_the_details_form_reads_a_constant_number_of_queries(
    client: Client, owner: User, sofia: Any, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    client.force_login(owner)
    for kind, row in rows(sofia).items():
        # session, user, the detail with its node(s), pending badge
        with django_assert_num_queries(4):
            client.get(reverse("memory:detail-form", args=[kind, row.pk]), **HX)


@pytest.mark.parametrize(
    ("kind", "region", "model"),
    [
        ("slice", "facts", Slice),
        ("event", "timeline", Event),
        ("alias", "aliases", Alias),
        ("edge", "links", Edge),
    ],
)
def test_delete_answers_with_its_region_and_an_undo_that_works(
    client: Client, owner: User, sofia: Any, kind: Any, region: Any, model: Any
) -> None:
    client.force_login(owner)
    row = rows(sofia)[kind]
    response = client.post(reverse("memory:detail-delete", args=[kind, row.pk]), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<section id="{region}"')
    assert not model.objects.filter(pk=row.pk).exists()
    receipt = Receipt.objects.for_owner(owner).get(detail__action="detail_delete")
    assert reverse("memory:detail-undo", args=[receipt.pk]) in html

    response = client.post(reverse("memory:detail-undo", args=[receipt.pk]), **HX)
    assert response.status_code == 200
    assert "Undone" in response.content.decode()
    assert model.objects.filter(pk=row.pk).exists()


def test_edit_a_fact_in_place_and_see_it_in_the_region(
    client: Client, owner: User, sofia: Any
) -> None:
    client.force_login(owner)
    fact = sofia.slices.get()
    response = client.post(
        reverse("memory:detail-edit", args=["slice", fact.pk]),
        {"text": "My manager at Northwind", "kind": "other"},
        **HX,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "My manager at Northwind" in html and "Saved the fact." in html
    fact.refresh_from_db()
    assert fact.text == "My manager at Northwind"


def test_a_bad_edit_is_a_400_with_the_reason_and_changes_nothing(
    client: Client, owner: User, sofia: Any
) -> None:
    client.force_login(owner)
    event = sofia.events.get()
    response = client.post(
        reverse("memory:detail-edit", args=["event", event.pk]),
        {"text": "joined", "action": "exploded"},
        **HX,
    )
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    event.refresh_from_db()
    assert event.action == "joined"


def test_without_javascript_a_delete_redirects_and_the_page_offers_undo(
    client: Client, owner: User, sofia: Any
) -> None:
    client.force_login(owner)
    fact = sofia.slices.get()
    response = client.post(reverse("memory:detail-delete", args=["slice", fact.pk]))
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "Deleted the fact" in page
    receipt = Receipt.objects.for_owner(owner).get()
    assert reverse("memory:detail-undo", args=[receipt.pk]) in page


def test_another_user_gets_404_and_changes_nothing(
    client: Client, other_user: User, sofia: Any
) -> None:
    client.force_login(other_user)
    for kind, row in rows(sofia).items():
        assert client.post(reverse("memory:detail-delete", args=[kind, row.pk])).status_code == 404
        edit = client.post(reverse("memory:detail-edit", args=[kind, row.pk]), {"text": "x"})
        assert edit.status_code == 404
        form = reverse("memory:detail-form", args=[kind, row.pk])
        assert client.get(form).status_code == 404
        assert client.get(form, **HX).status_code == 404
    assert Slice.objects.filter(node=sofia).count() == 1
    assert not Receipt.objects.exists()


def test_another_user_cannot_undo_the_owners_change(
    client: Client, owner: User, other_user: User, sofia: Any
) -> None:
    from memory.services.details import detail_delete

    receipt = detail_delete(row=sofia.slices.get())
    client.force_login(other_user)
    assert client.post(reverse("memory:detail-undo", args=[receipt.pk])).status_code == 404
    receipt.refresh_from_db()
    assert receipt.undone_at is None


def test_anonymous_visitor_is_sent_to_sign_in(client: Client, sofia: Any) -> None:
    fact = sofia.slices.get()
    response = client.post(reverse("memory:detail-delete", args=["slice", fact.pk]))
    assert response.status_code == 302 and "login" in response["Location"]
    assert Slice.objects.filter(pk=fact.pk).exists()


def test_anonymous_visitor_cannot_fetch_a_form(client: Client, sofia: Any) -> None:
    fact = sofia.slices.get()
    response = client.get(reverse("memory:detail-form", args=["slice", fact.pk]), **HX)
    assert response.status_code == 302 and "login" in response["Location"]


def test_unknown_kind_is_404(client: Client, owner: User, sofia: Any) -> None:
    client.force_login(owner)
    assert client.post(reverse("memory:detail-delete", args=["node", sofia.pk])).status_code == 404
    assert client.get(reverse("memory:detail-form", args=["node", sofia.pk])).status_code == 404


def test_the_details_form_is_read_only(client: Client, owner: User, sofia: Any) -> None:
    client.force_login(owner)
    fact = sofia.slices.get()
    response = client.post(reverse("memory:detail-form", args=["slice", fact.pk]), {"text": "x"})
    assert response.status_code == 405
