"""The episode lane's ranking: pure tables, no database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from memory.recall.episodes import (
    CONTINUATION_FLOOR,
    SEMANTIC_RESCUE_FLOOR,
    EpisodeRow,
    continuations,
    mentions_forgotten,
    rank_episodes,
)
from memory.recall.text import stem_line, terms

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def row(
    id: int, text: str, *, role: str = "user", seq: int | None = None, t: int = 1
) -> EpisodeRow:
    return EpisodeRow(
        id=id,
        transcript_id=t,
        message_id=f"M{seq if seq is not None else id}",
        seq=seq if seq is not None else id,
        role=role,
        text=text,
        said_at=T0 + timedelta(minutes=id),
    )


def ranked(
    query: str, rows: list[EpisodeRow], neighbours: Any = (), total: Any = None, **kw: Any
) -> Any:
    """The lane's answer, which must be the same whether the messages come with the stem
    lines recall's index keeps (as the loaders read them) or without (ranking stems them);
    compared where no semantic callable records its calls."""
    found = rank_episodes(terms(query), rows, list(neighbours), total or 100, **kw)
    if "closeness" in kw or "likeness" in kw:
        return found
    kept = [replace(r, words=stem_line(r.text)) for r in rows]
    kept_neighbours = [replace(r, words=stem_line(r.text)) for r in neighbours]
    assert rank_episodes(terms(query), kept, kept_neighbours, total or 100, **kw) == found
    return found


def test_the_persons_own_words_rank_above_the_assistants() -> None:
    rows = [
        row(1, "You said the pottery class on Thursdays sounds relaxing.", role="assistant"),
        row(2, "I signed up for a pottery class on Thursdays.", role="user"),
    ]
    items = ranked("pottery class", rows)
    assert [i.id for i in items] == [2, 1]
    assert items[0].score == 1.0 and items[1].score < 1.0
    assert {i.why for i in items} == {"episode"}


def test_a_short_reply_is_found_by_the_question_it_answers_and_shows_it() -> None:
    question = row(1, "Did you end up going to the climbing gym on Saturday?", role="assistant")
    reply = row(2, "Yes, last Saturday!", role="user")
    unrelated = row(3, "I need to buy groceries tomorrow.")
    items = ranked("climbing gym", [question], neighbours=[reply, unrelated])
    assert [i.id for i in items] == [2, 1]  # the person's reply first, with its question
    assert items[0].reply_to.startswith("Did you end up going to the climbing gym")
    assert "in reply to" in items[0].context_line()
    assert items[1].reply_to == ""  # a long message stands on its own
    # two messages in a row from the same speaker: the second is not a reply to the first
    more = row(4, "So excited", role="user", seq=3)
    follow = ranked("climbing gym", [question], neighbours=[reply, more])
    assert [i.id for i in follow] == [2, 1]


def test_loosely_related_messages_do_not_fill_the_list() -> None:
    rows = [
        row(1, "My sister Ines moved to Braga for her new job at the hospital.", t=1),
        row(2, "The hospital cafeteria was closed.", t=2),
        row(3, "Braga has lovely old churches.", t=3),
    ]
    # "Ines" and "Braga" carry most of the weight; a message with only "hospital" is not enough
    items = ranked("where did Ines move for the hospital job", rows, total=1000)
    assert [i.id for i in items] == [1]


def test_nothing_matches_nothing() -> None:
    assert ranked("saxophone lessons", [row(1, "I walked the dog.")]) == []
    assert ranked("", [row(1, "I walked the dog.")]) == []


def test_a_forgotten_label_hides_the_message_in_any_form_and_never_quotes_it() -> None:
    rows = [
        row(1, "I went to a tarot reading with Mia.", seq=1),
        row(2, "Two more tarot readings next month!", seq=2),
        row(3, "Mia and I also had lunch at the market.", seq=3),
    ]
    items = ranked("Mia", rows, forgotten=("tarot reading",))
    assert [i.id for i in items] == [3]
    # a short reply to a forgotten message is kept but does not quote it
    question = row(10, "How was the tarot reading?", role="assistant", seq=10, t=2)
    reply = row(11, "Fun, Mia came too", seq=11, t=2)
    items = ranked("Mia", [reply], neighbours=[question], forgotten=("tarot reading",))
    assert [(i.id, i.reply_to) for i in items] == [(11, "")]


def test_mentions_forgotten_matches_whole_words_only() -> None:
    assert mentions_forgotten("Marta's office is near the park", ["marta"])
    assert not mentions_forgotten("Martina called", ["marta"])
    assert not mentions_forgotten("anything at all", [])


def test_episode_item_json_shape() -> None:
    item = ranked("pottery", [row(5, "Pottery again tonight.")])[0]
    data = item.as_json()
    assert set(data) == {
        "kind",
        "id",
        "text",
        "role",
        "said_at",
        "transcript_id",
        "message_id",
        "why",
        "score",
        "confidence",
    }
    assert data["kind"] == "episode" and data["said_at"] == "2026-03-01T09:05:00+00:00"
    assert item.context_line() == 'Said on 2026-03-01 by you: "Pottery again tonight."'


def test_the_limit_holds() -> None:
    rows = [row(i, f"pottery night number {i}") for i in range(1, 30)]
    assert len(ranked("pottery", rows, limit=4)) == 4


def test_a_name_said_only_inside_a_twins_name_does_not_count() -> None:
    rows = [
        row(1, "Upgrading Kafka Connect took the whole afternoon.", t=1),
        row(2, "Kafka lag is down after the partition change.", t=2),
    ]
    both = ranked("kafka", rows)
    assert {i.id for i in both} == {1, 2}
    guarded = rank_episodes([], rows, [], 100, names=[("Kafka",)], twins=["Kafka Connect"])
    assert [i.id for i in guarded] == [2]
    # a message that names both still counts for the one asked about
    rows.append(row(3, "Kafka itself was fine; Kafka Connect was the problem.", t=3))
    guarded = rank_episodes([], rows, [], 100, names=[("Kafka",)], twins=["Kafka Connect"])
    assert {i.id for i in guarded} == {2, 3}


def test_a_named_thing_matches_by_any_of_its_names() -> None:
    rows = [
        row(1, "Got Mum a silk scarf for her birthday.", t=1),
        row(2, "My birthday is in May.", t=2),
    ]
    items = rank_episodes(terms("birthday"), rows, [], 100, names=[("Margaret", "Mum", "Maggie")])
    assert items[0].id == 1 and items[0].score == 1.0
    assert all(i.score < 0.7 for i in items[1:])  # a birthday that is not hers, well below
    # without the name's other forms, "Maggie" matches nothing said about Mum: the shorter
    # birthday message wins on words alone
    plain = rank_episodes(terms("Maggie birthday"), rows, [], 100)
    assert [i.id for i in plain] == [2, 1]


# --- semantic rescue of partial matches -------------------------------------------------------

ROOMMATE = [
    row(1, "my roomate started playing drums at 11pm every night, cant focus"),
    row(2, "tried a new drumming app on the train", t=2),
]
DRUM_QUESTION = "how did the drumming problem with my roommate get sorted"


def closeness_table(table: dict[str, float], calls: list[list[str]]) -> Any:
    def closeness(texts: Any) -> Any:
        calls.append(list(texts))
        return [table.get(text, 0.0) for text in texts]

    return closeness


def test_a_partial_match_close_in_meaning_is_kept_and_a_distant_one_is_not() -> None:
    # "drum" is one of four words of the question, under the share floor on its own
    assert ranked(DRUM_QUESTION, ROOMMATE) == []
    calls: list[list[str]] = []
    near = closeness_table({ROOMMATE[0].text: SEMANTIC_RESCUE_FLOOR + 0.05}, calls)
    assert [i.id for i in ranked(DRUM_QUESTION, ROOMMATE, closeness=near)] == [1]
    assert calls == [[r.text for r in ROOMMATE]]  # one call for every doubtful message


def test_semantic_closeness_never_brings_a_message_that_shares_no_word() -> None:
    calls: list[list[str]] = []
    everything_close = closeness_table({"we moved the piano upstairs": 0.99}, calls)
    rows = [row(1, "we moved the piano upstairs")]
    assert ranked(DRUM_QUESTION, rows, closeness=everything_close) == []
    assert calls == []  # nothing doubtful: the model is not asked


def test_a_good_match_does_not_ask_for_closeness() -> None:
    calls: list[list[str]] = []
    rows = [row(1, "my roommate and the drumming: sorted, he has an electric kit now")]
    items = ranked(DRUM_QUESTION, rows, closeness=closeness_table({}, calls))
    assert [i.id for i in items] == [1] and calls == []


def test_a_sliver_of_the_question_is_not_rescued() -> None:
    # one common word of a long question: under RESCUE_MIN_SHARE, however close
    rows = [row(i, f"note {i} about the train") for i in range(1, 30)]
    question = "which train did my grandmother take to the wedding in lisbon last spring"
    calls: list[list[str]] = []
    assert ranked(question, rows, total=30, closeness=closeness_table({}, calls)) == []
    assert calls == []


def test_a_longer_reply_is_found_by_its_thread_too() -> None:
    night = row(1, "third night shift in a row, home now and cant sleep")
    asked = row(2, "Anything that usually helps you wind down?", role="assistant")
    reply = row(3, "blackout blind and a white noise app normally, but the flat is freezing")
    other = row(4, "booked the dentist for friday", seq=7)
    items = ranked("what helps me sleep after a night shift", [night], [asked, reply, other])
    ids = [i.id for i in items]
    assert ids[0] == 1 and 3 in ids and 4 not in ids
    # the thread counts for less than the message's own words
    assert next(i.score for i in items if i.id == 3) < 1.0


# --- the rest of a story: continuations ---------------------------------------------------------

LEAK = [
    row(1, "water has been coming through the ceiling of the back bedroom since the storm"),
    row(2, "the roofer came and replaced two slates, the bedroom ceiling has a stain", t=2),
    row(3, "we painted the spare bedroom yellow for the baby", t=3),
]
LEAK_QUESTION = "what happened with the water coming into the back bedroom from start to finish"


def likeness_table(table: dict[str, float], calls: list[tuple[list[str], list[str]]]) -> Any:
    def likeness(texts: Any, anchors: Any) -> Any:
        calls.append((list(texts), list(anchors)))
        return [table.get(text, 0.0) for text in texts]

    return likeness


def test_a_later_message_close_to_a_good_match_is_kept_after_it() -> None:
    # "bedroom" alone is a sliver of the question: left out without a continuation
    assert [i.id for i in ranked(LEAK_QUESTION, LEAK)] == [1]
    calls: list[tuple[list[str], list[str]]] = []
    near = likeness_table({LEAK[1].text: CONTINUATION_FLOOR + 0.05}, calls)
    items = ranked(LEAK_QUESTION, LEAK, likeness=near)
    assert [i.id for i in items] == [1, 2]  # the unrelated bedroom stays out
    assert items[1].score <= items[0].score
    # one call: every message left out, against the messages kept
    assert calls == [([LEAK[1].text, LEAK[2].text], [LEAK[0].text])]


def test_a_continuation_follows_every_good_match_and_never_displaces_one() -> None:
    rows = [
        row(1, "water coming through the back bedroom ceiling again"),
        row(2, "the water in the back bedroom: roofer booked", t=2),
        row(3, "the roofer fixed the slates over the bedroom, a long job " * 3, t=3),
    ]
    everything_near = likeness_table({r.text: 0.9 for r in rows}, [])
    items = ranked(LEAK_QUESTION, rows, likeness=everything_near)
    assert [i.id for i in ranked(LEAK_QUESTION, rows)] == [1, 2]  # the good matches
    assert [i.id for i in items] == [1, 2, 3]  # and after them, the rest of the story
    assert items[-1].score == min(i.score for i in items)
    # and never beyond the limit
    assert len(ranked(LEAK_QUESTION, rows, likeness=everything_near, limit=2)) == 2


def test_a_continuation_never_makes_a_question_find_something() -> None:
    # nothing matches the question well: however close, a sliver stays out (quiet stays quiet)
    rows = [row(i, f"the spare bedroom {i} needs a coat of paint") for i in range(1, 4)]
    calls: list[tuple[list[str], list[str]]] = []
    items = ranked(LEAK_QUESTION, rows, likeness=likeness_table({r.text: 0.9 for r in rows}, calls))
    assert items == [] and calls == []


def test_a_continuation_of_a_named_question_names_it_too() -> None:
    rows = [
        row(1, "Ana runs the bouldering nights at the climbing gym"),
        row(2, "Lena loves the bouldering nights too", t=2),
        row(3, "Ana said the bouldering nights move to Fridays", t=3),
    ]
    everything_near = likeness_table({r.text: 0.9 for r in rows}, [])
    items = rank_episodes(
        terms("bouldering nights climbing gym opening hours"),
        rows,
        [],
        100,
        names=[("Ana",)],
        likeness=everything_near,
    )
    assert 2 not in [i.id for i in items]


def test_the_frames_words_score_but_never_decide_there_is_something_to_find() -> None:
    ended = row(2, "car's fixed, pads and discs done, ended up £260", t=2)
    brakes = row(1, "car's making a grinding noise when i brake, garage says rear pads")
    question = terms("the brake repair costing")
    # the frame's word alone finds nothing, however close in meaning
    alone = rank_episodes(
        question, [ended], [], 100, frame_terms=["end"], likeness=likeness_table({}, [])
    )
    assert alone == []
    # beside a good match, a message that only echoes the frame is the rest of the story
    calls: list[tuple[list[str], list[str]]] = []
    items = rank_episodes(
        question,
        [brakes, ended],
        [],
        100,
        frame_terms=["end"],
        likeness=likeness_table({ended.text: CONTINUATION_FLOOR + 0.1}, calls),
    )
    assert [i.id for i in items] == [1, 2]
    # without the frame's word it is not a candidate at all
    assert [i.id for i in rank_episodes(question, [brakes, ended], [], 100)] == [1]


def test_continuations_alone() -> None:
    kept = [(1.0, LEAK[0])]
    left = [(0.9, LEAK[1]), (0.2, LEAK[2])]
    both_near = likeness_table({LEAK[1].text: 0.5, LEAK[2].text: 0.5}, [])
    # each scores at most the last kept one, the better one first
    assert continuations(kept, left, both_near) == [(0.9, LEAK[1]), (0.2, LEAK[2])]
    assert continuations([(0.5, LEAK[0])], left, both_near)[0] == (0.5, LEAK[1])
    far = likeness_table({LEAK[1].text: CONTINUATION_FLOOR - 0.01}, [])
    assert continuations(kept, left, far) == []
    calls: list[tuple[list[str], list[str]]] = []
    assert continuations([], left, likeness_table({}, calls)) == [] and calls == []


def test_the_reply_in_a_thread_a_good_match_opened_is_the_rest_of_its_story() -> None:
    # the assistant's follow-up question, and the person's answer to it, say none of the
    # question's words: the answer is found through its thread, under the relative floor
    opened = row(1, "trying to get back into spanish, fifteen minutes of an app on the bus")
    asked = row(2, "What's the goal?", role="assistant")
    answer = row(3, "talking to my partner's grandparents in seville next summer without freezing")
    elsewhere = row(9, "what a week, the car failed its test", seq=9)
    question = "why am I learning spanish"
    assert [i.id for i in ranked(question, [opened], [asked, answer, elsewhere])] == [1]
    calls: list[tuple[list[str], list[str]]] = []
    items = ranked(
        question, [opened], [asked, answer, elsewhere], likeness=likeness_table({}, calls)
    )
    assert [i.id for i in items] == [1, 3]  # however far its words are in meaning
    assert answer.text not in [t for texts, _anchors in calls for t in texts]  # not asked


def test_a_stem_line_counts_names_twins_and_forgetting_as_the_text_does() -> None:
    texts = [
        "Kafka Connect keeps failing, but Kafka itself is fine",
        "Maggie Brown said Mum's birthday is on the 3rd, Maggie Brown again",
        "the the the Atlas atlas ATLAS",
        "R&amp;D moved <b>Moonbeam</b> to Lisbon",
        "Zoë met Harriet Vane in Málaga",
    ]
    rows = [row(i, text) for i, text in enumerate(texts, start=1)]
    cases: list[tuple[str, dict[str, Any], list[int]]] = [
        ("kafka failing", {"names": [("Kafka",)], "twins": ["Kafka Connect"]}, [1]),
        ("birthday", {"names": [("Margaret", "Mum", "Maggie Brown")]}, [2]),
        ("atlas", {"names": [("the Atlas",)]}, [3]),
        ("lisbon moved", {"forgotten": ("moonbeam",)}, []),  # markup: read whole
        ("malaga", {"forgotten": ("harriet", "vane")}, []),
        ("zoe met in malaga", {}, [5]),
    ]
    for question, kw, expected in cases:
        # the helper also ranks them with their stem lines, and compares
        assert [i.id for i in ranked(question, rows, **kw)] == expected, question
