"""``manage.py eval_retrieval FIXTURE [--json] [--floors ...]``: score recall on a golden set.

Seeds a throwaway owner from the fixture, runs recall per query, prints the metrics of
:mod:`eval.retrieval` and exits 1 when a metric misses its bound.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.fixture_files import naming
from eval.retrieval import (
    CEILING_METRICS,
    METRICS,
    FixtureError,
    parse_floors,
    read_fixture,
    run_eval,
)
from memory.progress import Progress

FLOORS_HELP = (
    "comma-separated bounds the run must meet, e.g. "
    "'recall_at_5=1.0,mrr=0.95,wrong_identity_rate=0,no_recall_accuracy=1.0'. "
    f"'metric=value' is a floor (at least value), except for {', '.join(sorted(CEILING_METRICS))}, "
    "where lower is better and it is a ceiling (at most value); write 'metric>=value' or "
    "'metric<=value' to say which. Metrics: " + ", ".join(METRICS[1:]) + ". "
    "Below a bound the command exits 1 naming the metric."
)


class Command(BaseCommand):
    help = "Seed a throwaway tenant from a retrieval golden set, run recall per query, score it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="path to a retrieval golden JSON file")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--floors", default="", help=FLOORS_HELP)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            bounds = parse_floors(options["floors"] or "")
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        path = Path(options["fixture"])
        try:
            data = read_fixture(path)
            queries = data.get("queries") if isinstance(data, dict) else None
            progress = Progress.for_command(
                len(queries) if isinstance(queries, list) else 0,
                self.stderr,
                as_json=options["json"],
            )
            report = run_eval(data, on_query=progress.step)
            progress.finish()
        except FixtureError as exc:
            raise CommandError(naming(path, exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
        else:
            self._table(path, report)
        failures = [msg for bound in bounds if (msg := bound.failed(report))]
        if failures:
            raise CommandError("; ".join(failures), returncode=1)

    def _table(self, path: Path, report: dict[str, Any]) -> None:
        out = self.stdout
        out.write(f"retrieval eval: {path}")
        for name in METRICS:
            out.write(f"  {name:<20} {report[name]}")
        failed = [q for q in report["per_query"] if not q["passed"]]
        out.write(f"  {'failed queries':<20} {len(failed)}")
        for q in failed:
            out.write(f"    {q['id']}: returned {', '.join(q['returned']) or '(nothing)'}")
