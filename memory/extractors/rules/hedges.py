"""Hedges: "I might try tennis", "thinking about learning Rust" -> a hedged candidate."""

from __future__ import annotations

import re

from memory.extractors import patterns as p
from memory.extractors.rules.base import (
    ORGANIZATION,
    OTHER,
    PLACE,
    PROJECT,
    SKILL,
    TOOL,
    Clause,
    Found,
    candidate,
    object_label,
)
from memory.extractors.rules.status import (
    _normalise_object,
    status_category,
)

_HEDGE_VERB = (
    r"(?P<verb>try(?:ing)?|start(?:ing)?|tak(?:e|ing)\s+up|learn(?:ing)?|pick(?:ing)?\s+up|"
    r"get(?:ting)?\s+into|join(?:ing)?|switch(?:ing)?\s+to|mov(?:e|ing)\s+to|quit(?:ting)?|"
    r"stop(?:ping)?|giv(?:e|ing)\s+up|build(?:ing)?|launch(?:ing)?|do(?:ing)?|buy(?:ing)?|"
    r"get(?:ting)?|go(?:ing)?\s+back\s+to|adopt(?:ing)?|us(?:e|ing))"
)
_HEDGES = (
    re.compile(
        r"\b(?:might|may|could|maybe|perhaps|probably)\s+(?:(?:i|we)(?:'ll|\s+will|\s+should)?\s+)?"
        + _HEDGE_VERB
        + r"\s+(?P<obj>.+)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:thinking\s+(?:about|of)|considering|toying\s+with\s+the\s+idea\s+of)\s+"
        + _HEDGE_VERB
        + r"?\s*(?P<obj>.+)",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:want|wanna|would\s+like|'d\s+like|hope|hoping|plan|planning|intend|"
        r"intending)\s+(?:to\s+)?" + _HEDGE_VERB + r"\s+(?P<obj>.+)",
        re.IGNORECASE,
    ),
)


def _hedge_category(verb: str, obj: str) -> str:
    verb = verb.lower()
    if verb.startswith("learn"):
        return SKILL
    if verb.startswith("mov"):
        return PLACE
    if verb.startswith("join"):
        return ORGANIZATION
    if verb.startswith(("build", "launch")):
        return PROJECT
    if verb.startswith(("switch", "us", "adopt", "buy", "get")) and not verb.startswith("get into"):
        return TOOL if p.is_name(obj) else OTHER
    return status_category("started", obj, obj)


def hedged(c: Clause) -> Found:
    """Only called for clauses with a hedge word; a hedge it cannot read gives nothing."""
    for pattern in _HEDGES:
        match = pattern.search(c.text)
        if match:
            verb = match.group("verb") or "try"
            raw = _normalise_object(match.group("obj"))
            label = object_label(c, raw)
            if label:
                return [candidate(c, label, _hedge_category(verb, raw))]
    return []
