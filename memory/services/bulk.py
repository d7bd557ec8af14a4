"""Plain multi-row inserts for the write path's largest batches (episodes, evidence, recall's
postings and documents): one prepared statement run over every row, no model instance per
row. An ingest of a long conversation writes tens of thousands of these rows, and building
and compiling a model instance for each cost more than the insert itself (see
docs/benchmarks.md). Only for rows nobody needs the new ids of at once; the caller owns the
transaction. Values are the columns' Python values, prepared by their fields where the
database needs it (dates, JSON); no ``save()``, no signals, no defaults filled in."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.db import connection, models, transaction
from django.db.models import F, Func, QuerySet

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


def delete_in_chunks(
    rows: QuerySet[Any],
    model: type[models.Model],
    *,
    size: int,
    after: Callable[[list[Any]], object] | None = None,
) -> int:
    """Delete ``rows`` (of ``model``) ``size`` at a time; how many ``model`` rows went.

    In chunks because Django's delete joins the "set to null" updates of every batch of a
    delete into one statement (the facts and evidence that pointed at the deleted rows): past
    32,766 parameters (SQLite) or 65,535 (PostgreSQL) that statement fails, so one delete of
    a large memory would never finish. ``after`` is called with each chunk's ids once they
    are gone (cleanup refreshes the recall index of deleted episodes with it). The ids are
    read without an order: any ``size`` of them will do, and an order by id would make SQLite
    walk the table in id order instead of using the filter's index. Stops when a chunk deletes
    nothing, so rows that cannot go never loop."""
    label = model._meta.label
    total = 0
    while ids := list(rows.order_by().values_list("pk", flat=True)[:size]):
        gone = model._default_manager.filter(pk__in=ids).delete()[1].get(label, 0)
        if after is not None:
            after(ids)
        if not gone:
            break
        total += gone
    return total


def claim_first(queues: Iterable[QuerySet[Any]], *, state: str, now: Any) -> Any:
    """The first row of the first of ``queues`` that has one, claimed for this worker: locked
    with SKIP LOCKED, then moved to ``state`` with ``claimed_at=now`` and one more attempt by a
    conditional UPDATE (so on any backend one worker wins it); ``None`` when no queue has
    a row to take. The rows' model has ``state``, ``claimed_at`` and ``attempts``."""
    for rows in queues:
        with transaction.atomic():
            found = rows.select_for_update(skip_locked=True).select_related("owner").first()
            if found is None:
                continue
            claimed = (
                type(found)
                ._default_manager.filter(
                    pk=found.pk, state=found.state, claimed_at=found.claimed_at
                )
                .update(state=state, claimed_at=now, attempts=F("attempts") + 1)
            )
        if claimed:
            found.refresh_from_db()
            return found
    return None


class JsonAppend(Func):
    """A JSON list column with ``items`` appended, computed by the database: an update that
    adds to a list that keeps growing (a candidate's held details) neither reads nor writes
    back the list it already holds. PostgreSQL concatenates (``||``); SQLite appends each
    item with ``json_insert(column, '$[#]', json(item))``."""

    output_field = models.JSONField()

    def __init__(self, column: str, items: Sequence[Any]) -> None:
        super().__init__(F(column))
        self.items = [json.dumps(item, ensure_ascii=False) for item in items]

    def as_sql(
        self,
        compiler: Any,
        connection: Any,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> tuple[str, tuple[Any, ...]]:
        sql, params = compiler.compile(self.source_expressions[0])
        if connection.vendor == "postgresql":
            return f"({sql} || %s::jsonb)", (*params, "[" + ", ".join(self.items) + "]")
        if connection.vendor == "sqlite":
            appends = ", '$[#]', json(%s)" * len(self.items)
            return f"json_insert({sql}{appends})", (*params, *self.items)
        raise NotImplementedError(f"JsonAppend on {connection.vendor}")


def update_each(rows: Sequence[models.Model], fields: Sequence[str]) -> int:
    """Write ``fields`` of each of ``rows`` (instances of one model, no custom ``update``) in
    one UPDATE, as Django's ``bulk_update`` does (a ``CASE`` on the primary key per column),
    with the statement written here: Django resolves and copies every ``When`` of every
    column through its expression machinery, which cost far more CPU than the statement
    itself (docs/benchmarks.md). A value may be an expression (:class:`JsonAppend`, ``F``),
    compiled as Django would; the others are prepared by their fields, and on a database that
    needs it (PostgreSQL) each ``CASE`` is cast to its column's type, as Django does."""
    if not rows:
        return 0
    model = type(rows[0])
    meta = model._meta
    assert meta.pk is not None, f"{meta.label} has no primary key"
    keys = [row.pk for row in rows]
    query = model._default_manager.filter(pk__in=keys).query
    compiler = query.get_compiler(connection=connection)
    quote = connection.ops.quote_name
    key = f"{quote(meta.db_table)}.{quote(str(meta.pk.column))}"
    cast = connection.features.requires_casted_case_in_updates
    sets: list[str] = []
    params: list[Any] = []
    for name in fields:
        field = meta.get_field(name)
        assert isinstance(field, models.Field), f"{name} is not a column of {meta.label}"
        whens = []
        for row in rows:
            value = getattr(row, field.attname)
            if hasattr(value, "resolve_expression"):
                resolved = value.resolve_expression(query, allow_joins=False, for_save=True)
                sql, value_params = compiler.compile(resolved)
            else:
                sql, value_params = "%s", (field.get_db_prep_save(value, connection),)
            whens.append(f"WHEN %s THEN {sql}")
            params += [row.pk, *value_params]
        case = f"CASE {key} {' '.join(whens)} END"
        if cast:
            case = f"CAST({case} AS {field.cast_db_type(connection)})"
        sets.append(f"{quote(str(field.column))} = {case}")
    marks = ", ".join(["%s"] * len(keys))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {quote(meta.db_table)} SET {', '.join(sets)} WHERE {key} IN ({marks})",
            [*params, *keys],
        )
        return int(cursor.rowcount)
