"""A merge shows, before it happens, everything it will change on the target, and changes the
target's state only when the person ticks that choice."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from memory.models import Candidate, Node
from memory.services.ingest import ingest_text
from memory.services.review import candidate_merge, merge_preview
from tests.factories import make_node
from tests.htmx import HX

pytestmark = pytest.mark.django_db


@pytest.fixture
def atlas(owner: User) -> Any:
    return make_node(owner=owner, label="Atlas", category="project", state="active")


@pytest.fixture
def mobile(owner: User, atlas: Any) -> Any:
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
        {
            "object": "slice",
            "on": "Atlas Mobile App",
            "text": "built with React Native",
            "evidence": said,
        },
    ]
    ingest_text(
        owner=owner, text=json.dumps({"objects": objects}), name="m.json", extractor="proposals"
    )
    return Candidate.objects.get(label_guess="Atlas Mobile App")


def test_the_preview_lists_alias_facts_events_and_the_implied_state(
    mobile: Any, atlas: Any
) -> None:
    preview = merge_preview(candidate=mobile, node=atlas)
    assert preview.alias == "Atlas Mobile App"
    assert [s.text for s in preview.slices] == ["built with React Native"]
    assert [(e.action, e.happened_at) for e in preview.events] == [("paused", None)]
    assert (preview.state_from, preview.state_to) == ("active", "paused")
    assert merge_preview(candidate=mobile, node=atlas, add_alias=False).alias is None


def test_a_merge_leaves_the_target_state_alone_unless_chosen(
    owner: User, mobile: Any, atlas: Any
) -> None:
    candidate_merge(candidate=mobile, node=atlas, by=owner)
    atlas.refresh_from_db()
    assert atlas.state == "active"
    assert atlas.events.get().action == "paused"


def test_a_merge_with_the_state_choice_changes_it(owner: User, mobile: Any, atlas: Any) -> None:
    candidate_merge(candidate=mobile, node=atlas, by=owner, change_state=True)
    atlas.refresh_from_db()
    assert atlas.state == "paused"


def test_the_preview_view_shows_every_change_and_a_separate_state_choice(
    owner_client: Client, mobile: Any, atlas: Any
) -> None:
    url = reverse("review:candidate-merge-preview", args=[mobile.pk])
    response = owner_client.get(url, {"node": atlas.pk, "add_alias": "1"}, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<div id="merge-preview-{mobile.pk}"')
    assert "add the alias “Atlas Mobile App”" in html
    assert "add the fact “built with React Native”" in html
    assert "paused until the web version is stable”, date unknown" in html
    assert (
        'name="change_state"' in html and "from <strong>active</strong> to <strong>paused" in html
    )


def test_merging_through_the_view_without_the_tick_keeps_the_state(
    owner_client: Client, mobile: Any, atlas: Any
) -> None:
    url = reverse("review:candidate-merge", args=[mobile.pk])
    owner_client.post(url, {"node": atlas.pk, "add_alias": "1"}, **HX)
    assert Node.objects.get(pk=atlas.pk).state == "active"
    owner_client.post(reverse("review:candidate-undo", args=[mobile.pk]), **HX)
    owner_client.post(url, {"node": atlas.pk, "change_state": "1"}, **HX)
    assert Node.objects.get(pk=atlas.pk).state == "paused"


def test_the_merge_page_without_javascript_previews_the_picked_memory(
    owner_client: Client, mobile: Any, atlas: Any
) -> None:
    url = reverse("review:candidate-merge-pick", args=[mobile.pk])
    html = owner_client.get(url, {"q": "atlas", "node": atlas.pk}).content.decode()
    assert "Merging into “Atlas” will:" in html and 'name="change_state"' in html


def test_preview_of_another_users_memory_is_refused(
    owner_client: Client, other_user: User, mobile: Any
) -> None:
    theirs = make_node(owner=other_user, label="Atlas", category="project")
    url = reverse("review:candidate-merge-preview", args=[mobile.pk])
    response = owner_client.get(url, {"node": theirs.pk}, **HX)
    assert response.status_code == 400 and "Atlas" not in response.content.decode()


def test_preview_of_another_users_candidate_is_404(
    other_client: Client, mobile: Any, atlas: Any
) -> None:
    url = reverse("review:candidate-merge-preview", args=[mobile.pk])
    assert other_client.get(url, {"node": atlas.pk}, **HX).status_code == 404
