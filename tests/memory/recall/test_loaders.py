"""Recall's index loaders (memory.recall.loaders): what they read, on both databases."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.models import RecallTerm
from memory.recall.loaders import load_postings

pytestmark = pytest.mark.django_db


def _postings(owner: User, term: str, kinds: tuple[str, ...], documents: int) -> None:
    """``term`` in ``documents`` documents of each kind, with frequencies 1 to 3 so that
    many tie, and the same ids in each kind so that ties go down to the kind."""
    RecallTerm.objects.bulk_create(
        RecallTerm(owner=owner, term=term, kind=kind, ref_id=i, tf=float(i % 3 + 1), length=4.0)
        for kind in kinds
        for i in range(1, documents + 1)
    )


@pytest.mark.parametrize("kinds", [("node", "page"), ("episode",)])
def test_when_every_word_is_common_its_first_postings_are_those_of_one_sorted_read(
    owner: User, other_user: User, kinds: tuple[str, ...]
) -> None:
    for who in (owner, other_user):
        _postings(who, "walk", kinds, 12)
        _postings(who, "dog", kinds, 12)
    # The reference: every posting of the least common word in one read, sorted by
    # frequency, then the newest, then the kind, and cut at the cap.
    expected = list(
        RecallTerm.objects.for_owner(owner)
        .filter(term="dog")
        .order_by("-tf", "-ref_id", "-kind")
        .values_list("kind", "ref_id", "tf")[:7]
    )
    assert len({kind for kind, _id, _tf in expected}) == len(kinds)
    df = {"dog": 12 * len(kinds) - 1, "walk": 12 * len(kinds)}
    with CaptureQueriesContext(connection) as captured:
        postings = load_postings(owner, ["walk", "dog"], kinds, per_term=7, df=df)
    seed = [(kind, ref_id, tf) for term, kind, ref_id, tf, _length in postings if term == "dog"]
    assert seed == expected
    # the other word is read in those documents only, and with its own frequency
    walk = {(kind, ref_id): tf for term, kind, ref_id, tf, _length in postings if term == "walk"}
    assert walk == {(kind, ref_id): float(ref_id % 3 + 1) for kind, ref_id, _tf in expected}
    assert len(captured.captured_queries) == 2  # the first postings, then the other word's
    # fewer candidates when asked: the first of the same order, still within the cap
    fewer = load_postings(owner, ["walk", "dog"], kinds, per_term=7, seed_postings=4, df=df)
    assert [(k, i, tf) for term, k, i, tf, _length in fewer if term == "dog"] == expected[:4]
    assert {(k, i) for term, k, i, _tf, _length in fewer if term == "walk"} == {
        (k, i) for k, i, _tf in expected[:4]
    }


def test_a_common_words_postings_are_read_in_the_documents_found_by_id_only(
    owner: User, other_user: User
) -> None:
    for who in (owner, other_user):
        _postings(who, "walk", ("node", "page"), 30)
    RecallTerm.objects.bulk_create(
        RecallTerm(owner=owner, term="fjord", kind=kind, ref_id=ref_id, tf=1.0, length=4.0)
        for kind, ref_id in [("node", 3), ("page", 3), ("page", 17)]
    )
    postings = load_postings(
        owner, ["walk", "fjord"], ("node", "page"), per_term=5, df={"walk": 60, "fjord": 3}
    )
    assert sorted((term, kind, ref_id) for term, kind, ref_id, _tf, _length in postings) == [
        ("fjord", "node", 3),
        ("fjord", "page", 3),
        ("fjord", "page", 17),
        ("walk", "node", 3),
        ("walk", "page", 3),
        ("walk", "page", 17),
    ]
