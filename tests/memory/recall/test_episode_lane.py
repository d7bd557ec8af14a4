"""The episode lane through the real write path and recall: what was said comes back, after
confirmed memories, and nothing the person asked ume to forget does."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries

from memory.models import Candidate, Episode, MemoryRule
from memory.recall import EpisodeItem, RecallItem, recall
from memory.recall.episode_loaders import (
    CANDIDATE_QUERIES,
    COUNT_QUERIES,
    EPISODE_CANDIDATES,
    KEPT_QUERIES,
    NAME_QUERIES,
    SETTINGS_QUERIES,
    episode_settings,
    load_episode_candidates,
    load_threads,
    recall_episodes,
)
from memory.recall.slots import MISSING_SLOT_FACTOR, ONLY_NAMES_FACTOR
from memory.services.episodes import episodes_delete
from memory.services.erase import memory_erase_all, receipt_undo
from memory.services.ingest import ingest_text
from memory.services.nodes import node_delete
from memory.services.review import candidate_promote, candidate_reject
from memory.services.rules import memory_rule_update
from memory.tombstones import hidden
from tests.factories import make_candidate, make_node, make_suppression

pytestmark = pytest.mark.django_db

CHAT = [
    {
        "id": "a1",
        "role": "user",
        "content": "I met Ana at the climbing gym, she runs the bouldering nights.",
        "ts": "2026-04-02T19:00:00+00:00",
    },
    {
        "id": "a2",
        "role": "assistant",
        "content": "Nice! Did you go to the bouldering night on Friday?",
    },
    {"id": "a3", "role": "user", "content": "Yes, with Ana"},
    {"id": "a4", "role": "user", "content": "I'm going to my cousin's wedding in Porto in June."},
]


def save(owner: Any, messages: Any = CHAT, objects: Any = (), name: Any = "chat") -> Any:
    """A conversation with the proposals an assistant drew from it, through the real path."""
    doc = {"objects": list(objects), "messages": list(messages)}
    return ingest_text(
        owner=owner,
        text=json.dumps(doc),
        name=name,
        extractor="proposals",
        source_time=datetime(2026, 4, 3, tzinfo=UTC),
    )


def proposal(label: str, category: str = "person", quote: str = "I met Ana") -> dict:
    return {
        "object": "node",
        "label": label,
        "category": category,
        "confidence": 0.6,
        "evidence": [{"message_id": "a1", "quote": quote}],
    }


def episode_item(item: RecallItem | EpisodeItem) -> EpisodeItem:
    """Where these tests expect only what was said, a node or page item fails them."""
    assert isinstance(item, EpisodeItem), item
    return item


def episodes_of(result: Any) -> list[str]:
    return [i.message_id for i in result.items if i.kind == "episode"]


def test_the_rest_of_a_story_told_weeks_later_comes_back_after_its_start(owner: User) -> None:
    # the later message says none of the question's words, only its frame's ("ended up"),
    # but it carries on the story the first one started; an unrelated "ended up" does not
    save(
        owner,
        messages=[
            {
                "id": "d1",
                "role": "user",
                "content": "the dishwasher is leaking all over the kitchen floor again, "
                "the plumber is coming on monday",
            }
        ],
        name="march",
    )
    save(
        owner,
        messages=[
            {
                "id": "d2",
                "role": "user",
                "content": "plumber swapped the door seal on it, ended up £95 with the callout fee",
            },
            {
                "id": "d3",
                "role": "user",
                "content": "we ended up staying in for the match, pizza and an early night",
            },
        ],
        name="april",
    )
    assert episodes_of(recall(owner, "how much did the dishwasher repair end up costing?")) == [
        "d1",
        "d2",
    ]
    # the frame's word alone never finds anything
    assert recall(owner, "how much did the boiler service end up costing?").no_recall


def test_nothing_reviewed_yet_still_finds_what_was_said(owner: User) -> None:
    save(owner, objects=[proposal("Ana")])
    assert Candidate.objects.for_owner(owner).filter(status="pending").exists()
    result = recall(owner, "What do you know about Ana?")
    assert not result.no_recall and result.reason == "matched"
    # the pending candidate stays out; what was said comes back, the person's words first
    assert {i.kind for i in result.items} == {"episode"}
    assert sorted(episodes_of(result)) == ["a1", "a3"]
    met = next(i.as_json() for i in map(episode_item, result.items) if i.message_id == "a1")
    assert met["said_at"] == "2026-04-02T19:00:00+00:00" and met["role"] == "user"
    assert met["transcript_id"] == Episode.objects.get(message_id="a1").transcript_id
    assert 'Said on 2026-04-02 by you: "I met Ana at the climbing gym' in result.context
    # the reply, said without a time of its own, is dated by the conversation
    assert 'Said on 2026-04-03 by you: "Yes, with Ana" (in reply to "Nice!' in result.context


def test_a_short_reply_comes_with_what_it_answers(owner: User) -> None:
    save(owner)
    result = recall(owner, "when did I go to the bouldering night")
    by_id = {
        i.message_id: i for i in result.items if isinstance(i, EpisodeItem) and i.kind == "episode"
    }
    assert "a3" in by_id
    assert by_id["a3"].reply_to.startswith("Nice! Did you go to the bouldering night")


def test_a_short_reply_is_found_by_the_thread_it_answers(owner: User) -> None:
    # the answer names nothing the question asks about: the message two before it does
    save(
        owner,
        messages=[
            {"id": "b1", "role": "user", "content": "the car is grinding when I brake again"},
            {"id": "b2", "role": "assistant", "content": "Did the garage give you a quote?"},
            {"id": "b3", "role": "user", "content": "£180 fitted, booked for thursday"},
        ],
    )
    said = episodes_of(recall(owner, "what did the brake job come to"))
    assert said[0] == "b1" and "b3" in said


def test_episodes_come_after_confirmed_memories(owner: User) -> None:
    save(owner, objects=[proposal("Ana")])
    candidate_promote(
        candidate=Candidate.objects.for_owner(owner).get(canonical_key="ana"), by=owner
    )
    result = recall(owner, "Ana")
    kinds = [i.kind for i in result.items]
    assert kinds[0] == "node" and result.items[0].label == "Ana"
    assert "episode" in kinds and kinds == sorted(kinds, key=lambda k: k == "episode")


def test_the_episodes_rule_turns_the_lane_off(owner: User) -> None:
    save(owner)
    memory_rule_update(owner=owner, changes={"episodes": False})
    result = recall(owner, "bouldering")
    assert result.no_recall and result.reason == "no_match"


def test_another_persons_conversations_never_come_back(owner: User, other_user: User) -> None:
    save(other_user)
    assert recall(owner, "bouldering").no_recall


# --- forgetting -------------------------------------------------------------------------------


def test_deleting_a_memory_with_make_it_stick_forgets_what_was_said(owner: User) -> None:
    save(owner)
    node = make_node(owner=owner, label="Ana", category="person")
    node_delete(node=node, stick=True)
    assert "a1" not in episodes_of(recall(owner, "climbing gym"))
    assert episodes_of(recall(owner, "wedding in Porto")) == ["a4"]  # the rest stays


TAXES = [
    {"id": "t1", "role": "user", "content": "My accountant Ravi Mensah is doing my taxes."},
    {"id": "t2", "role": "user", "content": "We hired Mensah Plumbing to redo the bathroom."},
    {"id": "t3", "role": "user", "content": "Ravi from Mensah Plumbing quoted for the boiler."},
    {"id": "t4", "role": "user", "content": "I buy sourdough at Quillon Bakery on Saturdays."},
]


def test_what_is_said_of_a_kept_name_sharing_a_forgotten_word_is_not_forgotten(
    owner: User, other_user: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    """A person forgets their accountant Ravi Mensah for good and keeps "Mensah Plumbing" (a
    card waiting for them) and "Quillon Bakery" (a memory): what they said of the plumbers
    is theirs to find; what names Ravi beside it still is not."""
    save(owner, messages=TAXES)
    node_delete(node=make_node(owner=owner, label="Ravi Mensah", category="person"), stick=True)
    make_candidate(owner=owner, label="Mensah Plumbing", category_guess="organization")
    make_candidate(owner=owner, label="Mensah", category_guess="other")  # it is Ravi: no name
    with django_assert_num_queries(SETTINGS_QUERIES + KEPT_QUERIES):
        settings = episode_settings(owner)
    assert settings.kept == ("Mensah Plumbing",)
    assert episodes_of(recall(owner, "who redid the bathroom?")) == ["t2"]
    assert "t1" not in episodes_of(recall(owner, "who does my taxes?"))
    assert "t3" not in episodes_of(recall(owner, "who quoted for the boiler?"))
    # nothing forgotten but a memory rule's term: nothing more is read
    memory_rule_update(owner=other_user, changes={"excludes": ["Mensah"]})
    with django_assert_num_queries(SETTINGS_QUERIES):
        assert episode_settings(other_user).kept == ()


def test_deleting_without_make_it_stick_forgets_nothing(owner: User) -> None:
    save(owner)
    node_delete(node=make_node(owner=owner, label="Ana", category="person"), stick=False)
    assert "a1" in episodes_of(recall(owner, "climbing gym"))


def test_a_memory_rule_exclude_forgets_what_was_said(owner: User) -> None:
    save(owner)
    memory_rule_update(owner=owner, changes={"excludes": ["wedding"]})
    assert recall(owner, "cousin in Porto").no_recall


def test_what_the_lane_forgets_is_each_forgetting_in_force(
    owner: User, other_user: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    now = datetime(2026, 5, 1, tzinfo=UTC)
    later, earlier = datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)
    make_suppression(owner=owner, label="Tarot", reason="deleted")
    make_suppression(owner=owner, label="Porto Trip", reason="forgotten", suppressed_until=later)
    make_suppression(owner=owner, label="Old Flame", reason="forgotten", suppressed_until=earlier)
    make_suppression(owner=owner, label="Lifted", reason="deleted", lifted_at=earlier)
    make_suppression(owner=owner, label="Going", reason="rejected")  # stop proposing only
    make_suppression(owner=other_user, label="Kestrel", reason="deleted")
    memory_rule_update(owner=owner, changes={"excludes": ["Night Shifts"]})
    with django_assert_num_queries(SETTINGS_QUERIES + KEPT_QUERIES):
        settings = episode_settings(owner, now=now)
    assert settings.enabled
    assert settings.forgotten == ("night shifts", "porto trip", "tarot")
    # and "porto", the distinctive word of the forgotten "Porto Trip" ("trip" is common), as
    # its tombstone says: what speaks of it in other words
    assert [t.label for t in settings.tombstones] == ["Tarot", "Porto Trip"]
    said = ["Porto was lovely in May.", "The trip to Leeds was fine."]
    assert hidden(said, settings.tombstones, floor=settings.meaning_floor) == [True, False]
    memory_rule_update(owner=owner, changes={"episodes": False})
    with django_assert_num_queries(1):
        assert not episode_settings(owner, now=now).enabled
    # no rule at all: on, with what the suppressions forget
    assert episode_settings(other_user, now=now).forgotten == ("kestrel",)


def test_reject_and_forget_hides_it_but_reject_and_suppress_does_not(owner: User) -> None:
    save(owner, objects=[proposal("Ana"), proposal("Wedding", "other", "my cousin's wedding")])
    wedding = Candidate.objects.for_owner(owner).get(canonical_key="wedding")
    candidate_reject(candidate=wedding, by=owner, suppress=True)  # "stop proposing this"
    # what was said about it is still searchable, by the suppressed word itself too
    assert episodes_of(recall(owner, "cousin wedding")) == ["a4"]
    ana = Candidate.objects.for_owner(owner).get(canonical_key="ana")
    candidate_reject(candidate=ana, by=owner, forget=True)
    said = episodes_of(recall(owner, "climbing gym bouldering"))
    assert "a1" not in said and "a3" not in said
    # and the reply that did not name her does not quote the message that did
    for item in map(episode_item, recall(owner, "bouldering night").items):
        assert "Ana" not in item.text and "Ana" not in getattr(item, "reply_to", "")


# --- deleting ---------------------------------------------------------------------------------


def test_undo_of_an_ingest_removes_its_episodes(owner: User) -> None:
    receipt = save(owner, objects=[proposal("Ana")])
    other = save(
        owner, messages=[{"role": "user", "content": "Bouldering again next week."}], name="b"
    )
    undo = receipt_undo(receipt=receipt)
    assert undo.counts["episodes_deleted"] == 4
    assert not Episode.objects.filter(transcript_id=receipt.detail["transcript"]).exists()
    texts = [episode_item(i).text for i in recall(owner, "bouldering").items]
    assert texts == ["Bouldering again next week."]
    assert Episode.objects.filter(transcript_id=other.detail["transcript"]).count() == 1


def test_delete_all_removes_every_episode(owner: User, other_user: User) -> None:
    save(owner)
    save(other_user)
    receipt = memory_erase_all(owner=owner)
    assert receipt.counts["episodes"] == 4
    assert recall(owner, "bouldering").no_recall
    assert Episode.objects.for_owner(other_user).count() == 4


# --- a constant number of queries --------------------------------------------------------------


@pytest.mark.parametrize("long_messages", [False, True])
def test_a_realistic_question_reads_the_same_queries_and_embeds_only_itself(
    owner: User,
    long_messages: bool,
    django_assert_num_queries: DjangoAssertNumQueries,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the length of the messages it reads, a question runs the same statements
    and embeds only its own words: the messages' stems and vectors come from the index."""
    from memory.recall import embed as embed_module

    padding = " The lunch went on for hours and we talked about everything." * 40
    for i in range(4):
        messages = [
            {"role": "user", "content": f"I had lunch with Maya at a cafe in Porto, visit {i}."},
            {"role": "assistant", "content": "Sounds lovely!" + (padding if long_messages else "")},
            {"role": "user", "content": "Maya says the soup was great" + (padding if i else "")},
        ]
        save(owner, messages=messages, name=f"lunch {i}")
    maya = make_node(owner=owner, label="Maya Brennan", category="person", aliases=("Maya",))
    embedded: list[list[str]] = []
    real_embed = embed_module.embed

    def spy(texts: Any) -> Any:
        embedded.append(list(texts))
        return real_embed(texts)

    monkeypatch.setattr(embed_module, "embed", spy)  # what the bundled model is asked
    subject = ("where", "did", "i", "have", "lunch", "with", "maya", "in", "porto")
    lane = COUNT_QUERIES + SETTINGS_QUERIES + NAME_QUERIES + CANDIDATE_QUERIES
    with django_assert_num_queries(lane):
        said = recall_episodes(owner, subject, named=[(maya.pk, "Maya Brennan")], limit=10)
    assert said and all("Maya" in e.text or e.reply_to for e in said)
    assert all(texts == [" ".join(subject)] for texts in embedded), embedded


