"""Given names the world over: a name English's nickname lists do not know is still a
person's name, and a word English knows as a word or a well-known place is not one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from memory.extractors.subjects import phrases
from memory.extractors.subjects.framing import categories, given_name
from memory.extractors.subjects.given_names import _names_in, world_given_name, world_names


def test_the_lists_are_read_from_the_installed_package() -> None:
    assert len(world_names()) > 20_000
    assert all(name == name.lower() and name.isalpha() for name in world_names())
    assert {"aoife", "siobhan", "lennart"} <= world_names()


def test_every_way_a_provider_writes_its_lists_is_read() -> None:
    source = textwrap.dedent(
        """
        class Provider:
            first_names_female = OrderedDict((("Maebh", 0.1), ("Orla", 0.2)))
            first_names_male = ("Cian", "Darragh")
            first_names_nonbinary = {"Rowan": 0.5}
            first_names = first_names_male + first_names_female
            last_names = ("Byrne",)
        """
    )
    assert _names_in(source) == {"maebh", "orla", "cian", "darragh", "rowan"}


def test_the_lists_are_read_without_importing_faker() -> None:
    code = textwrap.dedent(
        """
        import os, sys
        import django
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
        django.setup()
        from memory.extractors.subjects.given_names import world_names
        assert len(world_names()) > 20_000
        print(any(m == "faker" or m.startswith("faker.") for m in sys.modules))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


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
