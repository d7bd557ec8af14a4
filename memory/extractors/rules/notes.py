"""Remembered notes: a remembered sentence no other family understood."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _PRONOUN_START,
    OTHER,
    Clause,
    Found,
    _is_date_word,
    cut,
    slice_,
)
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