def test_the_lane_reads_a_fixed_number_of_queries(
    owner: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    for i in range(3):
        save(owner, messages=[*CHAT, {"role": "user", "content": f"note {i}"}], name=f"c{i}")
    ana = make_node(owner=owner, label="Ana", category="person", aliases=("Ana Lima",))
    # a node whose name holds "Ana": the twin check reads its label (one query, with or
    # without such a node)
    make_node(owner=owner, label="Ana Banana Cafe", category="place")
    subject = ("bouldering", "night", "friday")
    lane = COUNT_QUERIES + SETTINGS_QUERIES + CANDIDATE_QUERIES
    with django_assert_num_queries(lane):
        assert recall_episodes(owner, subject, limit=10)
    # a question that names a node also reads that node's aliases
    with django_assert_num_queries(lane + NAME_QUERIES):
        said = recall_episodes(owner, ("ana", "bouldering"), named=[(ana.pk, "Ana")], limit=10)
    assert said and all("Ana" in e.text or e.reply_to for e in said)
    # the lane turned off: the count and the rule only
    MemoryRule.objects.update_or_create(owner=owner, defaults={"episodes": False})
    with django_assert_num_queries(COUNT_QUERIES + 1):
        assert recall_episodes(owner, subject, limit=10) == []
    # no episodes at all: the count only (from the index, which the deleting service keeps)
    episodes_delete(owner=owner)
    assert not Episode.objects.for_owner(owner).exists()
    with django_assert_num_queries(COUNT_QUERIES):
        assert recall_episodes(owner, subject, limit=10) == []


def test_a_match_is_read_with_its_thread_in_one_query(
    owner: User, other_user: User, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    roles = ["user", "assistant"] * 4
    thread = [
        {"id": f"t{n}", "role": role, "content": f"turn {n} about the garage"}
        for n, role in enumerate(roles)
    ]
    save(owner, messages=thread, name="thread")
    save(other_user, messages=thread, name="thread")
    mine = {e.message_id: e for e in Episode.objects.for_owner(owner)}
    theirs = {e.message_id: e for e in Episode.objects.for_owner(other_user)}
    assistant, person = mine["t3"], mine["t4"]  # an answer, and the person's next message
    with django_assert_num_queries(1):
        candidates, neighbours = load_threads(owner, [assistant.pk])
    # an assistant's message: the reply to it and the reply to that
    assert [c.message_id for c in candidates] == ["t3"]
    assert [n.message_id for n in neighbours] == ["t4", "t5"]
    assert candidates[0].said_at == assistant.said_at  # an aware datetime, as the ORM reads it
    # a person's message: also what it answers and what that answered
    _candidates, neighbours = load_threads(owner, [person.pk])
    assert [n.message_id for n in neighbours] == ["t2", "t3", "t5", "t6"]
    # two matches of one thread: neither is a neighbour, each neighbour comes once
    candidates, neighbours = load_threads(owner, [person.pk, assistant.pk, person.pk])
    assert sorted(c.message_id for c in candidates) == ["t3", "t4"]
    assert [n.message_id for n in neighbours] == ["t2", "t5", "t6"]
    # the first message, and the person's last (one after it): nothing outside the thread
    _candidates, neighbours = load_threads(owner, [mine["t0"].pk, mine["t6"].pk])
    assert [n.message_id for n in neighbours] == ["t1", "t2", "t4", "t5", "t7"]
    # another person's messages are out of reach, by id as by thread
    assert load_threads(owner, [theirs["t4"].pk]) == ([], [])
    with django_assert_num_queries(0):
        assert load_threads(owner, []) == ([], [])


def test_a_save_that_kept_no_memory_can_still_be_undone_for_what_was_said(
    owner: User, client: Client
) -> None:
    receipt = save(owner, messages=[{"role": "user", "content": "Bouldering again next week."}])
    assert receipt.outcome == "meaningful_no_write"
    client.force_login(owner)
    page = client.get(reverse("receipts:detail", args=[receipt.pk])).content.decode()
    assert "1 message of this conversation is kept" in page
    assert "Delete everything this ingest wrote" in page
    undo = receipt_undo(receipt=receipt)
    assert undo.counts["episodes_deleted"] == 1
    assert recall(owner, "bouldering").no_recall


def test_the_lane_reads_a_bounded_number_of_matching_messages_the_strongest_first(
    owner: User,
) -> None:
    many = [{"role": "user", "content": f"baked bread again, loaf {n}"} for n in range(40)]
    strong = {"role": "user", "content": "bread, bread and more bread: the sourdough bread"}
    save(owner, messages=[strong, *many], name="bakes")
    total = Episode.objects.for_owner(owner).count()
    candidates, _neighbours = load_episode_candidates(owner, ["bread"], total)
    assert len(candidates) == EPISODE_CANDIDATES < total
    assert strong["content"] in [c.text for c in candidates]


# --- a forgotten name, as people go on to say it ----------------------------------------------

COLLEAGUES = [
    {"id": "h1", "role": "user", "content": "My colleague Harriet Vane leads the launch review."},
    {"id": "h2", "role": "user", "content": "Harriet said the deploy script is broken again."},
    {"id": "h3", "role": "user", "content": "Ms Vane, my colleague, moved the launch review."},
    {"id": "h4", "role": "user", "content": "I am working on Project Moonbeam again."},
    {"id": "h5", "role": "user", "content": "Moonbeam ships its beta on Friday."},
    {"id": "h6", "role": "user", "content": "Apple the company hired my cousin."},
    {"id": "h7", "role": "user", "content": "I baked an apple pie for the launch party."},
    {"id": "h8", "role": "user", "content": "I am going to Lisbon for the launch party."},
]


def test_a_forgotten_name_is_forgotten_by_its_distinctive_parts(owner: User) -> None:
    save(owner, COLLEAGUES, name="colleagues")
    for label in ("Harriet Vane", "Project Moonbeam", "Apple the company"):
        node_delete(node=make_node(owner=owner, label=label, category="person"), stick=True)
    make_suppression(owner=owner, label="Going", reason="deleted")
    said = [*episodes_of(recall(owner, "who is Harriet Vane?"))]
    said += episodes_of(recall(owner, "deploy script broken"))
    said += episodes_of(recall(owner, "who moved the launch review?"))
    said += episodes_of(recall(owner, "what ships on Friday?"))
    said += episodes_of(recall(owner, "working on again"))
    said += episodes_of(recall(owner, "who hired my cousin?"))
    assert not {"h1", "h2", "h3", "h4", "h5", "h6"} & set(said)
    # a common word is not a name: "apple" and "going" stay searchable
    assert "h7" in episodes_of(recall(owner, "apple pie"))
    assert "h8" in episodes_of(recall(owner, "going to Lisbon"))


def test_a_part_of_a_name_that_is_not_forgotten_stays(owner: User) -> None:
    save(owner, COLLEAGUES, name="colleagues")
    node_delete(node=make_node(owner=owner, label="Harriet Vane", category="person"), stick=False)
    assert "h2" in episodes_of(recall(owner, "deploy script broken"))
    assert "h5" in episodes_of(recall(owner, "what ships on Friday?"))


def test_stored_meaning_embeds_only_messages_without_a_current_vector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memory.recall import episode_loaders
    from memory.recall.embed import embed, quantize
    from memory.recall.episode_loaders import StoredMeaning
    from memory.recall.episodes import EpisodeRow

    when = datetime(2026, 4, 2, tzinfo=UTC)
    kept = quantize(embed(["my sister moved to Porto"]))[0]
    rows = [
        EpisodeRow(
            1,
            1,
            "m1",
            1,
            "user",
            "my sister moved to Porto",
            when,
            vector=kept,
            model=episode_loaders.MODEL_NAME,
        ),
        EpisodeRow(
            2,
            1,
            "m2",
            2,
            "user",
            "the boiler broke again",
            when,
            vector=kept,
            model="another-model",
        ),
    ]
    embedded: list[list[str]] = []

    def spy(texts: Any) -> Any:
        embedded.append(list(texts))
        return embed(texts)

    meaning = StoredMeaning.of(rows, embed_missing=spy)
    vectors = meaning.of_texts([r.text for r in rows])
    assert embedded == [["the boiler broke again"]]  # the other model's vector is not used
    assert vectors.shape == (2, 256)
    assert abs(float(vectors[0] @ vectors[0]) - 1.0) < 1e-5  # scaled back to unit length
    meaning.of_texts(["the boiler broke again"])
    assert len(embedded) == 1  # embedded once


GARAGE = [
    {"id": "g1", "role": "user", "content": "the garage on Mill Lane reckons its the rear pads"},
    {"id": "g2", "role": "user", "content": "I met Ana at the climbing gym last night"},
]


def best_confidence(owner: Any, question: str) -> float:
    return max(item.confidence for item in recall(owner, question, min_confidence=0.0).items)


def test_an_answer_without_the_asked_for_kind_is_less_sure(owner: User) -> None:
    save(owner, GARAGE)
    # the same words; "how much" asks for a quantity, and no message says one
    what = best_confidence(owner, "what did the garage charge for the pads?")
    how_much = best_confidence(owner, "how much did the garage charge for the pads?")
    assert what > 0
    assert how_much == pytest.approx(what * MISSING_SLOT_FACTOR, abs=1e-3)


def test_a_message_holding_only_the_name_asked_about_is_less_sure(owner: User) -> None:
    save(owner, GARAGE)
    # written as a name, "Ana" is who the question is about, not what it asks
    named = best_confidence(owner, "what did Ana say about the wedding?")
    plain = best_confidence(owner, "what did ana say about the wedding?")
    assert plain > 0
    assert named == pytest.approx(plain * ONLY_NAMES_FACTOR, abs=1e-3)
