"""The forgetting eval: something a person said, forgotten in one way, tries to come back in
another, through ume's real paths; then the graph, the queue, recall and the MCP reads are
searched for it.

Fixture (``eval/fixtures/forgetting.json``): stories, each with what was ``say``-d (one
sentence the rules extractor proposes a memory from), the ``terms`` that name it (what must not
come back), ``variants`` (the same thing in other words: ``nickname``, ``title``,
``paraphrase``) and ``keep``: an unrelated memory sharing a word with it ("Dante" beside a
forgotten "Dan", "Apple Crumble" beside "Apple Pie"), with a question that finds it.

A scenario is one story, one way to forget (:data:`FORGET`) and one way back (:data:`BACK`),
run for a throwaway person who is deleted afterwards. Every pair is run once more with nothing
forgotten (the control), which says whether that way back brings the thing back at all: a way
back the control does not come back by is not an attempt, and counts in neither figure.

- A **resurrection** is a scenario whose thing, after being forgotten, shows again where the
  way of forgetting binds: as a memory's label or alias, a waiting card, a memory recall
  returns, or in the MCP reads (``search_nodes``, ``read_graph``); and, for the ways that forget
  what was said (:data:`FORGETS_WHAT_WAS_SAID`), as a message recall quotes. A suppression
  that has expired binds nothing: there the thing *must* come back, and not coming back is
  over-blocking.
- **Over-blocking** is the keep memory, said after the forgetting, missing (as a memory or a
  card, or from recall of its question) where the control keeps it; or an expired
  suppression still binding.

Terms match whole words, case-insensitively ("Dan" is not in "Dante").
"""

from __future__ import annotations

import io
import json
import re
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from eval.fixture_files import FixtureError, read_fixture_file
from mcp_server.tools import create_entities, read_graph, save_memory, search_nodes
from memory.models import AccessToken, Alias, Candidate, Node, Receipt, Suppression
from memory.owned import Person
from memory.recall import recall
from memory.selectors import only_held, without_held
from memory.services.cleanup import cleanup_user
from memory.services.erase import account_delete, memory_erase_all, receipt_undo
from memory.services.imports import chat_import_process, chat_import_store
from memory.services.ingest import ingest_text
from memory.services.labels import LabelSuppressed
from memory.services.nodes import NodeEditError, alias_add, node_delete, node_update
from memory.services.review import ReviewError, candidate_promote, candidate_reject
from memory.services.rules import memory_rule_update
from memory.services.tokens import token_create
from memory.vocab import CandidateStatus

VARIANTS = ("nickname", "title", "paraphrase")


@dataclass(frozen=True)
class Keep:
    say: str
    label: str
    ask: str


@dataclass(frozen=True)
class Story:
    id: str
    say: str
    terms: tuple[str, ...]
    variants: dict[str, str]
    keep: Keep


def _validate(data: Any) -> None:
    stories = data.get("stories") if isinstance(data, dict) else None
    if not isinstance(stories, list) or not stories:
        raise FixtureError("expected {'stories': [...]} with at least one story")
    for raw in stories:
        try:
            if not (raw["id"] and raw["say"] and raw["terms"] and raw["keep"]["label"]):
                raise FixtureError(f"story {raw.get('id')!r}: empty id, say, terms or keep")
            missing = [name for name in VARIANTS if not raw["variants"].get(name)]
            if missing or not raw["keep"]["say"] or not raw["keep"]["ask"]:
                raise FixtureError(f"story {raw['id']!r}: no {', '.join(missing) or 'keep'}")
        except (KeyError, TypeError, AttributeError) as exc:
            raise FixtureError(f"story {str(raw)[:60]!r} lacks {exc}") from exc


def load_stories(path: Path) -> list[Story]:
    data = read_fixture_file(path, _validate)
    return [
        Story(
            id=str(raw["id"]),
            say=str(raw["say"]),
            terms=tuple(str(t) for t in raw["terms"]),
            variants={name: str(raw["variants"][name]) for name in VARIANTS},
            keep=Keep(str(raw["keep"]["say"]), str(raw["keep"]["label"]), str(raw["keep"]["ask"])),
        )
        for raw in data["stories"]
    ]


