"""``memory.0075_fold_typos``: guesses stored before it get the fold key that corrects a slip
of the fingers, so a mistyped card and one said right fold into one; the rest are untouched."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memory.models import Candidate
from tests.migrations import apps_before, migrate_to_latest

BEFORE = [("memory", "0074_embeddings_serving_model")]


@pytest.fixture
def before_refold(transactional_db: None) -> Iterator[Any]:
    """The historical apps just before the migration; back to head afterwards."""
    with apps_before(BEFORE) as apps:
        yield apps


def test_mistyped_guesses_get_the_corrected_fold_key(before_refold: Any) -> None:
    user = before_refold.get_model("auth", "User").objects.create(username="old")
    Old = before_refold.get_model("memory", "Candidate")
    rows = {
        label: Old.objects.create(
            owner=user, label_guess=label, canonical_key=key, fold_key=fold
        ).pk
        for label, key, fold in [
            ("Elcetric car", "elcetric car", "elcetric car"),
            ("Pottery classes", "pottery classes", "pottery"),
            ("Annika Berg", "annika berg", "annika berg"),
        ]
    }
    migrate_to_latest()
    folds = dict(Candidate.objects.filter(pk__in=rows.values()).values_list("pk", "fold_key"))
    assert folds[rows["Elcetric car"]] == "electric car"
    assert folds[rows["Pottery classes"]] == "pottery"
    assert folds[rows["Annika Berg"]] == "annika berg"
