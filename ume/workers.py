"""What a web worker does once it has loaded the application (``ume.wsgi``, ``ume.asgi``).

A worker imports Django, the MCP SDK, pydantic, numpy and the stemmers: about 175,000
objects that live as long as the process. Python's full garbage collection walks every one
of them each time it runs, which it does every few hundred requests, and the pause lands on
whichever request set it off (docs/benchmarks.md, "Figures behind the code's choices"). :func:`freeze_loaded_objects` moves what is
alive at the end of start-up out of the collector's reach (``gc.freeze``, the remedy
Python documents for long-lived objects); what requests create is collected as before."""

from __future__ import annotations

import gc

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def freeze_loaded_objects() -> int:
    """Collect once, then freeze every object alive now; returns how many were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def refuse_persistent_connections() -> None:
    """The ASGI server runs each request's synchronous code in a thread of its own, so a
    connection kept open after a request (``CONN_MAX_AGE`` other than 0) is never used again
    and stays open: enough requests and PostgreSQL refuses everyone. Connections are reused
    through the pool instead (``UME_DB_POOL_MAX``)."""
    for alias, database in settings.DATABASES.items():
        if database.get("CONN_MAX_AGE", 0) != 0:
            raise ImproperlyConfigured(
                f"UME_DB_CONN_MAX_AGE must be 0 under the ASGI server (database {alias!r} has "
                f"{database.get('CONN_MAX_AGE')}): each request runs in a new thread, so a kept "
                "connection is never reused and stays open; the connection pool "
                "(UME_DB_POOL_MAX) reuses connections instead"
            )