# --- matching (pure) --------------------------------------------------------------------------


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def mentions(text: str, terms: Sequence[str]) -> bool:
    """Whether ``text`` holds one of ``terms`` as whole words, in order."""
    have = words(text)
    for term in terms:
        want = words(term)
        if want and any(have[i : i + len(want)] == want for i in range(len(have))):
            return True
    return False


# --- a person and what they said --------------------------------------------------------------


@dataclass
class Run:
    """One scenario's person, their token for the MCP tools, and what happened."""

    owner: Person
    token: AccessToken
    story: Story
    forget: str | None = None
    first: Receipt | None = None
    notes: list[str] = field(default_factory=list)


def _transcript(*lines: str) -> str:
    return "".join(f"User: {line}\nAssistant: Noted.\n" for line in lines)


def say(run: Run, text: str, name: str) -> Receipt:
    return ingest_text(owner=run.owner, text=_transcript(text), name=name, source="command")


def _cards(run: Run, terms: Sequence[str], *, held: bool) -> list[Candidate]:
    """The waiting cards that mention ``terms``: those held because they look like something
    the person asked to forget (``held``), or the others."""
    rows = Candidate.objects.for_owner(run.owner).filter(status=CandidateStatus.PENDING)
    pick = only_held if held else without_held
    return [c for c in pick(rows, run.owner, now=timezone.now()) if mentions(c.label_guess, terms)]


def _pending(run: Run, terms: Sequence[str]) -> list[Candidate]:
    """The cards waiting as any card does: not held, or held by a suppression no longer in
    force (a lifted or expired suppression binds nothing)."""
    return _cards(run, terms, held=False)


def _card(run: Run) -> Candidate | None:
    cards = _pending(run, run.story.terms)
    return cards[0] if cards else None


# --- ways to forget ----------------------------------------------------------------------------


def _reject(run: Run, **how: Any) -> None:
    card = _card(run)
    if card is None:
        raise ScenarioError("the story proposed no card to forget")
    candidate_reject(candidate=card, by=run.owner, **how)


def forget_suppress(run: Run) -> None:
    _reject(run, suppress=True)


def forget_suppress_30_days(run: Run) -> None:
    _reject(run, suppress=True, until=timezone.now() + timedelta(days=30))


def forget_suppress_expired(run: Run) -> None:
    """Suppressed for a day, and the day has passed: it binds nothing any more."""
    _reject(run, suppress=True, until=timezone.now() + timedelta(days=1))
    Suppression.objects.for_owner(run.owner).update(
        suppressed_until=timezone.now() - timedelta(seconds=1)
    )


def forget_what_was_said(run: Run) -> None:
    _reject(run, forget=True)


def forget_delete_for_good(run: Run) -> None:
    card = _card(run)
    if card is None:
        raise ScenarioError("the story proposed no card to keep and then delete")
    node = candidate_promote(candidate=card, by=run.owner)
    node_delete(node=node, stick=True)


def forget_by_rule(run: Run) -> None:
    """A memory rule excludes its name; the waiting card is rejected (plainly)."""
    memory_rule_update(owner=run.owner, changes={"excludes": list(run.story.terms)})
    _reject(run)


def forget_undo_ingest(run: Run) -> None:
    """The first save undone, with what it proposed never proposed again. A save that proposed
    nothing about the story suppresses nothing, and cannot be tried (as the other ways)."""
    assert run.first is not None
    if _card(run) is None:
        raise ScenarioError("the story proposed no card to forget")
    receipt_undo(receipt=run.first, suppress=True)


def forget_delete_all(run: Run) -> None:
    memory_erase_all(owner=run.owner)


FORGET: dict[str, Callable[[Run], None]] = {
    "suppress": forget_suppress,
    "suppress_30_days": forget_suppress_30_days,
    "suppress_expired": forget_suppress_expired,
    "forget_what_was_said": forget_what_was_said,
    "delete_for_good": forget_delete_for_good,
    "memory_rule_exclude": forget_by_rule,
    "undo_ingest": forget_undo_ingest,
    "delete_all": forget_delete_all,
}
# The ways whose promise covers the messages themselves: recall must not quote them.
FORGETS_WHAT_WAS_SAID = frozenset(
    {"forget_what_was_said", "delete_for_good", "memory_rule_exclude"}
)
# Expired: the thing must come back.
EXPIRED = frozenset({"suppress_expired"})


