"""The everyday-chat golden set (eval/fixtures/extraction_chats.json) and the label, category
and date measures of eval_extraction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.extraction import is_fragment, score_extraction, states_time

CHATS = Path(__file__).resolve().parents[2] / "eval" / "fixtures" / "extraction_chats.json"


@pytest.fixture(scope="module")
def report() -> dict:
    return score_extraction(json.loads(CHATS.read_text()))


def test_the_chat_set_is_large_and_in_our_format() -> None:
    data = json.loads(CHATS.read_text())
    fixtures = data["fixtures"]
    assert len(fixtures) >= 60
    assert len({f["id"] for f in fixtures}) == len(fixtures)
    kinds = {f["category"] for f in fixtures}
    assert {"markup", "two_people", "short_answer", "health", "pets", "work"} <= kinds
    for fixture in fixtures:
        for label in fixture["expect_labels"]:
            assert set(label) <= {"label", "category", "state"}


def test_the_chat_set_meets_its_targets(report: dict) -> None:
    assert report["must_save_recall"] >= 0.85
    assert report["junk_label_rate"] <= 0.02
    assert report["category_accuracy"] >= 0.9
    assert report["dated_event_rate"] >= 0.8
    assert report["events_with_time"] >= 20
    assert report["control_leaks"] == 0
    assert report["forbidden_leaks"] == 0
    assert report["no_save_precision"] == 1.0


@pytest.mark.parametrize(
    ("fixture_id", "labels"),
    [
        ("c01-review-prep", {"Brightline Logistics", "Data Engineer", "Sofia Almeida", "Jonas"}),
        ("c07-rd-tracker-html", {"R&D Tracker"}),
        ("c06-cpp-and-att", {"AT&T", "C++"}),
        ("c13-oneill", {"Siobhan O'Neill"}),
        ("c18-accented-names", {"Zoë"}),
        (
            "c19-meal-planning",
            {"Lactose Intolerance", "High Blood Pressure", "Lisinopril", "Coffee"},
        ),
        ("c26-cat-disease", {"Miso"}),
    ],
)
def test_chats_that_used_to_lose_or_mangle_what_was_said(
    report: dict, fixture_id: Any, labels: Any
) -> None:
    row = next(r for r in report["per_fixture"] if r["id"] == fixture_id)
    assert labels <= set(row["labels"])
    assert not row["junk_labels"]


@pytest.mark.parametrize(
    ("label", "fragment"),
    [
        ("Going", True),
        ("Having Some of", True),
        ("Was There", True),
        ("Few Days", True),
        ("For Weeks", True),
        ("Taste of", True),
        ("Coffee Two Weeks", True),
        ("<b>R", True),
        ("D Tracker</b>", True),
        ("Justing", True),
        ("R&D Tracker", False),
        ("C++", False),
        ("Node.js", False),
        ("Strange Day", False),
        ("Fashion Week", False),
        ("O'Neill", False),
    ],
)
def test_is_fragment(label: Any, fragment: Any) -> None:
    assert is_fragment(label) is fragment


@pytest.mark.parametrize(
    ("text", "timed"),
    [
        ("I went to a support group yesterday", True),
        ("I ran a charity race last Saturday", True),
        ("I stopped drinking coffee two weeks ago", True),
        ("I joined in March 2024", True),
        ("I graduated in 2019", True),
        ("I have asthma", False),
        ("I swim every Tuesday", False),
        ("I picked up cycling on Saturday mornings", False),
        ("I volunteer on Saturdays", False),
        ("I went on Saturday", True),
    ],
)
def test_states_time(text: Any, timed: Any) -> None:
    assert states_time(text) is timed


def _fixture(messages: list[dict], expect: list[dict], source_time: str | None = None) -> dict:
    fixture: dict = {
        "id": "t",
        "messages": messages,
        "primary_subject": None,
        "must_save": True,
        "expect_labels": expect,
    }
    if source_time:
        fixture["source_time"] = source_time
    return fixture


def test_category_and_state_accuracy_count_only_labels_found() -> None:
    fixture = _fixture(
        [{"id": "M0", "role": "user", "content": "I quit smoking in January."}],
        [
            {"label": "Smoking", "category": "habit", "state": "stopped"},
            {"label": "Jogging", "category": "habit"},
        ],
        "2026-03-01T00:00:00Z",
    )
    report = score_extraction([fixture])
    assert report["label_recall"] == 0.5
    assert report["category_accuracy"] == 1.0
    assert report["state_accuracy"] == 1.0
    assert report["events_with_time"] == 1
    assert report["dated_event_rate"] == 1.0


def test_a_wrong_category_lowers_category_accuracy() -> None:
    fixture = _fixture(
        [{"id": "M0", "role": "user", "content": "I quit smoking in January."}],
        [{"label": "Smoking", "category": "health"}],
    )
    assert score_extraction([fixture])["category_accuracy"] == 0.0


def test_an_undated_event_with_a_stated_time_lowers_the_date_rate() -> None:
    # No message time and no source time: "in June" cannot be resolved, and the rate says so.
    fixture = _fixture(
        [{"id": "M0", "role": "user", "content": "I stopped boxing last month."}], []
    )
    report = score_extraction([fixture])
    assert report["events_with_time"] == 1
    assert report["dated_event_rate"] == 0.0


def test_a_bad_expect_labels_is_a_fixture_error() -> None:
    from eval.extraction import FixtureError

    fixture = _fixture([{"id": "M0", "role": "user", "content": "I quit smoking."}], [])
    fixture["expect_labels"] = "Smoking"
    with pytest.raises(FixtureError, match="expect_labels"):
        score_extraction([fixture])
