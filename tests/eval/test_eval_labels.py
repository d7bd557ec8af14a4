"""``eval_labels``: card labels a person judged, read and validated, scored against the label
standard and the offline extractor, and the command end to end."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from eval.fixture_files import FixtureError
from eval.labels import Item, held_back, proposed, read_fixture, run_eval, standard_labels
from ume.settings import BASE_DIR

ITEMS = [
    # a keep the extractor finds and the standard keeps
    Item("we adopted a greyhound and called her Juniper", "Juniper", True, "keep"),
    # junk the standard holds back
    Item("i'm all about making a change at work this year", "Making a Change", False, "abstract"),
    Item("choir moved to Weds", "Weds", False, "shorthand"),
    # junk the standard respells: still a card, under the word meant
    Item("took the fam camping in wales", "Fam Camping", False, "shorthand"),
    # junk the standard lets through (a generic word it cannot tell apart)
    Item("the kitchen is a tip again", "Kitchen", False, "generic"),
]


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_held_back_reads_the_label_in_its_sentence() -> None:
    assert held_back("Making a Change", "i'm all about making a change at work")
    assert not held_back("Sailing Club", "i joined a sailing club last spring")


def test_a_label_cut_to_another_is_held_back_as_judged() -> None:
    # "Pottery Lately" is cut to "Pottery": the label as judged is not kept.
    assert held_back("Pottery Lately", "i've been doing pottery lately")
    assert not held_back("Pottery", "i've been doing pottery lately")


def test_standard_labels_says_what_is_left_of_a_label() -> None:
    assert standard_labels("Fam Camping", "took the fam camping in wales") == ["Family Camping"]
    assert standard_labels("Going Hiking", "we're going hiking on sunday") == ["Hiking"]
    assert standard_labels("Making a Change", "i'm all about making a change at work") == []
    assert held_back("Fam Camping", "took the fam camping in wales")


def test_proposed_runs_the_extractor_on_the_sentence_alone() -> None:
    assert proposed("Juniper", "we adopted a greyhound and called her Juniper")
    assert not proposed("Making a Change", "i'm all about making a change at work this year")


def test_the_report_counts_each_kind_and_names_what_went_wrong() -> None:
    report = run_eval(ITEMS)
    assert report["items"] == 5
    assert report["kinds"]["keep"] == {
        "items": 1,
        "held_back": 0,
        "held_back_rate": 0.0,
        "respelled": 0,
        "proposed": 1,
        "proposed_rate": 1.0,
    }
    junk = report["kinds"]["junk"]
    assert (junk["items"], junk["held_back"], junk["respelled"]) == (4, 3, 1)
    assert report["kinds"]["shorthand"]["respelled"] == 1
    assert report["standard"] == {
        "junk_caught": 0.75,
        "keeps_lost": 0.0,
        "precision": 1.0,
        "junk_respelled": 0.25,
    }
    assert report["proposer"]["keeps_found"] == 1.0
    assert report["lost"] == []


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ([], 'an "items" list'),
        ({"items": ["x"]}, "items[0]: expected an object"),
        ({"items": [{"said": "", "label": "A", "keep": True, "kind": "keep"}]}, "items[0].said"),
        ({"items": [{"said": "s", "label": "A", "keep": "yes", "kind": "keep"}]}, "items[0].keep"),
        ({"items": [{"said": "s", "label": "A", "keep": True, "kind": "generic"}]}, ".kind"),
        ({"items": [{"said": "s", "label": "A", "keep": False, "kind": "odd"}]}, ".kind"),
    ],
)
def test_a_malformed_fixture_is_a_clear_error(tmp_path: Path, data: Any, error: str) -> None:
    with pytest.raises(FixtureError, match=re.escape(error)):
        read_fixture(_write(tmp_path, data))


def test_the_project_fixtures_are_valid_and_hold_every_kind() -> None:
    for name in ("labels_dev.json", "labels_holdout.json"):
        items = read_fixture(BASE_DIR / "eval" / "fixtures" / name)
        kinds = {item.kind for item in items}
        assert kinds == {"keep", "generic", "abstract", "fragment", "shorthand"}
        assert len(items) >= 150


def test_the_command_prints_the_table_and_json(tmp_path: Path) -> None:
    items = [{"said": i.said, "label": i.label, "keep": i.keep, "kind": i.kind} for i in ITEMS]
    path = _write(tmp_path, {"items": items})
    out = StringIO()
    call_command("eval_labels", str(path), stdout=out)
    text = out.getvalue()
    assert "labels.json: 5 labels" in text
    assert "standard: junk caught 0.75, keeps lost 0.0, precision 1.0" in text
    assert "still a card under another label: 0.25" in text
    assert "junk proposed: none" in text
    out = StringIO()
    call_command("eval_labels", str(path), "--json", stdout=out)
    assert json.loads(out.getvalue())["kinds"]["abstract"]["held_back"] == 1


def test_the_command_names_a_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such fixture file"):
        call_command("eval_labels", str(tmp_path / "nowhere.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(CommandError, match="malformed JSON"):
        call_command("eval_labels", str(broken))