# --- ways back ---------------------------------------------------------------------------------


def back_same_transcript(run: Run) -> None:
    say(run, run.story.say, "first chat")


def back_new_conversation(run: Run) -> None:
    text = _transcript("Quick update on my week.", run.story.say, "That's all for now.")
    ingest_text(owner=run.owner, text=text, name="a later chat", source="command")


def _back_variant(name: str) -> Callable[[Run], None]:
    def back(run: Run) -> None:
        say(run, run.story.variants[name], f"later, {name}")

    back.__name__ = f"back_{name}"
    return back


def back_chat_import(run: Run) -> None:
    """A Claude export holding a conversation that says it."""
    export = [
        {
            "uuid": str(uuid.uuid4()),
            "name": "Catching up",
            "created_at": "2026-01-05T09:00:00Z",
            "chat_messages": [
                {"uuid": "m1", "sender": "human", "text": run.story.say},
                {"uuid": "m2", "sender": "assistant", "text": "Noted."},
            ],
        }
    ]
    stream = io.BytesIO(json.dumps(export).encode())
    result = chat_import_store(
        owner=run.owner, stream=stream, name="conversations.json", fmt="claude", source="upload"
    )
    chat_import_process(result)


def back_mcp_save_memory(run: Run) -> None:
    save_memory(run.token, text=run.story.say)


def back_mcp_create_entities(run: Run) -> None:
    entities = [
        {"name": term, "entityType": "thing", "observations": [run.story.say]}
        for term in run.story.terms
    ]
    create_entities(run.token, entities=entities)


def _other_node(run: Run) -> Node:
    say(run, run.story.keep.say, "another chat")
    card = _pending(run, [run.story.keep.label])
    if not card:
        raise ScenarioError("the keep sentence proposed no card to rename")
    return candidate_promote(candidate=card[0], by=run.owner)


def back_rename_onto(run: Run) -> None:
    """Another memory renamed to the forgotten name (refused is the right answer)."""
    node = _other_node(run)
    try:
        node_update(node=node, label=run.story.terms[0])
    except (LabelSuppressed, NodeEditError) as exc:
        run.notes.append(f"rename refused: {exc}")


def back_alias_onto(run: Run) -> None:
    """The forgotten name given to another memory as an alias (a merge's way in)."""
    node = _other_node(run)
    try:
        alias_add(node=node, alias=run.story.terms[0])
    except (LabelSuppressed, NodeEditError, ReviewError) as exc:
        run.notes.append(f"alias refused: {exc}")


# How each later conversation of repeated mentions opens (none of them proposes anything), so
# no two are the same transcript: one said again word for word is ``same_transcript``'s way.
OPENERS = (
    "Quick update on my week.",
    "Another thing before I forget.",
    "One more update.",
    "Back again with news.",
    "Just checking in.",
)


def back_repeated(run: Run) -> None:
    """Said again in five later conversations, in its own words and in the others."""
    lines = [run.story.say, *run.story.variants.values(), run.story.say]
    for number, (opener, line) in enumerate(zip(OPENERS, lines, strict=True)):
        text = _transcript(opener, line)
        ingest_text(owner=run.owner, text=text, name=f"session {number + 2}", source="command")


def back_after_cleanup(run: Run) -> None:
    """A cleanup pass, then the thing said again in a new conversation; after a delete-all,
    what was said before, replayed (what is said afterwards is new, see AFTER_DELETE_ALL)."""
    cleanup_user(owner=run.owner)
    if run.forget == "delete_all":
        back_same_transcript(run)
    else:
        back_new_conversation(run)


