"""The ``Idempotency-Key`` header on the API's writes (``memory.services.idempotency``).

A write sent again with the same key returns the first answer (status and body, with
``Idempotent-Replayed: true``) and writes nothing; the same key on a different request is
``422 idempotency_key_reused``; a retry while the first is still running is ``409
idempotency_in_progress``. A write that failed keeps no result: its retry runs again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, JsonResponse
from django.http.request import RawPostDataException
from ninja import Status

from memory.api.errors import ApiError
from memory.services.idempotency import (
    IdempotencyError,
    Replay,
    fingerprint,
    idempotency_begin,
    idempotency_finish,
    idempotency_release,
)

STATUS = {"invalid_input": 400, "idempotency_in_progress": 409, "idempotency_key_reused": 422}


def _content(request: HttpRequest) -> Any:
    try:
        return [request.GET.urlencode(), request.body.decode("utf-8", "replace")]
    except RawPostDataException:  # a multipart upload, already parsed into its parts
        files = sorted(
            (name, f.name, f.size) for name, parts in request.FILES.lists() for f in parts
        )
        return [request.GET.urlencode(), sorted(request.POST.lists()), files]


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap an API write view. The wrapper keeps the view's signature and module globals,
    which django-ninja reads to resolve its (postponed) annotations."""
    return _Idempotent(view)


class _Idempotent:
    def __init__(self, view: Callable[..., Any]) -> None:
        functools.update_wrapper(self, view)
        self.view = view
        self.__globals__ = getattr(view, "__globals__", {})

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        view = self.view
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(request, *args, **kwargs)
        owner = request.auth.owner  # type: ignore[attr-defined]
        try:
            begun = idempotency_begin(
                owner=owner,
                key=key,
                scope=f"api {request.method} {request.path}",
                fingerprint=fingerprint(request.method, request.path, _content(request)),
            )
        except IdempotencyError as exc:
            raise ApiError(STATUS[exc.code], exc.code, str(exc)) from exc
        if isinstance(begun, Replay):
            response = JsonResponse(begun.body, status=begun.status, safe=False)
            response["Idempotent-Replayed"] = "true"
            return response
        try:
            result = view(request, *args, **kwargs)
        except BaseException:
            idempotency_release(row=begun)
            raise
        if isinstance(result, Status):
            idempotency_finish(row=begun, status=result.status_code, body=result.value)
        else:
            idempotency_finish(row=begun, status=200, body=result)
        return result
