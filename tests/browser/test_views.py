"""The memory browser: list and search, the node page and its edits, delete with make-it-stick,
the graph and the suppressions page; owner, another user and an anonymous visitor."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from memory.models import (
    Alias,
    Candidate,
    Event,
    Evidence,
    Node,
    Receipt,
    Slice,
    Suppression,
    Transcript,
)
from tests.factories import (
    make_candidate,
    make_edge,
    make_event,
    make_node,
    make_slice,
    make_suppression,
)
from tests.htmx import HX

pytestmark = pytest.mark.django_db


def url(name: Any, *args: Any) -> Any:
    return reverse(f"memory:{name}", args=args)


@pytest.fixture
def boxing(owner: User) -> Node:
    node = make_node(owner=owner, label="Boxing", aliases=("boxe",), summary="A sport I love.")
    make_slice(node=node, text="trains three days a week", kind="progress")
    make_slice(node=node, text="trains once a week", kind="progress", is_current=False)
    march = datetime(2025, 3, 1, tzinfo=UTC)
    make_event(
        node=node,
        text="started boxing",
        happened_at=march,
        happened_at_precision="month",
        happened_at_source="resolved_phrase",
    )
    make_event(node=node, text="stopped boxing", action="stopped")
    return node


# --- access ----------------------------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_login(client: Client, boxing: Node, owner: User) -> None:
    suppression = make_suppression(owner=owner)
    alias = boxing.aliases.get()
    gets = [
        url("nodes"),
        url("node", boxing.pk),
        url("node-delete-confirm", boxing.pk),
        url("graph"),
        url("suppressions"),
    ]
    posts = [
        url("node-edit", boxing.pk),
        url("alias-add", boxing.pk),
        url("alias-remove", alias.pk),
        url("node-delete", boxing.pk),
        url("suppression-lift", suppression.pk),
    ]
    for path in gets:
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    for path in posts:
        response = client.post(path, {"alias": "x", "label": "x"})
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    assert Node.objects.filter(pk=boxing.pk).exists() and Alias.objects.count() == 1


def test_another_users_objects_are_404_and_untouched(
    other_client: Client, boxing: Node, owner: User
) -> None:
    suppression = make_suppression(owner=owner)
    alias = boxing.aliases.get()
    for path in [url("node", boxing.pk), url("node-delete-confirm", boxing.pk)]:
        assert other_client.get(path).status_code == 404
    edit = {"label": "Mine", "category": "skill", "state": "active", "summary": ""}
    for path, data in [
        (url("node-edit", boxing.pk), edit),
        (url("alias-add", boxing.pk), {"alias": "Mine"}),
        (url("alias-remove", alias.pk), {}),
        (url("node-delete", boxing.pk), {"stick": "1"}),
        (url("suppression-lift", suppression.pk), {}),
    ]:
        assert other_client.post(path, data).status_code == 404, path
        assert other_client.post(path, data, **HX).status_code == 404, path
    boxing.refresh_from_db()
    suppression.refresh_from_db()
    assert boxing.label == "Boxing" and Alias.objects.count() == 1
    assert suppression.lifted_at is None


def test_another_users_lists_show_nothing_of_mine(
    other_client: Client, boxing: Node, owner: User
) -> None:
    make_suppression(owner=owner, label="Secret")
    assert "Boxing" not in other_client.get(url("nodes")).content.decode()
    assert "Boxing" not in other_client.get(url("nodes") + "?q=boxing").content.decode()
    assert "Boxing" not in other_client.get(url("graph")).content.decode()
    assert "Secret" not in other_client.get(url("suppressions")).content.decode()


# --- the list and search ---------------------------------------------------------------------


def test_nodes_by_category_and_state(owner_client: Client, owner: User, boxing: Node) -> None:
    make_node(owner=owner, label="Atlas", category="project", state="paused")
    html = owner_client.get(url("nodes")).content.decode()
    assert "Boxing" in html and "Atlas" in html
    only_projects = owner_client.get(url("nodes") + "?category=project").content.decode()
    assert "Atlas" in only_projects and ">Boxing<" not in only_projects
    paused = owner_client.get(url("nodes") + "?state=paused").content.decode()
    assert "Atlas" in paused and ">Boxing<" not in paused


def test_the_browser_pages_filtered_nodes_by_the_facets_count(
    owner_client: Client, owner: User, other_user: User
) -> None:
    for i in range(51):
        make_node(owner=owner, label=f"Skill {i:02}", category="skill", state="active")
    make_node(owner=owner, label="Atlas", category="project", state="active")
    make_node(owner=other_user, label="Theirs", category="skill", state="active")

    first = owner_client.get(url("nodes") + "?category=skill&state=active")
    last = owner_client.get(url("nodes") + "?category=skill&state=active&page=2")

    assert first.context["page"].paginator.count == 51
    assert first.context["page"].paginator.num_pages == 2
    assert [hit.node.label for hit in last.context["page"]] == ["Skill 50"]
    assert owner_client.get(url("nodes")).context["page"].paginator.count == 52


def test_search_uses_recall_and_shows_why(owner_client: Client, owner: User, boxing: Node) -> None:
    make_node(owner=owner, label="Atlas", category="project")
    html = owner_client.get(url("nodes") + "?q=boxe", **HX).content.decode()
    assert html.lstrip().startswith('<section id="node-results"')
    assert ">Boxing<" in html and "Atlas" not in html
    assert "why-alias" in html
    exact = owner_client.get(url("nodes") + "?q=Boxing", **HX).content.decode()
    assert "why-exact" in exact


def test_search_lists_memories_and_never_reads_what_was_said(
    owner_client: Client, owner: User, boxing: Node
) -> None:
    """The browser shows memories only: recall's episode lane (half of a recall's work on a
    large store) is not run for it, even when a conversation says the word."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.recall import recall
    from memory.services.ingest import ingest_text

    ingest_text(
        owner=owner,
        text="User: boxing again tonight, my knees hurt\n",
        name="chat",
        extractor="rules",
    )
    assert any(i.kind == "episode" for i in recall(owner, "boxing knees").items)
    with CaptureQueriesContext(connection) as captured:
        html = owner_client.get(url("nodes") + "?q=boxing+knees", **HX).content.decode()
    assert ">Boxing<" in html and "my knees hurt" not in html
    assert not [q for q in captured.captured_queries if "memory_episode" in q["sql"]]


