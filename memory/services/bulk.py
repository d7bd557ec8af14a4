"""Plain multi-row inserts for the write path's largest batches (episodes, evidence, recall's
postings and documents): one prepared statement run over every row, no model instance per
row. An ingest of a long conversation writes tens of thousands of these rows, and building
and compiling a model instance for each cost more than the insert itself (see
docs/benchmarks.md). Only for rows nobody needs the new ids of at once; the caller owns the
transaction. Values are the columns' Python values, prepared by their fields where the
database needs it (dates, JSON); no ``save()``, no signals, no defaults filled in."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, models

CHUNK = 2000  # rows per executemany call, so a huge batch is not held twice in memory

# Column types whose Python values the database adapters take as they are.
_PLAIN = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "BigIntegerField",
        "BooleanField",
        "CharField",
        "FloatField",
        "ForeignKey",
        "IntegerField",
        "PositiveIntegerField",
        "SmallIntegerField",
        "TextField",
    }
)


def insert_rows(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """Insert ``rows`` (one value per name in ``fields``, in that order) into ``model``'s
    table; returns how many."""
    meta = model._meta
    columns: list[models.Field[Any, Any]] = []
    for name in fields:
        field = meta.get_field(name)
        assert isinstance(field, models.Field), f"{name} is not a column of {meta.label}"
        columns.append(field)
    prepared = [
        (i, field) for i, field in enumerate(columns) if field.get_internal_type() not in _PLAIN
    ]
    names = ", ".join(connection.ops.quote_name(str(f.column)) for f in columns)
    marks = ", ".join(["%s"] * len(columns))
    sql = f"INSERT INTO {connection.ops.quote_name(meta.db_table)} ({names}) VALUES ({marks})"
    count = 0
    batch: list[Sequence[Any]] = []
    # Rows of one batch mostly share their dates (the save's time): each distinct value is
    # prepared once.
    memo: dict[tuple[int, Any], Any] = {}

    def prepare(i: int, field: models.Field[Any, Any], value: Any) -> Any:
        try:
            return memo[(i, value)]
        except KeyError:
            memo[(i, value)] = prepared_value = field.get_db_prep_save(value, connection)
            return prepared_value
        except TypeError:  # unhashable (JSON)
            return field.get_db_prep_save(value, connection)

    with connection.cursor() as cursor:
        for row in rows:
            if prepared:
                values = list(row)
                for i, field in prepared:
                    values[i] = prepare(i, field, values[i])
                row = values
            batch.append(row)
            if len(batch) >= CHUNK:
                cursor.executemany(sql, batch)
                count += len(batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count
