"""``manage.py reindex [--user U] [--missing] [--batch N] [--json]``: rebuild recall's lexical
index and move the vectors to the configured embedding model (docs/embeddings.md).

Without ``--missing`` it first rebuilds every person's words index (postings, statistics and
vectors of the model serving them), as after upgrading ume. Then, in either case, every document
without a vector of the configured model gets one, a batch at a time: documents written while
the endpoint was down, and, after a change of model, all of them, staged beside the old vectors
(which serve recall meanwhile) and swapped in at the end. Stopped or failed, it goes on where it
stopped when run again. On a terminal it draws a progress bar on stderr; ``--json`` prints one
object per person."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.recall.loaders import recall_index_stale, recall_vector_dim
from memory.recall.provider import EmbeddingUnavailable, configured
from memory.services.recall_index import recall_index_rebuild
from memory.services.recall_vectors import recall_vectors_move

BAR_WIDTH = 30


class Command(BaseCommand):
    help = (
        "Rebuild recall's index for one person or all, and move their vectors to the "
        "configured embedding model (--missing: only the vectors)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="username of the owner (default: everyone)")
        parser.add_argument(
            "--missing",
            action="store_true",
            help="only give a vector of the configured model to documents without one "
            "(no rebuild of the words index)",
        )
        parser.add_argument(
            "--batch", type=int, default=None, help="texts per request to the model"
        )
        parser.add_argument("--json", action="store_true", help="print JSON only")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["batch"] is not None and opts["batch"] < 1:
            raise CommandError("--batch must be at least 1")
        user_model = get_user_model()
        owners = user_model.objects.order_by("pk")
        if opts["user"]:
            owners = owners.filter(**{user_model.USERNAME_FIELD: opts["user"]})
            if not owners.exists():
                raise CommandError(f"no user {opts['user']!r}")
        show_bar = not opts["json"] and sys.stderr.isatty()
        for owner in owners:
            report = self._one(owner, opts, show_bar)
            if opts["json"]:
                self.stdout.write(json.dumps(report))
            else:
                self.stdout.write(_line(report))

    def _one(self, owner: Any, opts: dict[str, Any], show_bar: bool) -> dict[str, Any]:
        name = owner.get_username()
        stale = recall_index_stale(owner)
        started = time.perf_counter()

        def progress(done: int, total: int, step: str = "") -> None:
            if show_bar and total:
                filled = BAR_WIDTH * done // total
                bar = "#" * filled + "-" * (BAR_WIDTH - filled)
                sys.stderr.write(f"\r{name}{step}: [{bar}] {done}/{total}")
                sys.stderr.flush()

        counts = None
        if not opts["missing"]:
            counts = recall_index_rebuild(owner_id=owner.pk, progress=progress)
            if show_bar:
                sys.stderr.write("\n")
        try:
            move = recall_vectors_move(
                owner_id=owner.pk,
                batch=opts["batch"],
                progress=lambda done, total: progress(done, total, " (vectors)"),
            )
        except EmbeddingUnavailable as exc:
            raise CommandError(
                f"{name}: {exc}. What was done is kept; run reindex again when the endpoint "
                "answers (recall meanwhile uses the vectors it has, and words)."
            ) from exc
        finally:
            if show_bar:
                sys.stderr.write("\n")
        return {
            "user": name,
            "model": move.model,
            "dim": getattr(configured(), "dim", None) or recall_vector_dim(owner, move.model),
            "served_before": move.before,
            "stale_before": stale,
            "documents": counts,
            "vectors_embedded": move.embedded,
            "swapped": move.swapped,
            "done": move.done,
            "seconds": round(time.perf_counter() - started, 2),
        }


def _line(report: dict[str, Any]) -> str:
    counts = report["documents"]
    words = (
        f"{counts['node']} nodes, {counts['page']} pages, {counts['episode']} episodes indexed; "
        if counts is not None
        else ""
    )
    if report["swapped"]:
        state = f"now served by {report['model']}"
    elif report["done"]:
        state = f"served by {report['model']}"
    else:
        state = f"not yet moved to {report['model']} (documents kept being written: run it again)"
    return (
        f"{report['user']}: {words}{report['vectors_embedded']} vectors made; {state}"
        + (
            f"; {report['stale_before']} documents of another model or missing before"
            if report["stale_before"]
            else ""
        )
        + f" in {report['seconds']} s"
    )
