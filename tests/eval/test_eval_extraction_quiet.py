"""The quiet chats (eval/fixtures/extraction_quiet.json), scored with the subject proposer: small
talk, general help, hypotheticals, other people's plans, quotes and news, talk about the
assistant, jokes and irony, "don't save this" asides and retractions, things that belong to
someone else, negations and questions. Nothing may be proposed where nothing was said of the
person's life, nothing forbidden may leak, and the chats of the same style that carry one thing
worth keeping still save."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.extraction import score_extraction
from memory.extractors.subjects import extract

QUIET = Path(__file__).resolve().parents[2] / "eval" / "fixtures" / "extraction_quiet.json"


@pytest.fixture(scope="module")
def report() -> dict:
    return score_extraction(json.loads(QUIET.read_text()), extract)


def test_the_quiet_set_covers_the_kinds_where_a_proposer_over_reaches() -> None:
    fixtures = json.loads(QUIET.read_text())["fixtures"]
    assert len(fixtures) >= 20
    assert len({f["id"] for f in fixtures}) == len(fixtures)
    kinds = {f["category"] for f in fixtures}
    assert {
        "smalltalk",
        "general_help",
        "hypothetical",
        "others_plans",
        "quote",
        "news",
        "about_assistant",
        "joke",
        "private",
        "not_mine",
        "negation",
        "questions",
    } <= kinds
    assert sum(1 for f in fixtures if not f["must_save"]) >= 20
    assert sum(1 for f in fixtures if f["must_save"]) >= 5


def test_nothing_is_proposed_from_quiet_chats_with_subjects(report: dict) -> None:
    assert report["no_save_precision"] == 1.0
    assert report["forbidden_leaks"] == 0
    assert report["control_leaks"] == 0
    assert report["extractor_failures"] == 0
    assert report["junk_label_rate"] == 0.0


def test_chats_of_the_same_style_with_a_fact_still_save(report: dict) -> None:
    assert report["must_save_recall"] >= 0.6
    saved = {r["id"] for r in report["per_fixture"] if r["must_save"] and r["saved_ok"]}
    # A joke that names the person's grandad, a thesis after thanks to the assistant, a fact
    # beside a "don't save this" aside and a flatmate's sport beside the person's own.
    assert {
        "s07-grandad-joke",
        "s08-thesis-thanks",
        "s05-dont-save-job-hunt",
        "s04-flatmate-triathlon",
    } <= saved


@pytest.fixture(scope="module")
def rules_report() -> dict:
    return score_extraction(json.loads(QUIET.read_text()))


def test_nothing_is_proposed_from_quiet_chats_with_the_default_rules(rules_report: dict) -> None:
    # The rules read no message asked not to be kept or taken back, no ironic or disowning
    # sentence and no quoted line (memory/extractors/asides.py).
    assert rules_report["no_save_precision"] == 1.0
    assert rules_report["forbidden_leaks"] == 0
    assert rules_report["control_leaks"] == 0
    assert rules_report["extractor_failures"] == 0
