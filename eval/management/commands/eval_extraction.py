"""``manage.py eval_extraction FIXTURE [--json] [--extractor rules|llm] [--min-pass-rate R]``.

Scores an extractor (the rules extractor unless ``--extractor llm``, which calls the endpoint
configured by ``UME_LLM_*``) and the gate on a golden extraction set. A report: the exit
status is 0 unless ``--min-pass-rate`` is given and the pass rate is below it, or the LLM
endpoint fails. The scoring rules are in :mod:`eval.extraction`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.extraction import score_extraction
from eval.fixture_files import FixtureError, read_fixture_file
from memory.extractors import ExtractorFailed, get_extractor
from memory.progress import Progress


def _flag(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


class Command(BaseCommand):
    help = "Run the rules extractor and the gate on a golden extraction set and score it."
    # Pure scoring: it touches no database, URLs or templates, so it needs no system checks.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="path to a golden extraction JSON file")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument(
            "--extractor",
            choices=("rules", "llm"),
            default="rules",
            help="which extractor to score (llm uses UME_LLM_BASE_URL / UME_LLM_MODEL)",
        )
        parser.add_argument(
            "--min-pass-rate",
            type=float,
            default=None,
            help="exit 1 when the pass rate is below this floor (0..1)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["fixture"])
        try:
            # Decoding only: the shape is checked fixture by fixture while scoring.
            data = read_fixture_file(path, lambda _data: None)
        except FixtureError as exc:
            raise CommandError(str(exc)) from exc
        fixtures = data.get("fixtures") if isinstance(data, dict) else data
        progress = Progress.for_command(
            len(fixtures) if isinstance(fixtures, list) else 0, self.stderr, as_json=options["json"]
        )
        try:
            report = score_extraction(
                data, get_extractor(options["extractor"]), on_fixture=progress.step
            )
            progress.finish()
        except FixtureError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        except ExtractorFailed as exc:
            raise CommandError(
                f"{path}: the {options['extractor']} extractor failed: {exc}"
            ) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
        else:
            self._table(report)
        floor = options["min_pass_rate"]
        if floor is not None and (report["pass_rate"] or 0.0) < floor:
            raise CommandError(f"pass rate {report['pass_rate']} is below the floor {floor}")

    def _table(self, report: dict[str, Any]) -> None:
        head = (
            f"{'fixture':<40} {'save':>5} {'exact':>6} {'cont.':>6} {'ctrl':>5} {'forb':>5}  pass"
        )
        self.stdout.write(head)
        for row in report["per_fixture"]:
            self.stdout.write(
                f"{row['id'][:40]:<40} {_flag(row['saved_ok']):>5} "
                f"{_flag(row['subject_exact']):>6} {_flag(row['subject_contained']):>6} "
                f"{_flag(row['control_leak']):>5} {_flag(row['forbidden_leak']):>5}  "
                f"{'PASS' if row['passed'] else 'fail'}"
            )
        self.stdout.write("")
        for key in (
            "fixtures",
            "must_save_recall",
            "no_save_precision",
            "subject_exact_rate",
            "subject_contained_rate",
            "control_leaks",
            "forbidden_leaks",
            "pass_rate",
            "extractor_failures",
            "label_recall",
            "category_accuracy",
            "state_accuracy",
            "labels_planned",
            "junk_label_rate",
            "events_with_time",
            "dated_event_rate",
        ):
            self.stdout.write(f"{key:<24} {report[key]}")
