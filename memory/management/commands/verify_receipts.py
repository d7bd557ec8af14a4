"""``manage.py verify_receipts [--user U] [--json]``: walk each owner's receipts chain.

Prints one line per owner, whole or where it breaks (with ``--json``, one JSON object:
``{"intact": bool, "owners": [...]}``), and exits with status 1 when any chain is broken
(docs/architecture.md, "Receipts chain").
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.services.receipt_chain import ChainReport, chain_verify


class Command(BaseCommand):
    help = "Verify every owner's receipts chain (or one owner's); exit 1 when one is broken."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", help="only this username")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")

    def handle(self, *args: Any, **opts: Any) -> None:
        people = get_user_model().objects.order_by("id")
        if opts["user"]:
            people = people.filter(username=opts["user"])
            if not people.exists():
                raise CommandError(f"unknown user {opts['user']!r}")
        reports = [chain_verify(person) for person in people.iterator()]
        intact = all(r.intact for r in reports)
        if opts["json"]:
            owners = [r.as_json() for r in reports]
            self.stdout.write(json.dumps({"intact": intact, "owners": owners}))
        else:
            for report in reports:
                self.stdout.write(_line(report))
        if not intact:
            raise SystemExit(1)


def _line(report: ChainReport) -> str:
    if report.intact:
        return f"{report.username}: intact ({report.receipts:,} receipts, up to #{report.last_seq})"
    where = f"seq {report.seq}" if report.seq is not None else "the start"
    if report.receipt_id is not None:
        where += f", receipt id {report.receipt_id}"
    if report.checkpoint_id is not None:
        where += f", checkpoint id {report.checkpoint_id}"
    return f"{report.username}: BROKEN at {where}: {report.problem}"
