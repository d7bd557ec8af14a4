"""Real Chromium: a card held because it looks like something the person asked to forget shows
the suppression it resembles; promoting it asks to lift or keep that suppression, in place
(HTMX, under the page's CSP), and each answer is carried out."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Candidate, Node, Suppression
from memory.services.ingest import ingest_text
from memory.services.review import candidate_reject

pytestmark = pytest.mark.browser


def _held_card(person: Any) -> tuple[Candidate, Suppression]:
    ingest_text(
        owner=person,
        text="User: My ex-husband Dan is picking the kids up on Friday.\nAssistant: Noted.\n",
        name="first",
    )
    dan = Candidate.objects.for_owner(person).get(label_guess="Dan")
    suppression = candidate_reject(candidate=dan, by=person, forget=True)
    assert suppression is not None
    ingest_text(
        owner=person,
        text="User: My ex Danny is picking the kids up on Friday.\nAssistant: Noted.\n",
        name="later",
    )
    return Candidate.objects.for_owner(person).get(label_guess="Danny"), suppression


@pytest.mark.parametrize("answer", ["keep", "lift"])
def test_promoting_a_held_card_asks_and_does_what_the_person_chose(
    signed_in: Any, person: Any, answer: str
) -> None:
    page = signed_in
    card, suppression = _held_card(person)
    page.goto("/review/")
    article = page.locator(f"#candidate-{card.pk}")
    held = article.locator(".held")
    assert "looks like something you asked to forget" in held.inner_text()
    assert "Dan" in held.inner_text() and f"suppression {suppression.pk}" in held.inner_text()
    article.get_by_role("button", name="Promote").click()
    question = page.locator(f"#candidate-{card.pk}.held-choice")
    question.wait_for()
    assert "looks like something you asked to forget" in question.inner_text()
    assert not Node.objects.for_owner(person).exists()  # nothing written before the answer
    button = "Keep the suppression" if answer == "keep" else "Lift the suppression"
    question.get_by_role("button", name=button).click()
    page.locator(f"#candidate-{card.pk}.decided").wait_for()
    assert Node.objects.for_owner(person).get().label == "Danny"
    suppression.refresh_from_db()
    if answer == "keep":
        assert suppression.lifted_at is None and suppression.exceptions == ["danny"]
    else:
        assert suppression.lifted_at is not None