def test_search_for_nothing_says_so(owner_client: Client, boxing: Node) -> None:
    html = owner_client.get(url("nodes") + "?q=quantum+chromodynamics").content.decode()
    assert "Nothing matches" in html


def test_bad_list_filters_are_a_400(owner_client: Client) -> None:
    assert owner_client.get(url("nodes") + "?category=nope").status_code == 400
    assert owner_client.get(url("nodes") + "?state=asleep").status_code == 400
    assert owner_client.get(url("graph") + "?category=nope").status_code == 400


def test_empty_memory_says_what_to_do(owner_client: Client) -> None:
    html = owner_client.get(url("nodes")).content.decode()
    assert "No memories yet" in html and reverse("review:queue") in html


# --- the node page ---------------------------------------------------------------------------


def test_node_page_shows_everything(owner_client: Client, owner: User, boxing: Node) -> None:
    atlas = make_node(owner=owner, label="Atlas", category="project")
    make_edge(from_node=atlas, to_node=boxing, type="supports")
    transcript = Transcript.objects.create(owner=owner, name="chat-may.txt", text="x", sha256="x")
    current = boxing.slices.get(is_current=True)
    Evidence.objects.create(
        owner=owner, node=boxing, slice=current, transcript=transcript, quote="I train 3 days"
    )
    html = owner_client.get(url("node", boxing.pk)).content.decode()
    assert "<h1>Boxing</h1>" in html and "A sport I love." in html
    assert "boxe" in html  # alias
    assert "trains three days a week" in html
    assert "<s>trains once a week</s>" in html  # superseded history
    assert "March 2025" in html and "date unknown" in html  # happened apart from learned
    assert "learned" in html
    assert "I train 3 days" in html and "chat-may.txt" in html  # evidence with its source
    assert reverse("memory:node", args=[atlas.pk]) in html and "supports" in html
    assert url("node-delete-confirm", boxing.pk) in html


