"""Held cards: a save that speaks of a forgotten thing in other words is held in the queue with
the suppression it resembles; promoting it asks the person to lift or keep that suppression."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.models import Candidate, Node, Receipt, Suppression
from memory.selectors import only_held, without_held
from memory.services.ingest import ingest_text
from memory.services.nodes import suppression_lift
from memory.services.review import (
    ResemblanceUndecided,
    candidate_promote,
    candidate_reject,
    candidate_undo,
)
from tests.htmx import HX

pytestmark = pytest.mark.django_db


def say(owner: User, text: str, name: str) -> Receipt:
    return ingest_text(owner=owner, text=f"User: {text}\nAssistant: Noted.\n", name=name)


@pytest.fixture
def dan(owner: User) -> Suppression:
    """The person said "Dan", then rejected it and forgot what was said about it."""
    say(owner, "My ex-husband Dan is picking the kids up on Friday.", "first")
    card = Candidate.objects.for_owner(owner).get(label_guess="Dan")
    suppression = candidate_reject(candidate=card, by=owner, forget=True)
    assert suppression is not None
    return suppression


@pytest.fixture
def danny(owner: User, dan: Suppression) -> Candidate:
    say(owner, "My ex Danny is picking the kids up on Friday.", "later")
    return Candidate.objects.for_owner(owner).get(label_guess="Danny")


def test_a_nickname_of_a_forgotten_person_is_held_not_written(
    owner: User, dan: Suppression, danny: Candidate
) -> None:
    assert danny.status == "pending" and danny.resembles == dan and danny.held_by == dan
    assert "danny" in danny.held_why and "Dan" in danny.held_why
    assert not Node.objects.for_owner(owner).exists()
    rows = Candidate.objects.for_owner(owner).filter(status="pending")
    assert list(only_held(rows, owner, now=timezone.now())) == [danny]
    assert not without_held(rows, owner, now=timezone.now()).exists()


def test_the_queue_shows_the_held_card_with_the_suppression_it_resembles(
    client: Client, owner: User, dan: Suppression, danny: Candidate
) -> None:
    client.force_login(owner)
    html = client.get(reverse("review:queue")).content.decode()
    assert "Held: looks like something you asked to forget" in html
    assert f"suppression {dan.pk}" in html and "“Dan”" in html


def promote(client: Client, card: Candidate, **extra: str) -> Any:
    data = {"label": card.label_guess, "category": card.category_guess, "state": "active"}
    return client.post(reverse("review:candidate-promote", args=[card.pk]), {**data, **extra}, **HX)


def test_promoting_a_held_card_asks_to_lift_or_keep(
    client: Client, owner: User, dan: Suppression, danny: Candidate
) -> None:
    client.force_login(owner)
    response = promote(client, danny)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<article id="candidate-{danny.pk}"')
    assert 'value="keep"' in html and 'value="lift"' in html
    danny.refresh_from_db()
    assert danny.status == "pending" and not Node.objects.for_owner(owner).exists()
    # Without JavaScript the same question is a page of its own.
    data = {"label": "Danny", "category": danny.category_guess, "state": "active"}
    page = client.post(reverse("review:candidate-promote", args=[danny.pk]), data)
    assert page.status_code == 200 and "<html" in page.content.decode()


def test_keeping_the_suppression_makes_the_memory_its_exception(
    client: Client, owner: User, dan: Suppression, danny: Candidate
) -> None:
    client.force_login(owner)
    response = promote(client, danny, resemblance="keep")
    assert response.status_code == 200
    node = Node.objects.for_owner(owner).get()
    assert node.label == "Danny"
    dan.refresh_from_db()
    assert dan.lifted_at is None and dan.exceptions == ["danny"]
    receipt = Receipt.objects.for_owner(owner).filter(subject="promote: Danny").get()
    assert receipt.detail["resemblance"]["choice"] == "keep"
    assert "kept as an exception" in receipt.summary
    # The name itself stays forgotten.
    say(owner, "Dan called about the school run.", "again")
    assert not Candidate.objects.for_owner(owner).filter(label_guess="Dan", status="pending")


def test_lifting_the_suppression_lifts_it(
    client: Client, owner: User, dan: Suppression, danny: Candidate
) -> None:
    client.force_login(owner)
    promote(client, danny, resemblance="lift")
    assert Node.objects.for_owner(owner).get().label == "Danny"
    dan.refresh_from_db()
    assert dan.lifted_at is not None and dan.exceptions == []
    say(owner, "My ex-husband Dan is picking the kids up on Saturday.", "again")
    card = Candidate.objects.for_owner(owner).get(label_guess="Dan", status="pending")
    assert card.held_by is None


def test_undoing_the_promotion_takes_back_the_lift_or_the_exception(
    owner: User, dan: Suppression, danny: Candidate
) -> None:
    with pytest.raises(ResemblanceUndecided):
        candidate_promote(candidate=danny, by=owner)
    candidate_promote(candidate=danny, by=owner, resemblance="keep")
    candidate_undo(candidate=danny, by=owner)
    dan.refresh_from_db()
    assert dan.exceptions == [] and not Node.objects.for_owner(owner).exists()
    candidate_promote(candidate=danny, by=owner, resemblance="lift")
    candidate_undo(candidate=danny, by=owner)
    dan.refresh_from_db()
    assert dan.lifted_at is None


def test_a_lifted_suppression_holds_nothing_at_once(
    client: Client, owner: User, dan: Suppression, danny: Candidate
) -> None:
    suppression_lift(suppression=dan)
    danny.refresh_from_db()
    assert danny.held_by is None
    client.force_login(owner)
    assert "Held:" not in client.get(reverse("review:queue")).content.decode()
    response = promote(client, danny)  # no question any more
    assert response.status_code == 200 and Node.objects.for_owner(owner).get().label == "Danny"


def test_another_person_never_sees_or_decides_a_held_card(
    client: Client, other_user: User, danny: Candidate
) -> None:
    client.force_login(other_user)
    assert promote(client, danny, resemblance="lift").status_code == 404
    assert "Danny" not in client.get(reverse("review:queue")).content.decode()


def test_the_api_shows_a_held_card_and_promotes_it_only_with_an_answer(
    client: Client, owner: User, dan: Suppression, danny: Candidate
) -> None:
    import json

    from django.core.cache import cache

    from memory.services.tokens import token_create

    cache.clear()
    auth: dict[str, Any] = {
        "HTTP_AUTHORIZATION": f"Bearer {token_create(owner=owner, name='tool')[1]}"
    }
    listed = client.get("/v1/candidates", **auth).json()["candidates"]
    assert listed[0]["held"] == {
        "suppression_id": dan.pk,
        "label": "Dan",
        "why": danny.held_why,
    }
    path = f"/v1/candidates/{danny.pk}/promote"

    def send(body: dict[str, str]) -> Any:
        return client.post(path, json.dumps(body), content_type="application/json", **auth)

    refused = send({})
    assert refused.status_code == 409
    assert refused.json()["code"] == "resembles_forgotten"
    assert refused.json()["suppression_id"] == dan.pk
    assert send({"resemblance": "keep"}).status_code == 200
    dan.refresh_from_db()
    assert dan.exceptions == ["danny"]
    cache.clear()


def test_a_person_named_like_a_word_of_a_forgotten_place_is_promoted_without_asking(
    owner: User,
) -> None:
    """The gate does not hold a teammate named by one word of a forgotten temple's name, and
    promoting that card as a person does not ask about the suppression either; promoted as a
    place, the same word may be the temple said short, and the person decides
    (memory.tombstones.resemblance)."""
    say(owner, "We go to the Sri Murugan Mandir every new year.", "first")
    card = Candidate.objects.for_owner(owner).get(label_guess="Sri Murugan Mandir")
    assert candidate_reject(candidate=card, by=owner, suppress=True) is not None
    say(owner, "My cricket teammate Murugan is getting married in June.", "later")
    card = Candidate.objects.for_owner(owner).get(label_guess="Murugan")
    assert card.category_guess == "person" and card.resembles is None
    with pytest.raises(ResemblanceUndecided):
        candidate_promote(candidate=card, by=owner, category="place")
    node = candidate_promote(candidate=card, by=owner)
    assert node.label == "Murugan" and node.category == "person"
