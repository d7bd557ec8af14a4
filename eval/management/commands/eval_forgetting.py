"""``manage.py eval_forgetting FIXTURE [--json]``: forget something in every way, let it try to
come back in every way, and count what comes back (:mod:`eval.forgetting`).

Prints resurrections and over-blocking in all, per way to forget and per way back, and exits 1
when ``--max-resurrections`` or ``--max-over-blocking`` is exceeded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.fixture_files import FixtureError
from eval.forgetting import BACK, FORGET, Report, applies, load_stories, run_eval
from memory.progress import Progress


def _names(raw: str, known: dict[str, Any] | list[str], what: str) -> list[str]:
    names = [n.strip() for n in raw.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CommandError(f"unknown {what} {', '.join(unknown)}; one of {', '.join(known)}")
    return names or list(known)


class Command(BaseCommand):
    help = "Forget each story in every way, let it come back in every way, count resurrections."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="path to a forgetting golden JSON file")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--stories", default="", help="comma-separated story ids (all)")
        parser.add_argument("--forget", default="", help="ways to forget: " + ", ".join(FORGET))
        parser.add_argument("--back", default="", help="ways back: " + ", ".join(BACK))
        parser.add_argument("--max-resurrections", type=int, default=None)
        parser.add_argument("--max-over-blocking", type=float, default=None, help="a rate, 0..1")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["fixture"])
        try:
            stories = load_stories(path)
        except FixtureError as exc:
            raise CommandError(str(exc)) from exc
        chosen = _names(options["stories"], [s.id for s in stories], "story")
        stories = [s for s in stories if s.id in chosen]
        forgets = _names(options["forget"], FORGET, "way to forget")
        backs = _names(options["back"], BACK, "way back")
        total = len(stories) * sum(1 for f in forgets for b in backs if applies(f, b))
        progress = Progress.for_command(total, self.stderr, as_json=options["json"])
        report = run_eval(stories, forgets=forgets, backs=backs, on_scenario=progress.step)
        progress.finish()
        if options["json"]:
            self.stdout.write(json.dumps(report.as_json(), ensure_ascii=False))
        else:
            self._table(path, report)
        self._check(report, options)

    def _check(self, report: Report, options: dict[str, Any]) -> None:
        totals = report.totals()
        failures = []
        most = options["max_resurrections"]
        if most is not None and totals["resurrections"] > most:
            failures.append(f"{totals['resurrections']} resurrections, more than {most}")
        rate = options["max_over_blocking"]
        if rate is not None and totals["over_blocking_rate"] > rate:
            failures.append(f"over-blocking {totals['over_blocking_rate']} is above {rate}")
        if failures:
            raise CommandError("; ".join(failures), returncode=1)

    def _table(self, path: Path, report: Report) -> None:
        out = self.stdout
        totals = report.totals()
        out.write(f"forgetting eval: {path}")
        for name in ("scenarios", "attempts", "resurrections", "resurrection_rate", "held"):
            out.write(f"  {name:<20} {totals[name]}")
        for name in ("over_block_checks", "over_blocked", "over_blocking_rate"):
            out.write(f"  {name:<20} {totals[name]}")
        for axis, title in ((0, "way to forget"), (1, "way back")):
            out.write(f"\n  {title:<22} scenarios attempts resurrections over_blocked held")
            for name, row in report.by(axis).items():
                out.write(
                    f"  {name:<22} {row['scenarios']:>9} {row['attempts']:>8} "
                    f"{row['resurrections']:>13} {row['over_blocked']:>12} {row['held']:>4}"
                )
        for note in totals["skipped"]:
            out.write(f"  skipped: {note}")
