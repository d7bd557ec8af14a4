"""The one check every path that gives a node a label or an alias makes first: a rename, an
alias, a promotion, a merge's alias, a rollback, an undo. Nothing is written when it refuses.

A label is refused (:func:`label_refusal`) when:

- **a suppression names it**: the same canonical, core or fold key as the suppression or one of
  its aliases (:func:`memory.tombstones.same_name`), so a memory deleted with make-it-stick as
  "Project Moonbeam" cannot come back as "Moonbeam";
- **the memory rules exclude it**: a term of the person's ``excludes`` is in it, as the gate
  excludes it from every save;
- **it looks like something the person asked to forget** (:func:`memory.tombstones.resemblance`:
  a shared distinctive word, a nickname of a forgotten person, close in meaning). A person's
  promotion of such a name asks them to lift the suppression or keep it and make this name an
  exception (:func:`memory.services.review.candidate_promote`); every other path refuses it
  until they do, as the gate holds it from a save or an import.

Each service raises its own error class, which is also a :class:`LabelSuppressed`, so its
callers show the message as they show its other refusals and the API answers ``409
suppressed`` (``resembles_forgotten`` for a name that only looks like one) with the
suppression's id.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memory.keys import canonical_key
from memory.models import Suppression
from memory.owned import OwnerRef
from memory.policy import rules_rejection
from memory.selectors import rule_excludes, suppressions_reached, tombstones_of
from memory.tombstones import resemblance

RESEMBLES = "looks like something you asked to forget"


@dataclass(frozen=True)
class Refusal:
    """Why ``text`` may not be a label now: ``suppression`` names it (``exact``) or it looks
    like what ``suppression`` forgets (``why``); or the memory rules exclude it
    (``suppression`` None, ``rule`` the term)."""

    text: str
    suppression: Suppression | None
    exact: bool = True
    why: str = ""
    rule: str = ""


E = TypeVar("E", bound="LabelSuppressed")


class LabelSuppressed(ValueError):
    """A label or alias refused (a mixin of each service's error class: see
    :func:`suppressed_label`). ``suppression`` is None when the memory rules exclude it;
    ``exact`` is False when the name only looks like what the suppression forgets."""

    def __init__(
        self,
        text: str,
        suppression: Suppression | None,
        *,
        exact: bool = True,
        why: str = "",
        rule: str = "",
    ) -> None:
        refusal = Refusal(text, suppression, exact, why, rule)
        super().__init__(refusal_message(refusal))
        self.text = text
        self.suppression = suppression
        self.exact = exact
        self.why = why
        self.rule = rule

    @classmethod
    def of(cls: type[E], refusal: Refusal) -> E:
        return cls(
            refusal.text,
            refusal.suppression,
            exact=refusal.exact,
            why=refusal.why,
            rule=refusal.rule,
        )


def suppressed_message(text: str, suppression: Suppression) -> str:
    """The refusal of a name a suppression covers, as the person reads it."""
    if canonical_key(text) == suppression.canonical_key:
        return (
            f"“{text}” is suppressed (suppression {suppression.pk}); lift its suppression "
            "first to use it as a name"
        )
    return (
        f"“{text}” names what was suppressed as “{suppression.label}” (suppression "
        f"{suppression.pk}); lift that suppression first to use it as a name"
    )


def refusal_message(refusal: Refusal) -> str:
    """Any refusal as the person reads it, naming the suppression or the rule."""
    if refusal.suppression is None:
        return (
            f"“{refusal.text}” is excluded by your memory rules (“{refusal.rule}”); change the "
            "rules first to use it as a name"
        )
    if refusal.exact:
        return suppressed_message(refusal.text, refusal.suppression)
    s = refusal.suppression
    return (
        f"“{refusal.text}” {RESEMBLES}: “{s.label}” (suppression {s.pk}; {refusal.why}). "
        "Lift that suppression, or keep it and make this name an exception by promoting it "
        "from the review queue"
    )


def label_refusal(
    owner: OwnerRef,
    texts: Iterable[str],
    *,
    now: datetime | None = None,
    floor: float | None = None,
    category: str = "",
) -> Refusal | None:
    """The first reason one of ``texts`` may not be a label or an alias right now (see the
    module docstring), or None. Two queries: the suppressions in force it can meet, then the
    owner's rules. ``category`` is what the texts name, when known (a person's name that is
    only a word of a forgotten place's is someone else: :func:`memory.tombstones.resemblance`)."""
    texts = [t for t in texts if canonical_key(t)]
    if not texts:
        return None
    now = now or timezone.now()
    floor = settings.UME_FORGET_MEANING_FLOOR if floor is None else floor
    rows = suppressions_reached(owner, map(canonical_key, texts), now=now)
    by_id = {s.pk: s for s in rows}
    tombstones = tombstones_of(rows)
    found = [(t, resemblance(t, tombstones, floor=floor, category=category)) for t in texts]
    for text, like in found:
        if like is not None and like.exact:
            return Refusal(text, by_id[like.tombstone.id])
    excludes = rule_excludes(owner)
    for text in texts:
        if excludes and rules_rejection([text], includes=(), excludes=excludes, label=text):
            term = next(
                t
                for t in excludes
                if rules_rejection([text], includes=(), excludes=[t], label=text)
            )
            return Refusal(text, None, rule=term)
    for text, like in found:
        if like is not None:
            return Refusal(text, by_id[like.tombstone.id], exact=False, why=like.why)
    return None


def suppressed_label(owner: OwnerRef, texts: Iterable[str]) -> Refusal | None:
    """Why any of ``texts`` is refused as a label or alias right now, if it is."""
    return label_refusal(owner, texts)


def label_admit(
    owner: OwnerRef, text: str, error: type[E], *, keep_suppression: bool = False
) -> None:
    """Raise ``error`` (a :class:`LabelSuppressed`) if ``text`` is refused as a label or alias.
    With ``keep_suppression`` -- the person, told that it looks like something they asked to
    forget, says it is something else -- such a name is let in and recorded as an explicit
    exception of that suppression (:func:`suppression_except`); a name a suppression covers,
    or the rules exclude, never is."""
    hit = label_refusal(owner, [text])
    if hit is None:
        return
    if keep_suppression and not hit.exact and hit.suppression is not None:
        suppression_except(hit.suppression, text)
        return
    raise error.of(hit)


def suppression_except(suppression: Suppression, text: str) -> None:
    """Keep ``suppression`` and make the name ``text`` its exception: it no longer looks like
    what the suppression forgets (the suppression still binds its own names)."""
    key = canonical_key(text)
    with transaction.atomic():
        locked = Suppression.objects.select_for_update().get(pk=suppression.pk)
        if key and key not in locked.exceptions:
            locked.exceptions = [*locked.exceptions, key]
            locked.save(update_fields=["exceptions"])
