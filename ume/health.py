"""``/healthz`` and ``/readyz``: JSON probes for load balancers and service managers.

Both answer without authentication and say nothing beyond what a probe needs: no versions,
no hostnames, no counts. ``/healthz`` means the process answers; ``/readyz`` means the
database answers and every migration is applied (503 otherwise).
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.db.migrations.loader import MigrationLoader
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

log = logging.getLogger("ume.health")

# Once every migration is applied it stays so for the life of this process (a new release
# restarts it), so the migration graph is loaded at most until the first ready answer.
_migrations_applied = False


def _database_answers() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        log.warning("readyz: the database does not answer", exc_info=True)
        return False


def _migrations_done() -> bool:
    global _migrations_applied
    if _migrations_applied:
        return True
    try:
        loader = MigrationLoader(connection, ignore_no_migrations=True)
        unapplied = set(loader.graph.nodes) - set(loader.applied_migrations or {})
    except DatabaseError:
        log.warning("readyz: cannot read the migration state", exc_info=True)
        return False
    _migrations_applied = not unapplied
    return _migrations_applied


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    database = _database_answers()
    migrations = database and _migrations_done()
    ready = database and migrations
    body = {
        "status": "ready" if ready else "not_ready",
        "checks": {
            "database": "ok" if database else "failing",
            "migrations": "ok" if migrations else ("pending" if database else "unknown"),
        },
    }
    return JsonResponse(body, status=200 if ready else 503)
