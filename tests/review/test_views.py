"""The review queue: every page and action for the owner, another user and an anonymous visitor,
with HTMX (the card swaps) and without (a redirect with a message)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from memory.models import Alias, Candidate, Evidence, Node, Receipt, Suppression, Transcript
from tests.factories import make_candidate, make_node
from tests.htmx import HX

pytestmark = pytest.mark.django_db


def url(name: Any, *args: Any) -> Any:
    return reverse(f"review:{name}", args=args)


PROMOTE = {"label": "Piano", "category": "skill", "state": "active"}


# --- who may see what ------------------------------------------------------------------------


def candidate_posts(candidate_id: Any, node_id: Any) -> Any:
    return [
        (url("candidate-promote", candidate_id), PROMOTE),
        (url("candidate-reject", candidate_id), {}),
        (url("candidate-suppress", candidate_id), {"until": "week"}),
        (url("candidate-merge", candidate_id), {"node": node_id, "add_alias": "1"}),
        (url("candidate-undo", candidate_id), {}),
    ]


def test_anonymous_visitors_are_sent_to_login(
    client: Client, piano: Candidate, boxing: Node
) -> None:
    gets = [
        url("queue"),
        url("candidate", piano.pk),
        url("candidate-merge-pick", piano.pk),
        url("uploads"),
    ]
    for path in gets:
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    for path, data in [*candidate_posts(piano.pk, boxing.pk), (url("bulk"), {"ids": [piano.pk]})]:
        response = client.post(path, data)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    assert Candidate.objects.get(pk=piano.pk).status == "pending"


def test_home_redirects_to_the_queue(owner_client: Client) -> None:
    response = owner_client.get("/")
    assert response.status_code == 302 and response["Location"] == url("queue")


def test_another_users_candidates_are_404_and_never_change(
    other_client: Client, piano: Candidate, boxing: Node
) -> None:
    for path in [url("candidate", piano.pk), url("candidate-merge-pick", piano.pk)]:
        assert other_client.get(path).status_code == 404
        assert other_client.get(path, **HX).status_code == 404
    for path, data in candidate_posts(piano.pk, boxing.pk):
        assert other_client.post(path, data).status_code == 404, path
        assert other_client.post(path, data, **HX).status_code == 404, path
    piano.refresh_from_db()
    assert piano.status == "pending"
    assert not Receipt.objects.exists()


def test_another_users_queue_does_not_show_mine(other_client: Client, piano: Candidate) -> None:
    response = other_client.get(url("queue"))
    assert response.status_code == 200
    assert b"Piano" not in response.content
    assert b"Nothing to review" in response.content


def test_merging_into_another_users_node_is_404(
    owner_client: Client, piano: Candidate, other_user: User
) -> None:
    theirs = make_node(owner=other_user, label="Theirs")
    response = owner_client.post(url("candidate-merge", piano.pk), {"node": theirs.pk}, **HX)
    assert response.status_code == 404
    piano.refresh_from_db()
    assert piano.status == "pending"


def test_bulk_ignores_another_users_ids(other_client: Client, piano: Candidate) -> None:
    response = other_client.post(url("bulk"), {"ids": [piano.pk], "action": "reject"})
    assert response.status_code == 302
    piano.refresh_from_db()
    assert piano.status == "pending"


# --- the queue page --------------------------------------------------------------------------


def test_queue_shows_a_card_with_everything_to_decide(
    owner_client: Client, piano: Candidate, boxing: Node
) -> None:
    response = owner_client.get(url("queue"))
    html = response.content.decode()
    assert response.status_code == 200
    assert f'id="candidate-{piano.pk}"' in html
    assert "I started piano lessons" in html  # the evidence quote
    assert "May belong to" in html and reverse("memory:node", args=[boxing.pk]) in html
    assert 'name="label" value="Piano"' in html
    assert 'id="pending-count"' in html and 'aria-label="1 pending"' in html
    assert 'id="keys-help"' in html and "js/triage.js" in html
    assert "<html" in html


def test_queue_htmx_returns_only_the_queue_region(owner_client: Client, piano: Candidate) -> None:
    response = owner_client.get(url("queue"), **HX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="queue"')
    assert "<html" not in html


def test_the_whole_queue_sorted_by_recency_is_paginated(owner_client: Client, owner: User) -> None:
    now = timezone.now()
    for i in range(25):
        make_candidate(owner=owner, label=f"Guess {i:02d}", last_seen_at=now - timedelta(hours=i))
    first = owner_client.get(url("queue") + "?view=all&sort=recent").content.decode()
    assert first.index("Guess 00") < first.index("Guess 01")
    assert "Guess 24" not in first and "page 1 of 2" in first
    second = owner_client.get(url("queue") + "?view=all&sort=recent&page=2").content.decode()
    assert "Guess 24" in second and "Guess 00" not in second


def test_empty_queue_says_what_to_do_next(owner_client: Client) -> None:
    html = owner_client.get(url("queue")).content.decode()
    assert "Nothing to review" in html and reverse("review:uploads") in html


def _queue_queries(client: Any, django_assert_num_queries: Any, expected: Any) -> None:
    with django_assert_num_queries(expected):
        assert client.get(url("queue") + "?view=all").status_code == 200


def test_queue_query_count_does_not_grow_with_rows(
    owner_client: Client,
    owner: User,
    boxing: Node,
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    def add(n: Any) -> None:
        for i in range(n):
            label = f"Guess {i} {Candidate.objects.count()}"
            c = make_candidate(owner=owner, label=label, possible_existing_node=boxing)
            transcript = Transcript.objects.create(
                owner=owner, name=f"{label}.txt", text=label, sha256=label
            )
            Evidence.objects.create(
                owner=owner, candidate=c, quote=f"quote {i}", transcript=transcript
            )

    add(1)
    # session, user, the source filter's transcripts, count, page, evidence with
    # its transcripts' names, the pending badge, the guesses cleanup expired lately
    _queue_queries(owner_client, django_assert_num_queries, 8)
    add(12)
    _queue_queries(owner_client, django_assert_num_queries, 8)
    rejected = Candidate.objects.first()
    assert rejected is not None
    owner_client.post(url("candidate-reject", rejected.pk))
    _queue_queries(owner_client, django_assert_num_queries, 9)  # + the last decision (undo)


# --- promote ---------------------------------------------------------------------------------


def test_promote_with_an_edited_label_swaps_the_card(
    owner_client: Client, piano: Candidate
) -> None:
    data = {"label": "Piano lessons", "category": "habit", "state": "paused", "keep_guess": "1"}
    response = owner_client.post(url("candidate-promote", piano.pk), data, **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<article id="candidate-{piano.pk}"')
    assert "data-decided" in html and "Promoted “Piano lessons”" in html
    assert url("candidate-undo", piano.pk) in html
    assert 'id="pending-count"' in html and 'hx-swap-oob="true"' in html
    assert 'aria-label="0 pending"' in html
    node = Node.objects.get(label="Piano lessons")
    assert (node.category, node.state) == ("habit", "paused")
    assert node.evidence.filter(quote="I started piano lessons").exists()  # provenance
    assert Alias.objects.filter(node=node, alias="Piano").exists()


def test_a_renamed_promotion_without_the_checkbox_keeps_no_alias(
    owner_client: Client, piano: Candidate
) -> None:
    data = {"label": "Piano lessons", "category": "habit", "state": "active"}
    assert 'name="keep_guess"' in owner_client.get(url("queue")).content.decode()
    owner_client.post(url("candidate-promote", piano.pk), data, **HX)
    assert not Alias.objects.filter(node__label="Piano lessons").exists()


def test_promote_without_javascript_redirects_with_a_message(
    owner_client: Client, piano: Candidate
) -> None:
    response = owner_client.post(url("candidate-promote", piano.pk), PROMOTE, follow=True)
    assert response.redirect_chain == [(url("queue"), 302)]
    assert "Promoted “Piano”" in response.content.decode()
    assert "Undo" in response.content.decode()  # the undo bar for the last decision


def test_promote_with_a_bad_form_keeps_the_card_and_says_why(
    owner_client: Client, piano: Candidate
) -> None:
    data = {"label": "Piano", "category": "nonsense", "state": "active"}
    response = owner_client.post(url("candidate-promote", piano.pk), data, **HX)
    assert response.status_code == 409
    html = response.content.decode()
    assert f'id="candidate-{piano.pk}"' in html and 'class="error"' in html
    assert "data-decided" not in html
    piano.refresh_from_db()
    assert piano.status == "pending"


def test_promote_a_suppressed_label_is_refused_with_a_message(
    owner_client: Client, owner: User, piano: Candidate
) -> None:
    Suppression.objects.create(
        owner=owner, kind="node", canonical_key="piano", label="Piano", reason="manual"
    )
    response = owner_client.post(url("candidate-promote", piano.pk), PROMOTE, **HX)
    assert response.status_code == 409
    assert "is suppressed" in response.content.decode()
    assert not Node.objects.filter(label="Piano").exists()


# --- already decided and double submits ------------------------------------------------------


@pytest.mark.parametrize(
    "name,data",
    [
        ("candidate-promote", PROMOTE),
        ("candidate-reject", {}),
        ("candidate-suppress", {"until": "month"}),
    ],
)
def test_a_double_submit_writes_once_and_says_so(
    owner_client: Client, piano: Candidate, name: Any, data: Any
) -> None:
    first = owner_client.post(url(name, piano.pk), data, **HX)
    assert first.status_code == 200
    writes = (
        Receipt.objects.count(),
        Node.objects.count(),
        Suppression.objects.count(),
        Alias.objects.count(),
    )
    second = owner_client.post(url(name, piano.pk), data, **HX)
    assert second.status_code == 200  # a clear message, not an error page
    assert "was already" in second.content.decode()
    assert "nothing was changed" in second.content.decode()
    after = (
        Receipt.objects.count(),
        Node.objects.count(),
        Suppression.objects.count(),
        Alias.objects.count(),
    )
    assert after == writes


def test_acting_on_a_candidate_decided_in_another_tab(
    owner_client: Client, owner: User, piano: Candidate, boxing: Node
) -> None:
    piano.status = "rejected"
    piano.save(update_fields=["status"])
    response = owner_client.post(
        url("candidate-merge", piano.pk), {"node": boxing.pk, "add_alias": "1"}, follow=True
    )
    assert response.status_code == 200
    assert "“Piano” was already rejected; nothing was changed" in response.content.decode()
    assert not Receipt.objects.exists()
    assert not Alias.objects.filter(alias="Piano").exists()


# --- reject, suppress ------------------------------------------------------------------------


def test_reject_writes_no_suppression(owner_client: Client, piano: Candidate) -> None:
    response = owner_client.post(url("candidate-reject", piano.pk), **HX)
    assert response.status_code == 200 and "Rejected “Piano”" in response.content.decode()
    piano.refresh_from_db()
    assert piano.status == "rejected"
    assert not Suppression.objects.exists()


def test_reject_and_forget_from_the_reject_form(owner_client: Client, piano: Candidate) -> None:
    page = owner_client.get(reverse("review:queue")).content.decode()
    assert 'name="forget" value="1"' in page and "Reject &amp; forget what was said" in page
    response = owner_client.post(url("candidate-reject", piano.pk), {"forget": "1"}, **HX)
    body = response.content.decode()
    assert response.status_code == 200 and "what was said about it is forgotten" in body
    piano.refresh_from_db()
    assert piano.status == "suppressed"
    suppression = Suppression.objects.get()
    assert (suppression.reason, suppression.suppressed_until) == ("forgotten", None)
    # without JavaScript: the button's own name and value, then a redirect
    other = make_candidate(owner=piano.owner, label="Chess")
    response = owner_client.post(url("candidate-reject", other.pk), {"forget": "1"})
    assert response.status_code == 302
    assert Suppression.objects.filter(canonical_key="chess", reason="forgotten").exists()


@pytest.mark.parametrize("choice,days", [("week", 7), ("month", 30), ("forever", None)])
def test_suppress_with_a_time_box(
    owner_client: Client, piano: Candidate, choice: Any, days: Any
) -> None:
    response = owner_client.post(url("candidate-suppress", piano.pk), {"until": choice})
    assert response.status_code == 302
    suppression = Suppression.objects.get()
    assert suppression.canonical_key == "piano"
    if days is None:
        assert suppression.suppressed_until is None
    else:
        assert suppression.suppressed_until is not None
        left = suppression.suppressed_until - timezone.now()
        assert timedelta(days=days - 1) < left <= timedelta(days=days)
    piano.refresh_from_db()
    assert piano.status == "suppressed"


def test_suppress_with_a_bad_time_box_is_refused(owner_client: Client, piano: Candidate) -> None:
    response = owner_client.post(url("candidate-suppress", piano.pk), {"until": "decade"}, **HX)
    assert response.status_code == 409
    assert not Suppression.objects.exists()


# --- merge -----------------------------------------------------------------------------------


def test_merge_picker_searches_as_you_type(
    owner_client: Client, piano: Candidate, boxing: Node, owner: User
) -> None:
    make_node(owner=owner, label="Atlas", category="project")
    response = owner_client.get(url("candidate-merge-pick", piano.pk) + "?q=box", **HX)
    html = response.content.decode()
    assert html.lstrip().startswith(f'<fieldset id="picker-{piano.pk}"')
    assert f'value="{boxing.pk}"' in html and "Atlas" not in html
    by_alias = owner_client.get(url("candidate-merge-pick", piano.pk) + "?q=boxe", **HX)
    assert f'value="{boxing.pk}"' in by_alias.content.decode()
    nothing = owner_client.get(url("candidate-merge-pick", piano.pk) + "?q=zzz", **HX)
    assert "No memory matches" in nothing.content.decode()


def test_a_card_renders_no_merge_form_until_its_merge_section_opens(
    owner_client: Client, piano: Candidate
) -> None:
    html = owner_client.get(url("queue")).content.decode()
    form = url("candidate-merge-form", piano.pk)
    assert f'hx-get="{form}" hx-trigger="toggle once" hx-target="#merge-{piano.pk}"' in html
    assert f'<div id="merge-{piano.pk}">' in html
    assert url("candidate-merge", piano.pk) + '"' not in html  # no merge form yet
    assert url("candidate-merge-pick", piano.pk) in html  # without JavaScript: the merge page


def test_opening_merge_fetches_the_cards_merge_form(
    owner_client: Client, piano: Candidate, boxing: Node
) -> None:
    response = owner_client.get(url("candidate-merge-form", piano.pk), **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    # The swap target: the element that replaces the placeholder, under its id.
    assert html.lstrip().startswith(f'<form id="merge-{piano.pk}" method="post"')
    assert f'action="{url("candidate-merge", piano.pk)}"' in html
    assert f'id="picker-{piano.pk}"' in html and f'id="merge-preview-{piano.pk}"' in html
    assert f'value="{boxing.pk}"' in html and "(suggested)" in html


def test_the_merge_form_without_javascript_is_the_merge_page(
    owner_client: Client, piano: Candidate
) -> None:
    response = owner_client.get(url("candidate-merge-form", piano.pk))
    assert response.status_code == 302
    assert response["Location"] == url("candidate-merge-pick", piano.pk)


def test_the_merge_form_of_a_decided_guess_says_so(owner_client: Client, piano: Candidate) -> None:
    owner_client.post(url("candidate-reject", piano.pk))
    html = owner_client.get(url("candidate-merge-form", piano.pk), **HX).content.decode()
    assert html.lstrip().startswith(f'<div id="merge-{piano.pk}">')
    assert "nothing to merge" in html and url("candidate-merge", piano.pk) + '"' not in html


def test_the_merge_form_is_the_owners_only(
    client: Client, other_client: Client, piano: Candidate
) -> None:
    form = url("candidate-merge-form", piano.pk)
    assert other_client.get(form, **HX).status_code == 404
    assert other_client.get(form).status_code == 404
    other_client.logout()
    response = client.get(form, **HX)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_merge_form_reads_a_constant_number_of_queries(
    owner_client: Client,
    owner: User,
    piano: Candidate,
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    # session, user, the candidate with its possible node, pending badge
    with django_assert_num_queries(4):
        owner_client.get(url("candidate-merge-form", piano.pk), **HX)


def test_merge_picker_is_a_page_of_its_own_without_javascript(
    owner_client: Client, piano: Candidate, boxing: Node
) -> None:
    response = owner_client.get(url("candidate-merge-pick", piano.pk) + "?q=box")
    html = response.content.decode()
    assert "<html" in html and f'id="picker-{piano.pk}"' in html
    assert f'action="{url("candidate-merge", piano.pk)}"' in html


def test_merge_picker_never_offers_another_users_nodes(
    owner_client: Client, piano: Candidate, other_user: User
) -> None:
    make_node(owner=other_user, label="Boxing club")
    html = owner_client.get(url("candidate-merge-pick", piano.pk) + "?q=club", **HX)
    assert "Boxing club" not in html.content.decode()


def test_merge_keeps_the_label_as_an_alias(
    owner_client: Client, piano: Candidate, boxing: Node
) -> None:
    data = {"node": boxing.pk, "add_alias": "1"}
    response = owner_client.post(url("candidate-merge", piano.pk), data, **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "Merged into “Boxing”" in html
    assert Alias.objects.filter(node=boxing, alias="Piano").exists()
    assert boxing.evidence.filter(quote="I started piano lessons").exists()


def test_merge_with_the_alias_unticked(
    owner_client: Client, piano: Candidate, boxing: Node
) -> None:
    owner_client.post(url("candidate-merge", piano.pk), {"node": boxing.pk}, **HX)
    piano.refresh_from_db()
    assert piano.status == "merged"
    assert not Alias.objects.filter(alias="Piano").exists()


def test_merge_without_a_node_says_pick_one(owner_client: Client, piano: Candidate) -> None:
    response = owner_client.post(url("candidate-merge", piano.pk), {}, **HX)
    assert response.status_code == 409
    assert "Pick a memory to merge into" in response.content.decode()


# --- undo ------------------------------------------------------------------------------------


def test_undo_puts_the_card_back(owner_client: Client, piano: Candidate) -> None:
    owner_client.post(url("candidate-promote", piano.pk), PROMOTE, **HX)
    response = owner_client.post(url("candidate-undo", piano.pk), **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<article id="candidate-{piano.pk}" class="card pending"')
    assert 'aria-label="1 pending"' in html
    assert not Node.objects.filter(label="Piano").exists()
    again = owner_client.post(url("candidate-undo", piano.pk), **HX)
    assert again.status_code == 409 and "no decision to undo" in again.content.decode()


def test_undo_without_javascript(owner_client: Client, piano: Candidate) -> None:
    owner_client.post(url("candidate-suppress", piano.pk), {"until": "forever"})
    response = owner_client.post(url("candidate-undo", piano.pk), follow=True)
    assert "is back in the queue" in response.content.decode()
    assert not Suppression.objects.exists()


def test_undo_too_late(owner_client: Client, piano: Candidate) -> None:
    owner_client.post(url("candidate-reject", piano.pk))
    Receipt.objects.update(created_at=timezone.now() - timedelta(hours=1))
    response = owner_client.post(url("candidate-undo", piano.pk), follow=True)
    assert "too old to undo" in response.content.decode()
    piano.refresh_from_db()
    assert piano.status == "rejected"


# --- bulk ------------------------------------------------------------------------------------


def test_bulk_reject_and_bulk_suppress(owner_client: Client, owner: User) -> None:
    a, b, c = (make_candidate(owner=owner, label=x) for x in ("Alpha", "Beta", "Gamma"))
    response = owner_client.post(
        url("bulk"), {"ids": [a.pk, b.pk], "action": "reject"}, follow=True
    )
    assert "Rejected “Alpha” and “Beta”." in response.content.decode()
    response = owner_client.post(
        url("bulk"), {"ids": [b.pk, c.pk], "action": "suppress", "until": "week"}, follow=True
    )
    assert "Suppressed “Gamma”. 1 was already decided or not found." in response.content.decode()
    statuses = dict(Candidate.objects.values_list("label_guess", "status"))
    assert statuses == {"Alpha": "rejected", "Beta": "rejected", "Gamma": "suppressed"}
    assert list(Suppression.objects.values_list("canonical_key", flat=True)) == ["gamma"]


def test_bulk_reject_offers_an_undo_that_puts_them_back(owner_client: Client, owner: User) -> None:
    a, b = (make_candidate(owner=owner, label=x) for x in ("Alpha", "Beta"))
    page = owner_client.post(
        url("bulk"), {"ids": [a.pk, b.pk], "action": "suppress"}, follow=True
    ).content.decode()
    assert url("bulk-undo") in page and "Undo 2 decisions" in page
    batch = Receipt.objects.for_owner(owner).get(detail__action="batch")
    response = owner_client.post(url("bulk-undo"), {"batch": batch.pk}, follow=True)
    assert "Undone: “Alpha” and “Beta” back in the queue." in response.content.decode()
    assert set(Candidate.objects.values_list("status", flat=True)) == {"pending"}
    assert not Suppression.objects.exists()
    assert url("bulk-undo") not in response.content.decode()


def test_bulk_undo_ignores_another_users_ids(
    other_client: Client, owner: User, piano: Candidate
) -> None:

    from memory.services.triage import candidates_batch

    done = candidates_batch(owner=owner, candidates=[piano], action="reject", by=owner)
    assert done.receipt is not None
    assert other_client.post(url("bulk-undo"), {"batch": done.receipt.pk}).status_code == 404
    piano.refresh_from_db()
    assert piano.status == "rejected"


def test_bulk_with_nothing_selected(owner_client: Client) -> None:
    response = owner_client.post(url("bulk"), {"action": "reject"}, follow=True)
    assert "Select at least one card first." in response.content.decode()


def test_get_is_not_allowed_on_actions(owner_client: Client, piano: Candidate) -> None:
    assert owner_client.get(url("candidate-reject", piano.pk)).status_code == 405
    assert owner_client.get(url("bulk")).status_code == 405


def test_a_card_opened_directly_is_a_full_page_without_stray_swaps(
    owner_client: Client, piano: Candidate
) -> None:
    response = owner_client.get(url("candidate", piano.pk))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert f'id="candidate-{piano.pk}"' in html and 'class="sidenav"' in html
    assert "hx-swap-oob" not in html
    fragment = owner_client.get(url("candidate", piano.pk), **HX).content.decode()
    assert fragment.lstrip().startswith(f'<article id="candidate-{piano.pk}"')


def test_a_decision_updates_the_queue_heading_count_out_of_band(
    owner_client: Client, owner: User, piano: Candidate
) -> None:
    make_candidate(owner=owner, label="Chess")
    page = owner_client.get(url("queue")).content.decode()
    assert '<span id="queue-count">2 pending</span>' in page
    html = owner_client.post(url("candidate-reject", piano.pk), **HX).content.decode()
    assert '<span id="queue-count" hx-swap-oob="true">1 pending</span>' in html
    assert 'aria-label="1 pending"' in html


# --- filters and sort ------------------------------------------------------------------------


def _queue_labels(html: Any) -> Any:
    import re

    return re.findall(r'<h2 id="label-\d+">([^<]+)</h2>', html)


def test_the_queue_filters_by_category_and_sorts_by_confidence(
    owner_client: Client, owner: User
) -> None:
    make_candidate(owner=owner, label="Piano", category_guess="skill", confidence=0.6)
    make_candidate(owner=owner, label="Chess", category_guess="skill", confidence=0.9)
    make_candidate(owner=owner, label="Lisbon", category_guess="place", confidence=0.8)
    skills = owner_client.get(url("queue"), {"category": "skill", "sort": "confidence"})
    assert _queue_labels(skills.content.decode()) == ["Chess", "Piano"]
    low = owner_client.get(url("queue"), {"sort": "least_confident"}).content.decode()
    assert _queue_labels(low) == ["Piano", "Lisbon", "Chess"]


def test_the_queue_filters_show_what_was_asked_for(owner_client: Client, owner: User) -> None:
    make_candidate(owner=owner, label="Piano", category_guess="skill")
    response = owner_client.get(url("queue"), {"category": "skill", "sort": "confidence"})
    html = response.content.decode()
    assert '<select name="category" id="id_category">' in html
    assert '<option value="skill" selected>' in html
    assert '<option value="confidence" selected>' in html
    assert '<option value="" selected>any source</option>' in html
    assert html.count(" selected>") == 3 + 2  # the three filters, the card's category and state


def test_the_queue_filters_by_source_transcript(owner_client: Client, owner: User) -> None:
    first = Transcript.objects.create(owner=owner, name="monday.txt", text="a", sha256="a" * 64)
    second = Transcript.objects.create(owner=owner, name="tuesday.txt", text="b", sha256="b" * 64)
    piano = make_candidate(owner=owner, label="Piano")
    chess = make_candidate(owner=owner, label="Chess")
    Evidence.objects.create(owner=owner, candidate=piano, transcript=first, quote="piano")
    Evidence.objects.create(owner=owner, candidate=chess, transcript=second, quote="chess")
    page = owner_client.get(url("queue"), {"view": "all"}).content.decode()
    assert ">monday.txt</option>" in page and ">tuesday.txt</option>" in page
    html = owner_client.get(url("queue"), {"transcript": first.pk}, **HX).content.decode()
    assert html.lstrip().startswith('<section id="queue"')
    assert _queue_labels(html) == ["Piano"]


def test_a_bad_queue_filter_is_a_400_that_says_so(
    owner_client: Client, owner: User, other_user: User
) -> None:
    theirs = Transcript.objects.create(owner=other_user, name="x.txt", text="x", sha256="c" * 64)
    for query in ({"sort": "loudest"}, {"category": "nope"}, {"transcript": theirs.pk}):
        response = owner_client.get(url("queue"), query)
        assert response.status_code == 400
        assert "That filter can’t be read" in response.content.decode()


def test_an_empty_filtered_queue_says_so(owner_client: Client, owner: User) -> None:
    make_candidate(owner=owner, label="Piano", category_guess="skill")
    html = owner_client.get(url("queue"), {"category": "place"}).content.decode()
    assert "No guesses match this filter" in html


def test_promoting_under_an_existing_memorys_name_shows_the_merge_first(
    owner_client: Client, piano: Candidate, boxing: Node
) -> None:
    """Typing an existing label (or alias) into the promote box is a merge: the person is
    taken to the merge preview of that memory, and nothing is merged unseen."""
    data = {"label": "boxing", "category": "skill", "state": "paused"}
    pick = url("candidate-merge-pick", piano.pk) + f"?node={boxing.pk}"
    response = owner_client.post(url("candidate-promote", piano.pk), data, **HX)
    assert response.status_code == 200 and response["HX-Redirect"] == pick
    response = owner_client.post(url("candidate-promote", piano.pk), data)
    assert response.status_code == 302 and response["Location"] == pick
    piano.refresh_from_db()
    boxing.refresh_from_db()
    assert piano.status == "pending" and boxing.state == "active"
    assert list(Alias.objects.filter(node=boxing).values_list("alias", flat=True)) == ["boxe"]
    page = owner_client.get(pick).content.decode()
    assert "Merging into “Boxing” will:" in page
