"""``manage.py eval_calibration FIXTURE [--json] [--fit]``: is a card's confidence a probability?

Prints, per confidence bin, the cards the rules extractor and its subject proposer would show on
a labelled set and the share a person would accept (:mod:`eval.calibration`). ``--fit`` also
prints the weights fitted on that set for :data:`memory.confidence.WEIGHTS`. Measures only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.calibration import cards, fit, subject_rows, table
from eval.fixture_files import FixtureError, read_fixture_file


class Command(BaseCommand):
    help = "Confidence bins against the share of cards a person would accept, on a labelled set."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="path to a labelled calibration JSON file")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--fit", action="store_true", help="also print refitted weights")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            data = read_fixture_file(Path(options["fixture"]), lambda _data: None)
            fixtures = data.get("fixtures") if isinstance(data, dict) else None
            if not isinstance(fixtures, list):
                raise FixtureError('a calibration file is {"fixtures": [...]}')
            report = table(cards(fixtures))
            if options["fit"]:
                report["fitted_weights"] = fit(subject_rows(fixtures))
        except FixtureError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(f"{'confidence':<12}{'cards':>7}{'mean':>8}{'accepted':>10}")
        for row in report["bins"]:
            self.stdout.write(
                f"{row['bin']:<12}{row['cards']:>7}{row['mean_confidence']:>8.2f}"
                f"{row['accepted']:>10.2f}"
            )
        self.stdout.write(
            f"cards {report['cards']}, accepted {report['accepted']}, ECE {report['ece']}"
        )
        if "fitted_weights" in report:
            self.stdout.write(f"fitted weights: {json.dumps(report['fitted_weights'])}")
