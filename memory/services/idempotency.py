"""Idempotency keys: a write retried with the same key returns its first result, written once.

:func:`idempotency_begin` reserves the key (a row with status 0, committed at once so that a
concurrent retry sees it) or returns the stored result of a finished write;
:func:`idempotency_finish` stores the result; :func:`idempotency_release` drops the reservation
of a write that failed, so that a retry runs it again. Keys are per owner and expire after
``UME_IDEMPOTENCY_HOURS``; cleanup deletes expired ones. See docs/architecture.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.utils import timezone

from memory.models import IdempotencyKey
from memory.owned import Person

MAX_KEY = 255


class IdempotencyError(ValueError):
    """The key cannot be used for this request; ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Replay:
    """The stored result of the first write sent with the key."""

    status: int
    body: Any


def fingerprint(*parts: Any) -> str:
    raw = json.dumps(parts, cls=DjangoJSONEncoder, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def idempotency_begin(
    *, owner: Person, key: str, scope: str, fingerprint: str
) -> Replay | IdempotencyKey:
    """The first result for ``key`` (a :class:`Replay`), or the reservation of a new write."""
    key = key.strip()
    if not key or len(key) > MAX_KEY or not key.isprintable():
        raise IdempotencyError(
            "invalid_input", f"an idempotency key is 1 to {MAX_KEY} printable characters"
        )
    now = timezone.now()
    found = IdempotencyKey.objects.for_owner(owner).filter(key=key).first()
    if found is not None and found.expires_at <= now:
        found.delete()
        found = None
    if found is None:
        try:
            with transaction.atomic():
                return IdempotencyKey.objects.create(
                    owner=owner,
                    key=key,
                    scope=scope[:200],
                    fingerprint=fingerprint,
                    created_at=now,
                    expires_at=now + timedelta(hours=settings.UME_IDEMPOTENCY_HOURS),
                )
        except IntegrityError:
            found = IdempotencyKey.objects.for_owner(owner).filter(key=key).first()
            if found is None:  # reserved and released meanwhile
                raise IdempotencyError(
                    "idempotency_in_progress", "a request with this key is running; retry"
                ) from None
    if found.scope != scope[:200] or found.fingerprint != fingerprint:
        raise IdempotencyError(
            "idempotency_key_reused",
            "this idempotency key was used for a different request; use a new key",
        )
    if found.status == 0:
        raise IdempotencyError(
            "idempotency_in_progress", "a request with this key is still running; retry later"
        )
    return Replay(found.status, found.response)


def idempotency_finish(*, row: IdempotencyKey, status: int, body: Any) -> Any:
    """Store the result of the write ``row`` reserved; returns it as it will be replayed."""
    stored = json.loads(json.dumps(body, cls=DjangoJSONEncoder))
    IdempotencyKey.objects.filter(pk=row.pk).update(status=status, response=stored)
    return stored


def idempotency_release(*, row: IdempotencyKey) -> None:
    IdempotencyKey.objects.filter(pk=row.pk, status=0).delete()
