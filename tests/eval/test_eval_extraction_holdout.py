"""The held-out extraction sets (eval/fixtures/extraction_holdout.json, _b, _c, _d and _e):
each written separately, by someone who had not read the extractor, and frozen. Their figures
are reported, never tuned to; the suite holds only what must always be true of them: each
reads in our format and no extraction fails; on the first four, no request to the assistant
becomes a memory and nothing is planned from a chat that must save nothing (D was measured with
one of each, and holds both since the round that read it); on the first set, no forbidden claim
leaks either. The fifth (E, written 2026-12-07 before that round, never read) was measured with
one request read as news, one quiet chat planning something and seven forbidden claims: open
defects, reported, not tuned to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.extraction import score_extraction

FIXTURES = Path(__file__).resolve().parents[2] / "eval" / "fixtures"
HOLDOUT = FIXTURES / "extraction_holdout.json"
HOLDOUTS = (
    "extraction_holdout.json",
    "extraction_holdout_b.json",
    "extraction_holdout_c.json",
    "extraction_holdout_d.json",
)
EVERY_HOLDOUT = (*HOLDOUTS, "extraction_holdout_e.json", "extraction_holdout_f.json")


@pytest.fixture(scope="module", params=HOLDOUTS)
def report(request: pytest.FixtureRequest) -> dict:
    return score_extraction(json.loads((FIXTURES / request.param).read_text()))


@pytest.mark.parametrize("name", EVERY_HOLDOUT)
def test_each_held_out_set_is_large_and_in_our_format(name: str) -> None:
    fixtures = json.loads((FIXTURES / name).read_text())["fixtures"]
    assert len(fixtures) >= 24
    assert len({f["id"] for f in fixtures}) == len(fixtures)
    wanted = [label for f in fixtures for label in f["expect_labels"]]
    assert len(wanted) >= 60
    assert sum(1 for f in fixtures if not f["must_save"]) >= 3


def test_no_request_or_quiet_chat_becomes_a_memory_on_any_held_out_set(report: dict) -> None:
    assert report["control_leaks"] == 0
    assert report["no_save_precision"] == 1.0
    assert report["extractor_failures"] == 0


@pytest.mark.parametrize("name", ["extraction_holdout_e.json", "extraction_holdout_f.json"])
def test_no_extraction_fails_on_the_fifth_and_sixth_held_out_sets(name: str) -> None:
    report = score_extraction(json.loads((FIXTURES / name).read_text()))
    assert report["extractor_failures"] == 0
    assert report["fixtures"] == 30


def test_nothing_forbidden_leaks_on_the_first_held_out_set() -> None:
    assert score_extraction(json.loads(HOLDOUT.read_text()))["forbidden_leaks"] == 0
