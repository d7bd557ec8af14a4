"""``eval_conversations`` on our own multi-session conversations, with floors, and its parts."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from pytest_django import DjangoDbBlocker

from eval.conversations import (
    TYPES,
    FixtureError,
    Message,
    Returned,
    answer_recall,
    bm25_messages,
    hit_at,
    validate_fixture,
)

FIXTURES = Path(__file__).resolve().parents[2] / "eval" / "fixtures"
FIXTURE = FIXTURES / "conversations_everyday.json"
# written separately, so that ranking is checked on conversations it was not tuned on
HOLDOUT = FIXTURES / "conversations_holdout.json"

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("eval_conversations", *args, stdout=out)
    return out.getvalue()


@pytest.fixture(scope="module")
def report(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Any:
    with django_db_blocker.unblock():
        return json.loads(run(str(FIXTURE), "--json"))


@pytest.fixture(scope="module")
def holdout_report(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> Any:
    with django_db_blocker.unblock():
        return json.loads(run(str(HOLDOUT), "--json"))


def test_the_fixture_is_big_enough_and_covers_every_type() -> None:
    data = json.loads(FIXTURE.read_text())
    questions = [q for p in data["people"] for q in p["questions"]]
    assert len(data["people"]) >= 4 and len(questions) >= 40
    assert all(len(p["sessions"]) >= 3 for p in data["people"])
    assert {q["type"] for q in questions} == set(TYPES)


def test_ume_meets_its_floors_and_the_baseline(report: Any) -> None:
    systems = report["systems"]
    bm25, unreviewed, promoted = (
        systems["bm25"],
        systems["ume_unreviewed"],
        systems["ume_promoted"],
    )
    # Measured: BM25 hit@5 0.64 overall; ume 0.72 with nothing reviewed and with everything
    # promoted. Floors a little under what ume does, so a regression fails.
    for ume in (unreviewed, promoted):
        assert ume["overall"]["hit_at_5"] >= 0.7
        assert ume["overall"]["hit_at_5"] >= bm25["overall"]["hit_at_5"]
        assert (
            ume["by_type"]["single_fact"]["hit_at_5"] >= bm25["by_type"]["single_fact"]["hit_at_5"]
        )
        assert ume["by_type"]["when"]["hit_at_5"] >= bm25["by_type"]["when"]["hit_at_5"]
        assert ume["by_type"]["paraphrase"]["hit_at_5"] >= bm25["by_type"]["paraphrase"]["hit_at_5"]
        assert ume["by_type"]["across_sessions"]["hit_at_10"] >= 0.85
        assert ume["by_type"]["nothing"]["quiet"] >= bm25["by_type"]["nothing"]["quiet"]
        assert ume["overall"]["answer_recall"] >= 0.6


def test_the_holdout_fixture_has_other_people_and_every_type() -> None:
    data = json.loads(HOLDOUT.read_text())
    everyday = json.loads(FIXTURE.read_text())
    questions = [q for p in data["people"] for q in p["questions"]]
    assert len(data["people"]) >= 3 and len(questions) >= 30
    assert {q["type"] for q in questions} == set(TYPES)
    assert not {p["id"] for p in data["people"]} & {p["id"] for p in everyday["people"]}


def assert_at_or_above_the_baseline(systems: Any) -> None:
    bm25 = systems["bm25"]
    for mode in ("ume_unreviewed", "ume_promoted"):
        ume = systems[mode]
        for qtype in TYPES:
            metrics = ("quiet",) if qtype == "nothing" else ("hit_at_5", "hit_at_10")
            for metric in metrics:
                assert ume["by_type"][qtype][metric] >= bm25["by_type"][qtype][metric], (
                    mode,
                    qtype,
                    metric,
                )


def test_ume_is_at_or_above_the_baseline_on_every_type(report: Any, holdout_report: Any) -> None:
    assert_at_or_above_the_baseline(report["systems"])
    assert_at_or_above_the_baseline(holdout_report["systems"])


def test_ume_meets_its_floors_on_the_holdout(holdout_report: Any) -> None:
    # Measured: BM25 hit@5 0.61 overall; ume 0.74 in both modes (0.61 before the episode
    # lane scored threads and partial matches close in meaning).
    for mode in ("ume_unreviewed", "ume_promoted"):
        ume = holdout_report["systems"][mode]
        assert ume["overall"]["hit_at_5"] >= 0.7
        assert ume["by_type"]["across_sessions"]["hit_at_5"] >= 0.85
        assert ume["by_type"]["paraphrase"]["hit_at_5"] >= 0.25


def test_every_question_is_reported_and_the_tenants_are_gone(report: Any) -> None:
    data = json.loads(FIXTURE.read_text())
    ids = [q["id"] for p in data["people"] for q in p["questions"]]
    assert [row["id"] for row in report["per_question"]] == ids
    assert report["questions"] == len(ids)
    assert not get_user_model().objects.filter(username__startswith="eval-conversations-").exists()
    # every session went through the real write path and left a receipt
    assert all(sum(p["receipts"].values()) == 3 for p in report["people"])


def test_human_output_is_a_table(report: Any) -> None:
    text = run(str(FIXTURE))
    assert "bm25" in text and "ume_unreviewed" in text and "ume_promoted" in text
    for qtype in TYPES:
        assert qtype in text


def test_a_bad_fixture_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"people": [{"id": "x", "sessions": [], "questions": []}]}))
    with pytest.raises(CommandError, match="bad.json: people\\[0\\] needs a 'sessions' list"):
        run(str(bad))


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda q: q.update(type="gossip"), "'type' must be one of"),
        (lambda q: q.update(evidence=["nope"]), "must list message ids of this person"),
        (lambda q: q.update(type="nothing"), "a 'nothing' question has no evidence"),
    ],
)
def test_fixture_checks(change: Any, message: Any) -> None:
    data = {
        "people": [
            {
                "id": "p",
                "sessions": [
                    {
                        "id": "s1",
                        "date": "2026-01-01",
                        "messages": [{"id": "m1", "role": "user", "content": "hi"}],
                    }
                ],
                "questions": [
                    {
                        "id": "q",
                        "type": "single_fact",
                        "question": "?",
                        "answer": "",
                        "evidence": ["m1"],
                    }
                ],
            }
        ]
    }
    change(data["people"][0]["questions"][0])
    with pytest.raises(FixtureError, match=message):
        validate_fixture(data)


# --- the pure parts ---------------------------------------------------------------------------


def test_bm25_ranks_the_rarer_word_higher_and_finds_nothing_for_unknown_words() -> None:
    messages = [
        Message("a", "the kitchen fitters broke the worktop"),
        Message("b", "kitchen tidy again"),
        Message("c", "went for a run in the park"),
    ]
    assert [m.id for m in bm25_messages(messages, "who broke the worktop in the kitchen")] == [
        "a",
        "b",
    ]
    assert bm25_messages(messages, "skiing holiday") == []


def test_answer_recall_and_hits() -> None:
    returned = Returned(
        evidence=(frozenset({"m2"}), frozenset({"m7", "m9"})),
        texts=("ordered the brooks ghost", "blister on my heel"),
    )
    assert answer_recall("Brooks Ghost", returned.texts) == 1.0
    assert answer_recall("blister heel toe", returned.texts) == pytest.approx(2 / 3)
    assert hit_at(returned, ["m9"], 2) and not hit_at(returned, ["m9"], 1)
    assert not hit_at(returned, ["m1"], 10)


def test_the_curve_is_monotone_and_the_default_threshold_is_reported(report: Any) -> None:
    text = run(str(FIXTURE), "--curve", "--threshold", "0.5")
    assert "ume at confidence threshold 0.5" in text and "trade-off over the threshold" in text
    assert report["threshold"] == 0.0  # UME_RECALL_MIN_CONFIDENCE's default: off
    data = json.loads(run(str(FIXTURE), "--json", "--curve"))
    rows = data["curve"]
    for system in ("ume_unreviewed", "ume_promoted"):
        quiet = [row[system]["quiet"] for row in rows]
        hit = [row[system]["hit_at_5"] for row in rows]
        assert quiet == sorted(quiet) and hit == sorted(hit, reverse=True)
    at_default = next(row for row in rows if row["threshold"] == data["threshold"])
    assert (
        at_default["ume_unreviewed"]["quiet"]
        == (data["systems"]["ume_unreviewed"]["by_type"]["nothing"]["quiet"])
    )
    with pytest.raises(CommandError, match="between 0 and 1"):
        run(str(FIXTURE), "--threshold", "-0.1")
