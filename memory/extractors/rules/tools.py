"""Tools: "X uses Y", "X runs on Y and stores data in Z", "I use Y for Z"."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _CONTEXT,
    _I,
    _NOT_NAMES,
    _PRONOUN_START,
    _THEME,
    OTHER,
    PREFERENCE,
    PROJECT,
    PROJECT_WORDS,
    TOOL,
    Clause,
    Found,
    cut,
    edge,
    node,
    slice_,
)
from memory.keys import canonical_key
from memory.vocab import SliceKind

_USES_VERB = (
    r"(?P<verb>uses|is\s+using|runs\s+on|is\s+running\s+on|is\s+built\s+(?:with|on)|"
    r"is\s+written\s+in|stores\s+(?:its\s+|all\s+its\s+)?(?:data|everything|files|state)\s+in|"
    r"depends\s+on|relies\s+on|is\s+hosted\s+on|is\s+deployed\s+(?:on|to)|is\s+powered\s+by|"
    r"talks\s+to|syncs\s+(?:to|with))"
)
_X_USES = re.compile(
    r"^(?P<x>.+?)\s+(?:(?:now|also|still|currently|mainly|mostly)\s+)*"
    + _USES_VERB
    + r"\s+(?P<y>.+)$"
)
_TAIL_USES = re.compile(
    r"^\s*(?:,\s*)?(?:and\s+)?(?:it\s+)?(?:(?:now|also|still)\s+)*" + _USES_VERB + r"\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_NEXT_VERB = re.compile(
    r"\s+and\s+(?:it\s+)?(?:also\s+)?(?=(?:uses|is\s|runs|stores|depends|relies|talks|syncs)\b)",
    re.IGNORECASE,
)
_I_USE = re.compile(
    _I + r"(?:use|using|am\s+using|'m\s+using|have\s+been\s+using|'ve\s+been\s+using|rely\s+on|"
    r"started\s+using|(?:mostly\s+|mainly\s+)?(?:write|code|program)(?:\s+in)?|"
    r"(?:build|built|develop|make)\s+(?:it|them|this|that)?\s*(?:with|in|using|on))\s+"
    r"(?P<y>.+)$",
    re.IGNORECASE,
)
_PURPOSE = re.compile(r"\s+(?:for|to)\s+(?P<purpose>.+)$", re.IGNORECASE)


def _tool_labels(phrase: str) -> list[str]:
    head = _NEXT_VERB.split(phrase, maxsplit=1)[0]
    head = re.split(r"\s+(?:rather\s+than|instead\s+of|over|not|but)\s+", head, maxsplit=1)[0]
    labels = []
    # "R&D Tracker" and "AT&T" are one name: only a spaced "&" separates two tools.
    for part in re.split(r",\s*|\s+(?:and|with|plus)\s+|\s+&\s+", head):
        label = p.make_label(cut(part)) if not _PRONOUN_START.match(part.strip()) else None
        if label and label not in labels:
            labels.append(label)
    return labels


def _edge_kind(verb: str) -> str:
    return "depends_on" if verb.lower().startswith(("depends", "relies")) else "uses"


def _uses_tail(c: Clause, subject: str, rest: str) -> Found:
    """Edges from ``subject`` in "... and (it) runs on Y and stores data in Z"."""
    found: Found = []
    while rest:
        match = _TAIL_USES.match(rest) or _TAIL_USES.match(_NEXT_VERB.split(rest, 1)[-1])
        if not match:
            break
        for label in _tool_labels(match.group("y")):
            if canonical_key(label) != canonical_key(subject):
                found += [
                    node(c, label, TOOL),
                    edge(c, subject, label, _edge_kind(match.group("verb"))),
                ]
        parts = _NEXT_VERB.split(match.group("y"), maxsplit=1)
        rest = "and " + parts[1] if len(parts) > 1 else ""
    return found


def _subject_label(phrase: str) -> tuple[str, str] | None:
    """A named subject of "X uses Y": a proper name, or "my/our <thing>"."""
    text = phrase.strip()
    if re.match(r"^(?:my|our)\s+\w", text, re.IGNORECASE):
        label = p.make_label(text)
        category = PROJECT if PROJECT_WORDS.search(text) or label and p.is_name(label) else OTHER
        return (label, category) if label else None
    words = text.split()
    if p.is_name(text) and words[0].lower() not in _NOT_NAMES:
        label = p.make_label(text)
        return (label, PROJECT) if label else None
    return None


def _theme(c: Clause, kind: str) -> Found:
    context = _CONTEXT.search(c.text)
    ctx = p.make_label(cut(context.group("ctx"))) if context else None
    label = f"{ctx} Theme" if ctx and not ctx.endswith("Theme") else (ctx or "Theme")
    return slice_(c, label, PREFERENCE, kind)


def tools(c: Clause) -> Found:
    match = _X_USES.match(c.text)
    if match and not re.search(r"\b(?:i|we|you)\b", match.group("x"), re.IGNORECASE):
        subject = _subject_label(match.group("x"))
        named_tool = p.is_name(cut(match.group("y"))) or re.search(r"[A-Z\d]", match.group("y"))
        if subject and (named_tool or match.group("x").lower().startswith(("my ", "our "))):
            label, category = subject
            found: Found = [node(c, label, category)]
            return found + _uses_tail(c, label, c.text[match.start("verb") :])
    match = _I_USE.search(c.text)
    if not match or re.search(r"\bused\s+to\b", c.text, re.IGNORECASE):
        return []
    y = match.group("y")
    if _THEME.match(y):
        return _theme(c, SliceKind.PREFERENCE.value)
    purpose = _PURPOSE.search(y)
    labels = _tool_labels(y[: purpose.start()] if purpose else y)
    found = []
    for label in labels:
        found += slice_(c, label, TOOL, SliceKind.OTHER.value)
        target = cut(purpose.group("purpose")) if purpose else ""
        if target and p.is_name(target) and (name := p.make_label(target)):
            found += [node(c, name, PROJECT), edge(c, name, label)]
    return found
