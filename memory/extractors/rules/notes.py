"""Notes: a remembered sentence no other family understood, and terse notes with a time."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _PRONOUN_START,
    HABIT,
    OTHER,
    Clause,
    Found,
    _is_date_word,
    cut,
    slice_,
)
from memory.extractors.rules.status import HABITS
from memory.vocab import SliceKind

_COPULA_SUBJECT = re.compile(
    r"^(?P<subject>.+?)\s+(?:is|are|was|were|has|have|needs|goes|starts|ends|opens|closes|"
    r"expires|lives|works|happens|costs)\b",
    re.IGNORECASE,
)
_I_VERB_OBJECT = re.compile(
    r"^(?:i|we)(?:'ve|'m|'d|'ll)?\s+(?:\w+\s+){0,2}?(?P<obj>(?:a|an|the|my|our)\s+.+)$",
    re.IGNORECASE,
)
_NAME_RUN = re.compile(r"(?<!^)\b(?P<name>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)")


def _note_subject(text: str) -> str | None:
    """A short subject for a remembered clause no recogniser understood."""
    names = [
        m.group("name")
        for m in _NAME_RUN.finditer(text)
        if m.group("name") != "I" and not _is_date_word(m.group("name"))
    ]
    if names:
        return p.make_label(names[0])
    match = _COPULA_SUBJECT.match(text)
    if match and not _PRONOUN_START.match(match.group("subject")):
        label = p.make_label(match.group("subject"))
        if label and not label.lower().startswith(("i ", "we ")) and label not in {"I", "We"}:
            return label
    match = _I_VERB_OBJECT.match(text)
    if match:
        return p.make_label(cut(match.group("obj")))
    if not re.match(r"^(?:i|we)\b", text, re.IGNORECASE):
        return p.make_label(cut(text))
    return None


def remembered_note(c: Clause) -> Found:
    label = _note_subject(c.text)
    if not label:
        return []
    return slice_(c, label, OTHER, SliceKind.OTHER.value)


# A terse note with its time: "Gym at 6", "Dentist on Friday", "Piano lessons at 5pm".
_TIMED_NOTE = re.compile(
    r"^(?P<what>[A-Za-z][\w'\-]*(?:\s+[A-Za-z][\w'\-]*){0,3}?)\s+(?:at|on|by|around|from)\s+"
    r"(?P<when>\d{1,2}(?:[:.]\d\d)?\s*(?:am|pm|h)?|noon|midday|midnight|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?:\s+(?:morning|afternoon|evening|night))?)$",
    re.IGNORECASE,
)
MAX_NOTE_WORDS = 6


def timed_note(c: Clause) -> Found:
    """A short note that names a thing and a time and nothing else: a slice on the thing."""
    if len(c.text.split()) > MAX_NOTE_WORDS:
        return []
    match = _TIMED_NOTE.match(c.text)
    if not match or re.match(r"^(?:i|we|you|it|this|that|see|call|meet)\b", c.text, re.I):
        return []
    label = p.make_label(match.group("what"))
    if not label:
        return []
    category = HABIT if label.lower() in HABITS else OTHER
    return slice_(c, label, category, SliceKind.OTHER.value)
