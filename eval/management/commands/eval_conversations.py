"""``manage.py eval_conversations FIXTURE [--json] [--threshold X] [--curve]``: recall on long
everyday conversations.

Ingests each person's sessions through the real write path for a throwaway owner, asks the
questions with nothing reviewed and with everything promoted, and prints evidence hit@5 and
@10, answer-word recall and (for questions with nothing to find) how often nothing came back,
per question type, beside BM25 over the raw messages (:mod:`eval.conversations`). ume
answers at recall's confidence threshold (``UME_RECALL_MIN_CONFIDENCE``, or ``--threshold``);
``--curve`` adds quiet and hit@5 at several thresholds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.conversations import (
    SYSTEMS,
    TYPES,
    UME_SYSTEMS,
    FixtureError,
    read_fixture,
    run_eval,
)
from eval.fixture_files import naming
from eval.management.thresholds import add_threshold_arguments, write_curve


class Command(BaseCommand):
    help = "Score recall on multi-session conversations against BM25 over the raw messages."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="path to a conversations_*.json fixture")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        add_threshold_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["fixture"])
        try:
            report = run_eval(
                read_fixture(path), threshold=options["threshold"], with_curve=options["curve"]
            )
        except FixtureError as exc:
            raise CommandError(naming(path, exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        self.stdout.write(
            f"{path.name}: {len(report['people'])} people, {report['questions']} questions, "
            f"{report['seconds']} s"
        )
        header = f"{'type':<16}{'n':>4}  " + "  ".join(f"{s:>26}" for s in SYSTEMS)
        self.stdout.write(header)
        self.stdout.write(f"{'':<22}" + "  ".join(f"{'hit@5 hit@10 answer':>26}" for _ in SYSTEMS))
        for qtype in (*TYPES, "overall"):
            cells = []
            n = 0
            for system in SYSTEMS:
                data = report["systems"][system]
                row = data["overall"] if qtype == "overall" else data["by_type"][qtype]
                n = row["questions"]
                if qtype == "nothing":
                    cells.append(f"{'quiet ' + format(row['quiet'], '.2f'):>26}")
                else:
                    cells.append(
                        f"{row['hit_at_5']:>10.2f} {row['hit_at_10']:>6.2f} {row['answer_recall']:>7.2f}"
                    )
            self.stdout.write(f"{qtype:<16}{n:>4}  " + "  ".join(cells))
        self.stdout.write(f"ume at confidence threshold {report['threshold']}")
        if "curve" in report:
            write_curve(self.stdout, report["curve"], UME_SYSTEMS, "nothing: quiet")
