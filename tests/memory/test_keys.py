"""One canonical key, Unicode-aware."""

from __future__ import annotations

from typing import Any

import pytest

from memory.keys import canonical_key, key_tokens


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Zoë", "Zoe"),
        ("ZOË", "zoe"),
        ("Dr. Kowalski", "dr kowalski"),
        ("  Boxing  ", "boxing"),
        ("UML—College   Society!", "uml college society"),
        ("Straße", "STRASSE"),
        ("Ørsted", "Orsted"),
        ("naïve café", "Naive Cafe"),
        ("ﬁnance", "finance"),  # compatibility ligature
        ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),
        ("Fly.io", "fly io"),
        ("snake_case_name", "snake case name"),
    ],
)
def test_spelling_case_punctuation_and_spacing_never_make_two_keys(a: Any, b: Any) -> None:
    assert canonical_key(a) == canonical_key(b)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Dr. Kowalski", "dr kowalski"),
        ("Zoë", "zoe"),
        ("Москва!", "москва"),
        ("北京 大学", "北京 大学"),
        ("C++", "c"),
        ("", ""),
        ("?!…", ""),
    ],
)
def test_keys(text: Any, key: Any) -> None:
    assert canonical_key(text) == key


@pytest.mark.parametrize(
    ("a", "b"), [("UML", "UML College Society"), ("Rahul", "Raoul"), ("Meera", "Mira")]
)
def test_different_names_keep_different_keys(a: Any, b: Any) -> None:
    assert canonical_key(a) != canonical_key(b)


def test_key_tokens() -> None:
    assert key_tokens("The Atlas—App") == ["the", "atlas", "app"]
    assert key_tokens("   ") == []
