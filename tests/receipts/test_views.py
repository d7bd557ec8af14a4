"""The Saves page: filters as a GET form (a bad value is a 400), row summaries, the plan,
the chart, and the owner's receipts only."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from memory.models import Receipt
from receipts.chart import stacked_chart
from tests.factories import make_node
from tests.htmx import HX

pytestmark = pytest.mark.django_db
SAVES = reverse("receipts:list")


def make_receipt(
    owner: Any, *, outcome: Any = "wrote", source: Any = "upload", days_ago: Any = 0, **fields: Any
) -> Any:
    fields.setdefault("summary", f"{outcome} via {source}")
    return Receipt.objects.create(
        owner=owner,
        outcome=outcome,
        source=source,
        created_at=timezone.now() - timedelta(days=days_ago),
        **fields,
    )


def test_anonymous_visitors_are_sent_to_login(client: Client, owner: User) -> None:
    receipt = make_receipt(owner)
    for path in [SAVES, reverse("receipts:detail", args=[receipt.pk])]:
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_another_users_receipts_are_404_and_never_listed(other_client: Client, owner: User) -> None:
    receipt = make_receipt(owner, summary="my secret save")
    assert other_client.get(reverse("receipts:detail", args=[receipt.pk])).status_code == 404
    html = other_client.get(SAVES).content.decode()
    assert "my secret save" not in html and "No saves yet" in html


def test_rows_newest_first_with_summary_counts_and_plan(owner_client: Client, owner: User) -> None:
    node = make_node(owner=owner, label="Atlas", category="project")
    make_receipt(owner, summary="older one", days_ago=2)
    make_receipt(
        owner,
        summary="1 node (Atlas), 3 slices; skipped 1: suppressed",
        counts={"nodes": 1, "slices": 3, "nodes_updated": 0},
        rejected=[{"kind": "node", "label": "Piano", "reason": "suppressed_blocked"}],
        detail={"created": {"nodes": [{"id": node.pk, "label": "Atlas"}]}},
    )
    html = owner_client.get(SAVES).content.decode()
    assert html.index("1 node (Atlas)") < html.index("older one")
    assert "<details>" in html and "<strong>3</strong> facts" in html
    assert "<strong>1</strong> new memory<" in html  # not "1 nodes"
    assert "“Piano”: suppressed" in html
    assert reverse("memory:node", args=[node.pk]) in html
    assert "<svg" in html  # the chart


@pytest.mark.parametrize(
    "query,shown,hidden",
    [
        ("outcome=llm_failed", "llm_failed via api", "wrote via upload"),
        ("source=api", "llm_failed via api", "wrote via upload"),
        ("outcome=wrote&source=upload", "wrote via upload", "llm_failed via api"),
    ],
)
def test_filters(owner_client: Client, owner: User, query: Any, shown: Any, hidden: Any) -> None:
    make_receipt(owner, outcome="wrote", source="upload")
    make_receipt(owner, outcome="llm_failed", source="api")
    html = owner_client.get(f"{SAVES}?{query}").content.decode()
    assert shown in html and hidden not in html


def test_date_range_filter(owner_client: Client, owner: User) -> None:
    make_receipt(owner, summary="ten days ago", days_ago=10)
    make_receipt(owner, summary="today")
    start = (timezone.localdate() - timedelta(days=11)).isoformat()
    end = (timezone.localdate() - timedelta(days=9)).isoformat()
    html = owner_client.get(f"{SAVES}?start={start}&end={end}").content.decode()
    assert "ten days ago" in html and ">today<" not in html


def test_filtered_with_no_match_says_so(owner_client: Client, owner: User) -> None:
    make_receipt(owner)
    html = owner_client.get(f"{SAVES}?outcome=duplicate").content.decode()
    assert "No saves match this filter" in html


@pytest.mark.parametrize(
    "query",
    [
        "outcome=bogus",
        "source=nowhere",
        "start=yesterday",
        "end=2026-13-40",
        "start=2026-05-02&end=2026-05-01",
    ],
)
def test_bad_filter_values_are_a_400_page(owner_client: Client, owner: User, query: Any) -> None:
    make_receipt(owner)
    response = owner_client.get(f"{SAVES}?{query}")
    assert response.status_code == 400
    assert "That filter can’t be read" in response.content.decode()


def test_htmx_filter_returns_the_results_region(owner_client: Client, owner: User) -> None:
    make_receipt(owner)
    html = owner_client.get(f"{SAVES}?outcome=wrote", **HX).content.decode()
    assert html.lstrip().startswith('<section id="saves-results"')
    assert "<html" not in html


def test_saves_query_count_does_not_grow_with_rows(
    owner_client: Client, owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    make_receipt(owner)
    # session, user, count, page, chart, pending badge
    with django_assert_num_queries(6):
        owner_client.get(SAVES)
    for i in range(30):
        make_receipt(owner, outcome=["wrote", "duplicate", "llm_failed"][i % 3], days_ago=i % 9)
    with django_assert_num_queries(6):
        owner_client.get(SAVES)


def test_receipt_detail_links_what_it_wrote(owner_client: Client, owner: User) -> None:
    receipt = make_receipt(owner, summary="wrote Atlas")
    node = make_node(owner=owner, label="Atlas", category="project", created_receipt=receipt)
    html = owner_client.get(reverse("receipts:detail", args=[receipt.pk])).content.decode()
    assert "wrote Atlas" in html and reverse("memory:node", args=[node.pk]) in html
    assert 'id="receipt-actions"' in html


def test_chart_stacks_days_by_outcome() -> None:
    today = timezone.localdate()
    chart = stacked_chart(
        {today: {"wrote": 3, "llm_failed": 1}, today - timedelta(days=1): {"duplicate": 2}},
        today - timedelta(days=6),
        today,
    )
    assert chart.total == 6
    assert [o for o, _label, _n in chart.legend] == ["wrote", "llm_failed", "duplicate"]
    last_day = [r for r in chart.rects if r.title.startswith(f"{today:%d %b}")]
    assert [r.outcome for r in last_day] == ["wrote", "llm_failed"]
    # stacked: the second bar sits on top of the first
    assert last_day[1].y + last_day[1].h == pytest.approx(last_day[0].y)
    assert last_day[0].h == pytest.approx(3 * last_day[1].h)


def test_chart_of_a_quiet_system_is_empty_not_broken() -> None:
    today = timezone.localdate()
    chart = stacked_chart({}, today - timedelta(days=29), today)
    assert chart.total == 0 and chart.rects == () and chart.legend == ()


def test_an_upload_row_names_its_file(owner_client: Client, owner: User) -> None:
    make_receipt(owner, source="upload", subject="monday-chat.txt", summary="2 candidates")
    html = owner_client.get(SAVES).content.decode()
    assert '<span class="file">monday-chat.txt</span>: 2 candidates' in html


def test_no_write_and_duplicate_have_distinct_chart_colours() -> None:
    import re
    from pathlib import Path

    from django.conf import settings

    css = (Path(settings.BASE_DIR) / "static" / "css" / "ume.css").read_text()

    def fill(outcome: Any) -> Any:
        found = re.search(rf"\.o-{outcome} {{ fill: (#[0-9a-f]{{6}})", css)
        assert found is not None
        return found.group(1)

    def rgb(colour: Any) -> Any:
        return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]

    a, b = rgb(fill("meaningful_no_write")), rgb(fill("duplicate"))
    # Far apart, not two greys: their distance in RGB is well above a shade's.
    assert sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5 > 100
