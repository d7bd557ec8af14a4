"""The data migrations that fold the keys of guesses stored before a fold rule changed:
``memory.0075_fold_typos`` (a slip of the fingers corrected), ``memory.0076_fold_spellings``
(a word British and American English spell two ways, spelled one way) and
``memory.0077_fold_street_words`` (a short street word at the end said in full). A stored card
and one said another way then fold into one; the rest are untouched."""

from __future__ import annotations

import pytest

from memory.models import Candidate
from tests.migrations import apps_before, migrate_to_latest


def refolded(before: str, rows: list[tuple[str, str, str]]) -> dict[str, str]:
    """Store ``rows`` (label, canonical key, fold key as it was) just before the migration
    after ``before``, migrate to the latest, and give each label's fold key."""
    with apps_before([("memory", before)]) as apps:
        user = apps.get_model("auth", "User").objects.create(username="old")
        Old = apps.get_model("memory", "Candidate")
        pks = {
            label: Old.objects.create(
                owner=user, label_guess=label, canonical_key=key, fold_key=fold
            ).pk
            for label, key, fold in rows
        }
        migrate_to_latest()
        folds = dict(Candidate.objects.filter(pk__in=pks.values()).values_list("pk", "fold_key"))
    return {label: folds[pk] for label, pk in pks.items()}


@pytest.mark.usefixtures("transactional_db")
def test_mistyped_guesses_get_the_corrected_fold_key() -> None:
    folds = refolded(
        "0074_embeddings_serving_model",
        [
            ("Elcetric car", "elcetric car", "elcetric car"),
            ("Pottery classes", "pottery classes", "pottery"),
            ("Annika Berg", "annika berg", "annika berg"),
        ],
    )
    assert folds == {
        "Elcetric car": "electric car",
        "Pottery classes": "pottery",
        "Annika Berg": "annika berg",
    }


@pytest.mark.usefixtures("transactional_db")
def test_british_spellings_get_the_one_spelling_fold_key() -> None:
    folds = refolded(
        "0075_fold_typos",
        [
            ("Colour Theory Society", "colour theory society", "colour theory society"),
            ("Anaemia", "anaemia", "anaemia"),
            ("Pouring Rain", "pouring rain", "pouring rain"),
        ],
    )
    assert folds == {
        "Colour Theory Society": "color theory society",
        "Anaemia": "anemia",
        "Pouring Rain": "pouring rain",
    }


@pytest.mark.usefixtures("transactional_db")
def test_a_short_street_word_gets_the_full_fold_key() -> None:
    folds = refolded(
        "0076_fold_spellings",
        [
            ("Tern Ave", "tern ave", "tern ave"),
            ("Harbour St", "harbour st", "harbor st"),
            ("St Ives", "st ives", "st ives"),
        ],
    )
    assert folds == {
        "Tern Ave": "tern avenue",
        "Harbour St": "harbor street",
        "St Ives": "st ives",
    }
