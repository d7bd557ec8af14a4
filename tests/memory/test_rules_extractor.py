"""The rules extractor: what each recogniser proposes, and what never becomes a memory."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.extractors import get_extractor
from memory.extractors.rules import extract
from memory.proposals import (
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    NodeProposal,
    SliceProposal,
)
from memory.transcripts import Message

SOURCE_TIME = datetime(2026, 5, 10, tzinfo=UTC)


def run(*contents: str, role: str = "user", source_time: datetime | None = None):
    messages = [Message(f"M{i}", role, text) for i, text in enumerate(contents)]
    return extract(messages, source_time=source_time)


def of(kind, proposals):
    return [p for p in proposals if isinstance(p, kind)]


def nodes(proposals) -> dict[str, str]:
    return {p.label: p.category for p in of(NodeProposal, proposals)}


def test_the_registry_returns_this_extractor():
    assert get_extractor("rules") is extract


def test_moved_with_a_stated_month():
    out = run("I moved to Berlin in March 2021.")
    assert nodes(out) == {"Berlin": "place"}
    (event,) = of(EventProposal, out)
    assert (event.on, event.action, event.importance) == ("Berlin", "moved", "important")
    assert event.happened_at == datetime(2021, 3, 1, tzinfo=UTC)
    assert (event.happened_at_precision, event.happened_at_source) == ("month", "stated")


def test_started_last_week_resolves_against_source_time():
    (event,) = of(EventProposal, run("I started boxing last week", source_time=SOURCE_TIME))
    assert (event.on, event.action) == ("Boxing", "started")
    assert event.happened_at == datetime(2026, 5, 3, tzinfo=UTC)
    assert (event.happened_at_precision, event.happened_at_source) == ("week", "resolved_phrase")


def test_the_message_time_wins_over_source_time():
    message = Message("M0", "user", "I quit coffee yesterday.", datetime(2026, 1, 20, tzinfo=UTC))
    (event,) = of(EventProposal, extract([message], source_time=SOURCE_TIME))
    assert event.happened_at == datetime(2026, 1, 19, tzinfo=UTC)


@pytest.mark.parametrize("source_time", [None, SOURCE_TIME])
def test_no_date_phrase_leaves_happened_at_empty(source_time):
    (event,) = of(EventProposal, run("I started boxing", source_time=source_time))
    assert event.happened_at is None
    assert (event.happened_at_precision, event.happened_at_source) == ("", "unknown")


@pytest.mark.parametrize(
    ("text", "label", "category", "action", "importance"),
    [
        (
            "My grandmother passed away last year.",
            "Grandmother",
            "family",
            "passed_away",
            "life_significant",
        ),
        (
            "I was diagnosed with type 2 diabetes in 2019.",
            "Type 2 Diabetes",
            "health",
            "diagnosed",
            "life_significant",
        ),
        ("I hurt my knee playing football.", "Knee Injury", "health", "injured", "important"),
        ("I fully recovered from covid.", "Covid", "health", "recovered", "important"),
        ("I got married to Priya in 2022.", "Priya", "relationship", "married", "life_significant"),
        ("I got married in June 2022.", "Marriage", "life_event", "married", "life_significant"),
        ("I was born in Pune in 1990.", "Pune", "place", "born", "life_significant"),
        ("I broke up with Sam.", "Sam", "relationship", "broke_up", "important"),
        ("I quit my job at Initech.", "Initech", "organization", "left", "important"),
        ("I moved into a new flat in Leeds.", "Leeds", "place", "moved", "important"),
        ("I started boxing.", "Boxing", "skill", "started", "ordinary"),
        ("I quit smoking.", "Smoking", "habit", "stopped", "ordinary"),
        ("I gave up coffee.", "Coffee", "habit", "stopped", "ordinary"),
        ("I took up pottery.", "Pottery", "habit", "started", "ordinary"),
        ("I started learning Spanish.", "Spanish", "skill", "started", "ordinary"),
        ("I launched Atlas.", "Atlas", "project", "launched", "ordinary"),
        (
            "I paused the retrieval work until the fix ships.",
            "Retrieval Work",
            "project",
            "paused",
            "ordinary",
        ),
        ("I put the garden project on hold.", "Garden Project", "project", "paused", "ordinary"),
        ("I resumed my novel.", "Novel", "project", "resumed", "ordinary"),
        ("I finally finished my thesis!", "Thesis", "project", "completed", "ordinary"),
        ("Started climbing last week.", "Climbing", "skill", "started", "ordinary"),
    ],
)
def test_life_events_and_status_changes(text, label, category, action, importance):
    out = run(text)
    events = of(EventProposal, out)
    assert [(e.on, e.action, e.importance, e.category) for e in events] == [
        (label, action, importance, category)
    ]
    assert nodes(out)[label] == category
    assert events[0].evidence[0].message_id == "M0"
    assert events[0].evidence[0].quote == text


def test_my_sister_meera_is_about_meera_not_the_user():
    out = run("My sister Meera lives in Bangalore.")
    assert nodes(out) == {"Meera": "family"}
    texts = {(s.on, s.text) for s in of(SliceProposal, out)}
    assert texts == {("Meera", "The user's sister"), ("Meera", "Lives in Bangalore")}


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        ("My friend Rahul plays chess.", "Rahul", "person"),
        ("My manager Priya is on leave.", "Priya", "person"),
        ("My wife Ana teaches maths.", "Ana", "relationship"),
        ("My coworker Jürgen works remotely.", "Jürgen", "person"),
        ("My friend Zoë moved to Montréal.", "Zoë", "person"),
        ("Zoë is my best friend.", "Zoë", "person"),
        ("My son Idris was born in April 2024.", "Idris", "family"),
    ],
)
def test_relationships_name_the_person(text, label, category):
    out = run(text)
    assert nodes(out)[label] == category
    assert all(p.on == label for p in out if isinstance(p, (SliceProposal, EventProposal)))


def test_a_future_plan_of_a_relative_is_not_a_fact():
    out = run("Also my sister Meera is visiting next week.")
    assert [s.text for s in of(SliceProposal, out)] == ["The user's sister"]
    assert of(EventProposal, out) == []


def test_named_person_events_and_preferences():
    out = run(
        "Rahul joined my team as the backend engineer last month.",
        "Rahul prefers working in Go rather than Python.",
        source_time=SOURCE_TIME,
    )
    (event,) = of(EventProposal, out)
    assert (event.on, event.action, event.happened_at) == (
        "Rahul",
        "joined",
        datetime(2026, 4, 1, tzinfo=UTC),
    )
    (pref,) = of(SliceProposal, out)
    assert (pref.on, pref.kind) == ("Rahul", "preference")
    assert [p.label for p in of(NodeProposal, out)] == ["Rahul"]  # converged in the batch


def test_named_system_uses_tools_with_edges():
    out = run("UML runs on Cloudflare Workers and stores data in D1.")
    assert nodes(out) == {"UML": "project", "Cloudflare Workers": "tool", "D1": "tool"}
    edges = {(e.from_label, e.to_label, e.type) for e in of(EdgeProposal, out)}
    assert edges == {("UML", "Cloudflare Workers", "uses"), ("UML", "D1", "uses")}


def test_tool_for_a_named_project_and_a_purpose():
    out = run("We use Postgres for Atlas.", "I use Obsidian for notes.")
    assert nodes(out) == {"Postgres": "tool", "Atlas": "project", "Obsidian": "tool"}
    assert [(e.from_label, e.to_label) for e in of(EdgeProposal, out)] == [("Atlas", "Postgres")]
    assert ("Obsidian", "I use Obsidian for notes") in {
        (s.on, s.text) for s in of(SliceProposal, out)
    }


def test_a_comparison_names_only_the_tool_in_use():
    out = run("I use Bedrock rather than Sonnet.")
    assert nodes(out) == {"Bedrock": "tool"}


def test_an_unnamed_world_fact_is_not_a_tool_edge():
    assert run("Python uses indentation.") == []


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("I prefer dark mode in my editor.", "Editor Theme"),
        ("I use light mode in my editor.", "Editor Theme"),
        ("I prefer tabs over spaces in Python.", "Python"),
        ("I love sushi.", "Sushi"),
        ("I don't like cilantro.", "Cilantro"),
        ("I can't stand loud restaurants.", "Loud Restaurants"),
        ("I hate long answers with lots of bullet points.", "Response Style"),
        ("I like to run in the morning.", "Running"),
        ("My favourite editor is Helix.", "Editor"),
    ],
)
def test_preferences_land_on_a_deterministic_subject(text, subject):
    out = run(text)
    (pref,) = of(SliceProposal, out)
    assert (pref.on, pref.kind, pref.category) == (subject, "preference", "preference")
    assert nodes(out) == {subject: "preference"}


@pytest.mark.parametrize(
    ("text", "label", "category"),
    [
        ("I might try tennis.", "Tennis", "habit"),
        ("I'm thinking about learning Rust.", "Rust", "skill"),
        ("Maybe I'll start a podcast.", "Podcast", "project"),
        ("I'm considering moving to Lisbon.", "Lisbon", "place"),
        ("I want to learn the piano.", "Piano", "skill"),
    ],
)
def test_hedges_become_candidates_only(text, label, category):
    out = run(text)
    assert len(out) == 1
    (cand,) = of(CandidateProposal, out)
    assert (cand.label, cand.category, cand.reason, cand.confidence) == (
        label,
        category,
        "hedged",
        0.6,
    )


def test_clear_statements_have_clear_confidence():
    assert {p.confidence for p in run("I started boxing.")} == {0.85}


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "Remember that one of my future projects is a Unified Government QR Identity System.",
            "Unified Government QR Identity System",
        ),
        ("Remember: the wifi password is in the blue notebook.", "Wifi Password"),
        ("Don't forget that my passport expires in August.", "Passport"),
        ("Please remember that I started boxing.", "Boxing"),
        ("remember that i moved to lisbon in 2018", "Lisbon"),
    ],
)
def test_remember_wrapper_is_dropped(text, label):
    out = run(text)
    assert label in nodes(out)
    for proposal in out:
        for written in proposal.texts()[:-1]:  # the quote is the source; the rest is ours
            assert "remember" not in written.lower()
            assert "forget" not in written.lower()


def test_a_question_kept_for_later_is_a_note_not_a_fact():
    out = run("Save this question for later: should UML use Queues for background vector refresh?")
    assert of(EdgeProposal, out) == []
    (note,) = of(SliceProposal, out)
    assert note.on == "UML"
    assert note.text.endswith("?")


@pytest.mark.parametrize(
    "text",
    [
        "hi",
        "Hello!",
        "thanks!",
        "thanks so much",
        "ok cool",
        "got it, sounds good",
        "Can you help me start a blog?",
        "What is the capital of France?",
        "how do I stop procrastinating",
        "Do you like jazz",
        "Explain recursion to me",
        "Give me the code.",
        "Send me the prompt again.",
        "Save this conversation.",
        "Save that.",
        "Did you save it?",
        "Retry.",
        "try again",
        "continue",
        "Summarise this.",
        "Remember this.",
        "Remember to buy milk.",
        "Don't remember this.",
        "I like that idea.",
        "I started to feel better.",
        "I broke my promise.",
        "I'm going to start running next week.",
        "I read an article comparing Postgres and MySQL on the train today.",
        "",
    ],
)
def test_never_a_memory(text):
    assert run(text) == []


def test_assistant_and_system_turns_are_never_read():
    for role in ("assistant", "system"):
        assert run("I moved to Berlin in 2021. I use Redis for caching.", role=role) == []


def test_only_the_statement_in_a_mixed_message_is_read():
    out = run("Thanks! Can you suggest gloves? I started boxing last week.")
    assert nodes(out) == {"Boxing": "skill"}
    assert {s.quote for p in out for s in p.evidence} == {"I started boxing last week."}


def test_clauses_get_their_own_dates():
    out = run("I started boxing last week and I quit coffee yesterday.", source_time=SOURCE_TIME)
    dates = {e.on: e.happened_at for e in of(EventProposal, out)}
    assert dates == {
        "Boxing": datetime(2026, 5, 3, tzinfo=UTC),
        "Coffee": datetime(2026, 5, 9, tzinfo=UTC),
    }


@pytest.mark.parametrize("text", ["I launched it.", "I started something.", "I quit that."])
def test_pronouns_are_never_labels(text):
    assert run(text) == []


def test_deterministic():
    text = "My sister Meera lives in Bangalore. I started boxing last week. I love sushi."
    assert run(text, source_time=SOURCE_TIME) == run(text, source_time=SOURCE_TIME)
