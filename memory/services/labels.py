"""The one check every path that gives a node a label or an alias makes first: a label that
an active suppression covers is refused, and nothing is written.

A suppression covers a label when they share the canonical key, or the core key
(:func:`memory.keys.core_key`: the name without "Project", a title, a relation, a plural), so
a memory deleted with make-it-stick as "Project Moonbeam" cannot come back as "Moonbeam"
through a rename, an alias, a promotion, a merge's alias, a rollback or an undo, as the gate
(:mod:`memory.gate`) refuses it from a save or an import. Each service raises its own error
class, which is also a :class:`LabelSuppressed`, so its callers show the message as they show
its other refusals and the API answers ``409 suppressed`` with the suppression's id.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils import timezone

from memory.keys import canonical_key
from memory.models import Suppression
from memory.owned import OwnerRef
from memory.selectors import suppression_blocking


class LabelSuppressed(ValueError):
    """A label or alias refused because ``suppression`` covers it (a mixin of each service's
    error class: see :func:`suppressed_label`)."""

    def __init__(self, text: str, suppression: Suppression) -> None:
        super().__init__(suppressed_message(text, suppression))
        self.text = text
        self.suppression = suppression


def suppressed_message(text: str, suppression: Suppression) -> str:
    """The refusal as the person reads it, naming the suppression."""
    if canonical_key(text) == suppression.canonical_key:
        return (
            f"“{text}” is suppressed (suppression {suppression.pk}); lift its suppression "
            "first to use it as a name"
        )
    return (
        f"“{text}” names what was suppressed as “{suppression.label}” (suppression "
        f"{suppression.pk}); lift that suppression first to use it as a name"
    )


def suppressed_label(owner: OwnerRef, texts: Iterable[str]) -> Suppression | None:
    """The active suppression that refuses any of ``texts`` as a label or alias right now."""
    return suppression_blocking(owner, texts, now=timezone.now())
