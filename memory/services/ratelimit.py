"""Atomic counters for rate limits and throttles, in the database.

``rate_hit`` is one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` statement (PostgreSQL
and SQLite 3.35+ both have it): two processes counting the same key at the same instant get two
different numbers, so a limit of N lets exactly N through, whatever the number of workers or
hosts. A get-then-set cache counter (``DatabaseCache.incr``) lets parallel requests through.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import connection

from memory.models import RateCount


@dataclass(frozen=True)
class Hit:
    count: int
    retry_after: int  # seconds until the current window ends


def rate_hit(key: str, *, window: int, now: float | None = None) -> Hit:
    """Count one event for ``key`` in the current ``window``-second bucket."""
    now = time.time() if now is None else now
    bucket = int(now // window)
    expires = datetime.fromtimestamp((bucket + 2) * window, tz=UTC)
    table = connection.ops.quote_name(RateCount._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (key, bucket, count, expires_at) VALUES (%s, %s, 1, %s) "  # noqa: S608 - the table name is ours
            f"ON CONFLICT (key, bucket) DO UPDATE SET count = {table}.count + 1 RETURNING count",
            [key[:200], bucket, expires],
        )
        row = cursor.fetchone()
    count = int(row[0]) if row else 1
    if count == 1:
        # The first event of a window: clear out windows that have ended (of every key).
        RateCount.objects.filter(expires_at__lt=datetime.fromtimestamp(now, tz=UTC)).delete()
    return Hit(count=count, retry_after=max(1, int((bucket + 1) * window - now)))


def rate_peek(key: str, *, window: int, now: float | None = None) -> Hit:
    """The count so far in the current window, without counting."""
    now = time.time() if now is None else now
    bucket = int(now // window)
    count = (
        RateCount.objects.filter(key=key[:200], bucket=bucket)
        .values_list("count", flat=True)
        .first()
    )
    return Hit(count=count or 0, retry_after=max(1, int((bucket + 1) * window - now)))


def rate_reset(key: str) -> None:
    RateCount.objects.filter(key=key[:200]).delete()