BACK: dict[str, Callable[[Run], None]] = {
    "same_transcript": back_same_transcript,
    "new_conversation": back_new_conversation,
    **{f"variant_{name}": _back_variant(name) for name in VARIANTS},
    "chat_import": back_chat_import,
    "mcp_save_memory": back_mcp_save_memory,
    "mcp_create_entities": back_mcp_create_entities,
    "rename_onto": back_rename_onto,
    "alias_onto": back_alias_onto,
    "repeated_mentions": back_repeated,
    "after_cleanup": back_after_cleanup,
}
# After a delete-all the person starts again: what they say afterwards is new and is kept
# (the fresh-start promise). Only what was said before may not come back: the same transcript,
# an old export, a cleanup pass.
AFTER_DELETE_ALL = frozenset({"same_transcript", "chat_import", "after_cleanup"})


def applies(forget: str, back: str) -> bool:
    """Whether the pair is a scenario. Besides the delete-all rule above: a transcript already
    read is a ``duplicate`` and is not read again, so it cannot show that an expired
    suppression stopped binding."""
    if forget == "delete_all":
        return back in AFTER_DELETE_ALL
    return not (forget in EXPIRED and back == "same_transcript")


class ScenarioError(RuntimeError):
    """The scenario could not be set up (the story's sentence proposed nothing)."""


# --- what shows ------------------------------------------------------------------------------

PLACES = ("graph", "queue", "recall", "mcp", "said")
# Held for the person (a card that looks like something they asked to forget, shown with the
# suppression it resembles): not a way back, since nothing is written or proposed silently;
# counted beside. A keep memory held is over-blocked.
HELD = "held"


@dataclass(frozen=True)
class Seen:
    """Where the story's thing shows (of :data:`PLACES`, and :data:`HELD`), and whether the
    keep memory is there (a memory or a card not held) and found by recall of its question."""

    places: frozenset[str]
    keep: bool


def _in_graph(owner: Person, terms: Sequence[str]) -> bool:
    labels = [*Node.objects.for_owner(owner).values_list("label", flat=True)]
    labels += Alias.objects.for_owner(owner).values_list("alias", flat=True)
    return any(mentions(label, terms) for label in labels)


def _in_recall(owner: Person, question: str, terms: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for item in recall(owner, question).items:
        if item.kind == "episode":
            if mentions(item.text, terms):  # type: ignore[union-attr]
                found.add("said")
        elif mentions(f"{item.label} {item.summary}", terms):  # type: ignore[union-attr]
            found.add("recall")
    return found


def _in_mcp(token: AccessToken, terms: Sequence[str]) -> bool:
    graphs = [read_graph(token).payload, *(search_nodes(token, query=t).payload for t in terms)]
    return any(mentions(entity["name"], terms) for graph in graphs for entity in graph["entities"])


def observe(run: Run) -> Seen:
    terms = run.story.terms
    places: set[str] = set()
    if _in_graph(run.owner, terms):
        places.add("graph")
    if _pending(run, terms):
        places.add("queue")
    if _cards(run, terms, held=True):
        places.add(HELD)
    for term in terms:
        places |= _in_recall(run.owner, f"what do you know about {term}?", terms)
    if _in_mcp(run.token, terms):
        places.add("mcp")
    keep = [run.story.keep.label]
    kept = _in_graph(run.owner, keep) or bool(_pending(run, keep))
    found = bool(_in_recall(run.owner, run.story.keep.ask, keep))
    return Seen(frozenset(places), kept and found)


def bound(forget: str) -> frozenset[str]:
    """The places a way of forgetting promises the thing stays out of."""
    places = set(PLACES) - {"said"}
    if forget in FORGETS_WHAT_WAS_SAID:
        places.add("said")
    return frozenset(places)


# --- running -----------------------------------------------------------------------------------


def run_once(story: Story, forget: str | None, back: str) -> Seen:
    """One scenario for a throwaway person (deleted afterwards, also on failure). With
    ``forget`` None, the control: the way back alone, on a person who never said it."""
    owner = get_user_model().objects.create_user(f"forget-{uuid.uuid4().hex[:12]}", password=None)
    try:
        token, _secret = token_create(owner=owner, name="forgetting eval")
        run = Run(owner, token, story, forget)
        if forget is not None:
            run.first = say(run, story.say, "first chat")
            FORGET[forget](run)
        BACK[back](run)
        say(run, story.keep.say, "keep chat")
        return observe(run)
    finally:
        account_delete(owner)


@dataclass
class Cell:
    """One (way to forget, way back) pair over the stories."""

    scenarios: int = 0
    attempts: int = 0  # the control came back by this way
    resurrections: int = 0
    keep_checks: int = 0
    over_blocked: int = 0
    held: int = 0  # scenarios where the thing came back only as a card held for the person
    failures: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "scenarios": self.scenarios,
            "attempts": self.attempts,
            "resurrections": self.resurrections,
            "keep_checks": self.keep_checks,
            "over_blocked": self.over_blocked,
            "held": self.held,
            "failures": self.failures[:20],
        }


