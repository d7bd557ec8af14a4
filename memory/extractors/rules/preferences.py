"""Preferences: "I prefer / like / love / hate X", "my favourite X is Y"."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _CONTEXT,
    _I,
    _NAMED_CONTEXT,
    _PRONOUN_START,
    _RESPONSES,
    _THEME,
    _TIME_WORDS,
    HEALTH,
    PREFERENCE,
    Clause,
    Found,
    cut,
    object_label,
    slice_,
)
from memory.vocab import SliceKind

_PREFERS = re.compile(
    _I + r"(?:prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|can't\s+stand|"
    r"cannot\s+stand|can\s+not\s+stand|don't\s+(?:like|enjoy|want)|do\s+not\s+(?:like|enjoy|want)|"
    r"(?:not\s+)?a\s+(?:big\s+|huge\s+)?fan\s+of|allergic\s+to)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_FAVOURITE = re.compile(
    r"^(?:my|our)\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?P<what>[\w\- ]+?)\s+(?:is|are)\s+"
    r"(?P<obj>.+)$",
    re.IGNORECASE,
)
_TO_VERB = re.compile(r"^to\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)


def _preference_subject(c: Clause, obj: str) -> str:
    if _THEME.search(obj):
        context = _CONTEXT.search(obj)
        ctx = p.make_label(cut(context.group("ctx"))) if context else None
        return f"{ctx} Theme" if ctx else "Theme"
    for pattern in (_CONTEXT, _NAMED_CONTEXT):
        context = pattern.search(obj)
        if context:
            raw = cut(context.group("ctx"))
            if raw and raw.split()[0].lower() not in _TIME_WORDS and (label := p.make_label(raw)):
                return label
    if _RESPONSES.search(obj):
        return "Response Style"
    to_verb = _TO_VERB.match(obj)
    if to_verb:
        return p.title_case(p.gerund(to_verb.group("verb")))
    head = cut(obj)
    if head and len(head.split()) <= 4 and not _PRONOUN_START.match(head):
        label = p.make_label(head)
        if label:
            return label
    return "Preferences"


def preference(c: Clause) -> Found:
    match = _FAVOURITE.match(c.text)
    if match:
        label = p.make_label(match.group("what"))
        return slice_(c, label, PREFERENCE, SliceKind.PREFERENCE.value) if label else []
    match = _PREFERS.search(c.text)
    if not match:
        return []
    obj = match.group("obj").strip()
    if _PRONOUN_START.match(obj) and not (_RESPONSES.search(obj) or _TO_VERB.match(obj)):
        return []
    if re.search(r"allergic", c.text, re.IGNORECASE):
        label = object_label(c, obj)
        return slice_(c, f"{label} Allergy", HEALTH, SliceKind.OTHER.value) if label else []
    return slice_(c, _preference_subject(c, obj), PREFERENCE, SliceKind.PREFERENCE.value)
