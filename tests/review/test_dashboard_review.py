"""Hostile review of the dashboard: query strings and form input that crashed, HTMX swaps that
broke their own target, and query counts pinned on the pages that had none."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from memory.models import Candidate, Receipt
from tests.factories import make_candidate, make_edge, make_node, make_suppression
from tests.htmx import HX

pytestmark = pytest.mark.django_db

SAVES = reverse("receipts:list")
HUGE = "9" * 25  # far past any integer column


def make_receipt(owner: Any, **fields: Any) -> Any:
    fields.setdefault("summary", "wrote Atlas")
    return Receipt.objects.create(owner=owner, outcome="wrote", source="upload", **fields)


# --- the Saves filter: dates at the edge of the calendar ----------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "end=9999-12-31",  # end + 1 day overflowed
        "start=9999-12-31",
        "end=0001-01-01",  # the 30-day chart window before it overflowed
        "start=0001-01-01&end=0001-01-02",
    ],
)
def test_saves_dates_at_the_edge_of_the_calendar_are_a_400_not_a_crash(
    owner_client: Client, owner: User, query: Any
) -> None:
    make_receipt(owner)
    for headers in ({}, HX):
        response = owner_client.get(f"{SAVES}?{query}", **headers)
        assert response.status_code == 400, query
        assert "That filter can’t be read" in response.content.decode()


def test_saves_from_a_future_day_without_an_end_is_an_empty_chart_not_a_crash(
    owner_client: Client, owner: User
) -> None:
    make_receipt(owner)
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    response = owner_client.get(f"{SAVES}?start={tomorrow}")
    assert response.status_code == 200
    assert "No saves match this filter" in response.content.decode()


# --- HTMX: a bad filter swaps the region it targets, not a whole page ---------------------------


@pytest.mark.parametrize(
    ("path", "region"),
    [
        (f"{SAVES}?start=2026-05-02&end=2026-05-01", "saves-results"),  # From after To, via the UI
        (f"{SAVES}?outcome=bogus", "saves-results"),
        (reverse("memory:nodes") + "?category=nope", "node-results"),
    ],
)
def test_a_bad_htmx_filter_swaps_its_region_with_the_error(
    owner_client: Client, owner: User, path: Any, region: Any
) -> None:
    response = owner_client.get(path, **HX)
    html = response.content.decode()
    assert response.status_code == 400
    # hx-target is #<region> with outerHTML: the answer must be that region again, or the
    # page nests a whole document in it and the next filter change has no target.
    assert html.lstrip().startswith(f'<section id="{region}"'), html[:200]
    assert "<html" not in html and "That filter can’t be read" in html
    full = owner_client.get(path).content.decode()
    assert "<html" in full and "That filter can’t be read" in full


# --- bulk and merge: ids past any integer column --------------------------------------------------


def test_bulk_with_an_id_past_the_integer_column_is_refused_not_a_crash(
    owner_client: Client, piano: Candidate
) -> None:
    data = {"ids": [HUGE, str(piano.pk)], "action": "reject"}
    response = owner_client.post(reverse("review:bulk"), data, follow=True)
    assert response.status_code == 200
    assert "Bad selection" in response.content.decode()
    assert Candidate.objects.get(pk=piano.pk).status == "pending"


@pytest.mark.parametrize("headers", [{}, HX])
def test_merge_into_an_id_past_the_integer_column_is_not_a_crash(
    owner_client: Client, piano: Candidate, headers: Any
) -> None:
    path = reverse("review:candidate-merge", args=[piano.pk])
    response = owner_client.post(path, {"node": HUGE, "add_alias": "1"}, **headers)
    assert response.status_code in (302, 404, 409)
    assert Candidate.objects.get(pk=piano.pk).status == "pending"


# --- query counts on the pages that had none ----------------------------------------------------


def _grow_suppressions(owner: Any, n: Any) -> None:
    now = timezone.now()
    for i in range(n):
        make_suppression(owner=owner, label=f"Sup {i} {now.timestamp()}", hit_count=i)
        make_suppression(
            owner=owner,
            label=f"Old {i} {now.timestamp()}",
            suppressed_until=now - timedelta(days=1),
            last_hit_at=now - timedelta(days=2),
        )


def _grow_graph(owner: Any, n: Any) -> None:
    hub = make_node(owner=owner, label=f"Hub {timezone.now().timestamp()}", category="project")
    for i in range(n):
        node = make_node(
            owner=owner, label=f"Leaf {i} {hub.pk}", aliases=(f"leaf alias {i} {hub.pk}",)
        )
        make_edge(from_node=hub, to_node=node)


def _grow_queue(owner: Any, n: Any) -> None:
    from memory.models import Evidence, Transcript

    for i in range(n):
        label = f"Guess {i} {Candidate.objects.count()}"
        c = make_candidate(owner=owner, label=label, category_guess="interest", confidence=0.6)
        transcript = Transcript.objects.create(
            owner=owner, name=f"{label}.txt", text=label, sha256=label
        )
        Evidence.objects.create(owner=owner, candidate=c, quote=f"quote {i}", transcript=transcript)


def _grow_saves(owner: Any, n: Any) -> None:
    for i in range(n):
        Receipt.objects.create(
            owner=owner,
            source=["api", "mcp", "command"][i % 3],
            outcome=["wrote", "duplicate", "llm_failed"][i % 3],
            summary=f"save {i}",
            created_at=timezone.now() - timedelta(days=i % 9),
        )


@pytest.mark.parametrize(
    ("path", "grow", "queries"),
    [
        # session, user, suppressions, pending badge
        (reverse("memory:suppressions"), _grow_suppressions, 4),
        # session, user, nodes, edges, pending badge
        (reverse("memory:graph"), _grow_graph, 5),
        (reverse("memory:graph") + "?category=project", _grow_graph, 5),
        # session, user, facets (which give the count), page, aliases, pending badge
        (reverse("memory:nodes"), _grow_graph, 6),
        (reverse("memory:nodes") + "?category=skill&state=active", _grow_graph, 6),
        # session, user, the source filter's transcripts, count, page, evidence, pending badge,
        # the guesses cleanup expired lately
        (reverse("review:queue") + "?category=interest&sort=confidence", _grow_queue, 8),
        # session, user, count, page, chart, pending badge
        (reverse("receipts:list") + "?outcome=wrote&source=api", _grow_saves, 6),
        (reverse("receipts:list") + "?outcome=wrote", _grow_saves, 6),
    ],
)
def test_list_pages_query_count_does_not_grow(
    owner_client: Client,
    owner: User,
    django_assert_num_queries: DjangoAssertNumQueries,
    path: Any,
    grow: Any,
    queries: Any,
) -> None:
    grow(owner, 1)
    with django_assert_num_queries(queries):
        assert owner_client.get(path).status_code == 200
    grow(owner, 15)
    with django_assert_num_queries(queries):
        assert owner_client.get(path).status_code == 200


def test_merge_picker_query_count_does_not_grow(
    owner_client: Client, owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    candidate = make_candidate(owner=owner, label="Leaf")
    path = reverse("review:candidate-merge-pick", args=[candidate.pk]) + "?q=leaf"
    _grow_graph(owner, 1)
    # session, user, candidate, nodes, their aliases, pending badge
    with django_assert_num_queries(6):
        assert owner_client.get(path, **HX).status_code == 200
    _grow_graph(owner, 10)
    with django_assert_num_queries(6):
        assert owner_client.get(path, **HX).status_code == 200
