"""HTML and Markdown read as text, for extraction and for labels."""

from __future__ import annotations

from typing import Any

import pytest

from memory.keys import canonical_key
from memory.markup import label_text, markup_to_text


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (
            "I use a tool called <b>R&amp;D Tracker</b> daily.",
            "I use a tool called R&D Tracker daily.",
        ),
        ("<p>First line.</p><p>Second <i>line</i>.</p>", "First line.\nSecond line."),
        (
            "My manager is [Ines Carvalho](https://example.com/ines).",
            "My manager is Ines Carvalho.",
        ),
        (
            "## About me\n- I'm a **product designer** at *Lumen Studio*",
            "About me\n- I'm a product designer at Lumen Studio",
        ),
        ("I write `C++` and __Rust__.", "I write C++ and Rust."),
        ("> I quit smoking in May.", "I quit smoking in May."),
        (
            "Plain text stays: snake_case, 2*3*4, a < b, O'Neill.",
            "Plain text stays: snake_case, 2*3*4, a < b, O'Neill.",
        ),
    ],
)
def test_markup_is_read_as_text(raw: Any, text: Any) -> None:
    assert markup_to_text(raw) == text


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("  I moved to Leeds.\t\tWe love it  ", "I moved to Leeds. We love it"),
        ("First line.\n\n \n\nSecond line.\n", "First line.\nSecond line."),
        ("no marks at all", "no marks at all"),
    ],
)
def test_text_without_a_mark_is_only_respaced(raw: str, text: str) -> None:
    # A text holding none of the characters a mark is made of skips the markup passes; its
    # spaces and blank lines are still made what they are for a text with marks.
    assert markup_to_text(raw) == text
    assert markup_to_text("*Note:* " + raw) == "Note: " + text


def test_a_long_text_reads_as_a_short_one_does() -> None:
    # Texts over the kept length are read each time, not kept: the same reading.
    line = "My sister **Ana** moved to [Porto](https://example.com/porto).  "
    raw = line * 400
    assert len(raw) > 20_000
    assert markup_to_text(raw) == " ".join(["My sister Ana moved to Porto."] * 400)
    assert markup_to_text(raw) == markup_to_text(raw)


def test_fenced_code_is_left_for_the_splitter_to_skip() -> None:
    raw = "Here:\n```py\nx = `1`\n```\nThen I **left**."
    assert markup_to_text(raw) == "Here:\n```py\nx = `1`\n```\nThen I left."


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("<b>R&amp;D Tracker</b>", "R&D Tracker"),
        ("**Figma**", "Figma"),
        ("[Node.js](https://nodejs.org)", "Node.js"),
        ("  AT&amp;T  ", "AT&T"),
        ("<b>R", "<b>R"),  # an open tag alone is a cut name: left for the label check
        ("D Tracker</b>", "D Tracker</b>"),
    ],
)
def test_label_text_removes_only_balanced_markup(raw: Any, label: Any) -> None:
    assert label_text(raw) == label


@pytest.mark.parametrize(
    ("a", "b"),
    [("D Tracker</b>", "D Tracker"), ("<i>Figma</i>", "figma"), ("R&amp;D", "R&D")],
)
def test_marked_up_spellings_share_a_key(a: Any, b: Any) -> None:
    assert canonical_key(a) == canonical_key(b)
