"""Owner-scoped querysets: every person's rows are read and written through ``for_owner``.

Every model with an ``owner`` uses :class:`OwnedQuerySet` (``Model.objects.for_owner(user)``),
so that scoping a query to its person is one named step, not a ``filter(owner=...)`` written
by hand in each service, selector and view (docs/architecture.md, "Layers"). ``for_owner``
is exactly ``filter(owner=...)``: the same SQL, the same query plans."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self, TypeAlias, TypeVar

from django.db import models

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    #: The person whose memory it is (``AUTH_USER_MODEL``, Django's own user).
    Person: TypeAlias = User
    #: A person, or a person's id where only the id is at hand.
    OwnerRef: TypeAlias = User | int
else:
    Person = object
    OwnerRef = object

_M = TypeVar("_M", bound=models.Model)


class OwnedQuerySet(models.QuerySet[_M]):
    """A queryset of rows that belong to one person each."""

    def for_owner(self, owner: OwnerRef) -> Self:
        """The rows of ``owner`` (a user or a user's id)."""
        return self.filter(owner=owner)


#: ``Model.objects`` of an owned model: ``for_owner`` and the rest of the queryset.
OwnedManager = models.Manager.from_queryset(OwnedQuerySet)


def owned_rows(model: type[models.Model], owner: OwnerRef) -> OwnedQuerySet[Any]:
    """``model``'s rows of ``owner``, for code that picks the model at run time (a detail's
    kind, a revision's object). Refuses a model without an owner."""
    rows = model._default_manager.all()
    if not isinstance(rows, OwnedQuerySet):
        raise TypeError(f"{model._meta.label} rows have no owner")
    return rows.for_owner(owner)
