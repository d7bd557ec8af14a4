"""The held-out extraction set (eval/fixtures/extraction_holdout.json): written separately, by
someone who had not read the extractor, and frozen. Its figures are reported, never tuned to;
the suite holds only what must always be true of it: it reads in our format, and nothing a
person said must not be kept leaks into a plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.extraction import score_extraction

HOLDOUT = Path(__file__).resolve().parents[2] / "eval" / "fixtures" / "extraction_holdout.json"


@pytest.fixture(scope="module")
def report() -> dict:
    return score_extraction(json.loads(HOLDOUT.read_text()))


def test_the_held_out_set_is_large_and_in_our_format() -> None:
    fixtures = json.loads(HOLDOUT.read_text())["fixtures"]
    assert len(fixtures) >= 24
    assert len({f["id"] for f in fixtures}) == len(fixtures)
    wanted = [label for f in fixtures for label in f["expect_labels"]]
    assert len(wanted) >= 60
    assert sum(1 for f in fixtures if not f["must_save"]) >= 4


def test_nothing_forbidden_leaks_on_the_held_out_set(report: dict) -> None:
    assert report["control_leaks"] == 0
    assert report["forbidden_leaks"] == 0
    assert report["no_save_precision"] == 1.0
    assert report["extractor_failures"] == 0
