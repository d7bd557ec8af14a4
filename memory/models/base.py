"""What every row of a person's memory shares: its owner, and the manager that scopes reads.

``Owned`` rows belong to one person. Their default manager is ``OwnedManager``, so a query
that forgets ``.owned_by(user)`` is easy to spot, and the structure tests allow owner filters
only in the selectors. ``Recorded`` rows also say when ume stored them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from memory.owned import OwnedManager

Owner = settings.AUTH_USER_MODEL


def owner_key(related_name: str = "+", *, db_index: bool = True) -> models.ForeignKey[Any, Any]:
    """The ``owner`` column: deleting the person deletes the row."""
    return models.ForeignKey(
        Owner, on_delete=models.CASCADE, related_name=related_name, db_index=db_index
    )


class Owned(models.Model):
    """A row that belongs to one person."""

    owner = owner_key()

    objects = OwnedManager()

    class Meta:
        abstract = True


class Recorded(Owned):
    """An owned row that says when ume stored it."""

    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True


class Revised(models.Model):
    """A row whose every change is a numbered revision (:mod:`memory.services.history`)."""

    revision = models.PositiveIntegerField(
        default=1,
        editable=False,
        help_text="The number of its latest revision (memory.services.history).",
    )

    class Meta:
        abstract = True


class Receipted(models.Model):
    """A row that names the receipt of the write that created it."""

    created_receipt = models.ForeignKey(
        "memory.Receipt", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        abstract = True
