"""Recall: the gate, phrasing, the named and lexical lanes, the identity guard, profile
queries, state and context, owner scoping and a constant number of queries."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from pytest_django import DjangoAssertNumQueries, Settings

from memory.recall import (
    REASON_MATCHED,
    REASON_NO_MATCH,
    REASON_NOTHING_CLOSE,
    REASON_PROFILE,
    REASON_SMALLTALK,
    REASON_UTILITY,
    EpisodeItem,
    RecallItem,
    recall,
    vectors,
)
from memory.recall.episode_loaders import COUNT_QUERIES
from memory.recall.loaders import (
    CANDIDATE_QUERIES,
    DETAIL_QUERIES,
    NAME_QUERIES,
    NAMED_QUERIES,
    POSTINGS_QUERIES,
    PROFILE_FILL_QUERIES,
    PROFILE_QUERIES,
    STATS_QUERIES,
    VECTOR_QUERIES,
)
from memory.services.recall_index import recall_index_rebuild
from tests.factories import make_event, make_node, make_page, make_slice


def node_item(item: RecallItem | EpisodeItem) -> RecallItem:
    """These tests recall nodes and pages: an episode where one is expected fails them."""
    assert isinstance(item, RecallItem), item
    return item


def labels(result: Any) -> list[str]:
    return [item.label for item in result.items]


@pytest.fixture
def memory(owner: User) -> Any:
    uml = make_node(
        owner=owner,
        label="Universal Memory Engine",
        category="project",
        aliases=("UML", "Universal Memory Layer"),
        summary="Memory infrastructure project.",
    )
    make_slice(node=uml, text="runs on Cloudflare Workers", kind="technical_detail")
    college = make_node(
        owner=owner, label="UML College Society", category="organization", aliases=("UML Society",)
    )
    make_slice(node=college, text="meets on Thursdays")
    rahul = make_node(owner=owner, label="Rahul", category="person", summary="Backend engineer.")
    make_slice(node=rahul, text="prefers working in Go")
    boxing = make_node(owner=owner, label="Boxing", category="skill", state="stopped")
    make_slice(node=boxing, text="trains three days a week", kind="progress")
    make_slice(node=boxing, text="spars with a coach at dawn", kind="progress", is_current=False)
    make_event(
        node=boxing,
        text="stopped boxing",
        action="stopped",
        happened_at=datetime(2026, 3, 1, tzinfo=UTC),
        happened_at_precision="month",
        happened_at_source="stated",
    )
    atlas = make_node(owner=owner, label="Atlas", category="project", summary="Invoicing product.")
    make_node(owner=owner, label="Asthma", category="health", summary="Mild, since childhood.")
    make_page(
        owner=owner,
        title="PDF Export Notes",
        summary="Debugging the totals column of the invoice export.",
        node=atlas,
    )
    return {"uml": uml, "college": college, "rahul": rahul, "boxing": boxing, "atlas": atlas}


def test_exact_label_is_first_with_why_exact(owner: User, memory: Any) -> None:
    result = recall(owner, "Rahul")
    assert result.reason == REASON_MATCHED
    assert not result.no_recall
    assert labels(result) == ["Rahul"]
    assert result.items[0].why == "exact"


def test_acronym_alias_finds_its_node_and_not_the_lookalike(owner: User, memory: Any) -> None:
    result = recall(owner, "UML")
    assert labels(result) == ["Universal Memory Engine"]
    assert result.items[0].why == "alias"


def test_identity_guard_full_name_excludes_the_shorter_identity(owner: User, memory: Any) -> None:
    result = recall(owner, "UML College Society")
    assert labels(result) == ["UML College Society"]
    result = recall(owner, "what do you remember about the Universal Memory Layer?")
    assert labels(result) == ["Universal Memory Engine"]


def test_recall_phrasing_does_not_pull_in_other_nodes(owner: User, memory: Any) -> None:
    for query in ("What do you remember about Rahul?", "Do you remember Rahul?", "Who is Rahul?"):
        assert labels(recall(owner, query)) == ["Rahul"], query


def test_what_is_a_name_in_memory_is_recall_and_a_general_question_is_not(
    owner: User, memory: Any
) -> None:
    assert labels(recall(owner, "what is Atlas?")) == ["Atlas"]
    assert labels(recall(owner, "what is boxing")) == ["Boxing"]
    general = recall(owner, "what is a monad")
    assert general.no_recall and general.reason == REASON_UTILITY and general.items == ()


def test_lexical_lane_stems(owner: User, memory: Any) -> None:
    result = recall(owner, "what do I train")
    assert labels(result) == ["Boxing"]
    assert "lexical" in result.items[0].why.split("+")
    assert labels(recall(owner, "who prefers Go")) == ["Rahul"]


def test_superseded_slices_never_match_nor_show(owner: User, memory: Any) -> None:
    result = recall(owner, "sparring coach at dawn")
    assert result.no_recall and result.reason == REASON_NO_MATCH
    boxing = recall(owner, "boxing")
    assert [s.text for s in node_item(boxing.items[0]).slices] == ["trains three days a week"]
    assert "dawn" not in boxing.context


def test_state_is_shown_as_stored_and_context_line_has_dated_event(
    owner: User, memory: Any
) -> None:
    result = recall(owner, "am I still boxing?")
    item = node_item(result.items[0])
    assert item.state == "stopped"
    assert result.context == (
        "Boxing (skill, stopped) - trains three days a week; stopped boxing (2026-03)"
    )
    event = item.events[0]
    assert (event.precision, event.date_text) == ("month", "2026-03")


def test_query_matching_nothing_returns_nothing(owner: User, memory: Any) -> None:
    for query in ("cooking pasta tonight", "the", "quarterly tax deadline"):
        result = recall(owner, query)
        assert result.items == () and result.no_recall, query
        assert result.context == ""


def test_one_incidental_shared_word_is_not_enough(owner: User, memory: Any) -> None:
    # "three" occurs in Boxing's slice, but the question is about something else.
    assert recall(owner, "three tips for baking bread").items == ()


def test_smalltalk_and_utility_return_nothing_without_queries(
    owner: User, memory: Any, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    with django_assert_num_queries(0):
        for query in ("hi", "thanks!", "what is 2+2", "translate boxing into French"):
            result = recall(owner, query)
            assert result.no_recall and result.items == ()


def test_broad_profile_returns_the_category(owner: User, memory: Any) -> None:
    result = recall(owner, "what are my projects")
    assert result.reason == REASON_PROFILE
    assert set(labels(result)) == {"Universal Memory Engine", "Atlas"}
    assert {item.why for item in result.items} == {"profile"}
    assert labels(recall(owner, "my health")) == ["Asthma"]


def test_pages_rank_with_nodes_and_carry_their_summary(owner: User, memory: Any) -> None:
    result = recall(owner, "PDF export")
    assert [(i.kind, i.label) for i in result.items] == [("page", "PDF Export Notes")]
    page = node_item(result.items[0])
    assert page.summary.startswith("Debugging the totals")
    assert page.node_id == memory["atlas"].pk
    assert result.context == (
        "Page: PDF Export Notes - Debugging the totals column of the invoice export."
    )


def test_nodes_and_pages_are_one_ranked_order(owner: User, memory: Any) -> None:
    result = recall(owner, "invoice export totals for Atlas")
    assert [i.kind for i in result.items] == ["page", "node"]
    scores = [i.score for i in result.items]
    assert scores == sorted(scores, reverse=True)


def test_limit_caps_items(owner: User) -> None:
    for i in range(6):
        make_node(owner=owner, label=f"Project {chr(65 + i)}", category="project")
    assert len(recall(owner, "what are my projects", limit=3).items) == 3
    assert len(recall(owner, "what are my projects").items) == 6


def test_context_budget_clips_the_line_that_does_not_fit(
    owner: User, memory: Any, settings: Settings
) -> None:
    for i in range(4):
        node = make_node(owner=owner, label=f"Guitar {i}", category="skill")
        make_slice(node=node, text="practises scales for twenty minutes " * 3)
    full = recall(owner, "guitar", char_budget=10_000)
    assert not full.context_truncated
    assert len(full.context.splitlines()) == 4
    clipped = recall(owner, "guitar", char_budget=200)
    assert clipped.context_truncated
    assert len(clipped.context) <= 200
    lines = clipped.context.splitlines()
    assert lines[-1].endswith("…")
    assert lines[:-1] == full.context.splitlines()[: len(lines) - 1]
    settings.UME_RECALL_CONTEXT_CHARS = 120
    assert len(recall(owner, "guitar").context) <= 120


def test_as_json_is_json_safe_and_complete(owner: User, memory: Any) -> None:
    data = recall(owner, "boxing").as_json()
    assert json.loads(json.dumps(data)) == data
    assert data["no_recall"] is False and data["reason"] == REASON_MATCHED
    item = data["items"][0]
    assert item["kind"] == "node" and item["label"] == "Boxing" and item["state"] == "stopped"
    assert item["why"] == "exact"
    assert item["events"][0] == {
        "action": "stopped",
        "text": "stopped boxing",
        "happened_at": "2026-03-01T00:00:00+00:00",
        "precision": "month",
        "date": "2026-03",
    }
    empty = recall(owner, "hi").as_json()
    assert empty["no_recall"] is True and empty["reason"] == REASON_SMALLTALK
    assert empty["items"] == [] and empty["count"] == 0


def test_event_without_a_date_shows_none(owner: User) -> None:
    node = make_node(owner=owner, label="Chess", category="interest")
    make_event(node=node, text="joined the club", action="joined")
    item = node_item(recall(owner, "chess").items[0])
    assert item.events[0].happened_at is None
    assert item.as_json()["events"][0]["date"] is None
    assert recall(owner, "chess").context == "Chess (interest, active) - joined the club"


def test_another_owners_memories_never_come_back(
    owner: User, other_user: User, memory: Any
) -> None:
    make_node(owner=other_user, label="Rahul", category="person", summary="someone else's Rahul")
    make_node(owner=other_user, label="Kite Surfing", category="habit")
    make_page(owner=other_user, title="Kite Surfing Notes", summary="Wind charts")
    mine = recall(owner, "Rahul")
    assert [i.id for i in mine.items] == [memory["rahul"].pk]
    assert recall(owner, "kite surfing").items == ()
    assert recall(owner, "what are my habits").items == ()
    theirs = recall(other_user, "Rahul")
    assert node_item(theirs.items[0]).summary == "someone else's Rahul"
    assert recall(other_user, "boxing").items == ()


def test_a_profile_question_over_several_categories_merges_them_in_the_lanes_order(
    owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    """ "Hobbies" are interests, habits and skills: each category's first nodes are read
    on their own and merged, active first, most recently seen first; when fewer than the
    limit are active, the paused and stopped ones follow."""
    day = datetime(2026, 3, 1, tzinfo=UTC)
    for label, category, seen in [
        ("Knitting", "interest", day.replace(day=2)),
        ("Running", "habit", day.replace(day=5)),
        ("Chess", "skill", day.replace(day=3)),
        ("Journaling", "habit", day.replace(day=1)),
    ]:
        make_node(owner=owner, label=label, category=category, last_seen_at=seen)
    make_node(
        owner=owner,
        label="Boxing",
        category="skill",
        state="stopped",
        last_seen_at=day.replace(day=9),
    )
    make_node(owner=owner, label="Tax Return", category="project", last_seen_at=day.replace(day=8))
    three = 3  # categories: one read each for the active nodes, and again for the others
    with django_assert_num_queries(
        three + PROFILE_QUERIES - 1 + three * PROFILE_FILL_QUERIES + DETAIL_QUERIES + COUNT_QUERIES
    ):
        result = recall(owner, "what are my hobbies")
    assert labels(result) == ["Running", "Chess", "Knitting", "Journaling", "Boxing"]
    # enough active ones for the limit: the inactive are not read
    with django_assert_num_queries(three + PROFILE_QUERIES - 1 + DETAIL_QUERIES + COUNT_QUERIES):
        assert labels(recall(owner, "what are my hobbies", limit=2)) == ["Running", "Chess"]


def _corpus(owner: Any, size: int) -> None:
    for i in range(size):
        node = make_node(owner=owner, label=f"Topic {i}", category="interest", aliases=(f"T{i}",))
        make_slice(node=node, text=f"detail number {i}")
        make_event(node=node, text=f"started topic {i}")
    make_page(owner=owner, title=f"Page about {size}", summary="notes")


@pytest.mark.parametrize("size", [3, 40])
def test_constant_number_of_queries_whatever_the_corpus_size(
    owner: User, size: Any, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    _corpus(owner, size)
    vectors.clear()
    # The episode lane: the owner has none, so it reads only their count (the index
    # statistics), and not even that when the lexical lane has read them for this recall.
    EPISODES = COUNT_QUERIES
    # A query with words that are not names: the name lookup, the corpus statistics, the
    # postings of its words, the owner's vectors (not cached yet), the shortlisted nodes and
    # their slices (no page matched: no page query), then the events of the nodes returned.
    lexical = NAME_QUERIES + STATS_QUERIES + POSTINGS_QUERIES + CANDIDATE_QUERIES - 1
    with django_assert_num_queries(lexical + VECTOR_QUERIES + DETAIL_QUERIES):
        result = recall(owner, "detail number 2")
    assert result.items[0].label == "Topic 2"
    # The same again: the vectors come from the cache, whose version is still current.
    with django_assert_num_queries(lexical + DETAIL_QUERIES):
        assert recall(owner, "detail number 2").items[0].label == "Topic 2"
    # A broad profile question: the nodes of its categories, then the slices and events of
    # the nodes returned.
    # (fewer active interests than the limit of 10: the inactive ones are read too)
    fill = PROFILE_FILL_QUERIES if size < 10 else 0
    with django_assert_num_queries(PROFILE_QUERIES + fill + DETAIL_QUERIES + EPISODES):
        recall(owner, "what are my interests")
    # A query that only names things: the name lookup, the named nodes' pages and slices,
    # their events; never the whole index.
    with django_assert_num_queries(NAME_QUERIES + NAMED_QUERIES + DETAIL_QUERIES + EPISODES):
        result = recall(owner, "what do you remember about Topic 2")
    assert [i.label for i in result.items] == ["Topic 2"]
    with django_assert_num_queries(NAME_QUERIES + NAMED_QUERIES + DETAIL_QUERIES + EPISODES):
        assert recall(owner, "T1").items[0].label == "Topic 1"


# --- the recall command ---------------------------------------------------------------------


def test_recall_command_prints_context_and_ranked_list(owner: User, memory: Any) -> None:
    out = StringIO()
    call_command("recall", "am I still boxing", "--user", owner.username, stdout=out)
    text = out.getvalue()
    assert "Boxing (skill, stopped) - trains three days a week" in text
    assert "why=exact" in text


def test_recall_command_json_prints_as_json_only(owner: User, memory: Any) -> None:
    out = StringIO()
    call_command("recall", "UML", "--user", owner.username, "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data == recall(owner, "UML").as_json()


def test_recall_command_says_no_recall(owner: User, memory: Any) -> None:
    out = StringIO()
    call_command("recall", "thanks", "--user", owner.username, stdout=out)
    assert out.getvalue().strip() == "No recall (smalltalk)."


def test_recall_command_errors(owner: User) -> None:
    with pytest.raises(CommandError, match="no user"):
        call_command("recall", "x", "--user", "nobody", stdout=StringIO())
    with pytest.raises(CommandError, match="--limit"):
        call_command("recall", "x", "--user", owner.username, "--limit", "0", stdout=StringIO())


def test_a_named_identity_outranks_a_word_match_on_the_rest_of_the_question(owner: User) -> None:
    mum = make_node(owner=owner, label="Margaret", category="family", aliases=("Maggie",))
    shed = make_node(owner=owner, label="Allotment", category="interest")
    make_slice(node=shed, text="the garden shed needs a new roof")
    result = recall(owner, "what about Maggie's garden")
    assert [i.id for i in result.items] == [mum.pk, shed.pk]
    assert [i.why for i in result.items] == ["alias", "lexical+semantic"]
    # Filler words of an update question do not match on their own.
    assert [i.id for i in recall(owner, "what's new with Maggie?").items] == [mum.pk]


def test_recent_events_first_by_when_they_happened_or_were_learned(owner: User) -> None:
    node = make_node(owner=owner, label="Pottery", category="interest")
    make_event(
        node=node,
        text="first class",
        happened_at=datetime(2019, 1, 1, tzinfo=UTC),
        happened_at_precision="year",
        happened_at_source="stated",
    )
    make_event(node=node, text="bought a wheel", created_at=datetime(2020, 6, 1, tzinfo=UTC))
    make_event(
        node=node,
        text="sold a vase",
        happened_at=datetime(2026, 3, 9, tzinfo=UTC),
        happened_at_precision="day",
        happened_at_source="stated",
    )
    item = node_item(recall(owner, "pottery").items[0])
    assert [e.text for e in item.events] == ["sold a vase", "bought a wheel", "first class"]
    assert [e.date_text for e in item.events] == ["2026-03-09", "", "2019"]
    assert recall(owner, "pottery").context == (
        "Pottery (interest, active) - sold a vase (2026-03-09); bought a wheel"
    )


# --- the name lookup reads only what ranking needs, and gives what the whole index gives ----


EQUIVALENCE_QUERIES = [
    "UML",
    "Universal Memory Engine",
    "what do you remember about UML College Society?",
    "UML Society",
    "who is Rahul?",
    "Rahul",
    "what is Atlas?",
    "Atlas",
    "Atlas pdf export",
    "boxing",
    "what is a monad?",
    "what is Boxing",
    "PDF Export Notes",
    "export notes",
    "Rahul and Atlas",
    "Asthma",
    "cloudflare workers",
    "what do you remember about Kite",
    "the",
    " ".join(["atlas"] * 40),  # more phrases than MAX_NAME_PHRASES: reads the whole index
]


@pytest.mark.parametrize("query", EQUIVALENCE_QUERIES)
def test_the_index_kept_on_every_write_answers_like_a_rebuilt_one(
    owner: User, memory: Any, query: Any
) -> None:
    make_page(owner=owner, title="Atlas Roadmap", summary="the plan for atlas")  # unlinked
    make_page(owner=owner, title="Rahul's Go Tips", summary="channels", node=memory["rahul"])
    make_event(node=memory["atlas"], text="shipped the export", action="shipped")
    kept = recall(owner, query, limit=50).as_json()
    recall_index_rebuild(owner_id=owner.pk)
    assert recall(owner, query, limit=50).as_json() == kept


def test_name_lookup_never_reads_another_owners_rows(
    owner: User, other_user: User, memory: Any
) -> None:
    theirs = make_node(owner=other_user, label="Atlas", category="project", summary="not yours")
    make_slice(node=theirs, text="their secret detail")
    make_node(owner=other_user, label="Kestrel", category="project", aliases=("UML",))
    make_page(owner=other_user, title="Atlas Secrets", summary="their page")  # unlinked
    make_page(owner=other_user, title="Their Atlas Page", summary="linked", node=theirs)
    result = recall(owner, "Atlas")
    assert [(i.kind, i.id) for i in result.items] == [("node", memory["atlas"].pk)]
    assert "secret" not in result.context and "their" not in result.context
    assert [(i.kind, i.label) for i in recall(owner, "Atlas secrets").items] == [("node", "Atlas")]
    assert [i.label for i in recall(owner, "UML").items] == ["Universal Memory Engine"]


def test_every_call_reads_the_current_rows(owner: User, memory: Any) -> None:
    assert node_item(recall(owner, "Rahul").items[0]).slices[0].text == "prefers working in Go"
    make_slice(node=memory["rahul"], text="moved to the platform team")
    assert node_item(recall(owner, "Rahul").items[0]).slices[0].text == "moved to the platform team"
    memory["rahul"].slices.update(is_current=False)  # a bulk update, no signals
    assert node_item(recall(owner, "Rahul").items[0]).slices == ()
    make_event(node=memory["rahul"], text="joined the on-call rota")
    assert [e.text for e in node_item(recall(owner, "Rahul").items[0]).events] == [
        "joined the on-call rota"
    ]
    memory["rahul"].delete()
    assert recall(owner, "Rahul").items == ()


def test_profile_items_carry_their_newest_current_slices_and_events(owner: User) -> None:
    older = make_node(owner=owner, label="Kiln", category="interest")
    newer = make_node(owner=owner, label="Wheel", category="interest")
    for i in range(7):
        make_slice(node=newer, text=f"detail {i}", created_at=datetime(2026, 1, 1 + i, tzinfo=UTC))
    make_slice(node=newer, text="old news", is_current=False)
    for i in range(4):
        make_event(node=older, text=f"fired {i}", created_at=datetime(2026, 2, 1 + i, tzinfo=UTC))
    make_node(owner=owner, label="Asthma", category="health")
    older.last_seen_at = datetime(2026, 1, 1, tzinfo=UTC)
    newer.last_seen_at = datetime(2026, 3, 1, tzinfo=UTC)
    older.save()
    newer.save()
    items = recall(owner, "what are my interests").items
    assert [i.label for i in items] == ["Wheel", "Kiln"]
    assert [s.text for s in node_item(items[0]).slices] == [f"detail {i}" for i in (6, 5, 4, 3, 2)]
    assert [e.text for e in node_item(items[1]).events] == ["fired 3", "fired 2", "fired 1"]
    assert node_item(items[1]).slices == ()


@pytest.mark.parametrize("query", ["detail number 2", "started topic 7", "topic 11 detail"])
def test_common_words_are_read_only_where_rare_ones_matched_and_score_the_same(
    owner: User, monkeypatch: pytest.MonkeyPatch, query: Any
) -> None:
    import memory.recall.loaders as loaders

    _corpus(owner, 12)
    everything = recall(owner, query, limit=50).as_json()
    # "detail", "number", "started", "topic" are now common (in more than 3 documents); the
    # numbers are rare. Common words are read only for the documents a number matched, and
    # those are scored exactly as before.
    monkeypatch.setattr(loaders, "POSTINGS_PER_TERM", 3)
    assert recall(owner, query, limit=50).as_json() == everything


def test_when_every_word_is_common_the_least_common_one_finds_the_candidates(
    owner: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memory.recall.loaders as loaders

    _corpus(owner, 12)
    monkeypatch.setattr(loaders, "POSTINGS_PER_TERM", 3)
    result = recall(owner, "detail topic", limit=50)
    lexical = [i for i in result.items if "lexical" in i.why]
    assert 1 <= len(lexical) <= 3
    assert all(i.label.startswith("Topic ") for i in lexical)


def test_profile_reads_only_the_first_nodes_and_those_tied_with_the_last(
    owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    seen = datetime(2026, 3, 1, tzinfo=UTC)
    # Six interests learned in one save (the same time and mentions), created in reverse
    # alphabetical order; one older, one paused.
    for label in ["Weaving", "Pottery", "Origami", "Knitting", "Juggling", "Baking"]:
        make_node(owner=owner, label=label, category="interest", last_seen_at=seen)
    make_node(
        owner=owner,
        label="Archery",
        category="interest",
        last_seen_at=datetime(2025, 1, 1, tzinfo=UTC),
    )
    make_node(owner=owner, label="Aikido", category="interest", state="paused", last_seen_at=seen)
    # (and the episode lane's count: this person has no episodes)
    with django_assert_num_queries(PROFILE_QUERIES + DETAIL_QUERIES + COUNT_QUERIES):
        result = recall(owner, "what are my interests", limit=3)
    assert labels(result) == ["Baking", "Juggling", "Knitting"]
    assert labels(recall(owner, "what are my interests", limit=8))[-2:] == ["Archery", "Aikido"]


def test_every_item_has_a_confidence_and_a_name_asked_whole_is_certain(
    owner: User, memory: Any
) -> None:
    named = recall(owner, "Rahul", min_confidence=0.0)
    assert node_item(named.items[0]).confidence == 1.0
    assert named.as_json()["items"][0]["confidence"] == 1.0
    partial = recall(owner, "what did Rahul say about the quarterly budget", min_confidence=0.0)
    assert labels(partial) == ["Rahul"]
    assert 0.0 < partial.items[0].confidence < 0.6


def test_weak_best_evidence_is_nothing_close(owner: User, memory: Any, settings: Settings) -> None:
    question = "what did Rahul say about the quarterly budget"
    weak = recall(owner, question, min_confidence=0.9)
    assert weak.no_recall and weak.reason == REASON_NOTHING_CLOSE and weak.items == ()
    assert weak.as_json()["count"] == 0 and weak.context == ""
    settings.UME_RECALL_MIN_CONFIDENCE = 0.9
    assert recall(owner, question).reason == REASON_NOTHING_CLOSE
    # a strong answer beside it is given whatever the threshold below its confidence
    assert labels(recall(owner, "Rahul")) == ["Rahul"]
    settings.UME_RECALL_MIN_CONFIDENCE = 0.0
    assert labels(recall(owner, question)) == ["Rahul"]
