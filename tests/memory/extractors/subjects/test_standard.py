"""One label per spelling of a subject, never one for two people a title tells apart."""

from __future__ import annotations

from memory.extractors.subjects.standard import spelling_key


def test_titles_of_a_man_and_of_a_woman_are_two_spellings() -> None:
    assert spelling_key("Mrs Achebe") != spelling_key("Mr Achebe")
    assert spelling_key("Ms Achebe") != spelling_key("Mr Achebe")


def test_other_spellings_of_one_subject_still_share_a_key() -> None:
    assert spelling_key("Mr Achebe") == spelling_key("the Mr Achebe")
    assert spelling_key("Knitting Circle") == spelling_key("Knitting Circles")
