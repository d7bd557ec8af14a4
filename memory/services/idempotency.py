"""Idempotency keys: a write retried with the same key returns its first result, written once.

:func:`idempotency_begin` reserves the key (a row with status 0, committed at once so that a
concurrent retry sees it) or returns the stored result of a finished write;
:func:`idempotency_finish` stores the result; :func:`idempotency_release` drops the reservation
of a write that failed, so that a retry runs it again. Keys are per owner and expire after
``UME_IDEMPOTENCY_HOURS``; cleanup deletes expired ones. See docs/architecture.md.

A reservation is a lease: its holder (one request) keeps it for ``UME_CLAIM_LEASE_SECONDS``,
as long as a save holds its transcript's claim. A retry while the lease is live is refused as
in progress (with the seconds left); a reservation whose lease ran out with no stored result
belongs to a request that died (killed, out of memory, the database gone before it could
release it), and the retry takes it over and runs the write. Only the current holder may
store a result or release the key.
"""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
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

    def __init__(self, code: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


@dataclass(frozen=True)
class Replay:
    """The stored result of the first write sent with the key."""

    status: int
    body: Any


def fingerprint(*parts: Any) -> str:
    raw = json.dumps(parts, cls=DjangoJSONEncoder, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _lease() -> timedelta:
    return timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS)


def _in_progress(lease_until: datetime, now: datetime) -> IdempotencyError:
    left = max(1, math.ceil((lease_until - now).total_seconds()))
    return IdempotencyError(
        "idempotency_in_progress",
        f"a request with this key is still running; retry in {left} s",
        retry_after=left,
    )


def _lease_end(row: IdempotencyKey) -> datetime:
    """When ``row``'s lease runs out (a row reserved before leases existed: from its start)."""
    return row.lease_until or row.created_at + _lease()


def idempotency_begin(
    *, owner: Person, key: str, scope: str, fingerprint: str
) -> Replay | IdempotencyKey:
    """The first result for ``key`` (a :class:`Replay`), or the reservation of a new write
    (a new key, or one whose holder died: its lease ran out with no result stored)."""
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
                    holder=uuid.uuid4().hex,
                    lease_until=now + _lease(),
                    created_at=now,
                    expires_at=now + timedelta(hours=settings.UME_IDEMPOTENCY_HOURS),
                )
        except IntegrityError:
            found = IdempotencyKey.objects.for_owner(owner).filter(key=key).first()
            if found is None:  # reserved and released meanwhile
                raise IdempotencyError(
                    "idempotency_in_progress",
                    "a request with this key is running; retry",
                    retry_after=1,
                ) from None
    if found.scope != scope[:200] or found.fingerprint != fingerprint:
        raise IdempotencyError(
            "idempotency_key_reused",
            "this idempotency key was used for a different request; use a new key",
        )
    if found.status == 0:
        if _lease_end(found) > now:
            raise _in_progress(_lease_end(found), now)
        return _take_over(found, now)
    return Replay(found.status, found.response)


def _take_over(found: IdempotencyKey, now: datetime) -> IdempotencyKey:
    """The reservation of a holder that died, now this request's; refused as in progress if
    another retry took it over first (a conditional UPDATE: one of them wins)."""
    holder = uuid.uuid4().hex
    lease_until = now + _lease()
    taken = IdempotencyKey.objects.filter(pk=found.pk, status=0, holder=found.holder).update(
        holder=holder, lease_until=lease_until
    )
    if not taken:
        raise _in_progress(lease_until, now)
    found.holder, found.lease_until = holder, lease_until
    return found


def idempotency_finish(*, row: IdempotencyKey, status: int, body: Any) -> Any:
    """Store the result of the write ``row`` reserved; returns it as it will be replayed.
    A holder whose key was taken over meanwhile stores nothing (the new holder will)."""
    stored = json.loads(json.dumps(body, cls=DjangoJSONEncoder))
    IdempotencyKey.objects.filter(pk=row.pk, status=0, holder=row.holder).update(
        status=status, response=stored, lease_until=None
    )
    return stored


def idempotency_release(*, row: IdempotencyKey) -> None:
    IdempotencyKey.objects.filter(pk=row.pk, status=0, holder=row.holder).delete()
