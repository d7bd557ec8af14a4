"""Reading history: a revision with what it changed against its parent, as a person reads it.

Pure functions over :class:`~memory.models.Revision` rows the selectors return (no queries);
see docs/architecture.md ("History").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import models

from memory.vocab import (
    Category,
    EdgeType,
    EventAction,
    Importance,
    NodeState,
    RevisionAction,
    SliceKind,
    TimePrecision,
    TimeSource,
)

#: How a snapshot field is named to a person.
FIELD_NAMES = {
    "label": "label",
    "category": "category",
    "state": "state",
    "summary": "summary",
    "text": "text",
    "kind": "kind",
    "is_current": "current",
    "action": "what happened",
    "importance": "importance",
    "happened_at": "when",
    "happened_at_precision": "date precision",
    "happened_at_source": "date source",
    "alias": "alias",
    "type": "link type",
    "title": "title",
    "topic": "topic",
    "body": "body",
}


#: The closed vocabulary a snapshot field holds, shown by its label ("In progress", not
#: "active"). ``kind`` is a fact's kind: only facts keep one in their snapshot.
CHOICES: dict[str, type[models.TextChoices]] = {
    "category": Category,
    "state": NodeState,
    "kind": SliceKind,
    "action": EventAction,
    "importance": Importance,
    "type": EdgeType,
    "happened_at_precision": TimePrecision,
    "happened_at_source": TimeSource,
}
_DATE_FORMATS = {
    TimePrecision.YEAR.value: "{m:%Y}",
    TimePrecision.MONTH.value: "{m:%B %Y}",
    TimePrecision.WEEK.value: "the week of {m.day} {m:%B %Y}",
    TimePrecision.DAY.value: "{m.day} {m:%B %Y}",
}


def shown(name: str, value: Any, snapshot: dict[str, Any] | None = None) -> str:
    """A snapshot value as a person reads it: a choice by its label, a date as a date (to the
    precision the snapshot gives it), yes/no for a flag, "(empty)" for nothing."""
    if value is None or value == "":
        return "(empty)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    choices = CHOICES.get(name)
    if choices is not None and isinstance(value, str):
        labels = dict(choices.choices)
        return str(labels.get(value, value))
    if name == "happened_at" and isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
        precision = str((snapshot or {}).get("happened_at_precision") or "")
        return _DATE_FORMATS.get(precision, "{m.day} {m:%B %Y, %H:%M}").format(m=moment)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(empty)"
    return str(value)


@dataclass(frozen=True)
class Change:
    field: str
    name: str
    before: Any
    after: Any
    before_shown: str = ""
    after_shown: str = ""


@dataclass
class Entry:
    """One revision in a timeline, with its changes and whether it can be restored."""

    revision: Any
    changes: list[Change] = field(default_factory=list)
    restorable: bool = False


#: Ids that place an object (which memory a fact is on): in the snapshot, not in a diff.
PLACEMENT = frozenset({"node_id", "from_node_id", "to_node_id"})


def diff(before: dict[str, Any] | None, after: dict[str, Any]) -> list[Change]:
    """The fields that differ; every field of ``after`` when there is no ``before``."""
    out = []
    for name, value in after.items():
        if name in PLACEMENT:
            continue
        old = None if before is None else before.get(name)
        if before is None or old != value:
            out.append(
                Change(
                    name,
                    FIELD_NAMES.get(name, name),
                    old,
                    value,
                    shown(name, old, before),
                    shown(name, value, after),
                )
            )
    return out


def timeline(revisions: list[Any], parents: dict[tuple[str, int, int], Any]) -> list[Entry]:
    """``revisions`` newest first, each with its changes against its parent (looked up in the
    list itself, else in ``parents`` by kind, object id and number). A revision can be
    restored when it is not its object's latest and the object was not deleted since."""
    by_key = {(r.kind, r.object_id, r.number): r for r in revisions} | {
        k: v for k, v in parents.items()
    }
    latest: dict[tuple[str, int], Any] = {}
    for r in revisions:
        key = (r.kind, r.object_id)
        if key not in latest or r.number > latest[key].number:
            latest[key] = r
    entries = []
    for r in revisions:
        parent = by_key.get((r.kind, r.object_id, r.parent)) if r.parent else None
        last = latest[(r.kind, r.object_id)]
        restorable = (
            r.action != RevisionAction.DELETED
            and last.action != RevisionAction.DELETED
            and r.number < last.number
        )
        changes = (
            []
            if r.action == RevisionAction.DELETED
            else diff(parent.snapshot if parent else None, r.snapshot)
        )
        entries.append(Entry(r, changes, restorable))
    return entries
