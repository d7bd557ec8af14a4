"""Who a request's changes are by, for their history (``memory.services.history``)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from memory.services.history import in_request


class HistoryActorMiddleware:
    """Changes made while handling a request are recorded as its token's or its person's."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with in_request(request):
            return self.get_response(request)
