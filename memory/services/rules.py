"""Validating and saving a person's memory rules (the API, and any other door that edits them).

Limits: at most 32 terms of at most 80 characters per list, instructions of at most 2000
characters, ``capture_default`` ``review`` or ``auto``, ``retention_days`` at least 1 or null, ``auto_collect`` and ``episodes`` true or false.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from memory.models import MemoryRule
from memory.owned import Person
from memory.vocab import CaptureDefault

MAX_TERMS = 32
MAX_TERM_CHARS = 80
MAX_INSTRUCTIONS = 2000
TERM_LISTS = ("includes", "excludes", "custom_categories")


class RulesError(ValueError):
    """The rules are not valid; the message names the field."""


def clean_terms(name: str, values: Any) -> list[str]:
    if not isinstance(values, list):
        raise RulesError(f"{name}: expected a list of terms")
    terms: list[str] = []
    seen: set[str] = set()
    for value in values:
        if not isinstance(value, str):
            raise RulesError(f"{name}: every term must be text")
        term = " ".join(value.split())
        if "\x00" in term:
            raise RulesError(f"{name}: terms cannot contain NUL characters")
        if len(term) > MAX_TERM_CHARS:
            raise RulesError(f"{name}: a term is at most {MAX_TERM_CHARS} characters")
        if term and term.casefold() not in seen:
            seen.add(term.casefold())
            terms.append(term)
    if len(terms) > MAX_TERMS:
        raise RulesError(f"{name}: at most {MAX_TERMS} terms")
    return terms


def memory_rule_update(*, owner: Person, changes: dict[str, Any]) -> MemoryRule:
    """Apply ``changes`` (only the fields given) to the owner's rules, creating them if needed."""
    cleaned: dict[str, Any] = {}
    for name in TERM_LISTS:
        if name in changes:
            cleaned[name] = clean_terms(name, changes[name])
    if "custom_instructions" in changes:
        text = changes["custom_instructions"] or ""
        if not isinstance(text, str) or "\x00" in text:
            raise RulesError("custom_instructions: expected text without NUL characters")
        if len(text) > MAX_INSTRUCTIONS:
            raise RulesError(f"custom_instructions: at most {MAX_INSTRUCTIONS} characters")
        cleaned["custom_instructions"] = text.strip()
    if "capture_default" in changes:
        if changes["capture_default"] not in CaptureDefault.values:
            raise RulesError("capture_default: choose review or auto")
        cleaned["capture_default"] = changes["capture_default"]
    for flag in ("auto_collect", "episodes"):
        if flag in changes:
            if not isinstance(changes[flag], bool):
                raise RulesError(f"{flag}: expected true or false")
            cleaned[flag] = changes[flag]
    if "retention_days" in changes:
        days = changes["retention_days"]
        if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
            raise RulesError("retention_days: a whole number of days, at least 1, or null")
        cleaned["retention_days"] = days
    with transaction.atomic():
        rule, _created = MemoryRule.objects.select_for_update().get_or_create(owner=owner)
        for name, value in cleaned.items():
            setattr(rule, name, value)
        rule.updated_at = timezone.now()
        rule.save(update_fields=[*cleaned, "updated_at"])
    return rule
