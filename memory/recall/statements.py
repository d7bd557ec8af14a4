"""Recall's hot reads as plain SQL statements (selectors' helper): every statement starts
with the owner's condition, so none can read another person's rows.

Recall answers a question in about a dozen small reads. Through the ORM, building each read
(filters, joins, the compiler) cost more than running it: the read of a question's document
frequencies took 0.31 ms through the ORM and 0.03 ms as a statement on SQLite, 0.56 and
0.19 ms on PostgreSQL (docs/benchmarks.md, "Recall's reads as statements"). The reads here
are fixed shapes, so they are written once, with the table and column names taken from the
models, and run as they are; a column whose values the database adapts (a date) goes through
the same converters the ORM applies (:func:`converted`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db import connection, connections, models
from django.utils.dateparse import parse_datetime

from memory.owned import OwnerRef


def marks(count: int) -> str:
    """``count`` parameter placeholders, comma-separated (at least one value is needed)."""
    if count < 1:
        raise ValueError("an IN list needs at least one value")
    return ", ".join(["%s"] * count)


def column(model: type[models.Model], name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field) or not field.column:
        raise ValueError(f"{model._meta.label}.{name} is not a column")
    return connection.ops.quote_name(field.column)


def table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@lru_cache(maxsize=64)
def _select(vendor: str, model: type[models.Model], columns: tuple[str, ...]) -> str:
    names = ", ".join(column(model, name) for name in columns)
    return f"SELECT {names} FROM {table(model)} WHERE {column(model, 'owner')} = %s"


def owner_id(owner: OwnerRef) -> int:
    return int(owner if isinstance(owner, int) else owner.pk)


def owned_select(
    model: type[models.Model],
    columns: Sequence[str],
    owner: OwnerRef,
    where: str = "",
    params: Sequence[Any] = (),
    order_by: str = "",
) -> tuple[str, list[Any]]:
    """``SELECT columns FROM model WHERE owner = owner [AND (where)] [ORDER BY order_by]``
    and its parameters; ``where`` uses ``%s`` placeholders for ``params``."""
    sql = _select(connection.vendor, model, tuple(columns))
    if where:
        sql = f"{sql} AND ({where})"
    if order_by:
        sql = f"{sql} ORDER BY {order_by}"
    return sql, [owner_id(owner), *params]


def fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


@lru_cache(maxsize=64)
def _converters(
    vendor: str, model: type[models.Model], columns: tuple[str, ...]
) -> tuple[tuple[models.Expression, tuple[Any, ...]], ...]:
    out = []
    for name in columns:
        field = model._meta.get_field(name)
        if not isinstance(field, models.Field):
            raise ValueError(f"{model._meta.label}.{name} is not a column")
        expression = field.get_col(model._meta.db_table)
        database = connection.ops.get_db_converters(expression)
        if vendor == "sqlite":
            database = [
                _sqlite_datetime if fn.__name__ == "convert_datetimefield_value" else fn
                for fn in database
            ]
        out.append((expression, (*database, *field.get_db_converters(connection))))
    return tuple(out)


def converted(
    model: type[models.Model], columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> list[tuple[Any, ...]]:
    """``rows`` of ``model``'s ``columns`` as the ORM would return them: each value through
    the database's and the field's converters (a date read from SQLite becomes an aware
    datetime, as it does through a queryset). Only the columns that have converters are
    touched; SQLite's dates take :func:`_sqlite_datetime`, the same conversion without its
    per-value indirections (a question reads a hundred messages' dates)."""
    plan = _converters(connection.vendor, model, tuple(columns))
    active = [(i, expression, fns) for i, (expression, fns) in enumerate(plan) if fns]
    if not active:
        return [tuple(row) for row in rows]
    # the connection behind the proxy, and its time zone, once for all the rows
    conn = connections[connection.alias]
    zone = conn.timezone if settings.USE_TZ else None
    out = []
    for row in rows:
        values = list(row)
        for i, expression, fns in active:
            value = values[i]
            for fn in fns:
                if fn is _sqlite_datetime:
                    value = _sqlite_datetime(value, zone)
                else:
                    value = fn(value, expression, conn)
            values[i] = value
        out.append(tuple(values))
    return out


def _sqlite_datetime(value: Any, zone: Any) -> Any:
    """SQLite's ``convert_datetimefield_value``: the stored text as a datetime, aware in the
    connection's time zone ``zone`` when time zones are on (``fromisoformat`` reads every
    form Django writes)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            value = parse_datetime(value)
    if value is not None and value.tzinfo is None and zone is not None:
        value = value.replace(tzinfo=zone)
    return value


def owned_rows(
    model: type[models.Model],
    columns: Sequence[str],
    owner: OwnerRef,
    where: str = "",
    params: Sequence[Any] = (),
    order_by: str = "",
) -> list[tuple[Any, ...]]:
    """The rows of :func:`owned_select`, as tuples in ``columns`` order."""
    return fetch(*owned_select(model, columns, owner, where, params, order_by))
