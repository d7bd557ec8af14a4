"""Recall text: words, stop words and the Porter stemmer (snowballstemmer's original Porter
algorithm)."""

from __future__ import annotations

from typing import Any

import pytest

from memory.recall.text import content, probe, stem, terms, words_of


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (("trained", "training", "trains", "train"), "train"),
        (("prefers", "prefer", "preferred"), "prefer"),
        (("belays", "belay"), "belai"),
        (("projects", "project"), "project"),
        (("ponies", "pony"), "poni"),
        (("caresses",), "caress"),
        (("hopping",), "hop"),
        (("relational",), "relat"),
        (("d1",), "d1"),
        (("go",), "go"),
    ],
)
def test_stem_conflates_inflections(words: Any, expected: Any) -> None:
    assert {stem(w) for w in words} == {expected}


@pytest.mark.parametrize("word", ["running", "hopping", "relational", "generously", "happiness"])
def test_probe_is_a_substring_of_the_word_its_stem_came_from(word: Any) -> None:
    assert probe(stem(word)) in word


def test_terms_drop_stop_words_and_stem_the_rest() -> None:
    assert terms("What did I say about my Swimming lessons?") == ["swim", "lesson"]
    assert content(["a", "x", "7", "kiln"]) == ["7", "kiln"]


def test_words_of_non_ascii_text_are_its_canonical_key_words() -> None:
    assert words_of("Café Zürich, 2026") == ["cafe", "zurich", "2026"]


def test_a_stem_line_holds_the_terms_and_every_stem_in_order() -> None:
    from memory.recall.text import line_stems, line_terms, stem, stem_line, words_of

    for text in (
        "My sister Maya is moving to Lisbon in June, so we want a 3 b",
        "Zoë & the R&amp;D <b>x</b> naïve_thing",
        "",
        "!!!",
        "I I I a 1 22 running runs",
    ):
        line = stem_line(text)
        assert line_terms(line) == terms(text), text
        assert line_stems(line).split() == [stem(w) for w in words_of(text)], text
    assert stem_line("the Dogs ran") == "_the dog ran"
