"""``manage.py cleanup [--dry-run] [--json] [--user U] [--undo-receipt ID [--no-suppress]]``.

``--undo-receipt`` of an ingest deletes what it wrote; of a cleanup run, it brings back the
guesses that run expired.

Run by cron (see docs/cleanup.md). With ``--json`` it prints one JSON object and nothing else.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from memory.models import Receipt, Source
from memory.progress import Progress
from memory.services.cleanup import cleanup_run, cleanup_sweeps
from memory.services.erase import EraseError, receipt_undo, receipt_undo_preview
from memory.services.triage import candidates_restore
from memory.triage_selectors import expired_by_receipt
from ume.logs import request_context


class Command(BaseCommand):
    help = (
        "The cron job: expire candidates and suppressions, apply retention, remove junk and "
        "orphans (one receipt per user changed), delete unused OAuth clients. Or undo one "
        "ingest with --undo-receipt."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would be done; write nothing"
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--user", help="only this username")
        parser.add_argument(
            "--undo-receipt",
            type=int,
            metavar="ID",
            help="delete everything the ingest of this receipt wrote",
        )
        parser.add_argument(
            "--no-suppress",
            action="store_true",
            help="with --undo-receipt: do not suppress the labels it created",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        user = None
        if opts["user"]:
            user = get_user_model().objects.filter(username=opts["user"]).first()
            if user is None:
                raise CommandError(f"unknown user {opts['user']!r}")
        if opts["undo_receipt"] is not None:
            self.undo(opts, user)
            return
        if opts["no_suppress"]:
            raise CommandError("--no-suppress goes with --undo-receipt")
        now = timezone.now()
        progress = Progress.for_command(0, self.stderr, as_json=opts["json"])
        with request_context():
            reports = cleanup_run(
                now=now,
                dry_run=opts["dry_run"],
                user=user,
                on_start=progress.add,
                on_user=lambda report: progress.step(report.username),
                # A line per step, between the bar's updates: long runs show where they are.
                on_step=lambda report, step, n: progress.line(f"{report.username}: {step}: {n:,}"),
            )
        # Sweeps that belong to no user (unused OAuth clients) run on full runs only.
        sweeps = {} if user is not None else cleanup_sweeps(now=now, dry_run=opts["dry_run"])
        progress.finish()
        if opts["json"]:
            totals: dict[str, int] = {}
            for report in reports:
                for key, n in report.counts.items():
                    totals[key] = totals.get(key, 0) + n
            payload = {
                "dry_run": opts["dry_run"],
                "as_of": now.isoformat(),
                "users": [r.as_json() for r in reports if r.changed or r.status == "busy"],
                "totals": totals,
                "sweeps": sweeps,
            }
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
            return
        prefix = "would: " if opts["dry_run"] else ""
        changed = 0
        for report in reports:
            if report.status == "busy":
                self.stdout.write(f"{report.username}: busy (another cleanup run has this user)")
            elif report.changed:
                changed += 1
                receipt = f" (receipt {report.receipt.pk})" if report.receipt else ""
                self.stdout.write(f"{report.username}: {prefix}{report.summary()}{receipt}")
                for junk in report.junk:
                    self.stdout.write(f"  junk removed: {junk['label']} ({junk['reason']})")
        for name, count in sweeps.items():
            if count:
                changed += 1
                self.stdout.write(f"{prefix}{name.replace('_', ' ')}: {count}")
        if not changed:
            self.stdout.write(f"nothing to clean up ({len(reports)} users checked)")

    def undo(self, opts: dict[str, Any], user: Any) -> None:
        receipts = Receipt.objects.select_related("owner")
        if user is not None:
            receipts = receipts.for_owner(user)
        receipt = receipts.filter(pk=opts["undo_receipt"]).first()
        if receipt is None:
            raise CommandError(f"no receipt #{opts['undo_receipt']}")
        if receipt.source == Source.CLEANUP:
            self.restore(receipt, opts)
            return
        try:
            if opts["dry_run"]:
                preview = receipt_undo_preview(receipt=receipt)
                if opts["json"]:
                    self.stdout.write(json.dumps({"dry_run": True, **preview}, ensure_ascii=False))
                else:
                    labels = [n["label"] for n in preview["nodes"] + preview["candidates"]]
                    self.stdout.write(
                        f"would delete from receipt #{receipt.pk}: {preview['counts']}"
                        + (f" ({', '.join(labels)})" if labels else "")
                    )
                return
            result = receipt_undo(receipt=receipt, suppress=not opts["no_suppress"])
        except EraseError as exc:
            raise CommandError(str(exc)) from exc
        if opts["json"]:
            data = result.as_json()
            data["detail"] = result.detail
            self.stdout.write(json.dumps(data, ensure_ascii=False))
        else:
            self.stdout.write(f"{result.summary} (receipt {result.pk})")
            for line in result.detail.get("not_reverted", []):
                self.stdout.write(f"  not reverted: {line}")

    def restore(self, receipt: Receipt, opts: dict[str, Any]) -> None:
        """The undo of a cleanup run's expiries: its expired guesses back in the queue."""
        rows = expired_by_receipt(receipt.owner, receipt.pk)
        if opts["dry_run"]:
            labels = [c.label_guess for c in rows]
            if opts["json"]:
                payload = {"dry_run": True, "receipt_id": receipt.pk, "restore": labels}
                self.stdout.write(json.dumps(payload, ensure_ascii=False))
            else:
                self.stdout.write(
                    f"would restore {len(labels)} guesses cleanup #{receipt.pk} expired"
                    + (f" ({', '.join(labels)})" if labels else "")
                )
            return
        result, skipped = candidates_restore(owner=receipt.owner, candidates=rows)
        if result is None and not skipped:
            raise CommandError(f"cleanup #{receipt.pk} left no expired guess to restore")
        if opts["json"]:
            data = result.as_json() if result else {"receipt_id": None}
            data["skipped"] = [
                {"id": c.pk, "label": c.label_guess, "reason": r} for c, r in skipped
            ]
            self.stdout.write(json.dumps(data, ensure_ascii=False))
            return
        if result is not None:
            self.stdout.write(f"{result.summary} (receipt {result.pk})")
        for candidate, why in skipped:
            self.stdout.write(f"  not restored: {candidate.label_guess}: {why}")
