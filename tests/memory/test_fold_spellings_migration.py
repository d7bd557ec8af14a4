"""``memory.0076_fold_spellings``: guesses stored before it get the fold key that spells each
word one way, so a card stored as "Colour Theory Society" and one said as "Color Theory
Society" fold into one; the rest are untouched."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memory.models import Candidate
from tests.migrations import apps_before, migrate_to_latest

BEFORE = [("memory", "0075_fold_typos")]


@pytest.fixture
def before_refold(transactional_db: None) -> Iterator[Any]:
    """The historical apps just before the migration; back to head afterwards."""
    with apps_before(BEFORE) as apps:
        yield apps


def test_british_spellings_get_the_one_spelling_fold_key(before_refold: Any) -> None:
    user = before_refold.get_model("auth", "User").objects.create(username="old")
    Old = before_refold.get_model("memory", "Candidate")
    rows = {
        label: Old.objects.create(
            owner=user, label_guess=label, canonical_key=key, fold_key=fold
        ).pk
        for label, key, fold in [
            ("Colour Theory Society", "colour theory society", "colour theory society"),
            ("Anaemia", "anaemia", "anaemia"),
            ("Pouring Rain", "pouring rain", "pouring rain"),
        ]
    }
    migrate_to_latest()
    folds = dict(Candidate.objects.filter(pk__in=rows.values()).values_list("pk", "fold_key"))
    assert folds[rows["Colour Theory Society"]] == "color theory society"
    assert folds[rows["Anaemia"]] == "anemia"
    assert folds[rows["Pouring Rain"]] == "pouring rain"
