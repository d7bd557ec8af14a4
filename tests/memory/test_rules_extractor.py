"""The rules extractor: what each recogniser proposes, and what never becomes a memory."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

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


def run(*contents: str, role: str = "user", source_time: datetime | None = None) -> Any:
    messages = [Message(f"M{i}", role, text) for i, text in enumerate(contents)]
    return extract(messages, source_time=source_time)


def of(kind: Any, proposals: Any) -> Any:
    return [p for p in proposals if isinstance(p, kind)]


def nodes(proposals: Any) -> dict[str, str]:
    return {p.label: p.category for p in of(NodeProposal, proposals)}


def test_the_registry_runs_these_recognisers_first() -> None:
    # `rules` is the offline extractor: these recognisers, then the subject proposer.
    from memory.extractors import subjects

    assert get_extractor("rules") is subjects.extract
    said = [Message("m1", "user", "I moved to Berlin in March 2021.", None)]
    recognised = {(type(p).__name__, getattr(p, "label", "")) for p in extract(said)}
    assert recognised <= {
        (type(p).__name__, getattr(p, "label", "")) for p in subjects.extract(said)
    }


def test_moved_with_a_stated_month() -> None:
    out = run("I moved to Berlin in March 2021.")
    assert nodes(out) == {"Berlin": "place"}
    (event,) = of(EventProposal, out)
    assert (event.on, event.action, event.importance) == ("Berlin", "moved", "important")
    assert event.happened_at == datetime(2021, 3, 1, tzinfo=UTC)
    assert (event.happened_at_precision, event.happened_at_source) == ("month", "stated")


def test_started_last_week_resolves_against_source_time() -> None:
    (event,) = of(EventProposal, run("I started boxing last week", source_time=SOURCE_TIME))
    assert (event.on, event.action) == ("Boxing", "started")
    assert event.happened_at == datetime(2026, 5, 3, tzinfo=UTC)
    assert (event.happened_at_precision, event.happened_at_source) == ("week", "resolved_phrase")


def test_the_message_time_wins_over_source_time() -> None:
    message = Message("M0", "user", "I quit coffee yesterday.", datetime(2026, 1, 20, tzinfo=UTC))
    (event,) = of(EventProposal, extract([message], source_time=SOURCE_TIME))
    assert event.happened_at == datetime(2026, 1, 19, tzinfo=UTC)


@pytest.mark.parametrize("source_time", [None, SOURCE_TIME])
def test_no_date_phrase_leaves_happened_at_empty(source_time: Any) -> None:
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
        # A proper name with the piece of work it names is a project, never a habit; the
        # whole phrase is the label, so finishing the beta does not complete Atlas itself.
        (
            "We finished the Atlas beta last Friday.",
            "Atlas Beta",
            "project",
            "completed",
            "ordinary",
        ),
        ("We cancelled the Orion launch.", "Orion Launch", "project", "stopped", "ordinary"),
        (
            "I finished the quarterly report.",
            "Quarterly Report",
            "project",
            "completed",
            "ordinary",
        ),
        ("I started French cooking.", "French Cooking", "habit", "started", "ordinary"),
        ("I gave up Instagram.", "Instagram", "habit", "stopped", "ordinary"),
        # Only the object decides: "near work" after it does not make climbing a project.
        (
            "I began climbing at a bouldering wall near work.",
            "Climbing",
            "skill",
            "started",
            "ordinary",
        ),
        # A schedule is not part of the label.
        ("I started running on Sunday mornings.", "Running", "habit", "started", "ordinary"),
        ("I started running three days a week.", "Running", "habit", "started", "ordinary"),
    ],
)
def test_life_events_and_status_changes(
    text: Any, label: Any, category: Any, action: Any, importance: Any
) -> None:
    out = run(text)
    events = of(EventProposal, out)
    assert [(e.on, e.action, e.importance, e.category) for e in events] == [
        (label, action, importance, category)
    ]
    assert nodes(out)[label] == category
    assert events[0].evidence[0].message_id == "M0"
    assert events[0].evidence[0].quote == text


def test_my_sister_meera_is_about_meera_not_the_user() -> None:
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
def test_relationships_name_the_person(text: Any, label: Any, category: Any) -> None:
    out = run(text)
    assert nodes(out)[label] == category
    assert all(p.on == label for p in out if isinstance(p, (SliceProposal, EventProposal)))


def test_a_future_plan_of_a_relative_is_not_a_fact() -> None:
    out = run("Also my sister Meera is visiting next week.")
    assert [s.text for s in of(SliceProposal, out)] == ["The user's sister"]
    assert of(EventProposal, out) == []


@pytest.mark.parametrize(
    ("text", "label", "expected"),
    [
        (
            "My sister Meera lives in Bangalore and she is visiting in December.",
            "Meera",
            ["The user's sister", "Lives in Bangalore", "Is visiting in December"],
        ),
        (
            "Meera is my sister and she lives in Bangalore.",
            "Meera",
            ["The user's sister", "Lives in Bangalore"],
        ),
        (
            # A plan that goes stale at once is dropped; the fact before it is kept.
            "My friend Rahul plays chess and he's moving to Oslo next week.",
            "Rahul",
            ["The user's friend", "Plays chess"],
        ),
        (
            "My parents live in Goa and they are visiting at Christmas.",
            "Parents",
            ["Live in Goa", "Are visiting at Christmas"],
        ),
        (
            "My sister Meera is visiting in December.",
            "Meera",
            ["The user's sister", "Is visiting in December"],
        ),
        ("My brother Sam is coming tomorrow.", "Sam", ["The user's brother"]),
    ],
)
def test_a_tail_about_the_same_person_keeps_every_fact(
    text: Any, label: Any, expected: Any
) -> None:
    out = run(text, source_time=SOURCE_TIME)
    assert [(s.on, s.text) for s in of(SliceProposal, out)] == [(label, t) for t in expected]
    assert of(EventProposal, out) == []  # a plan is a slice, never a dated past event


@pytest.mark.parametrize(
    ("text", "label", "category", "slice_text"),
    [
        ("Meera's birthday is on 14 January.", "Meera", "person", "Birthday is on 14 January"),
        (
            "Remember that Meera's birthday is on 14 January",
            "Meera",
            "person",
            "Birthday is on 14 January",
        ),
        ("My sister's birthday is on 14 January.", "Sister", "family", "Birthday is on 14 January"),
        (
            "My sister Meera's birthday is on 14 January.",
            "Meera",
            "family",
            "Birthday is on 14 January",
        ),
        ("Mom's birthday is in May.", "Mom", "family", "Birthday is in May"),
        (
            "My husband's birthday falls on 9 October.",
            "Husband",
            "relationship",
            "Birthday falls on 9 October",
        ),
        ("Meera's husband works at Google.", "Meera", "person", "Husband works at Google"),
        ("John's car is red.", "John", "person", "Car is red"),
        ("Atlas's backend is written in Go.", "Atlas", "project", "Backend is written in Go"),
    ],
)
def test_a_possessive_subject_is_a_slice_on_its_owner(
    text: Any, label: Any, category: Any, slice_text: Any
) -> None:
    out = run(text)
    assert nodes(out)[label] == category
    assert (label, slice_text) in {(s.on, s.text) for s in of(SliceProposal, out)}
    assert all(p.on == label for p in out if isinstance(p, (SliceProposal, EventProposal)))
    assert of(EventProposal, out) == []  # a birthday is a fact about someone, not a dated event


def test_a_possessive_converges_on_the_relative_met_earlier() -> None:
    out = run("My sister Meera lives in Bangalore.", "Meera's birthday is on 14 January.")
    assert nodes(out) == {"Meera": "family"}
    assert len(of(NodeProposal, out)) == 1
    assert {s.category for s in of(SliceProposal, out)} == {"family"}


def test_my_relations_name_is_the_named_relation() -> None:
    out = run("My sister's name is Meera.")
    assert nodes(out) == {"Meera": "family"}
    assert [(s.on, s.text) for s in of(SliceProposal, out)] == [("Meera", "The user's sister")]


@pytest.mark.parametrize(
    ("text", "label", "category", "slice_text"),
    [
        ("I train boxing three days a week.", "Boxing", "skill", "Trains boxing three days a week"),
        (
            "I train boxing three days a week for now.",
            "Boxing",
            "skill",
            "Trains boxing three days a week for now",
        ),
        ("Boxing three days a week now.", "Boxing", "skill", "Boxing three days a week now"),
        ("I go running twice a week.", "Running", "habit", "Goes running twice a week"),
        ("I go for a run every morning.", "Running", "habit", "Goes for a run every morning"),
        ("I usually run 5k every morning.", "Running", "habit", "Usually runs 5k every morning"),
        ("I do yoga on Sundays.", "Yoga", "habit", "Does yoga on Sundays"),
        (
            "I go to the gym three times a week.",
            "Gym",
            "habit",
            "Goes to the gym three times a week",
        ),
        ("We play football on weekends.", "Football", "habit", "Plays football on weekends"),
        (
            "These days I practise judo on Tuesdays and Fridays.",
            "Judo",
            "habit",
            "Practises judo on Tuesdays and Fridays",
        ),
        (
            "I swim laps on Tuesdays and Thursdays.",
            "Swimming",
            "habit",
            "Swims laps on Tuesdays and Thursdays",
        ),
    ],
)
def test_a_schedule_for_a_named_activity_is_a_progress_slice(
    text: Any, label: Any, category: Any, slice_text: Any
) -> None:
    out = run(text, source_time=SOURCE_TIME)
    assert nodes(out) == {label: category}
    (progress,) = of(SliceProposal, out)
    assert (progress.on, progress.kind, progress.text) == (label, "progress", slice_text)


@pytest.mark.parametrize(
    "text",
    [
        "I write code every day.",  # "writing" would be the wrong subject
        "I train at the gym near work three days a week.",  # a place, not the activity
        "Running twice a week is my goal.",  # the schedule is not what is stated
        "Yoga every morning keeps me sane.",
        "I'm going to run every day.",
    ],
)
def test_not_a_routine(text: Any) -> None:
    assert [s for s in of(SliceProposal, run(text)) if s.kind == "progress"] == []


def test_a_schedule_without_its_activity_is_never_guessed() -> None:
    out = run("I started boxing last week.", "I train three days a week for now.")
    assert nodes(out) == {"Boxing": "skill"}
    assert of(SliceProposal, out) == []
    assert [e.evidence[0].message_id for e in of(EventProposal, out)] == ["M0"]


def test_a_schedule_after_the_start_in_one_conversation_lands_on_the_activity() -> None:
    out = run("I started boxing last week.", "I train boxing three days a week for now.")
    assert nodes(out) == {"Boxing": "skill"}
    assert [(s.on, s.kind) for s in of(SliceProposal, out)] == [("Boxing", "progress")]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I started running on Sunday mornings.", "Running"),
        ("I started swimming every Monday.", "Swimming"),
        ("I took up yoga on weekends.", "Yoga"),
        ("I started boxing twice a week.", "Boxing"),
        ("I started running three days a week.", "Running"),
    ],
)
def test_a_schedule_is_not_a_date(text: Any, label: Any) -> None:
    (event,) = of(EventProposal, run(text, source_time=SOURCE_TIME))
    assert event.on == label
    assert event.happened_at is None
    assert (event.happened_at_precision, event.happened_at_source) == ("", "unknown")
    assert event.text == text.rstrip(".")  # the schedule stays in the event's own words


def test_a_schedule_with_a_real_date_keeps_the_date() -> None:
    (event,) = of(
        EventProposal,
        run("I started running on Sunday mornings last month.", source_time=SOURCE_TIME),
    )
    assert (event.on, event.happened_at) == ("Running", datetime(2026, 4, 1, tzinfo=UTC))


def test_named_person_events_and_preferences() -> None:
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


def test_named_system_uses_tools_with_edges() -> None:
    out = run("UML runs on Cloudflare Workers and stores data in D1.")
    assert nodes(out) == {"UML": "project", "Cloudflare Workers": "tool", "D1": "tool"}
    edges = {(e.from_label, e.to_label, e.type) for e in of(EdgeProposal, out)}
    assert edges == {("UML", "Cloudflare Workers", "uses"), ("UML", "D1", "uses")}


def test_tool_for_a_named_project_and_a_purpose() -> None:
    out = run("We use Postgres for Atlas.", "I use Obsidian for notes.")
    assert nodes(out) == {"Postgres": "tool", "Atlas": "project", "Obsidian": "tool"}
    assert [(e.from_label, e.to_label) for e in of(EdgeProposal, out)] == [("Atlas", "Postgres")]
    assert ("Obsidian", "I use Obsidian for notes") in {
        (s.on, s.text) for s in of(SliceProposal, out)
    }


def test_a_comparison_names_only_the_tool_in_use() -> None:
    out = run("I use Bedrock rather than Sonnet.")
    assert nodes(out) == {"Bedrock": "tool"}


def test_an_unnamed_world_fact_is_not_a_tool_edge() -> None:
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
def test_preferences_land_on_a_deterministic_subject(text: Any, subject: Any) -> None:
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
def test_hedges_become_candidates_only(text: Any, label: Any, category: Any) -> None:
    out = run(text)
    assert len(out) == 1
    (cand,) = of(CandidateProposal, out)
    assert (cand.label, cand.category, cand.reason, cand.confidence) == (
        label,
        category,
        "hedged",
        0.6,
    )


def test_clear_statements_have_clear_confidence() -> None:
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
def test_remember_wrapper_is_dropped(text: Any, label: Any) -> None:
    out = run(text)
    assert label in nodes(out)
    for proposal in out:
        for written in proposal.texts()[:-1]:  # the quote is the source; the rest is ours
            assert "remember" not in written.lower()
            assert "forget" not in written.lower()


def test_a_question_kept_for_later_is_a_note_not_a_fact() -> None:
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
        "I work from home on Fridays.",
        "I call my mum every Sunday.",
        "I don't run on weekends.",
        "I'm going to run every day.",
        "Monday's standup was cancelled.",
        "Today's meeting is at noon.",
        "Meera's flight is tomorrow.",
        "",
    ],
)
def test_never_a_memory(text: Any) -> None:
    assert run(text) == []


def test_assistant_and_system_turns_are_never_read() -> None:
    for role in ("assistant", "system"):
        assert run("I moved to Berlin in 2021. I use Redis for caching.", role=role) == []


def test_only_the_statement_in_a_mixed_message_is_read() -> None:
    out = run("Thanks! Can you suggest gloves? I started boxing last week.")
    assert nodes(out) == {"Boxing": "skill"}
    assert {s.quote for p in out for s in p.evidence} == {"I started boxing last week."}


def test_clauses_get_their_own_dates() -> None:
    out = run("I started boxing last week and I quit coffee yesterday.", source_time=SOURCE_TIME)
    dates = {e.on: e.happened_at for e in of(EventProposal, out)}
    assert dates == {
        "Boxing": datetime(2026, 5, 3, tzinfo=UTC),
        "Coffee": datetime(2026, 5, 9, tzinfo=UTC),
    }


@pytest.mark.parametrize("text", ["I launched it.", "I started something.", "I quit that."])
def test_pronouns_are_never_labels(text: Any) -> None:
    assert run(text) == []


def test_deterministic() -> None:
    text = "My sister Meera lives in Bangalore. I started boxing last week. I love sushi."
    assert run(text, source_time=SOURCE_TIME) == run(text, source_time=SOURCE_TIME)


def test_one_card_per_person_named_with_a_title() -> None:
    """ "Dr Elena" is a part of "Dr Elena Markovic" in the same sentence: one person, one node,
    with what was said of her."""
    found = run("My therapist Dr Elena Markovic is on holiday in August.")
    assert nodes(found) == {"Dr Elena Markovic": "person"}
    assert {s.on for s in of(SliceProposal, found)} == {"Dr Elena Markovic"}
    found = run("My boss Ms Jane Porter is leaving.")
    assert nodes(found) == {"Ms Jane Porter": "person"}
    # In two sentences, a given name and a full name may be two people.
    found = run("My sister Ana is moving to Porto. Ana Lopez called me about the flat.")
    assert "Ana" in nodes(found)


CELLO = "I started learning the cello in March."


def test_what_is_not_the_persons_to_keep_is_not_read() -> None:
    assert "Cello" in nodes(run(CELLO))
    # Asked not to be kept; taken back by the next message (and that one too); ironic.
    assert run("Off the record, " + CELLO[0].lower() + CELLO[1:]) == []
    assert run("Between you and me, " + CELLO[0].lower() + CELLO[1:]) == []
    assert run(CELLO, "Scratch that, forget I said it.") == []
    assert run("I just love that I started learning the cello in March 🙃") == []
    # a sigh on a plain report is no irony: the report stands
    assert "Cello" in nodes(run(CELLO[:-1] + " 🙃"))
    # A quoted line is someone's words; a quoted title is still what the person talks about.
    quoted = run(f"My favourite line from that film is '{CELLO[:-1]}'.")
    assert "Cello" not in nodes(quoted) and not of(EventProposal, quoted)
    assert "Paddington" in " ".join(s.text for s in of(SliceProposal, run('I love "Paddington".')))


def test_asking_to_keep_it_and_a_disowned_sentence_beside_leave_the_rest_read() -> None:
    assert "Cello" in nodes(run("Don't forget that " + CELLO[0].lower() + CELLO[1:]))
    kept = run("The Vespa is my brother's, not mine. " + CELLO)
    assert "Cello" in nodes(kept) and "Vespa" not in nodes(kept)
    # Only the message before a retraction is taken back, not the whole conversation.
    assert "Cello" in nodes(run(CELLO, "I love my new flat.", "Ignore that last bit."))


def test_a_pet_or_a_baby_named_right_after_it_comes_is_one_card_by_its_name() -> None:
    found = run("we got a puppy on thursday. she's called Juno")
    assert nodes(found) == {"Juno": "possession"}
    assert [e.on for e in of(EventProposal, found)] == ["Juno"]
    assert nodes(run("our daughter was born on monday, we named her Wren")) == {"Wren": "family"}


def test_a_name_given_to_nothing_a_rule_proposed_renames_nothing() -> None:
    # the kind and the name must be one sentence apart at most, and the name a name
    assert "Puppy" in nodes(
        run("we got a puppy on thursday.", "Our neighbour's cat is called Juno.")
    )
    assert "Puppy" in nodes(run("we got a puppy on thursday. it's called a cavapoo"))


def test_who_a_hedged_clause_names_with_their_relation_is_still_theirs() -> None:
    assert nodes(run("my neighbour Ilse fixes bikes so maybe I'll ask her")) == {"Ilse": "person"}


def test_what_is_told_before_a_trailing_question_is_read() -> None:
    assert nodes(run("my husband Oren is driving us, we leave at six, any packing tips?")) == {
        "Oren": "relationship"
    }
    # a question throughout is not, but for who it names with their relation: that Oren is
    # the husband is said whatever is asked, and nothing else of it is
    asked = run("should my husband Oren drive, or should I?")
    assert nodes(asked) == {"Oren": "relationship"}
    assert [s.text for s in of(SliceProposal, asked)] == ["The user's husband"]
    assert nodes(run("should we drive to Leeds, or take the train?")) == {}