def test_node_page_shows_the_words_of_each_kind_action_and_link_type(
    owner_client: Client, owner: User
) -> None:
    """The labels the page computes once per page (not ``get_FOO_display`` per row), as
    they read, for a value outside the choices too."""
    node = make_node(owner=owner, label="Atlas", category="project")
    make_slice(node=node, text="kept the invoices in euros", kind="technical_detail")
    make_slice(node=node, text="an older kind", kind="hunch")  # not one of the choices
    when = datetime(2025, 3, 4, tzinfo=UTC)
    make_event(
        node=node,
        text="moved the plan",
        action="changed_plan",
        importance="life_significant",
        happened_at=when,
        happened_at_source="stated",
        happened_at_precision="day",
    )
    make_edge(from_node=node, to_node=make_node(owner=owner, label="Bea"), type="works_with")
    make_edge(from_node=make_node(owner=owner, label="Cid"), to_node=node, type="blocked_by")
    dee = make_node(owner=owner, label="Dee")
    make_edge(from_node=node, to_node=dee, type="related_to", label="mentors")  # as named
    html = owner_client.get(url("node", node.pk)).content.decode()
    assert '<span class="kind">Technical detail</span> kept the invoices in euros' in html
    assert '<span class="kind">Hunch</span> an older kind' in html
    assert "<strong>Changed plan</strong> moved the plan" in html
    assert '<span class="tag">life significant</span>' in html
    source = "stated in the text"
    assert f'title="{source}"' in html and f"date: {source}" in html
    assert "Atlas <em>works with</em>" in html and "<em>blocked by</em> Atlas" in html
    assert "Atlas <em>mentors</em>" in html


