"""Whose a named subject is: someone whose doing reaches the person, and a name said right
after a negation."""

from __future__ import annotations

import pytest

from memory.extractors.subjects.framing import (
    categories,
    introduced,
    led_by_other_here,
    negated,
    owned,
    serves,
)
from memory.extractors.subjects.phrases import phrases


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("Mrs Tuilagi is teaching me to drive.", ("Mrs", "Tuilagi")),
        ("Benedikt Ahlgren, who cuts my hair, is opening a salon.", ("Benedikt", "Ahlgren")),
        ("Dr. Oyelaran is treating my back.", ("Dr.", "Oyelaran")),
    ],
)
def test_a_person_whose_doing_reaches_the_speaker(sentence: str, words: tuple[str, ...]) -> None:
    assert serves(sentence, words)


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        # Their news, told to the person or to someone of theirs.
        ("Mrs Tuilagi told me she is retiring to Samoa.", ("Mrs", "Tuilagi")),
        ("Mrs Tuilagi is teaching my sister to drive.", ("Mrs", "Tuilagi")),
        # Not the person's life at all, or the person leads the sentence (first_person's).
        ("Mrs Tuilagi is retiring in June.", ("Mrs", "Tuilagi")),
        ("I asked Mrs Tuilagi about my lessons.", ("Mrs", "Tuilagi")),
        # Not a person: no title, no given name, no "who".
        ("Kelvingrove Depot fixed my bike.", ("Kelvingrove", "Depot")),
    ],
)
def test_no_one_else_is_said_to_serve_the_speaker(sentence: str, words: tuple[str, ...]) -> None:
    assert not serves(sentence, words)


def test_a_name_right_after_a_negation() -> None:
    assert negated("I have sailed to Jersey but never to Guernsey.", ("Guernsey",))
    assert not negated("I have sailed to Jersey but never to Guernsey.", ("Jersey",))
    assert negated("I buy flour from Dunmore Mill instead of Tesco.", ("Tesco",))
    assert negated("We haven't met Ilse yet.", ("Ilse",))
    assert not negated("I can't wait to see Ilse on Sunday.", ("Ilse",))


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("Reforge no, my old employer paid for so many courses.", ("Reforge",)),
        ("ice hotel no way too cold and expensive", ("ice", "hotel")),
        ("raised beds no thank you, I have had the same plot for years", ("raised", "beds")),
        ("Dessert table nah, Arjun's mum wants a proper cake.", ("Dessert", "table")),
        ("Webstorm? nope, sticking with VS Code", ("Webstorm",)),
        # or where the sentence trails off
        ("Zurich is so pricey, I'd never 🙈", ("Zurich",)),
        ("a cruise on the Aurora, not for me", ("Aurora",)),
        ("Flybe once, never again!", ("Flybe",)),
    ],
)
def test_a_thing_turned_down_right_after_it_is_named(sentence: str, words: tuple[str, ...]) -> None:
    assert negated(sentence, words)


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("Biscuit no longer sleeps in the crate.", ("Biscuit",)),  # a change of theirs
        ("Pilates no more than twice a week for me.", ("Pilates",)),
        ("Ilse no doubt will love it.", ("Ilse",)),
        ("I joined Saltdean Dippers, no regrets.", ("Saltdean", "Dippers")),
        ("I would never leave Leith for anywhere", ("Leith",)),  # no refusal at the end
    ],
)
def test_no_after_a_name_that_is_no_refusal(sentence: str, words: tuple[str, ...]) -> None:
    assert not negated(sentence, words)


def test_a_name_said_with_my_after_it_is_the_persons() -> None:
    assert owned("Ffion my aunt grows the best tomatoes.", ("Ffion",))
    assert owned("I traced it to my grandmother, Edith Polglase.", ("Edith", "Polglase"))
    assert not owned("Ffion grows the best tomatoes in my street.", ("Ffion",))


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        (
            "Cathal is marrying his girlfriend of 9 years, Sinéad, and I'm giving a speech.",
            ("Sinéad",),
        ),
        ("I'm driving her husband Tomasz to the airport.", ("Tomasz",)),
        ("baby malia was born feb 9, my sis did amazing", ("Malia",)),
        ("Their eldest daughter, Ines Moura, starts school with mine.", ("Ines", "Moura")),
    ],
)
def test_someone_of_another_persons_named_after_the_relation(
    sentence: str, words: tuple[str, ...]
) -> None:
    assert introduced(sentence, words)


@pytest.mark.parametrize(
    ("sentence", "words"),
    [
        ("I walked her dog Max this morning.", ("Max",)),  # a pet of someone else's
        ("His girlfriend lives in Dublin and I visit.", ("Dublin",)),  # not right after it
        ("I met Sinéad at the party.", ("Sinéad",)),  # no relation said
        ("my sister Ana is visiting", ("Ana",)),  # the person's own: owned() reads it
    ],
)
def test_no_one_introduced_by_another_persons_relation(
    sentence: str, words: tuple[str, ...]
) -> None:
    assert not introduced(sentence, words)


@pytest.mark.parametrize(
    ("sentence", "name", "category"),
    [
        ("Oskar (bf) cooked tonight and I washed up", "Oskar", "relationship"),
        ("I asked Wren (my physio) about the stretches", "Wren", "person"),
        ("Quillpad (my side project) got its first user", "Quillpad", "project"),
    ],
)
def test_what_a_name_is_to_the_speaker_in_brackets_makes_it_theirs(
    sentence: str, name: str, category: str
) -> None:
    assert owned(sentence, (name,))
    phrase = next(p for p in phrases(sentence) if p.label == name)
    assert categories([(phrase, "", sentence)]) == [category]


def test_a_bracket_that_says_no_relation_does_not_make_a_name_theirs() -> None:
    assert not owned("Oskar (again) cooked tonight", ("Oskar",))
    assert not owned("Oskar (Ida's bf) cooked tonight", ("Oskar",))


@pytest.mark.parametrize(
    ("sentence", "words", "theirs"),
    [
        # after the speaker, someone else leads the clause the name is in: where they went
        ("i dont share with Bram any more, he moved to Utrecht", ("Utrecht",), False),
        ("I met Saoirse for lunch and she flew to Oslo after", ("Oslo",), False),
        # the speaker leads after them, or no one else leads a clause
        ("she moved out so I took the room in Partick", ("Partick",), True),
        ("we drove to Oban on friday", ("Oban",), True),
        # someone else opens the sentence: its order does not say whose
        ("He wears a Libre sensor now and we are learning to count carbs", ("Libre",), True),
    ],
)
def test_a_name_in_a_clause_someone_else_leads_after_the_speaker_is_not_theirs(
    sentence: str, words: tuple[str, ...], theirs: bool
) -> None:
    assert led_by_other_here(sentence, words) is not theirs
