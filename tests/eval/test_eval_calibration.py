"""The calibration eval: matching cards to what a person would keep, bins, fitting."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from eval.calibration import Card, accepted, fit, table
from memory.confidence import FEATURES, Evidence

FIXTURE = Path(__file__).resolve().parents[2] / "eval" / "fixtures" / "calibration_subjects.json"


@pytest.mark.parametrize(
    ("label", "wanted", "ok"),
    [
        ("Rescue Greyhound", ["Greyhound"], True),
        ("Pottery Classes", ["Pottery Class"], True),
        ("Norwegian", ["Norwegian Lessons"], True),
        ("Motorway", ["Nissan Leaf"], False),
        ("Anything", [], False),
    ],
)
def test_a_card_is_accepted_when_it_is_one_subject_with_a_wanted_label(
    label: str, wanted: list[str], ok: bool
) -> None:
    assert accepted(label, wanted) is ok


def test_table_bins_cards_and_measures_the_gap() -> None:
    rows = [Card("f", f"L{i}", 0.85, "proposed", i < 8) for i in range(10)]
    rows += [Card("f", f"M{i}", 0.55, "proposed", i < 1) for i in range(4)]
    report = table(rows)
    by_bin = {row["bin"]: row for row in report["bins"]}
    assert by_bin["0.8-0.9"]["cards"] == 10 and by_bin["0.8-0.9"]["accepted"] == 0.8
    assert by_bin["0.5-0.6"]["accepted"] == 0.25
    expected = (10 * abs(0.85 - 0.8) + 4 * abs(0.55 - 0.25)) / 14
    assert report["ece"] == round(expected, 4)
    assert table([])["ece"] is None


def test_fit_learns_the_direction_of_a_signal() -> None:
    rows = [(Evidence(name=True, first_person=1.0), True)] * 20
    rows += [(Evidence(name=False, first_person=1.0), False)] * 20
    weights = fit(rows, steps=3000)
    assert set(weights) == set(FEATURES)
    assert weights["name"] > 1.0


def test_the_command_prints_a_table_on_our_labelled_set() -> None:
    out = StringIO()
    call_command("eval_calibration", str(FIXTURE), "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["cards"] > 20 and report["bins"]
    assert all(0.0 <= row["accepted"] <= 1.0 for row in report["bins"])


def test_the_command_refuses_a_file_of_another_shape(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "x"}]), encoding="utf-8")
    with pytest.raises(CommandError):
        call_command("eval_calibration", str(bad))
