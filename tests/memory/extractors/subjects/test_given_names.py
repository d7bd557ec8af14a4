"""Given names the world over: a name English's nickname lists do not know is still a
person's name, and a word English knows as a word or a well-known place is not one."""

from __future__ import annotations

import pytest

from memory.extractors.subjects import phrases
from memory.extractors.subjects.framing import categories, given_name
from memory.extractors.subjects.given_names import world_given_name, world_names


def test_the_lists_are_read_from_the_installed_package() -> None:
    assert len(world_names()) > 10_000
    assert all(name == name.lower() and name.isalpha() for name in world_names())


@pytest.mark.parametrize("word", ["siobhan", "Priya", "lennart", "Chiamaka", "wojciech"])
def test_a_given_name_english_does_not_know_is_one(word: str) -> None:
    assert world_given_name(word)
    assert given_name(word)


@pytest.mark.parametrize("word", ["hope", "Summer", "will", "Paris", "london", "quernstone"])
def test_a_word_or_a_well_known_place_is_no_given_name(word: str) -> None:
    assert not world_given_name(word)


def test_the_nickname_lists_still_count() -> None:
    assert given_name("Dan") and not world_given_name("dan")


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("I baked sourdough with Chiamaka yesterday and it was lovely.", "Chiamaka"),
        ("Lennart showed me how to plane the walnut properly.", "Lennart"),
    ],
)
def test_a_world_given_name_is_a_person_whatever_the_sentence_is_about(
    sentence: str, name: str
) -> None:
    (phrase,) = [p for p in phrases(sentence) if p.label == name]
    assert categories([(phrase, "", sentence)]) == ["person"]
