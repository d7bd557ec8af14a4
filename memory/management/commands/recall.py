"""``manage.py recall QUERY --user U [--limit N] [--json]``: what an assistant would get."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.recall import MAX_LIMIT, EpisodeItem, recall


class Command(BaseCommand):
    help = "Recall memories for a query, as an assistant would get them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", help="the question or subject, in the person's words")
        parser.add_argument("--user", required=True, help="username of the owner")
        parser.add_argument(
            "--limit", type=int, default=10, help=f"at most N items (1..{MAX_LIMIT}, default 10)"
        )
        parser.add_argument("--json", action="store_true", help="print the result as JSON only")

    def handle(self, *args: Any, **opts: Any) -> None:
        if not 1 <= opts["limit"] <= MAX_LIMIT:
            raise CommandError(f"--limit must be between 1 and {MAX_LIMIT}")
        user_model = get_user_model()
        owner = user_model.objects.filter(**{user_model.USERNAME_FIELD: opts["user"]}).first()
        if owner is None:
            raise CommandError(f"no user {opts['user']!r}")
        result = recall(owner, opts["query"], limit=opts["limit"])
        if opts["json"]:
            self.stdout.write(json.dumps(result.as_json(), ensure_ascii=False))
            return
        if result.no_recall:
            self.stdout.write(f"No recall ({result.reason}).")
            return
        self.stdout.write(result.context)
        if result.context_truncated:
            self.stdout.write("(context clipped to the character budget)")
        self.stdout.write("")
        for rank, item in enumerate(result.items, start=1):
            if isinstance(item, EpisodeItem):
                self.stdout.write(
                    f"{rank:>2}. said {item.said_at:%Y-%m-%d} by {item.role}: "
                    f"{' '.join(item.text.split())[:80]} #{item.id}  why={item.why}  "
                    f"score={item.score:.3f}"
                )
                continue
            what = "page" if item.kind == "page" else f"{item.category}, {item.state}"
            self.stdout.write(
                f"{rank:>2}. {item.label} ({what}) #{item.id}  why={item.why}  score={item.score:.3f}"
            )
