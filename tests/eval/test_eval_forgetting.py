"""``eval_forgetting``: the scenarios' harness, and the eval on our stories with its bounds."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from eval.fixture_files import FixtureError
from eval.forgetting import (
    BACK,
    FORGET,
    Cell,
    Keep,
    Seen,
    Story,
    applies,
    bound,
    load_stories,
    mentions,
    run_eval,
    run_once,
    score,
)

FIXTURE = Path(__file__).resolve().parents[2] / "eval" / "fixtures" / "forgetting.json"
# The stories the suite runs every way (3 stories x 94 pairs = 282 scenarios).
SUITE_STORIES = "ex-husband,allergy,son"

pytestmark = pytest.mark.django_db


def story(**changes: object) -> Story:
    base = {
        "id": "sister",
        "say": "My sister Ana is moving to Porto.",
        "terms": ("Ana", "Anna"),
        "variants": {"nickname": "a", "title": "b", "paraphrase": "c"},
        "keep": Keep("My sister Anabel is getting married.", "Anabel", "who is Anabel?"),
    }
    return Story(**{**base, **changes})  # type: ignore[arg-type]


def test_terms_match_whole_words_in_order() -> None:
    assert mentions("Dan", ["Dan"]) and mentions("my ex Dan, again", ["dan"])
    assert not mentions("Dante", ["Dan"])
    assert mentions("Warm apple pie", ["Apple Pie"])
    assert not mentions("Apple Crumble", ["Apple Pie"]) and not mentions(
        "pie of apple", ["apple pie"]
    )


def test_delete_all_is_tried_only_against_what_was_said_before() -> None:
    assert applies("delete_all", "same_transcript") and applies("delete_all", "chat_import")
    assert not applies("delete_all", "variant_paraphrase")
    assert not applies("suppress_expired", "same_transcript")
    assert applies("suppress", "same_transcript")
    assert "said" in bound("forget_what_was_said") and "said" not in bound("suppress")


def test_scoring_counts_an_attempt_only_where_the_control_came_back() -> None:
    came = Seen(frozenset({"queue", "said"}), keep=True)
    nothing = Seen(frozenset(), keep=True)
    cell = Cell()
    score(cell, story(), "suppress", "new_conversation", nothing, nothing)  # never came back
    assert (cell.attempts, cell.resurrections, cell.keep_checks) == (0, 0, 1)
    score(cell, story(), "suppress", "new_conversation", Seen(frozenset({"said"}), True), came)
    assert (cell.attempts, cell.resurrections) == (1, 0)  # a plain suppression keeps the words
    score(cell, story(), "forget_what_was_said", "x", Seen(frozenset({"said"}), True), came)
    assert (cell.attempts, cell.resurrections) == (2, 1)
    score(cell, story(), "suppress_expired", "x", nothing, came)
    assert cell.over_blocked == 1 and "expired" in cell.failures[-1]
    score(cell, story(), "suppress", "x", Seen(frozenset(), keep=False), came)
    assert cell.over_blocked == 2 and "Anabel" in cell.failures[-1]


def test_a_suppressed_name_said_again_stays_out_and_its_neighbour_stays_in() -> None:
    ana = next(s for s in load_stories(FIXTURE) if s.id == "sister")
    control = run_once(ana, None, "new_conversation")
    assert "queue" in control.places
    assert control.keep
    seen = run_once(ana, "suppress", "new_conversation")
    assert not seen.places & {"graph", "queue", "recall", "mcp"}, seen
    assert seen.keep  # "Anabel" shares letters, not a name
    expired = run_once(ana, "suppress_expired", "new_conversation")
    assert "queue" in expired.places  # an expired suppression binds nothing
    assert not get_user_model().objects.filter(username__startswith="forget-").exists()


def test_the_fixture_is_checked(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"stories": [{"id": "x", "say": "s", "terms": ["t"]}]}))
    with pytest.raises(FixtureError, match="lacks"):
        load_stories(bad)
    bad.write_text("[]")
    with pytest.raises(FixtureError, match="at least one story"):
        load_stories(bad)


def test_the_held_out_sets_load_and_repeat_no_dev_story() -> None:
    """The held-out sets are run for figures only (docs/architecture.md, "Tombstones"): each
    loads, and none says what a dev story says."""
    dev = {s.say for s in load_stories(FIXTURE)}
    for name, at_least in (
        ("forgetting_holdout.json", 8),
        ("forgetting_holdout_b.json", 24),
        ("forgetting_holdout_c.json", 24),
        ("forgetting_holdout_d.json", 24),
        ("forgetting_holdout_e.json", 24),
        ("forgetting_holdout_f.json", 24),
    ):
        held = load_stories(FIXTURE.with_name(name))
        assert len(held) >= at_least
        assert not dev & {s.say for s in held}


def test_the_command_refuses_unknown_ways() -> None:
    with pytest.raises(CommandError, match="unknown way back"):
        call_command("eval_forgetting", str(FIXTURE), "--back", "carrier_pigeon")


def test_forgetting_on_our_stories_holds_its_bounds() -> None:
    """Every way to forget against every way back, for three stories. The bounds are today's
    figures: a change that lets more come back, or blocks what it should not, fails here.
    Nothing comes back, in other words either: it is held for the person or refused; what a
    delete-all erased is not read again."""
    out = StringIO()
    call_command(
        "eval_forgetting",
        str(FIXTURE),
        "--json",
        "--stories",
        SUITE_STORIES,
        "--max-resurrections",
        "0",
        "--max-over-blocking",
        "0.0",
        stdout=out,
    )
    report = json.loads(out.getvalue())
    assert report["scenarios"] >= 150 and not report["skipped"]
    assert set(report["by_forget"]) == set(FORGET)
    assert set(report["by_back"]) == set(BACK)
    # What holds today, and must go on holding: the same words, said again anywhere, never
    # bring back a suppressed or deleted memory.
    assert report["resurrections"] == 0 and report["over_blocked"] == 0
    # In other words it is held for the person, not written: nicknames, a name's other form,
    # an assistant's entities, repeated mentions.
    assert report["held"] >= 30
    for back in ("variant_nickname", "mcp_create_entities", "repeated_mentions"):
        assert report["by_back"][back]["held"] > 0, back


def test_run_eval_reports_every_pair_it_ran() -> None:
    ana = next(s for s in load_stories(FIXTURE) if s.id == "sister")
    report = run_eval([ana], forgets=["suppress"], backs=["mcp_save_memory", "after_cleanup"])
    data = report.as_json()
    assert set(data["cells"]) == {"suppress x mcp_save_memory", "suppress x after_cleanup"}
    assert data["resurrections"] == 0 and data["over_blocked"] == 0


def test_a_way_back_the_story_cannot_try_is_skipped_and_said() -> None:
    """A keep sentence that proposes no card cannot be renamed onto the forgotten name: the
    control says so, and the pair is reported as skipped instead of stopping the eval."""
    quiet = story(keep=Keep("Okay, thanks.", "Anabel", "who is Anabel?"))
    report = run_eval([quiet], forgets=["suppress"], backs=["rename_onto"])
    data = report.as_json()
    assert data["scenarios"] == 0
    assert data["skipped"] == [
        "sister / control / rename_onto: the keep sentence proposed no card to rename"
    ]


@pytest.mark.parametrize(
    ("story_id", "forgets", "backs"),
    [
        # A given name cut short, and an assistant's entity under another name.
        ("stepfather", ["forget_what_was_said"], ["variant_nickname", "mcp_create_entities"]),
        # "Mrs Adebayo" is not a forgotten "Mr Adebayo": kept, and found.
        ("old-neighbour", ["suppress", "forget_what_was_said"], ["new_conversation"]),
        # Initials written in capitals ("RLS").
        ("legs", ["forget_what_was_said"], ["variant_nickname", "mcp_create_entities"]),
        # A pet form no list holds ("Immy"), said again in several sessions; "Imran Shah" kept.
        ("running-friend", ["suppress", "forget_what_was_said"], ["variant_nickname"]),
        # A nickname listed under another spelling ("Kate" for Catherine), a title of rank.
        ("mentor", ["suppress"], ["variant_nickname", "variant_title"]),
        # A rule that excludes "Mr Adebayo" excludes "Adebayo" too, so "Mrs Adebayo", said
        # later, is her own card and not folded into his.
        ("old-neighbour", ["memory_rule_exclude"], ["repeated_mentions"]),
        # A title of religion for a name first said without one ("Father Ogilvy").
        ("pastor", ["suppress"], ["variant_title"]),
        # A namesake who starts the keep sentence ("Simon Quennell is my coach.") is kept.
        ("tutor", ["forget_what_was_said"], ["new_conversation"]),
        # A business with the forgotten person's surname, and what was said of it, are kept.
        ("accountant", ["forget_what_was_said"], ["new_conversation"]),
        # A place that shares a rare word and says something unlike it beside is kept; the
        # forgotten one said with a kind word more ("Dental Practice") is not.
        ("dentist", ["suppress"], ["new_conversation", "variant_title"]),
        # The whole forgotten name with a verb read into the label ("Vasquez Coaches").
        ("track-coach", ["suppress"], ["repeated_mentions"]),
        # A thing said by its rare head word alone ("my fasciitis"); "Plantar Warts" kept.
        ("heel", ["forget_what_was_said"], ["variant_nickname"]),
        # A trade's title before a given name ("Chef Benedetta"), the card first read as an
        # organisation.
        ("pasta-course", ["forget_what_was_said"], ["variant_nickname"]),
        # A thing's pet forms ("Peps" for a cat called Pepper, "Percy" for a dinghy called
        # Persephone) and a band's coined first word said as a name ("Saltmarsh"), nicknamed
        # or said again over many conversations.
        ("tabby-cat", ["suppress"], ["variant_nickname", "repeated_mentions"]),
        ("dinghy", ["delete_for_good"], ["variant_nickname", "repeated_mentions"]),
        ("folk-band", ["forget_what_was_said"], ["variant_nickname", "repeated_mentions"]),
        # After a delete-all, a shop named with its trade in lower case ("Rinaldi Brothers
        # deli") is a card at once, not only once heard before.
        ("pasta-course", ["delete_all"], ["same_transcript", "chat_import", "after_cleanup"]),
    ],
)
def test_other_words_for_a_person_or_a_name_hold(
    story_id: str, forgets: list[str], backs: list[str]
) -> None:
    chosen = [s for s in load_stories(FIXTURE) if s.id == story_id]
    data = run_eval(chosen, forgets=forgets, backs=backs).as_json()
    assert not data["skipped"] and data["attempts"] + data["over_block_checks"] > 0
    assert data["resurrections"] == 0 and data["over_blocked"] == 0, data["cells"]
