"""Short answers read with their question; confirmed work."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.answers import confirmed_work, in_context


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        (
            "Fun question: what's your favourite pizza?",
            "Pepperoni, of course!",
            "My favourite pizza is Pepperoni.",
        ),
        (
            "What's your favourite book?",
            "Probably The Left Hand of Darkness.",
            "My favourite book is The Left Hand of Darkness.",
        ),
        (
            "Are you still doing the pottery class?",
            "Nope, I stopped going in March, too expensive.",
            "I stopped the pottery class in March, too expensive.",
        ),
    ],
)
def test_a_short_answer_states_what_it_answers(question: Any, answer: Any, statement: Any) -> None:
    assert in_context(question, answer) == statement


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's your favourite pizza?", "I don't really have one"),
        ("How was the weekend?", "Amazing, I climbed Ben Nevis."),
        ("Are you still doing the pottery class?", "Yes, every Tuesday."),
        ("What's your favourite film?", " ".join(["word"] * 20)),
        ("Nice weather today.", "Pepperoni!"),
    ],
)
def test_answers_that_need_no_context_or_give_none(question: Any, answer: Any) -> None:
    assert in_context(question, answer) is None


def test_work_the_reply_confirms_is_filed_under_the_component() -> None:
    assert confirmed_work(
        "Can you fix the pagination overflow in the invoice table renderer?",
        "Done — rows per page are capped now.",
    ) == (
        "fix",
        "invoice table renderer",
        "Fixed the pagination overflow in the invoice table renderer",
    )


@pytest.mark.parametrize(
    ("request_text", "reply"),
    [
        ("Can you fix the login bug?", "I'm not sure what you mean, can you share the code?"),
        ("What is the capital of Peru?", "Done: Lima."),
    ],
)
def test_unconfirmed_or_non_work_requests_are_nothing(request_text: Any, reply: Any) -> None:
    assert confirmed_work(request_text, reply) is None