def test_node_page_query_count_does_not_grow(
    owner_client: Client, owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    node = make_node(owner=owner, label="Lonely")
    other = make_node(owner=owner, label="Friend")

    def add(n: Any) -> None:
        make_edge(from_node=make_node(owner=owner, label=f"Other {n}"), to_node=node, type="uses")
        for i in range(n):
            s = make_slice(node=node, text=f"fact {i} {node.slices.count()}")
            e = make_event(node=node, text=f"event {i} {node.events.count()}")
            Evidence.objects.create(owner=owner, node=node, slice=s, quote="q")
            Evidence.objects.create(owner=owner, node=node, event=e, quote="q")
        make_edge(from_node=node, to_node=other, type=["uses", "supports", "drives"][n % 3])
        Alias.objects.create(owner=owner, node=node, alias=f"lone {n}", canonical_key=f"lone {n}")

    add(1)
    # session, user, node (with its counts), aliases, current facts, their evidence,
    # superseded facts (none: no evidence query), events, their evidence, edges out, their
    # evidence, edges in, their evidence, node evidence, pending badge
    with django_assert_num_queries(15):
        owner_client.get(url("node", node.pk))
    add(8)
    with django_assert_num_queries(15):
        owner_client.get(url("node", node.pk))


def test_node_page_shows_the_newest_facts_and_events_until_asked_for_all(
    owner_client: Client, owner: User
) -> None:
    from memory.selectors import DETAIL_LIMIT

    node = make_node(owner=owner, label="Busy")
    extra = 3
    Slice.objects.bulk_create(
        Slice(owner=owner, node=node, text=f"fact number {i}", kind="other")
        for i in range(DETAIL_LIMIT + extra)
    )
    Event.objects.bulk_create(
        Event(owner=owner, node=node, action="other", text=f"event number {i}")
        for i in range(DETAIL_LIMIT + extra)
    )
    html = owner_client.get(url("node", node.pk)).content.decode()
    assert html.count('id="slice-') == DETAIL_LIMIT and html.count('id="event-') == DETAIL_LIMIT
    assert f"Showing the newest {DETAIL_LIMIT} of {DETAIL_LIMIT + extra} facts" in html
    assert f"Showing the newest {DETAIL_LIMIT} of {DETAIL_LIMIT + extra} events" in html
    # The newest are shown (each fact's delete button names it), the oldest wait.
    assert f"Delete the fact “fact number {DETAIL_LIMIT + extra - 1}”" in html
    assert "Delete the fact “fact number 0”" not in html
    everything = owner_client.get(url("node", node.pk) + "?all=1").content.decode()
    assert everything.count('id="slice-') == DETAIL_LIMIT + extra
    assert everything.count('id="event-') == DETAIL_LIMIT + extra
    assert "Showing the newest" not in everything


def test_edit_category_and_state_htmx(owner_client: Client, boxing: Node) -> None:
    data = {"label": "Boxing", "category": "habit", "state": "paused", "summary": "On hold."}
    response = owner_client.post(url("node-edit", boxing.pk), data, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<header id="node-head"')
    assert "Saved." in html and 'id="aliases"' in html and 'hx-swap-oob="true"' in html
    boxing.refresh_from_db()
    assert (boxing.category, boxing.state, boxing.summary) == ("habit", "paused", "On hold.")


def test_rename_keeps_the_old_label_as_an_alias(owner_client: Client, boxing: Node) -> None:
    data = {"label": "Kickboxing", "category": "skill", "state": "active", "summary": ""}
    response = owner_client.post(url("node-edit", boxing.pk), data, follow=True)
    assert response.redirect_chain == [(url("node", boxing.pk), 302)]
    assert Alias.objects.filter(node=boxing, alias="Boxing").exists()


def test_bad_edit_is_shown_in_place(owner_client: Client, boxing: Node) -> None:
    data = {"label": "Boxing", "category": "weather", "state": "active"}
    response = owner_client.post(url("node-edit", boxing.pk), data, **HX)
    assert response.status_code == 400 and 'class="error"' in response.content.decode()
    boxing.refresh_from_db()
    assert boxing.category == "skill"


def test_add_and_remove_an_alias(owner_client: Client, boxing: Node) -> None:
    response = owner_client.post(url("alias-add", boxing.pk), {"alias": "The sweet science"}, **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="aliases"') and "The sweet science" in html
    alias = Alias.objects.get(alias="The sweet science")
    response = owner_client.post(url("alias-remove", alias.pk), **HX)
    html = response.content.decode()
    assert f'id="alias-{alias.pk}"' not in html
    assert "Deleted the alias “The sweet science”" in html and 'data-action="undo-change"' in html
    assert not Alias.objects.filter(pk=alias.pk).exists()
    # like every other write, the removal leaves a receipt that can undo it
    receipt = Receipt.objects.for_owner(boxing.owner).latest("id")
    assert receipt.detail["kind"] == "alias" and receipt.detail["before"]["alias"] == (
        "The sweet science"
    )
    owner_client.post(reverse("memory:detail-undo", args=[receipt.pk]), **HX)
    assert Alias.objects.filter(node=boxing, alias="The sweet science").exists()


def test_an_alias_that_names_another_memory_is_refused(
    owner_client: Client, owner: User, boxing: Node
) -> None:
    make_node(owner=owner, label="Atlas", category="project")
    response = owner_client.post(url("alias-add", boxing.pk), {"alias": "Atlas"}, follow=True)
    assert "merge them instead" in response.content.decode()
    assert not Alias.objects.filter(alias="Atlas").exists()


# --- delete ----------------------------------------------------------------------------------


def test_delete_has_a_confirm_step_with_make_it_stick_on(
    owner_client: Client, boxing: Node
) -> None:
    html = owner_client.get(url("node-delete-confirm", boxing.pk)).content.decode()
    assert 'name="stick" value="1" id="id_stick" checked' in html
    assert Node.objects.filter(pk=boxing.pk).exists()  # a GET never deletes


def test_delete_with_make_it_stick(owner_client: Client, owner: User, boxing: Node) -> None:
    pending = make_candidate(owner=owner, label="boxe")
    response = owner_client.post(url("node-delete", boxing.pk), {"stick": "1"}, follow=True)
    assert response.redirect_chain == [(url("nodes"), 302)]
    assert "Deleted “Boxing”" in response.content.decode()
    assert not Node.objects.filter(pk=boxing.pk).exists()
    keys = set(Suppression.objects.values_list("canonical_key", flat=True))
    assert keys == {"boxing", "boxe"}
    assert Candidate.objects.get(pk=pending.pk).status == "suppressed"


def test_delete_without_make_it_stick(owner_client: Client, boxing: Node) -> None:
    owner_client.post(url("node-delete", boxing.pk), {})
    assert not Node.objects.filter(pk=boxing.pk).exists()
    assert not Suppression.objects.exists()


# --- graph -----------------------------------------------------------------------------------


def test_graph_is_svg_linking_to_node_pages(
    owner_client: Client, owner: User, boxing: Node
) -> None:
    atlas = make_node(owner=owner, label="Atlas", category="project")
    make_edge(from_node=atlas, to_node=boxing, type="supports")
    html = owner_client.get(url("graph")).content.decode()
    assert "<svg" in html and html.count("<line") == 1
    assert f'href="{url("node", boxing.pk)}"' in html and f'href="{url("node", atlas.pk)}"' in html
    only = owner_client.get(url("graph") + "?category=project").content.decode()
    assert f'href="{url("node", atlas.pk)}"' in only and url("node", boxing.pk) not in only
    assert "<line" not in only


def test_empty_graph_says_what_to_do(owner_client: Client) -> None:
    assert "Nothing to draw yet" in owner_client.get(url("graph")).content.decode()


# --- suppressions ----------------------------------------------------------------------------


def test_suppressions_active_and_expired_with_hits(owner_client: Client, owner: User) -> None:
    make_suppression(
        owner=owner, label="Piano", hit_count=4, last_hit_at=timezone.now() - timedelta(hours=2)
    )
    make_suppression(
        owner=owner, label="Chess", suppressed_until=timezone.now() - timedelta(days=1)
    )
    html = owner_client.get(url("suppressions")).content.decode()
    active, ended = html.split("Expired or lifted")
    assert "Piano" in active and "Chess" in ended
    assert '<td data-label="Hits" class="num">4</td>' in active
    # One date style everywhere: day month year, hours and minutes (no "2 hours ago").
    hit = timezone.localtime(Suppression.objects.get(label="Piano").last_hit_at)
    assert f">{hit:%-d %b %Y, %H:%M}</time>" in active and "ago" not in active
    assert "for ever" in active and "ended" in ended


def test_lift_a_suppression(owner_client: Client, owner: User) -> None:
    suppression = make_suppression(owner=owner, label="Piano")
    response = owner_client.post(url("suppression-lift", suppression.pk), **HX)
    html = response.content.decode()
    # The whole lists region: the lifted row leaves Active at once (it stayed until a reload).
    assert html.lstrip().startswith('<div id="suppression-lists"')
    active, ended = html.split("Expired or lifted")
    row = f'<tr id="suppression-{suppression.pk}"'
    assert row not in active and row in ended
    assert "Lifted the suppression on “Piano”" in active
    suppression.refresh_from_db()
    assert suppression.lifted_at is not None
    again = owner_client.post(url("suppression-lift", suppression.pk), follow=True)
    assert "Lifted the suppression on “Piano”" in again.content.decode()


def test_suppression_sources_are_words_not_internal_ids(owner_client: Client, owner: User) -> None:
    make_suppression(owner=owner, label="Tea", source="review:candidate:20")
    make_suppression(owner=owner, label="Gym", source="dashboard:node:7")
    html = owner_client.get(url("suppressions")).content.decode()
    assert "review:candidate:20" not in html and "dashboard:node:7" not in html
    assert "rejected and suppressed in Review" in html
    assert "a memory deleted with “make it stick”" in html


def test_empty_suppressions_page(owner_client: Client) -> None:
    assert "No active suppressions" in owner_client.get(url("suppressions")).content.decode()


# --- evidence: bounded per page, never a transcript's text -------------------------------------


def _evidence_heavy_node(owner: Any) -> Any:
    """A node on one large transcript: 30 quotes of its own and 12 on one fact."""
    big = Transcript.objects.create(
        owner=owner, name="huge-chat.json", text="I box. " * 40_000, sha256="huge"
    )
    node = make_node(owner=owner, label="Boxing")
    fact = make_slice(node=node, text="boxes on Mondays")
    for i in range(30):
        Evidence.objects.create(owner=owner, node=node, transcript=big, quote=f"own quote {i:02}")
    for i in range(12):
        Evidence.objects.create(
            owner=owner, node=node, slice=fact, transcript=big, quote=f"fact quote {i:02}"
        )
    return node, fact


def test_node_page_loads_what_it_shows_never_a_transcripts_text(
    owner_client: Client, owner: User
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    node, fact = _evidence_heavy_node(owner)
    with CaptureQueriesContext(connection) as queries:
        html = owner_client.get(url("node", node.pk)).content.decode()
    text_column = '"memory_transcript"."text"'
    assert not [q["sql"] for q in queries if text_column in q["sql"]]
    assert "huge-chat.json" in html  # the source's name is still shown
    # The fact shows its first quotes, the total, and a link to all of them.
    assert "Evidence (12)" in html
    assert "fact quote 04" in html and "fact quote 05" not in html
    all_quotes = f"{url('node-evidence', node.pk)}?of=slice&amp;id={fact.pk}"
    assert all_quotes in html and "All 12 quotes" in html
    # The node's own quotes: a page of 20, newest first, with a pager.
    assert "30 quotes, newest first" in html
    assert "own quote 29" in html and "own quote 10" in html and "own quote 09" not in html
    assert "Page 1 of 2" in html


def test_node_evidence_pages_by_htmx(owner_client: Client, owner: User) -> None:
    node, _fact = _evidence_heavy_node(owner)
    response = owner_client.get(url("node", node.pk), {"page": 2}, **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="node-evidence"')
    assert "own quote 09" in html and "own quote 00" in html and "own quote 10" not in html
    assert "Page 2 of 2" in html


def test_all_quotes_of_one_fact(owner_client: Client, owner: User) -> None:
    node, fact = _evidence_heavy_node(owner)
    page = owner_client.get(url("node-evidence", node.pk), {"of": "slice", "id": fact.pk})
    html = page.content.decode()
    assert page.status_code == 200
    assert "12 quotes" in html and "fact quote 00" in html and "fact quote 11" in html
    assert "own quote" not in html
    unknown_kind: dict[str, str | int] = {"of": "nope", "id": 1}
    assert owner_client.get(url("node-evidence", node.pk), unknown_kind).status_code == 400
    # Another node's fact id shows nothing of it.
    other = make_node(owner=owner, label="Running")
    wrong = owner_client.get(url("node-evidence", other.pk), {"of": "slice", "id": fact.pk})
    assert "fact quote" not in wrong.content.decode()


def test_another_users_evidence_page_is_404(client: Client, owner: User, other_user: User) -> None:
    node, fact = _evidence_heavy_node(owner)
    client.force_login(other_user)
    response = client.get(url("node-evidence", node.pk), {"of": "slice", "id": fact.pk})
    assert response.status_code == 404


def test_forgetting_a_node_deletes_its_quotes_at_once(
    owner_client: Client, owner: User, boxing: Node
) -> None:
    atlas = make_node(owner=owner, label="Atlas")
    link = make_edge(from_node=atlas, to_node=boxing)
    fact = boxing.slices.first()
    event = boxing.events.first()
    for target in ({"node": boxing}, {"slice": fact}, {"event": event}, {"edge": link}):
        Evidence.objects.create(owner=owner, quote="I box every day", **target)
    kept = Evidence.objects.create(owner=owner, node=atlas, quote="Atlas is my project")

    owner_client.post(url("node-delete", boxing.pk), {"stick": "1"})

    assert list(Evidence.objects.for_owner(owner)) == [kept]
