"""The review queue at scale: "start here", the grouped views, batches on a selection or a
group and their undo, expired guesses and restore; for the owner, another user and an
anonymous visitor, with their query counts pinned."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from memory.models import Candidate, Evidence, Node, Receipt, Transcript
from memory.services.cleanup import cleanup_run
from memory.services.triage import candidates_batch
from tests.factories import make_candidate
from tests.htmx import HX

pytestmark = pytest.mark.django_db

SAID = datetime(2022, 3, 4, 19, 30, tzinfo=UTC)


def url(name: str, *args: Any) -> str:
    return reverse(f"review:{name}", args=args)


def labels(html: str) -> list[str]:
    return [unescape(x) for x in re.findall(r'<h2 id="label-\d+">([^<]+)</h2>', html)]


def statuses(owner: Any) -> dict[str, str]:
    return dict(Candidate.objects.for_owner(owner).values_list("label_guess", "status"))


def conversation(owner: Any, name: str, *cards: Candidate) -> Transcript:
    transcript = Transcript.objects.create(
        owner=owner, name=name, text=name, sha256=name, source_time=SAID
    )
    for card in cards:
        Evidence.objects.create(
            owner=owner, candidate=card, transcript=transcript, quote=f"about {card}"
        )
    return transcript


def expired_guess(owner: Any, label: str) -> Candidate:
    card = make_candidate(
        owner=owner, label=label, confidence=0.6, last_seen_at=timezone.now() - timedelta(days=20)
    )
    cleanup_run(now=timezone.now(), user=owner)
    card.refresh_from_db()
    assert card.status == "expired"
    return card


# --- who may see and do what -----------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_login(client: Client, owner: User) -> None:
    (card,) = [make_candidate(owner=owner, label="Chess")]
    gets = [url("groups", "subject"), url("groups", "category"), url("expired")]
    for path in gets:
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    posts = [
        (url("bulk"), {"ids": [card.pk], "action": "promote"}),
        (
            url("batch-group"),
            {"by": "category", "key": "skill", "upto": card.pk, "action": "reject"},
        ),
        (url("bulk-undo"), {"batch": 1}),
        (url("restore"), {"ids": [card.pk]}),
    ]
    for path, data in posts:
        response = client.post(path, data)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    assert statuses(owner) == {"Chess": "pending"}


def test_nobody_sees_or_acts_on_another_persons_guesses(
    other_client: Client, owner: User, other_user: User
) -> None:
    mine = make_candidate(owner=owner, label="Pepper", category_guess="family")
    conversation(owner, "Vet questions", mine)
    gone = expired_guess(owner, "Naples")
    for by in ("subject", "category", "conversation"):
        html = other_client.get(url("groups", by)).content.decode()
        assert "Pepper" not in html and "Vet questions" not in html, by
    assert "Naples" not in other_client.get(url("expired")).content.decode()
    assert "Pepper" not in other_client.get(url("queue")).content.decode()
    other_client.post(url("bulk"), {"ids": [mine.pk], "action": "promote"})
    for by, key in (("category", "family"), ("subject", str(mine.pk))):
        data = {"by": by, "key": key, "upto": mine.pk, "action": "reject"}
        other_client.post(url("batch-group"), data)
    other_client.post(url("restore"), {"ids": [gone.pk]})
    other_client.post(url("restore"), {"receipt": gone.expired_receipt_id})
    assert statuses(owner) == {"Pepper": "pending", "Naples": "expired"}
    batch = candidates_batch(owner=owner, candidates=[mine], action="reject", by=owner)
    assert batch.receipt is not None
    assert other_client.post(url("bulk-undo"), {"batch": batch.receipt.pk}).status_code == 404
    assert statuses(owner)["Pepper"] == "rejected"
    assert not Node.objects.exists()


# --- start here ------------------------------------------------------------------------------


def test_the_queue_opens_on_the_guesses_most_worth_the_time(
    owner_client: Client, owner: User
) -> None:
    now = timezone.now()
    for i in range(25):
        make_candidate(owner=owner, label=f"Once {i:02d}", last_seen_at=now - timedelta(hours=i))
    make_candidate(owner=owner, label="Pepper", session_count=9, mention_count=14)
    make_candidate(owner=owner, label="Lisbon", session_count=4, mention_count=5)
    html = owner_client.get(url("queue")).content.decode()
    shown = labels(html)
    assert len(shown) == 20 and shown[:3] == ["Pepper", "Lisbon", "Once 00"]
    assert "Start here" in html and "27 pending" in html
    assert 'id="id_category"' not in html  # the filters belong to the whole queue
    assert f'href="{url("queue")}?view=all"' in html
    assert labels(owner_client.get(url("queue"), {"view": "all"}).content.decode())[:2] == [
        "Pepper",
        "Lisbon",
    ]
    fragment = owner_client.get(url("queue"), **HX).content.decode()
    assert fragment.lstrip().startswith('<section id="queue"') and "Pepper" in fragment


def test_a_card_says_when_it_was_said_not_when_it_was_imported(
    owner_client: Client, owner: User
) -> None:
    make_candidate(
        owner=owner,
        label="Pepper",
        first_said_at=SAID,
        last_said_at=SAID + timedelta(days=500),
        session_count=3,
    )
    make_candidate(owner=owner, label="Naples", first_said_at=SAID, last_said_at=SAID)
    html = owner_client.get(url("queue")).content.decode()
    assert "in 3 conversations" in html and "in one conversation" in html
    said = 'said <time datetime="2022-03-04T19:30:00+00:00" data-said>4 Mar 2022, 19:30</time>'
    assert f"{said} to " in html
    assert ">17 Jul 2023, 19:30</time>" in html
    assert html.count("data-said>4 Mar 2022, 19:30</time>") == 2
    assert f'proposed <time datetime="{timezone.now():%Y-%m-%d}' in html


# --- groups ----------------------------------------------------------------------------------


def test_the_queue_grouped_by_subject_category_and_conversation(
    owner_client: Client, owner: User
) -> None:
    pepper = make_candidate(owner=owner, label="Pepper", category_guess="family", session_count=5)
    vet = make_candidate(owner=owner, label="Pepper's vet", category_guess="health")
    swim = make_candidate(owner=owner, label="Sea swimming", category_guess="interest")
    conversation(owner, "Dog training tips", pepper, vet)
    conversation(owner, "Cold water", swim)
    subjects = owner_client.get(url("groups", "subject")).content.decode()
    assert re.findall(r'<h2 id="group-title-[^"]+">([^<]+)</h2>', subjects) == [
        "Pepper",
        "Sea swimming",
    ]
    assert labels(subjects) == ["Pepper", "Pepper's vet", "Sea swimming"]
    categories = owner_client.get(url("groups", "category")).content.decode()
    assert re.findall(r'<h2 id="group-title-[^"]+">([^<]+)</h2>', categories) == [
        "Family",
        "Interest",
        "Health",
    ]
    conversations = owner_client.get(url("groups", "conversation")).content.decode()
    assert "Dog training tips" in conversations and ">4 Mar 2022</time>" in conversations
    assert conversations.index("Dog training tips") < conversations.index("Cold water")
    fragment = owner_client.get(url("groups", "subject"), **HX).content.decode()
    assert fragment.lstrip().startswith('<section id="groups"')
    assert owner_client.get(url("groups", "colour")).status_code == 404


def test_a_group_shows_its_first_cards_and_links_to_the_rest(
    owner_client: Client, owner: User
) -> None:
    pepper = make_candidate(owner=owner, label="Pepper", session_count=5)
    for thing in ("vet", "lead", "bed", "walks"):
        make_candidate(owner=owner, label=f"Pepper's {thing}")
    make_candidate(owner=owner, label="Lisbon")
    html = owner_client.get(url("groups", "subject")).content.decode()
    assert "and 2 more: show all 5" in html
    link = f"{url('queue')}?view=all&amp;subject={pepper.pk}"
    assert link in html
    rest = owner_client.get(f"{url('queue')}?view=all&subject={pepper.pk}").content.decode()
    assert sorted(labels(rest)) == sorted(
        ["Pepper", "Pepper's vet", "Pepper's lead", "Pepper's bed", "Pepper's walks"]
    )


def test_a_batch_on_a_group_decides_the_group_as_it_was_shown(
    owner_client: Client, owner: User
) -> None:
    chess = make_candidate(owner=owner, label="Chess", category_guess="interest")
    tea = make_candidate(owner=owner, label="Tea", category_guess="interest")
    make_candidate(owner=owner, label="Lisbon", category_guess="place")
    page = owner_client.get(url("groups", "category")).content.decode()
    upto = int(re.search(r'name="upto" value="(\d+)"', page).group(1))  # type: ignore[union-attr]
    late = make_candidate(owner=owner, label="Bonsai", category_guess="interest")  # after
    data = {
        "by": "category",
        "key": "interest",
        "upto": upto,
        "action": "suppress",
        "until": "month",
        "next": url("groups", "category"),
    }
    response = owner_client.post(url("batch-group"), data, follow=True)
    assert response.redirect_chain[-1][0] == url("groups", "category")
    html = response.content.decode()
    assert "Suppressed “Chess” and “Tea”." in html or "Suppressed “Tea” and “Chess”." in html
    assert statuses(owner) == {
        "Chess": "suppressed",
        "Tea": "suppressed",
        "Lisbon": "pending",
        "Bonsai": "pending",
    }
    assert late.pk > upto and chess.pk <= upto and tea.pk <= upto
    assert "Undo 2 decisions" in html


def test_a_batch_goes_back_only_to_a_page_of_the_queue(owner_client: Client, owner: User) -> None:
    card = make_candidate(owner=owner, label="Chess")
    for target in ("https://elsewhere.example/", "//elsewhere.example/review/", "/admin/"):
        data = {"ids": [card.pk], "action": "reject", "next": target}
        response = owner_client.post(url("bulk"), data)
        assert response["Location"] == url("queue"), target
        Candidate.objects.filter(pk=card.pk).update(status="pending")


def test_batch_promote_and_one_undo_of_it(owner_client: Client, owner: User) -> None:
    chess, tea = (make_candidate(owner=owner, label=x) for x in ("Chess", "Tea"))
    html = owner_client.post(
        url("bulk"), {"ids": [chess.pk, tea.pk], "action": "promote"}, follow=True
    ).content.decode()
    assert "Promoted “Chess” and “Tea”." in html
    assert "Last: promoted 2 guesses" in html and "Undo 2 decisions" in html
    assert set(Node.objects.for_owner(owner).values_list("label", flat=True)) == {"Chess", "Tea"}
    batch = Receipt.objects.for_owner(owner).get(detail__action="batch")
    html = owner_client.post(url("bulk-undo"), {"batch": batch.pk}, follow=True).content.decode()
    assert "Undone: “Chess” and “Tea” back in the queue." in html
    assert not Node.objects.exists() and set(statuses(owner).values()) == {"pending"}
    again = owner_client.post(url("bulk-undo"), {"batch": batch.pk}, follow=True)
    assert "that batch was already undone" in again.content.decode()


def test_a_single_decision_replaces_the_batch_on_the_undo_bar(
    owner_client: Client, owner: User
) -> None:
    chess, tea = (make_candidate(owner=owner, label=x) for x in ("Chess", "Tea"))
    owner_client.post(url("bulk"), {"ids": [chess.pk], "action": "reject"})
    owner_client.post(url("candidate-reject", tea.pk))
    html = owner_client.get(url("queue")).content.decode()
    assert "Last: “Tea” Rejected." in html and "Undo 1 decision" not in html


# --- expired ---------------------------------------------------------------------------------


def test_expired_guesses_are_announced_listed_and_restored(
    owner_client: Client, owner: User
) -> None:
    naples = expired_guess(owner, "Naples")
    make_candidate(owner=owner, label="Chess")
    queue = owner_client.get(url("queue")).content.decode()
    assert "Cleanup expired 1 guess lately" in queue and url("expired") in queue
    html = owner_client.get(url("expired")).content.decode()
    assert labels(html) == ["Naples"]
    assert (
        f'Expired by cleanup <a href="{url("expired")}?receipt={naples.expired_receipt_id}"' in html
    )
    mine = owner_client.get(
        f"{url('expired')}?receipt={naples.expired_receipt_id}"
    ).content.decode()
    assert f'name="receipt" value="{naples.expired_receipt_id}"' in mine
    response = owner_client.post(
        url("restore"), {"receipt": naples.expired_receipt_id, "next": url("expired")}, follow=True
    )
    assert "Back in the queue: “Naples”" in response.content.decode()
    assert statuses(owner) == {"Naples": "pending", "Chess": "pending"}
    nothing = owner_client.post(url("restore"), {"ids": [naples.pk]}, follow=True)
    assert "Nothing to restore: those guesses are no longer expired." in nothing.content.decode()
    empty = owner_client.post(url("restore"), {}, follow=True)
    assert "Select at least one expired guess first." in empty.content.decode()


# --- query counts ------------------------------------------------------------------------------


def _grow(owner: Any, n: int) -> None:
    base = Candidate.objects.count()
    for i in range(n):
        card = make_candidate(
            owner=owner,
            label=f"Subject {base + i}",
            category_guess=["skill", "place", "interest", "health"][i % 4],
        )
        make_candidate(owner=owner, label=f"Subject {base + i} club")
        conversation(owner, f"chat {base + i}", card)
        expired = make_candidate(
            owner=owner, label=f"Gone {base + i}", status="expired", confidence=0.6
        )
        Evidence.objects.create(owner=owner, candidate=expired, quote="once")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # session, user, pending badge, cards, their evidence, expired lately
        (url("queue"), 6),
        # session, user, badge, groups, first cards by window, cards, evidence, newest id,
        # expired lately
        (url("groups", "category"), 9),
        # session, user, badge, keys of every guess, cards, evidence, newest id, expired lately
        (url("groups", "subject"), 8),
        # session, user, badge, group count, groups, their guesses, cards, evidence, newest
        # id, expired lately
        (url("groups", "conversation"), 10),
        # session, user, badge, count, page, evidence, expired lately
        (url("expired"), 7),
    ],
)
def test_queue_pages_read_a_constant_number_of_queries(
    owner_client: Client,
    owner: User,
    django_assert_num_queries: DjangoAssertNumQueries,
    path: str,
    expected: int,
) -> None:
    _grow(owner, 2)
    with django_assert_num_queries(expected):
        assert owner_client.get(path).status_code == 200
    _grow(owner, 13)
    with django_assert_num_queries(expected):
        assert owner_client.get(path).status_code == 200


def test_the_receipts_say_what_expired_and_what_a_batch_did_and_take_it_back(
    owner_client: Client, owner: User
) -> None:
    naples = expired_guess(owner, "Naples")
    page = owner_client.get(reverse("receipts:detail", args=[naples.expired_receipt_id]))
    html = page.content.decode()
    assert '“Naples” <span class="muted">(one-off)</span>' in html
    assert "<strong>1</strong> one-off guess expired" in html
    assert f"{url('expired')}?receipt={naples.expired_receipt_id}" in html
    chess = make_candidate(owner=owner, label="Chess")
    batch = candidates_batch(owner=owner, candidates=[chess], action="reject", by=owner)
    assert batch.receipt is not None
    html = owner_client.get(reverse("receipts:detail", args=[batch.receipt.pk])).content.decode()
    assert "rejected 1 guess: “Chess”" in html and "Undo this batch" in html
    owner_client.post(url("bulk-undo"), {"batch": batch.receipt.pk})
    assert statuses(owner)["Chess"] == "pending"
    html = owner_client.get(reverse("receipts:detail", args=[batch.receipt.pk])).content.decode()
    assert "Undo this batch" not in html


def test_every_category_is_on_the_one_page(owner_client: Client, owner: User) -> None:
    from memory.vocab import Category

    for category in list(Category.values)[:12]:
        make_candidate(owner=owner, label=f"A {category}", category_guess=category)
    html = owner_client.get(url("groups", "category")).content.decode()
    assert len(re.findall(r'<h2 id="group-title-', html)) == 12
    assert "12 category groups" in html and "page 1 of" not in html
