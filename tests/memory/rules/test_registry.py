"""The registry: the order families are tried in, and the walk over messages."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memory.extractors.rules import RECOGNISERS, extract
from memory.extractors.rules.health import health
from memory.extractors.rules.people import other_people
from memory.extractors.rules.work import work
from memory.proposals import EventProposal, NodeProposal
from memory.transcripts import Message


def labels(messages: list[Message], source_time: datetime | None = None) -> set[str]:
    found = extract(messages, source_time=source_time)
    return {p.label for p in found if isinstance(p, NodeProposal)}


def test_health_and_people_come_before_the_general_families() -> None:
    order = list(RECOGNISERS)
    assert order.index(health) < order.index(other_people) < order.index(work)


def test_one_family_per_module() -> None:
    modules = {r.__module__ for r in RECOGNISERS}
    assert len(modules) >= 12


def test_an_assistant_turn_is_never_a_source_but_gives_a_short_answer_its_context() -> None:
    messages = [
        Message(
            "M0", "assistant", "You mentioned you have sciatica. What's your favourite pizza?", None
        ),
        Message("M1", "user", "Pepperoni, of course!", None),
    ]
    assert labels(messages) == {"Pizza"}


def test_markup_is_read_as_text_and_quotes_stay_readable() -> None:
    messages = [Message("M0", "user", "I use a tool called <b>R&amp;D Tracker</b> daily.", None)]
    found = extract(messages)
    assert {p.label for p in found if isinstance(p, NodeProposal)} == {"R&D Tracker"}
    assert {e.quote for p in found for e in p.evidence} == {
        "I use a tool called R&D Tracker daily."
    }


def test_relative_dates_use_the_message_time_before_the_source_time() -> None:
    message_time = datetime(2026, 5, 12, tzinfo=UTC)
    messages = [Message("M0", "user", "I quit smoking two weeks ago.", message_time)]
    (event,) = [
        p
        for p in extract(messages, source_time=datetime(2020, 1, 1, tzinfo=UTC))
        if p.object == "event"
    ]
    assert event.happened_at is not None
    assert event.happened_at.date().isoformat() == "2026-04-28"
    assert event.happened_at_precision == "week"


def test_a_person_mentioned_beside_a_plan_is_kept_with_the_plan() -> None:
    messages = [
        Message("M0", "user", "I'm planning a trip to Lisbon in June with my sister Dana.", None)
    ]
    assert labels(messages) == {"Trip to Lisbon", "Dana"}


def test_the_rest_of_a_short_answer_is_read_as_said() -> None:
    messages = [
        Message("M0", "assistant", "What's your favourite pizza?", None),
        Message("M1", "user", "Pepperoni, of course! Also I moved to Leeds last week.", None),
    ]
    found = extract(messages)
    assert {p.label for p in found if isinstance(p, NodeProposal)} == {"Pizza", "Leeds"}
    pizza = next(p for p in found if isinstance(p, NodeProposal) and p.label == "Pizza")
    assert [e.quote for e in pizza.evidence] == ["Pepperoni, of course!"]


def test_work_the_assistant_confirmed_is_an_event_on_what_the_person_named() -> None:
    messages = [
        Message("M0", "user", "Could you fix the date parsing bug in the billing dashboard?", None),
        Message(
            "M1", "assistant", "Fixed: the parser now accepts ISO weeks, and I added tests.", None
        ),
    ]
    found = extract(messages)
    (event,) = [p for p in found if p.object == "event"]
    assert (event.on, event.action, event.category) == ("Billing Dashboard", "fixed", "project")
    assert event.text == "Fixed the date parsing bug in the billing dashboard"
    assert {e.message_id for p in found for e in p.evidence} == {"M0"}


def test_an_unanswered_or_refused_request_is_nothing() -> None:
    asked = Message(
        "M0", "user", "Could you fix the date parsing bug in the billing dashboard?", None
    )
    refused = Message("M1", "assistant", "I can't see the code; could you paste it?", None)
    assert extract([asked]) == []
    assert extract([asked, refused]) == []


@pytest.mark.parametrize(
    "text",
    [
        "I started boxing 2 weeks ago.",
        "I was diagnosed with asthma three weeks ago.",
        "I joined Calder Analytics two weeks ago.",
    ],
)
@pytest.mark.parametrize("anchor", [None, datetime(1, 1, 1, tzinfo=UTC)], ids=["none", "year-1"])
def test_a_time_phrase_without_a_usable_anchor_is_cut_from_the_label_not_the_sentence(
    text: Any, anchor: Any
) -> None:
    """Without a moment to resolve against (none given, or year 1 where "two weeks ago" has
    no date), the phrase is still recognised: the memory is kept, undated."""
    found = extract([Message("m1", "user", text, None)], source_time=anchor)
    labels = [x.label for x in found if isinstance(x, NodeProposal)]
    assert labels and not any("week" in label.lower() for label in labels)
    assert all(x.happened_at is None for x in found if isinstance(x, EventProposal))


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # a hedge on an amount hedges the amount, not what the person does
        ("I play Ravenfall Online most nights, it's probably 50 hours a week", "Ravenfall Online"),
        ("I play chess most nights, maybe £20 a month on books", "Chess"),
    ],
)
def test_a_hedged_amount_does_not_hedge_the_sentence(text: str, label: str) -> None:
    found = extract([Message("M0", "user", text, None)])
    assert label in {p.label for p in found if isinstance(p, NodeProposal)}
    assert not [p for p in found if getattr(p, "reason", "") == "hedged"]


def test_a_hedged_plan_is_still_a_hedge() -> None:
    found = extract([Message("M0", "user", "I'll probably join the Harbour Rowing Club", None)])
    assert [getattr(p, "reason", "") for p in found] == ["hedged"]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("could you add the nursery fees for my daughter Imke to the budget", "Imke"),
        ("what should I cook for my father-in-law Bogdan on Sunday?", "Bogdan"),
        ("thanks! also add a line for my son Kofi, he starts college in June", "Kofi"),
    ],
)
def test_who_a_request_names_with_their_relation_is_read(said: str, name: str) -> None:
    assert name in labels([Message("M0", "user", said)])


def test_a_control_message_names_no_one() -> None:
    said = "don't save anything about my brother Piotr"
    assert labels([Message("M0", "user", said)]) == set()
