"""Projects: "my next project is X", "Atlas is my invoicing app", "I'm building X on Y"."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _I,
    ORGANIZATION,
    PROJECT,
    PROJECT_WORDS,
    TOOL,
    Clause,
    Found,
    cut,
    edge,
    node,
    object_label,
    slice_,
)
from memory.extractors.rules.tools import (
    _uses_tail,
)
from memory.keys import canonical_key
from memory.vocab import SliceKind

_PROJECT_KINDS = (
    r"project|app|startup|product|business|side\s+project|website|site|tool|game|book|novel|"
    r"company|idea|newsletter|podcast|thesis"
)
_MY_PROJECT_IS = re.compile(
    r"^(?:one\s+of\s+)?(?:my|our)\s+(?:(?:future|next|new|side|current|main|pet|personal|big|"
    r"latest|first|dream|upcoming|\w+ing)\s+)*(?P<kind>" + _PROJECT_KINDS + r")s?\s+"
    r"(?:is|are|will\s+be|'s|was)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
_NAME_IS_MY_PROJECT = re.compile(
    r"^(?P<name>.+?)\s+is\s+(?:my|our)\s+(?:[\w\-]+\s+){0,3}?(?P<kind>" + _PROJECT_KINDS + r")\b"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
_WORKING_ON = re.compile(
    r"(?:"
    + _I
    + r"(?:building|developing|working\s+on|debugging|fixing|coding|designing|prototyping|"
    r"refactoring|rewriting|migrating|writing|making|creating)"
    # as chat leaves the speaker out, on something named or the speaker's own: "working on my
    # side project Tidewatch", "building Quillpad in the evenings"
    r"|^\W*(?:(?:been|currently|still|now)\s+)?(?:working\s+on|building|developing)"
    r"(?=\s+(?:(?:my|our)\b|(?-i:[A-Z]))))\s+(?P<obj>.+)$",
    re.IGNORECASE,
)
# A project named after the speaker's word for it, wherever it is said: "my side project
# Tidewatch is a flutter app", "our project Lumen".
_MY_PROJECT_NAMED = re.compile(
    r"\b(?:my|our)\s+(?:(?:side|pet|personal|new|current|main|latest|hobby|passion)\s+)*"
    r"project\s+(?-i:(?P<name>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)?))",
    re.IGNORECASE,
)
_BUILT_ON = re.compile(
    r"\s(?:on|with|in|using)\s+(?P<tool>[A-Z][\w.+#\-]*(?:\s+[A-Z][\w.+#\-]*){0,2})"
)


def _project_category(kind: str) -> str:
    return ORGANIZATION if kind.lower() in {"company", "business", "startup"} else PROJECT


# "she wants me to lead the warehouse forecasting project": a project the person leads or runs.
_LEADS = re.compile(
    r"\b(?:lead|leading|led|run|running|own|owning|manage|managing|coordinate|coordinating)\s+"
    r"(?:the\s+|a\s+|our\s+|this\s+|my\s+|their\s+)?(?P<obj>(?:[\w\-]+\s+){1,4}?(?:project|"
    r"initiative|programme|program|migration|rollout|redesign|rewrite|launch))\b",
    re.IGNORECASE,
)


def led_project(c: Clause) -> Found:
    """A named piece of work the person leads, runs or owns: a project with the clause."""
    match = _LEADS.search(c.text)
    label = p.make_label(match.group("obj")) if match else None
    return slice_(c, label, PROJECT, SliceKind.OTHER.value) if label else []


def projects(c: Clause) -> Found:
    match = _MY_PROJECT_IS.match(c.text)
    if match:
        label = p.make_label(cut(match.group("obj")))
        if label:
            return slice_(c, label, _project_category(match.group("kind")), SliceKind.OTHER.value)
    match = _NAME_IS_MY_PROJECT.match(c.text)
    if match and p.is_name(match.group("name")):
        label = p.make_label(match.group("name"))
        if label:
            found = slice_(c, label, _project_category(match.group("kind")), SliceKind.OTHER.value)
            return found + _uses_tail(c, label, match.group("rest"))
    match = _WORKING_ON.search(c.text)
    if match:
        obj = match.group("obj")
        verb_is_loose = re.search(r"\b(?:writing|making|creating)\s", c.text, re.I)
        # the kind of work is named in the object itself, not later in the clause ("making a
        # difference, but ... my work")
        if verb_is_loose and not (PROJECT_WORDS.search(cut(obj)) or p.is_name(cut(obj))):
            return []
        label = object_label(c, obj)
        if not label:
            return []
        found = slice_(c, label, PROJECT, SliceKind.PROGRESS.value)
        tool = _BUILT_ON.search(" " + obj)
        tool_label = p.make_label(tool.group("tool")) if tool else None
        if tool_label and canonical_key(tool_label) != canonical_key(label):
            found += [node(c, tool_label, TOOL), edge(c, label, tool_label)]
        return found
    match = _MY_PROJECT_NAMED.search(c.text)
    if match and (label := p.make_label(match.group("name"))):
        return slice_(c, label, PROJECT, SliceKind.OTHER.value)
    return led_project(c)
