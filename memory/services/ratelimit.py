"""Atomic counters for rate limits and throttles, in the database.

``rate_hit`` is one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` statement (PostgreSQL
and SQLite 3.35+ both have it): two processes counting the same key at the same instant get two
different numbers, so a limit of N lets exactly N through, whatever the number of workers or
hosts. (A get-then-set cache counter, such as ``DatabaseCache.incr``, lets parallel requests
through.) Each key has one row; the first hit of a new window resets its count to 1.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.db import connection, transaction

from memory.models import RateCount


@dataclass(frozen=True)
class Hit:
    count: int
    retry_after: int  # seconds until the current window ends


def _bucket(window: int, now: float | None) -> tuple[int, int]:
    now = time.time() if now is None else now
    bucket = int(now // window)
    return bucket, max(1, int((bucket + 1) * window - now))


def rate_hit(key: str, *, window: int, now: float | None = None) -> Hit:
    """Count one event for ``key`` in the current ``window``-second window."""
    bucket, retry_after = _bucket(window, now)
    table = connection.ops.quote_name(RateCount._meta.db_table)
    sql = (
        f"INSERT INTO {table} (key, bucket, count) VALUES (%s, %s, 1) "
        "ON CONFLICT (key) DO UPDATE SET "
        f"count = CASE WHEN {table}.bucket = excluded.bucket THEN {table}.count + 1 ELSE 1 END, "
        "bucket = excluded.bucket RETURNING count"
    )
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        # Every request counts one of these: without waiting for its WAL to reach the disk it
        # costs about a fifth (docs/benchmarks.md, "Figures behind the code's choices"). A crash can forget the last
        # few counts; it can never miscount concurrent ones. Only in a transaction of its own,
        # so no other write ever shares the relaxed commit.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
            cursor.execute(sql, [key[:200], bucket])
            row = cursor.fetchone()
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, [key[:200], bucket])
            row = cursor.fetchone()
    return Hit(count=int(row[0]) if row else 1, retry_after=retry_after)


def rate_peek(key: str, *, window: int, now: float | None = None) -> Hit:
    """The count so far in the current window, without counting."""
    bucket, retry_after = _bucket(window, now)
    count = (
        RateCount.objects.filter(key=key[:200], bucket=bucket)
        .values_list("count", flat=True)
        .first()
    )
    return Hit(count=count or 0, retry_after=retry_after)


def rate_reset(key: str) -> None:
    RateCount.objects.filter(key=key[:200]).delete()
