"""``eval_locomo``: the LoCoMo reader, its matching rule, junk labels, routing, the BM25
baseline, and the command end to end on a small conversation in LoCoMo's format written here
in our own words (the real data stays outside the repository)."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from eval.curve import CURVE
from eval.locomo import (
    Baseline,
    LocomoError,
    Returned,
    Turn,
    content_words,
    coverage,
    hits,
    junk_reason,
    light_stem,
    overlaps,
    parse_when,
    read_folder,
    route,
)

SPEAKERS = ("Odile", "Tomasz")


CONVERSATION: dict[str, Any] = {
    "speaker_a": "Odile",
    "speaker_b": "Tomasz",
    "session_1_date_time": "9:15 am on 3 March, 2024",
    "session_1": [
        {
            "speaker": "Odile",
            "dia_id": "D1:1",
            "text": "Morning! I finally signed up for the beekeeping course at the allotment.",
        },
        {
            "speaker": "Tomasz",
            "dia_id": "D1:2",
            "text": "Bees! Brave of you. When does it start?",
        },
        {
            "speaker": "Odile",
            "dia_id": "D1:3",
            "text": "Next Saturday. My neighbour Bruno keeps two hives and talked me into it.",
        },
        {
            "speaker": "Tomasz",
            "dia_id": "D1:4",
            "text": "I spent the weekend fixing my old Vespa scooter, the clutch was gone.",
        },
    ],
    "session_2_date_time": "6:40 pm on 21 March, 2024",
    "session_2": [
        {"speaker": "Tomasz", "dia_id": "D2:1", "text": "How was the first beekeeping lesson?"},
        {
            "speaker": "Odile",
            "dia_id": "D2:2",
            "text": "Wonderful, we inspected a hive and I only got stung once.",
        },
        {
            "speaker": "Odile",
            "dia_id": "D2:3",
            "text": "I also started learning Portuguese for our trip to Porto in June.",
        },
    ],
    "session_3_date_time": "8:00 pm on 2 April, 2024",
    "session_3": [],
    "events_session_1": {
        "Odile": ["Odile signs up for a beekeeping course."],
        "Tomasz": ["Tomasz repairs the clutch of his Vespa scooter."],
        "date": "3 March, 2024",
    },
    "events_session_2": {
        "Odile": ["Odile starts learning Portuguese before a trip to Porto."],
        "Tomasz": [],
        "date": "21 March, 2024",
    },
    "qa": [
        {
            "question": "What course did Odile sign up for?",
            "answer": "beekeeping",
            "evidence": ["D1:1"],
            "category": 4,
        },
        {
            "question": "Which language is Odile learning?",
            "answer": "Portuguese",
            "evidence": ["D2:3"],
            "category": 4,
        },
        {
            "question": "What did Tomasz fix on his scooter?",
            "answer": "the clutch",
            "evidence": ["D1:4"],
            "category": 1,
        },
        {
            "question": "What did Tomasz paint last year?",
            "adversarial_answer": "nothing",
            "evidence": ["D1:4"],
            "category": 5,
        },
        {"question": "What is the weather like?", "answer": "", "evidence": [], "category": 3},
    ],
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "7.json").write_text(json.dumps(CONVERSATION))
    return tmp_path


# --- reading --------------------------------------------------------------------------------


def test_dates_read_as_the_session_time() -> None:
    when = parse_when("6:40 pm on 21 March, 2024")
    assert when is not None and (when.year, when.month, when.day, when.hour, when.minute) == (
        2024,
        3,
        21,
        18,
        40,
    )
    assert parse_when("12:05 am on 1 January, 2023").hour == 0  # type: ignore[union-attr]
    assert parse_when("yesterday") is None and parse_when("13:00 pm on 1 May, 2023") is None


def test_the_reader_keeps_sessions_in_order_and_events_per_speaker(folder: Path) -> None:
    [conversation] = read_folder(folder)
    assert conversation.speakers == SPEAKERS
    assert [s.number for s in conversation.sessions] == [1, 2]  # the empty session is skipped
    assert [t.dia_id for t in conversation.sessions[1].turns] == ["D2:1", "D2:2", "D2:3"]
    assert conversation.events["Odile"] == (
        (1, "Odile signs up for a beekeeping course."),
        (2, "Odile starts learning Portuguese before a trip to Porto."),
    )
    assert len(conversation.questions) == 5


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"speaker_b": "Odile"}, "two different"),
        ({"session_1_date_time": "soon"}, "session_1_date_time"),
        ({"session_1": "not a list"}, "session_1 must be a list"),
        (
            {"session_2": [{"speaker": "Someone else", "dia_id": "D2:1", "text": "hi"}]},
            "session_2[0]",
        ),
        ({"qa": {}}, "'qa' must be a list"),
    ],
)
def test_a_malformed_conversation_is_refused_with_its_name(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    data = CONVERSATION | change
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(LocomoError, match=re.escape(message)) as caught:
        read_folder(tmp_path)
    assert "bad.json" in str(caught.value)


def test_an_unreadable_file_or_an_empty_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LocomoError, match="no LoCoMo conversation"):
        read_folder(tmp_path)
    (tmp_path / "x.json").write_bytes(b"\xff\xfe{")
    with pytest.raises(LocomoError, match="not readable JSON"):
        read_folder(tmp_path)
    with pytest.raises(LocomoError, match="no such file"):
        read_folder(tmp_path / "missing")


# --- the matching rule ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("classes", "class"),
        ("painting", "paint"),
        ("studies", "study"),
        ("running", "run"),
        ("hives", "hive"),
        ("bus", "bus"),
        ("inspected", "inspect"),
        ("bruno's", "bruno"),
    ],
)
def test_the_light_stemmer(word: str, stem: str) -> None:
    assert light_stem(word) == stem


def test_content_words_drop_stop_words_and_the_speakers() -> None:
    assert content_words("Odile signs up for a beekeeping course.", SPEAKERS) == {
        "sign",
        "beekeep",
        "course",
    }


def test_overlap_needs_two_words_and_half_of_the_smaller_set() -> None:
    event = content_words("Odile signs up for a beekeeping course.", SPEAKERS)
    assert overlaps(event, content_words("beekeeping course at the allotment"))
    assert not overlaps(event, content_words("a beekeeping hive"))  # one shared word
    big = content_words("beekeeping course allotment bees hives smoke honey wax frames suit")
    assert overlaps(content_words("beekeeping course"), big)  # half of the smaller set
    assert not overlaps(frozenset({"a", "b", "c", "d", "e"}), frozenset({"a", "b", "x", "y", "z"}))


def test_coverage_counts_events_a_unit_covers() -> None:
    events = ["Odile signs up for a beekeeping course.", "Odile adopts a cat."]
    units = [content_words("Beekeeping Course signed up at the allotment")]
    assert coverage(events, units, SPEAKERS) == 1


@pytest.mark.parametrize(
    ("label", "reason"),
    [
        ("She", "pronoun"),
        ("it", "pronoun"),
        ("Things", "generic"),
        ("Good Time", "generic"),
        ("Going To The", "fragment"),
        ("And Pottery", "fragment"),
        ("Finally signed up for the course at the old allotment", "fragment"),
        ("Signed up for the course at the old allotment", "sentence"),
        ("Garden We Built", "sentence"),
        ("Moving Because Work", "sentence"),
        ("Gardening Lately", "fragment"),
        ("Basically", "fragment"),
        ("Seriously Good Pasta", "fragment"),
        ("Family", None),
        ("Beekeeping Course", None),
        ("Bruno", None),
        ("My Neighbour Bruno", None),
        ("Porto", None),
    ],
)
def test_junk_labels_and_their_reasons(label: str, reason: str | None) -> None:
    assert junk_reason(label) == reason


# --- routing, the baseline and hits ---------------------------------------------------------


def test_a_question_goes_to_the_people_it_names() -> None:
    assert route("What course did Odile sign up for?", SPEAKERS) == ["Odile"]
    assert route("Did Odile and Tomasz travel?", SPEAKERS) == ["Odile", "Tomasz"]
    assert route("What is Tomasz's scooter?", SPEAKERS) == ["Tomasz"]
    assert route("What is the weather like?", SPEAKERS) == []


def test_bm25_ranks_the_turn_that_holds_the_words_first() -> None:
    turns = [
        Turn("1", "Odile", "I fixed the gate"),
        Turn("2", "Odile", "Learning Portuguese for Porto"),
        Turn("3", "Odile", "Porto in June"),
    ]
    found = Baseline(turns).ask("Which language is Odile learning, Portuguese?")
    assert [t.dia_id for t in found] == ["2"]  # only turns with a query word score above zero
    assert Baseline(turns).ask("the and of") == []
    assert Baseline([]).ask("Porto") == []


def test_hits_by_provenance_and_by_overlap() -> None:
    evidence_words = [content_words("I also started learning Portuguese for our trip to Porto")]
    by_id = Returned((frozenset(), frozenset({"D2:3"})), ("unrelated", "x"))
    assert hits([by_id], ["D2:3"], evidence_words, 1) == (False, False)
    assert hits([by_id], ["D2:3"], evidence_words, 5) == (True, True)
    by_text = Returned((frozenset(),), ("Learning Portuguese: a trip to Porto",))
    assert hits([by_text], ["D2:3"], evidence_words, 5) == (False, True)


# --- the command ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_command_scores_extraction_and_recall_and_cleans_up(folder: Path) -> None:
    users_before = get_user_model().objects.count()
    out = StringIO()
    call_command("eval_locomo", str(folder), "--json", stdout=out)
    report = json.loads(out.getvalue())
    ex = report["extraction"]
    assert ex["events"] == 3 and 0 <= ex["covered"] <= 3
    assert ex["own_turns"] == 7 and ex["candidates_per_100_turns"] >= 0
    assert report["unrouted_questions"] == 1  # the weather question names nobody
    systems = report["systems"]
    assert set(systems) == {"bm25", "bm25_all", "ume_unreviewed", "ume_promoted"}
    # the two answerable single-hop questions, asked of Odile; BM25 over her turns finds both
    assert systems["bm25"]["single_hop"] == {
        "questions": 2,
        "hit_at_5": 1.0,
        "hit_at_10": 1.0,
        "overlap_at_5": 1.0,
        "overlap_at_10": 1.0,
        "quiet": 0.0,
    }
    # the scooter question's evidence is Tomasz's own turn
    assert systems["bm25"]["multi_hop"]["hit_at_10"] == 1.0
    assert systems["ume_unreviewed"]["answerable"]["questions"] == 3
    assert systems["ume_unreviewed"]["answerable"]["hit_at_10"] >= 2 / 3
    assert [p["person"] for p in report["people"]] == list(SPEAKERS)
    assert get_user_model().objects.count() == users_before  # the throwaway owners are gone


@pytest.mark.django_db
def test_the_command_prints_a_table_and_refuses_bad_paths(folder: Path, tmp_path: Path) -> None:
    out = StringIO()
    call_command("eval_locomo", str(folder), "--sessions", "1", "--variant", "review", stdout=out)
    text = out.getvalue()
    assert "extraction: coverage" in text and "single_hop" in text and "ume_promoted" not in text
    with pytest.raises(CommandError, match="no such file"):
        call_command("eval_locomo", str(tmp_path / "nowhere"))
    with pytest.raises(CommandError, match="at least 1"):
        call_command("eval_locomo", str(folder), "--sessions", "0")


@pytest.mark.django_db
def test_the_curve_and_a_threshold(folder: Path) -> None:
    out = StringIO()
    call_command("eval_locomo", str(folder), "--json", "--variant", "review", "--curve", stdout=out)
    report = json.loads(out.getvalue())
    rows = report["curve"]
    assert [row["threshold"] for row in rows] == list(CURVE)
    quiet = [row["ume_unreviewed"]["quiet"] for row in rows]
    hit = [row["ume_unreviewed"]["hit_at_5"] for row in rows]
    # a higher threshold answers less: never less quiet, never more hits
    assert quiet == sorted(quiet) and hit == sorted(hit, reverse=True)
    at_default = next(r for r in rows if r["threshold"] == report["threshold"])
    assert at_default["ume_unreviewed"] == {
        "quiet": report["systems"]["ume_unreviewed"]["adversarial"]["quiet"],
        "hit_at_5": report["systems"]["ume_unreviewed"]["answerable"]["hit_at_5"],
    }
    out = StringIO()
    call_command("eval_locomo", str(folder), "--variant", "review", "--threshold", "1", stdout=out)
    text = out.getvalue()
    assert "ume at confidence threshold 1.0" in text
    with pytest.raises(CommandError, match="between 0 and 1"):
        call_command("eval_locomo", str(folder), "--threshold", "1.5")


def test_an_answer_under_the_threshold_is_empty_and_one_over_it_whole() -> None:
    answer = Returned((frozenset({"D1:1"}), frozenset({"D1:2"})), ("strong", "weak"), (0.8, 0.1))
    assert answer.at(0.5) == answer
    assert answer.at(0.9) == Returned((), (), ())
    assert Returned((frozenset(),), ("bm25",)).at(0.0).texts == ()  # nothing to be sure of
