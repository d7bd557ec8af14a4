"""``eval_triage``: how a card is matched to a subject of the generated life, what counts as a
duplicate and as junk, and the command end to end on a small generated history."""

from __future__ import annotations

import io
import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from eval.life_history import generate
from eval.triage import Figures, LifeSubject, _score_cards, _score_start, run_eval, subject_of
from memory.imports.formats import CHATGPT, Conversation, iter_export
from memory.keys import canonical_key
from tests.factories import make_candidate

PEPPER = LifeSubject("dog", frozenset({"pepper"}), frozenset({"greyhound", "dog"}), 40)
SWIM = LifeSubject("hobby", frozenset({"sea", "swimming"}), frozenset({"group", "club"}), 12)
NAPLES = LifeSubject("trip", frozenset({"naples"}), frozenset({"trip"}), 1)
LIFE = [PEPPER, SWIM, NAPLES]


@pytest.mark.parametrize(
    ("label", "subject"),
    [
        ("Pepper", "dog"),
        ("our greyhound Pepper", "dog"),
        ("my dog Pepper", "dog"),
        ("Pepper's vet bill", None),  # a thing of its own, about Pepper
        ("Swimming", "hobby"),
        ("sea swimming group", "hobby"),
        ("Sea", "hobby"),
        ("Naples trip", "trip"),
        ("Electric car", None),
        ("Dog", None),  # only a word it is said with, not its name
    ],
)
def test_a_card_is_about_a_subject_when_it_is_only_a_name_for_it(
    label: str, subject: str | None
) -> None:
    assert subject_of(canonical_key(label), LIFE) == subject


@pytest.mark.django_db
def test_duplicates_and_junk_are_counted_on_the_cards(owner: Any) -> None:
    for label, sessions in [
        ("Pepper", 9),
        ("Greyhound Pepper", 2),
        ("Pepper's vet bill", 1),
        ("Sea swimming", 4),
        ("Because I", 1),
        ("Electric car", 3),
    ]:
        make_candidate(owner=owner, label=label, session_count=sessions)
    make_candidate(owner=owner, label="Naples", status="rejected")
    figures = Figures(conversations=0, seed=None, extractor="rules")
    _score_cards(owner, LIFE, figures)
    _score_start(owner, LIFE, figures)
    assert (figures.cards, figures.duplicates, figures.junk) == (6, 1, 1)
    assert figures.duplicate_labels == [["Greyhound Pepper", "Pepper"]]
    assert figures.junk_labels == ["Because I"]
    assert (figures.life_subjects, figures.life_subjects_found) == (3, 2)
    assert figures.cards_on_life == 3 and figures.stale_values == 0
    assert figures.start_labels[:2] == ["Pepper", "Sea swimming"]
    assert (figures.start_cards, figures.start_on_life, figures.start_recurring) == (6, 3, 3)
    data = figures.as_json()
    assert data["duplicate_rate"] == round(1 / 6, 4) and data["junk_rate"] == round(1 / 6, 4)


@pytest.mark.django_db
def test_a_stored_value_a_writer_forgot_to_set_is_counted(owner: Any) -> None:
    from memory.models import Candidate

    card = make_candidate(owner=owner, label="Pepper")
    Candidate.objects.filter(pk=card.pk).update(session_count=7)  # behind the model's back
    figures = Figures(conversations=0, seed=None, extractor="rules")
    _score_cards(owner, LIFE, figures)
    assert figures.stale_values == 1


@pytest.mark.django_db(transaction=True)
def test_the_command_imports_a_small_history_and_leaves_nobody_behind(tmp_path: Path) -> None:
    history = generate(seed=21, conversations=40)
    export, manifest = tmp_path / "c.json", tmp_path / "m.json"
    export.write_text(json.dumps(history.export))
    manifest.write_text(json.dumps(history.manifest))
    users = get_user_model().objects.count()
    out = StringIO()
    call_command("eval_triage", "--export", str(export), "--manifest", str(manifest), "--json",
                 stdout=out)  # fmt: skip
    data = json.loads(out.getvalue())
    said = sum(
        len(item.messages)
        for _position, item in iter_export(
            io.BytesIO(export.read_bytes()), fmt=CHATGPT, name="c.json", max_element_bytes=1 << 22
        )
        if isinstance(item, Conversation)
    )
    assert data["conversations"] == 40 and data["messages"] == said
    assert data["import_seconds"] > 0 and data["stale_values"] == 0
    assert data["life_subjects"] == len(history.manifest["subjects"])
    assert 0 <= data["duplicates"] <= data["cards"] and 0 <= data["junk"] <= data["cards"]
    if data["cards"]:
        assert data["said_in_history_rate"] == 1.0  # the messages' times, not the import's
    assert get_user_model().objects.count() == users
    table = StringIO()
    call_command("eval_triage", "--conversations", "12", "--seed", "3", stdout=table)
    assert "triage eval: 12 conversations" in table.getvalue()
    assert "duplicates" in table.getvalue() and "junk" in table.getvalue()


def test_the_command_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="go together"):
        call_command("eval_triage", "--export", str(tmp_path / "x.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("eval_triage", "--export", str(bad), "--manifest", str(bad))
    with pytest.raises(CommandError, match="at least 1"):
        call_command("eval_triage", "--conversations", "0")


@pytest.mark.django_db
def test_run_eval_keeps_what_it_imported_for_a_named_person(owner: Any) -> None:
    figures = run_eval(conversations=15, seed=2, owner=owner)
    assert figures.conversations == 15
    assert get_user_model().objects.filter(pk=owner.pk).exists()
    from memory.models import Transcript

    assert Transcript.objects.for_owner(owner).count() == 15


def test_typo_twins_are_one_slip_apart_in_one_long_word() -> None:
    from eval.triage import typo_twins

    keys = {
        1: "electric car",
        2: "electirc car",  # two neighbours swapped
        3: "elcetric car",  # ... elsewhere in the word: a twin of a twin
        4: "electric cars",  # "cars": shorter than five letters, a word of its own
        5: "section for tasks",
        6: "seciton for tasks",
        7: "marian",
        8: "marina",  # one swap apart: a measure, not a fold, counts it as a likely slip
        9: "anna",
        10: "anne",  # four letters: never a slip
        11: "buying an electric car",  # more words: not a twin
    }
    assert typo_twins(keys) == [[1, 2, 3], [5, 6], [7, 8]]
