"""The ``Idempotency-Key`` header on the API's writes (``memory.services.idempotency``).

A write sent again with the same key returns the first answer (status and body, with
``Idempotent-Replayed: true``) and writes nothing; the same key on a different request is
``422 idempotency_key_reused``; a retry while the first is still running is ``409
idempotency_in_progress`` with ``Retry-After`` (the seconds left of the first's lease). A write
that failed keeps no result: its retry runs again, and so does a retry of one whose request
died, once its lease has run out. A write that was made answers as made even if its result
could not be stored (the database went away just after it).
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest, JsonResponse
from django.http.request import RawPostDataException
from ninja import Status

from api.errors import ApiError
from memory.services.idempotency import (
    IdempotencyError,
    Replay,
    fingerprint,
    idempotency_begin,
    idempotency_finish,
    idempotency_release,
)

log = logging.getLogger(__name__)

STATUS = {"invalid_input": 400, "idempotency_in_progress": 409, "idempotency_key_reused": 422}


def _content(request: HttpRequest) -> Any:
    try:
        return [request.GET.urlencode(), request.body.decode("utf-8", "replace")]
    except RawPostDataException:  # a multipart upload, already parsed into its parts
        files = sorted(
            (name, f.name, f.size, _sha256(f))
            for name, parts in request.FILES.lists()
            for f in parts
        )
        return [request.GET.urlencode(), sorted(request.POST.lists()), files]


def _sha256(upload: Any) -> str:
    """The SHA-256 of an uploaded file's content, read in chunks and rewound for the view."""
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap an API write view. The wrapper keeps the view's signature and module globals,
    which django-ninja reads to resolve its (postponed) annotations."""
    return _Idempotent(view)


def is_idempotent(view: Any) -> bool:
    """Whether ``view`` was wrapped by :func:`idempotent` (the OpenAPI schema documents its
    headers, :mod:`api.openapi`)."""
    return isinstance(view, _Idempotent)


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
            headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
            raise ApiError(STATUS[exc.code], exc.code, str(exc), headers=headers) from exc
        if isinstance(begun, Replay):
            response = JsonResponse(begun.body, status=begun.status, safe=False)
            response["Idempotent-Replayed"] = "true"
            return response
        try:
            result = view(request, *args, **kwargs)
        except BaseException:
            try:
                idempotency_release(row=begun)
            except DatabaseError:  # the key's lease runs out instead
                log.warning("could not release idempotency key %s", begun.pk)
            raise
        status, body = (
            (result.status_code, result.value) if isinstance(result, Status) else (200, result)
        )
        try:
            idempotency_finish(row=begun, status=status, body=body)
        except DatabaseError:
            # The write was made: answer so, rather than a failure the client would retry.
            # The key keeps no answer; a retry once its lease has run out runs again.
            log.warning("could not store the answer of idempotency key %s", begun.pk)
        return result
