"""``manage.py eval_locomo PATH [--json] [--variant review|promote] [--conversations A,B]
[--sessions N] [--extractor rules|llm] [--threshold X] [--curve]``:
ume on LoCoMo's real long conversations, read from a folder the repository does not hold.

Ingests each speaker's sessions for a throwaway owner through the real write path, then
prints extraction coverage of the reference events, the junk rate of proposed labels,
candidates per 100 of the person's turns, and recall hit@5/@10 (provenance and overlap) per
question category, with nothing reviewed and with everything promoted, beside BM25 over the
person's raw turns (:mod:`eval.locomo`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.locomo import (
    CATEGORIES,
    SYSTEM_OF,
    SYSTEMS,
    VARIANTS,
    LocomoError,
    read_folder,
    run_eval,
)
from eval.management.thresholds import add_threshold_arguments, write_curve


class Command(BaseCommand):
    help = "Score extraction and recall on LoCoMo conversations beside BM25 over the raw turns."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="a folder of LoCoMo conversation files, or one file")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        add_threshold_arguments(parser)
        parser.add_argument(
            "--conversations", default="", help="comma-separated file names (without .json)"
        )
        parser.add_argument(
            "--sessions", type=int, default=None, help="only the first N sessions of each"
        )
        parser.add_argument("--extractor", choices=("rules", "llm"), default=None)
        parser.add_argument(
            "--variant",
            choices=VARIANTS,
            default=None,
            help="review: nothing reviewed; promote: everything promoted (default: both)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        only = [c.strip() for c in options["conversations"].split(",") if c.strip()]
        if options["sessions"] is not None and options["sessions"] < 1:
            raise CommandError("--sessions must be at least 1")
        try:
            conversations = read_folder(path, only)
        except LocomoError as exc:
            raise CommandError(str(exc)) from exc
        report = run_eval(
            conversations,
            extractor=options["extractor"],
            sessions=options["sessions"],
            variants=(options["variant"],) if options["variant"] else VARIANTS,
            threshold=options["threshold"],
            with_curve=options["curve"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False))
            return
        self._print(path, report)

    def _print(self, path: Path, report: dict[str, Any]) -> None:
        ex = report["extraction"]
        self.stdout.write(
            f"{path}: {', '.join(report['conversations'])}; {len(report['people'])} people, "
            f"{report['seconds']} s"
        )
        self.stdout.write(
            f"extraction: coverage {ex['coverage']} ({ex['covered']}/{ex['events']} events), "
            f"junk {ex['junk_rate']} ({ex['junk']}/{ex['labels']} labels), "
            f"{ex['candidates_per_100_turns']} candidates per 100 turns"
        )
        systems = [s for s in SYSTEMS if s in report["systems"]]
        self.stdout.write(f"{'category':<13}{'n':>5}  " + "  ".join(f"{s:>24}" for s in systems))
        self.stdout.write(f"{'':<18}" + "  ".join(f"{'@5 @10 (overlap @10)':>24}" for _ in systems))
        for category in (*CATEGORIES.values(), "answerable"):
            cells = []
            n = 0
            for system in systems:
                row = report["systems"][system][category]
                n = row["questions"]
                if not n:
                    cells.append(f"{'-':>24}")
                    continue
                cell = f"{row['hit_at_5']:.3f} {row['hit_at_10']:.3f} ({row['overlap_at_10']:.3f})"
                if category == "adversarial":
                    cell += f" q{row['quiet']:.2f}"
                cells.append(f"{cell:>24}")
            self.stdout.write(f"{category:<13}{n:>5}  " + "  ".join(cells))
        self.stdout.write(f"questions naming neither speaker: {report['unrouted_questions']}")
        self.stdout.write(f"ume at confidence threshold {report['threshold']}")
        if "curve" in report:
            ume = [s for s in systems if s in SYSTEM_OF.values()]
            write_curve(self.stdout, report["curve"], ume, "adversarial: quiet")
