"""The readable half of an export: one Markdown page per memory (docs/export.md). Pure.

A page says what ume knows of one memory as a person would write it down: its names, category
and state, its current facts and the ones they replaced, a timeline of events with when each
happened apart from when ume learned it, its links to other memories (each a link to that
memory's page), its notes, and the quotes it was learned from. Pages are written as streams
of text (:func:`node_page`), so a memory with a great many facts is never held whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from django.utils.text import slugify

from memory.vocab import EdgeType, NodeState, SliceKind

_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")
MEMORIES = "memories"
NOTES = "notes"


def md(text: Any) -> str:
    """``text`` on one line, with Markdown's special characters escaped: it reads as it was
    written, never as markup or HTML."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text or "").split()))


def _day(moment: datetime | None) -> str:
    return moment.date().isoformat() if moment else ""


def file_name(title: str, row_id: int) -> str:
    """A page's file name: its title as a slug (ASCII, at most 60 characters) and its id."""
    slug = slugify(title)[:60].strip("-") or "memory"
    return f"{slug}-{row_id}.md"


def node_path(label: str, node_id: int) -> str:
    return f"{MEMORIES}/{file_name(label, node_id)}"


def note_path(title: str, page_id: int) -> str:
    return f"{NOTES}/{file_name(title, page_id)}"


def _when(event: Mapping[str, Any]) -> str:
    """When an event happened, as precisely as it is known, and how that was found."""
    at: datetime | None = event["happened_at"]
    if at is None:
        return "date unknown"
    precision = event["happened_at_precision"]
    shown = {"year": at.strftime("%Y"), "month": at.strftime("%Y-%m")}.get(precision, _day(at))
    source = str(event["happened_at_source"]).replace("_", " ")
    return f"{shown} ({precision or 'day'}, {source})"


def node_page(
    node: Mapping[str, Any],
    *,
    aliases: Iterable[Mapping[str, Any]],
    facts: Iterable[Mapping[str, Any]],
    events: Iterable[Mapping[str, Any]],
    links_out: Iterable[Mapping[str, Any]],
    links_in: Iterable[Mapping[str, Any]],
    notes: Iterable[Mapping[str, Any]],
    evidence: Iterable[Mapping[str, Any]],
) -> Iterator[str]:
    """The page of one memory, piece by piece. Each detail stream is read once, in order."""
    state = str(NodeState(node["state"]).label) if node["state"] in NodeState.values else ""
    yield f"# {md(node['label'])}\n\n"
    yield f"- Category: {md(str(node['category']).replace('_', ' '))}\n"
    yield f"- State: {md(state or node['state'])}\n"
    names = [md(a["alias"]) for a in aliases]
    if names:
        yield f"- Also called: {', '.join(names)}\n"
    yield (
        f"- Known since {_day(node['created_at'])}, last mentioned {_day(node['last_seen_at'])}"
        f" ({node['mention_count']} mention{'s' * (node['mention_count'] != 1)})\n"
    )
    if node["summary"]:
        yield f"\n{md(node['summary'])}\n"
    yield from _facts(facts)
    yield from _section("Timeline", (_event(e) for e in events))
    links = [*(_link(e, "→") for e in links_out), *(_link(e, "←") for e in links_in)]
    yield from _section("Links", links)
    yield from _notes(notes)
    yield from _section("Where this comes from", (_quote(e) for e in evidence))


def _section(title: str, lines: Iterable[str]) -> Iterator[str]:
    first = True
    for line in lines:
        if first:
            yield f"\n## {title}\n\n"
            first = False
        yield line


def _facts(facts: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """Current facts first, then the ones they replaced (rows come current first)."""
    heading = ""
    for fact in facts:
        wanted = "Facts" if fact["is_current"] else "Earlier facts (replaced)"
        if wanted != heading:
            heading = wanted
            yield f"\n## {heading}\n\n"
        kind = (
            str(SliceKind(fact["kind"]).label).lower() if fact["kind"] in SliceKind.values else ""
        )
        span = _day(fact["created_at"])
        if not fact["is_current"] and fact["superseded_at"]:
            span += f" to {_day(fact['superseded_at'])}"
        yield f"- {md(fact['text'])} _({md(kind or fact['kind'])}, {span})_\n"


def _event(event: Mapping[str, Any]) -> str:
    action = str(event["action"]).replace("_", " ")
    importance = str(event["importance"]).replace("_", " ")
    important = "" if importance == "ordinary" else f", {md(importance)}"
    return (
        f"- {_when(event)}: {md(action)}: {md(event['text'])} "
        f"_(learned {_day(event['created_at'])}{important})_\n"
    )


def _link(edge: Mapping[str, Any], direction: str) -> str:
    kind = str(EdgeType(edge["type"]).label).lower() if edge["type"] in EdgeType.values else ""
    named = f" (“{md(edge['label'])}”)" if edge["label"] else ""
    target = f"{file_name(edge['other_label'], edge['other_id'])}"
    return (
        f"- {direction} {md(kind or edge['type'])}{named} [{md(edge['other_label'])}]({target})\n"
    )


def _notes(notes: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    for note in notes:
        yield f"\n## Note: {md(note['title'])}\n\n"
        yield from _note_body(note)


def _note_body(note: Mapping[str, Any]) -> Iterator[str]:
    if note["topic"]:
        yield f"Topic: {md(note['topic'])}\n\n"
    if note["summary"]:
        yield f"{md(note['summary'])}\n\n"
    if note["body"]:
        # A note's body is the person's own text: kept as written, fenced off so that nothing
        # in it is read as the page's markup.
        fence = "~~~~" if "~~~" in note["body"] else "~~~"
        yield f"{fence}\n{note['body'].rstrip()}\n{fence}\n"


def _quote(evidence: Mapping[str, Any]) -> str:
    said = evidence["message_ts"] or evidence["created_at"]
    where = f"“{md(evidence['said_in'])}”" if evidence["said_in"] else md(evidence["source"])
    return f"> {md(evidence['quote'])}\n>\n> — {where}, {_day(said)}\n\n"


def note_page(note: Mapping[str, Any]) -> Iterator[str]:
    """A note (page) that belongs to no memory."""
    yield f"# {md(note['title'])}\n\n"
    yield from _note_body(note)


def index_head(owner: str, exported_at: datetime, counts: Mapping[str, int]) -> str:
    return (
        f"# The memory of {md(owner)}\n\n"
        f"Exported from ume on {_day(exported_at)}: {counts.get('node', 0)} memories, "
        f"{counts.get('slice', 0)} facts, {counts.get('event', 0)} events, "
        f"{counts.get('edge', 0)} links. Everything, for another ume to import, is in "
        "`memory.jsonl`; these pages are for reading.\n\n## Memories\n\n"
    )


def index_line(node: Mapping[str, Any]) -> str:
    category = str(node["category"]).replace("_", " ")
    return (
        f"- [{md(node['label'])}]({node_path(node['label'], node['id'])}) "
        f"_({md(category)}, {md(node['state'])})_\n"
    )


def index_note(note: Mapping[str, Any]) -> str:
    return f"- [{md(note['title'])}]({note_path(note['title'], note['id'])})\n"
