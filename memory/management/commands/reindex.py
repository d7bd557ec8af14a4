"""``manage.py reindex [--user U] [--json]``: rebuild recall's lexical index and vectors.

Run it after upgrading ume or changing the embedding model: documents embedded by another
model are ignored by the semantic lane (never mixed) until they are rebuilt. On a terminal it
draws a progress bar on stderr; ``--json`` prints one object per person."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.recall.embed import DIM, MODEL_NAME
from memory.recall.loaders import recall_index_stale
from memory.services.recall_index import recall_index_rebuild

BAR_WIDTH = 30


class Command(BaseCommand):
    help = "Rebuild recall's index (postings, statistics and vectors) for one person or all."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username of the owner (default: everyone)")
        parser.add_argument("--json", action="store_true", help="print JSON only")

    def handle(self, *args: Any, **opts: Any) -> None:
        user_model = get_user_model()
        owners = user_model.objects.order_by("pk")
        if opts["user"]:
            owners = owners.filter(**{user_model.USERNAME_FIELD: opts["user"]})
            if not owners.exists():
                raise CommandError(f"no user {opts['user']!r}")
        show_bar = not opts["json"] and sys.stderr.isatty()
        for owner in owners:
            name = owner.get_username()
            stale = recall_index_stale(owner)
            started = time.perf_counter()

            def progress(done: int, total: int, name: str = name) -> None:
                if show_bar and total:
                    filled = BAR_WIDTH * done // total
                    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
                    sys.stderr.write(f"\r{name}: [{bar}] {done}/{total}")
                    sys.stderr.flush()

            counts = recall_index_rebuild(owner_id=owner.pk, progress=progress)
            if show_bar:
                sys.stderr.write("\n")
            report = {
                "user": name,
                "model": MODEL_NAME,
                "dim": DIM,
                "stale_before": stale,
                "documents": counts,
                "seconds": round(time.perf_counter() - started, 2),
            }
            if opts["json"]:
                self.stdout.write(json.dumps(report))
            else:
                self.stdout.write(
                    f"{name}: {counts['node']} nodes, {counts['page']} pages, "
                    f"{counts['episode']} episodes indexed with {MODEL_NAME} ({DIM} dims)"
                    + (f"; {stale} documents of another model or missing rebuilt" if stale else "")
                    + f" in {report['seconds']} s"
                )
