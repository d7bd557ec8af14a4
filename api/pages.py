"""Paging through a list with django-ninja's ``@paginate``, keeping the API's envelope.

A list answers ``{"<items>": [...], "limit": L, "offset": O}`` (a history also names its
``node`` first), with ``?limit=`` (1 to 500, 100 by default) and ``?offset=`` (0 to 1,000,000).
There is no ``count``: ninja's ``LimitOffsetPagination`` would add one, and with it a
``COUNT(*)`` over the owner's rows on every page, which no client of this envelope reads. A
client pages until a page comes back shorter than ``limit``.

A list view returns a :class:`Listing`: how to read the rows of one page, and how that page
becomes JSON (the builders of ``memory.shapes``, which also serve the MCP tools). The
paginator reads exactly one page and shapes it, so a page costs what it did before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, get_type_hints

from django.http import HttpRequest
from ninja.pagination import PaginationBase, paginate
from pydantic import Field

from memory.shapes import Out

T = TypeVar("T")


@dataclass(frozen=True)
class Listing(Generic[T]):
    """The rows a list view pages through: ``rows(offset, limit)`` reads one page of them,
    ``shape(page)`` turns that page into JSON items."""

    rows: Callable[[int, int], Iterable[T]]
    shape: Callable[[list[T]], list[dict[str, Any]]]

    @classmethod
    def of(cls, rows: Any, each: Callable[[T], dict[str, Any]]) -> Listing[T]:
        """A queryset or list, sliced per page, each row shaped by ``each``."""
        return cls(
            rows=lambda offset, limit: rows[offset : offset + limit],
            shape=lambda page: [each(row) for row in page],
        )


class PageIn(PaginationBase.Input):
    limit: int = Field(default=100, ge=1, le=500, description="At most this many items.")
    offset: int = Field(default=0, ge=0, le=1_000_000, description="Skip this many items.")


def paginated(envelope: type[Envelope]) -> Callable[[Callable[..., Any]], Any]:
    """ninja's ``@paginate(envelope)`` for a view written with postponed annotations.

    ninja resolves a view's string annotations in the globals of the function it is given,
    and ``@paginate`` gives it its own wrapper, whose globals are ninja's; so the view's
    annotations are resolved here, in the view's own module, first."""

    def decorate(view: Callable[..., Any]) -> Any:
        view.__annotations__ = get_type_hints(view, include_extras=True)
        return paginate(envelope)(view)

    return decorate


class Envelope(PaginationBase):
    """``{items_attribute: [...], "limit", "offset"}``; subclasses name the items key and
    declare ``Output`` with the items key first, as the answers have always had it."""

    Input = PageIn

    def paginate_queryset(
        self, queryset: Any, pagination: Any, request: HttpRequest, **params: Any
    ) -> dict[str, Any]:
        assert isinstance(queryset, Listing), "a paginated view returns a Listing"
        page = list(queryset.rows(pagination.offset, pagination.limit))
        return {
            **self.head(params),
            self.items_attribute: queryset.shape(page),
            "limit": pagination.limit,
            "offset": pagination.offset,
        }

    def head(self, params: dict[str, Any]) -> dict[str, Any]:
        """Keys before the items, from the view's own parameters."""
        return {}


class NodesPage(Envelope):
    items_attribute = "nodes"

    class Output(Out):
        nodes: list[Any]
        limit: int
        offset: int


class CandidatesPage(Envelope):
    items_attribute = "candidates"

    class Output(Out):
        candidates: list[Any]
        limit: int
        offset: int


class ReceiptsPage(Envelope):
    items_attribute = "receipts"

    class Output(Out):
        receipts: list[Any]
        limit: int
        offset: int


class SuppressionsPage(Envelope):
    items_attribute = "suppressions"

    class Output(Out):
        suppressions: list[Any]
        limit: int
        offset: int


class RevisionsPage(Envelope):
    """A node's history: ``{"node": id, "revisions": [...], "limit", "offset"}``."""

    items_attribute = "revisions"

    class Output(Out):
        node: int
        revisions: list[Any]
        limit: int
        offset: int

    def head(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"node": params["node_id"]}
