"""``manage.py eval_labels FIXTURE [--json]``: card labels a person judged, against the label
standard and the offline extractor (:mod:`eval.labels`).

For each sentence and label of the fixture: does the standard every extracted subject meets
hold the label back, and does the extractor propose it from the sentence alone? Prints, per
kind (keep, generic, abstract, fragment, shorthand), the share held back and the share
proposed, then the keeps the standard loses and the junk the extractor proposes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.fixture_files import FixtureError, naming
from eval.labels import KINDS, read_fixture, run_eval


class Command(BaseCommand):
    help = "Score the label standard and the extractor on card labels a person judged."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="path to a labels_*.json fixture")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["fixture"])
        try:
            report = run_eval(read_fixture(path))
        except FixtureError as exc:
            raise CommandError(naming(path, exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        self.stdout.write(f"{path.name}: {report['items']} labels")
        self.stdout.write(f"{'kind':<12}{'n':>5}{'held back':>12}{'proposed':>11}")
        for kind in (*KINDS, "junk"):
            row = report["kinds"][kind]
            self.stdout.write(
                f"{kind:<12}{row['items']:>5}{row['held_back_rate']:>12.3f}"
                f"{row['proposed_rate']:>11.3f}"
            )
        standard, proposer = report["standard"], report["proposer"]
        self.stdout.write(
            f"standard: junk caught {standard['junk_caught']}, keeps lost "
            f"{standard['keeps_lost']}, precision {standard['precision']} (junk respelled, "
            f"still a card under another label: {standard['junk_respelled']})"
        )
        self.stdout.write(
            f"proposer: keeps found {proposer['keeps_found']}, junk proposed "
            f"{proposer['junk_proposed']}"
        )
        self.stdout.write("keeps lost: " + (", ".join(report["lost"]) or "none"))
        self.stdout.write("junk proposed: " + (", ".join(report["leaked"]) or "none"))
