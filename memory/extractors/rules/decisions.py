"""Decisions: "let's go with X", "I switched to X", "we chose X"."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    _THEME,
    OTHER,
    TOOL,
    Clause,
    Found,
    cut,
    object_label,
    slice_,
)
from memory.extractors.rules.tools import (
    _theme,
)
from memory.vocab import SliceKind

_DECISION = re.compile(
    r"^(?:(?:i|we)(?:'ll|'ve|'re|'m|\s+will|\s+have|\s+are|\s+am)?(?:\s+(?:just|finally|now|"
    r"also))*\s+(?:decided\s+(?:to\s+(?:go\s+with|use|switch\s+to|stick\s+with)|on)|"
    r"going\s+with|went\s+with|go\s+with|chose|picked|settled\s+on|switched\s+to|"
    r"switching\s+to|opted\s+for|sticking\s+with|moved\s+over\s+to)|"
    r"let'?s\s+(?:go\s+with|use|stick\s+with|pick|do))\s+(?P<y>.+)$",
    re.IGNORECASE,
)


def decision(c: Clause) -> Found:
    match = _DECISION.match(c.text)
    if not match:
        return []
    if _THEME.match(match.group("y")):
        return _theme(c, SliceKind.PREFERENCE.value)
    label = object_label(c, match.group("y"))
    if not label:
        return []
    category = TOOL if p.is_name(cut(match.group("y"))) else OTHER
    return slice_(c, label, category, SliceKind.DECISION.value)
