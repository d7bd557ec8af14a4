"""The query gate: smalltalk and utility refused, recall phrasing stripped, broad profile
words mapped to categories. Pure: no database."""

from __future__ import annotations

from typing import Any

import pytest

from memory.recall.query import (
    REASON_EMPTY,
    REASON_SMALLTALK,
    REASON_UTILITY,
    parse_query,
)


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("", REASON_EMPTY),
        ("   ", REASON_EMPTY),
        ("?!", REASON_EMPTY),
        ("hi", REASON_SMALLTALK),
        ("Hello there!", REASON_SMALLTALK),
        ("thanks a lot", REASON_SMALLTALK),
        ("thank you so much", REASON_SMALLTALK),
        ("ok cool", REASON_SMALLTALK),
        ("Good morning", REASON_SMALLTALK),
        ("how are you?", REASON_SMALLTALK),
        ("what is 2+2", REASON_UTILITY),
        ("12 * 7 =", REASON_UTILITY),
        ("how do I reverse a list in python", REASON_UTILITY),
        ("translate hello to French", REASON_UTILITY),
        ("explain recursion", REASON_UTILITY),
        ("what is the capital of France?", REASON_UTILITY),
    ],
)
def test_gate_refuses_smalltalk_and_utility(query: Any, reason: Any) -> None:
    assert parse_query(query).reason == reason


@pytest.mark.parametrize(
    ("query", "subject"),
    [
        ("What do you remember about Rahul?", "rahul"),
        ("Do you remember Rahul?", "rahul"),
        ("do you remember anything about the boxing", "the boxing"),
        ("Tell me everything you know about Atlas", "atlas"),
        ("tell me everything you remember about Atlas", "atlas"),
        ("Can you recall what I said about football?", "football"),
        ("what did I tell you about my brother", "my brother"),
        ("remind me about the dentist", "the dentist"),
        ("please, what do you know about Meera", "meera"),
        ("Who is Rahul?", "rahul"),
        ("what is Atlas?", "atlas"),
        ("who is working nights", "working nights"),
        ("how do I fix my bike", "how do i fix my bike"),
        ("am I still boxing", "am i still boxing"),
    ],
)
def test_recall_phrasing_is_stripped(query: Any, subject: Any) -> None:
    parsed = parse_query(query)
    assert parsed.reason == ""
    assert " ".join(parsed.subject) == subject


@pytest.mark.parametrize(
    ("query", "categories"),
    [
        ("what are my projects", ("project",)),
        ("my health", ("health",)),
        ("tell me about my family", ("family",)),
        ("list my skills and habits", ("skill", "habit")),
        ("what do you remember about my goals", ("goal",)),
    ],
)
def test_broad_profile_words_map_to_categories(query: Any, categories: Any) -> None:
    assert parse_query(query).profile == categories


def test_targeted_question_with_a_category_word_is_not_a_profile_query() -> None:
    assert parse_query("which of my projects uses Cloudflare Workers").profile == ()
    assert parse_query("my sister").profile == ()


# --- recall over the database -------------------------------------------------------------------
