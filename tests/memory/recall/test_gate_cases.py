"""The query gate refuses only small talk and self-contained utility questions: questions
about the person's own past, their things and named people are recall questions."""

from __future__ import annotations

from typing import Any

import pytest

from memory.recall.query import REASON_SMALLTALK, REASON_UTILITY, parse_query


@pytest.mark.parametrize(
    "query",
    [
        "How did I get over my ankle injury?",
        "How did I fix the leak under the sink?",
        "how did we celebrate our anniversary last year",
        "What did I cook for the dinner party?",
        "When did I start running again?",
        "What is the name of my dentist?",
        "what was the name of the restaurant we went to",
        "Who is Marta?",
        "How did Marta get the job?",
        "When did Sam move to Berlin?",
        "what did Ana say about the trip",
        "tell me a bit about Ana",
        # a name typed in lower case is still a name when it owns something
        "what's priya's pay and schedule?",
        "what is mum's new address",
    ],
)
def test_recall_questions_pass(query: Any) -> None:
    parsed = parse_query(query)
    assert parsed.reason == "" and parsed.subject and not parsed.needs_name


@pytest.mark.parametrize(
    "query,reason",
    [
        ("thanks so much!", REASON_SMALLTALK),
        ("how are you", REASON_SMALLTALK),
        ("how do I reverse a list in python", REASON_UTILITY),
        ("How did you do that?", REASON_UTILITY),
        ("Tell me a joke", REASON_UTILITY),
        ("what is the capital of Peru", REASON_UTILITY),
        ("write a haiku about autumn", REASON_UTILITY),
        ("what is 12 * 7", REASON_UTILITY),
    ],
)
def test_small_talk_and_utility_are_refused(query: Any, reason: Any) -> None:
    assert parse_query(query).reason == reason


@pytest.mark.parametrize(
    "query,subject",
    [
        ("What is the name of my dentist?", ("my", "dentist")),
        ("whats the name of my landlord", ("my", "landlord")),
        ("the full name of my grandmother", ("my", "grandmother")),
    ],
)
def test_the_name_of_frame_is_not_the_subject(query: Any, subject: Any) -> None:
    assert parse_query(query).subject == subject


@pytest.mark.parametrize("query", ["what is the earth's circumference", "what's a cat's lifespan"])
def test_a_possessive_after_an_article_stays_general(query: Any) -> None:
    # recall only if memory has that name: otherwise the engine answers utility_query
    assert parse_query(query).needs_name


@pytest.mark.parametrize(
    "query,subject,frame",
    [
        (
            "how much did the brake repair end up costing?",
            ("did", "the", "brake", "repair", "costing"),
            ("how", "much", "end", "up"),
        ),
        (
            "how long did it take to get the boiler fixed",
            ("to", "get", "the", "boiler", "fixed"),
            ("how", "long", "did", "it", "take"),
        ),
        ("what is Kofi interested in", ("kofi", "interested", "in"), ()),
        # a question that is all frame keeps its words as its subject, and no frame
        ("how long", ("how", "long"), ()),
    ],
)
def test_the_frame_is_kept_apart_from_the_subject(query: Any, subject: Any, frame: Any) -> None:
    # not what the question is about, but words an answer may echo ("ended up £260")
    parsed = parse_query(query)
    assert parsed.subject == subject
    assert parsed.frame == frame