def score(cell: Cell, story: Story, forget: str, back: str, seen: Seen, control: Seen) -> None:
    cell.scenarios += 1
    relevant = control.places & bound(forget)
    if control.keep:
        cell.keep_checks += 1
        if not seen.keep:
            cell.over_blocked += 1
            cell.failures.append(f"{story.id}: keep {story.keep.label!r} lost")
    if not relevant:
        return
    cell.attempts += 1
    if HELD in seen.places and not seen.places & relevant:
        cell.held += 1
    if forget in EXPIRED:
        if not seen.places & relevant:
            cell.over_blocked += 1
            cell.failures.append(f"{story.id}: expired suppression still binds")
    elif seen.places & relevant:
        cell.resurrections += 1
        cell.failures.append(f"{story.id}: back in {', '.join(sorted(seen.places & relevant))}")


@dataclass
class Report:
    cells: dict[tuple[str, str], Cell]
    skipped: list[str]

    def totals(self) -> dict[str, Any]:
        cells = list(self.cells.values())
        attempts = sum(c.attempts for c in cells)
        expired = sum(c.attempts for (f, _b), c in self.cells.items() if f in EXPIRED)
        checks = sum(c.keep_checks for c in cells) + expired
        over = sum(c.over_blocked for c in cells)
        resurrections = sum(c.resurrections for c in cells)
        bindings = attempts - expired
        held = sum(c.held for c in cells)
        return {
            "scenarios": sum(c.scenarios for c in cells),
            "attempts": bindings,
            "resurrections": resurrections,
            "resurrection_rate": round(resurrections / bindings, 4) if bindings else 0.0,
            "held": held,
            "over_block_checks": checks,
            "over_blocked": over,
            "over_blocking_rate": round(over / checks, 4) if checks else 0.0,
            "skipped": self.skipped,
        }

    def by(self, axis: int) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for pair, cell in self.cells.items():
            row = out[pair[axis]]
            for name, value in cell.as_json().items():
                if isinstance(value, int):
                    row[name] += value
        return {k: dict(v) for k, v in out.items()}

    def as_json(self) -> dict[str, Any]:
        return {
            **self.totals(),
            "by_forget": self.by(0),
            "by_back": self.by(1),
            "cells": {f"{f} x {b}": c.as_json() for (f, b), c in self.cells.items()},
        }


def run_eval(
    stories: Sequence[Story],
    *,
    forgets: Sequence[str] = tuple(FORGET),
    backs: Sequence[str] = tuple(BACK),
    on_scenario: Callable[[], None] | None = None,
) -> Report:
    cells: dict[tuple[str, str], Cell] = {
        (f, b): Cell() for f in forgets for b in backs if applies(f, b)
    }
    skipped: list[str] = []
    for story in stories:
        controls: dict[str, Seen] = {}
        for back in backs:
            try:
                controls[back] = run_once(story, None, back)
            except ScenarioError as exc:
                skipped.append(f"{story.id} / control / {back}: {exc}")
        for (forget, back), cell in cells.items():
            if back not in controls:
                continue  # the way back cannot be tried for this story (said in the control)
            try:
                seen = run_once(story, forget, back)
            except ScenarioError as exc:
                skipped.append(f"{story.id} / {forget} / {back}: {exc}")
                continue
            score(cell, story, forget, back, seen, controls[back])
            if on_scenario is not None:
                on_scenario()
    return Report(cells, skipped)
