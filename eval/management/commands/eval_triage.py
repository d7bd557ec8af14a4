"""``manage.py eval_triage [--conversations 2000] [--seed 7] [--export PATH --manifest PATH]
[--extractor rules|llm] [--user U] [--json]``: the review queue after importing a life's chat
history (:mod:`eval.triage`).

Prints the number of cards, the share that are duplicates and junk, how the "start here"
view fares, and the import's time. Measures only: it exits 0 whatever the figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from eval.life_history import History
from eval.triage import run_eval
from memory.extractors import EXTRACTORS
from memory.progress import Progress


def _read_history(export: str, manifest: str) -> History:
    try:
        data = json.loads(Path(export).read_text(encoding="utf-8"))
        subjects = json.loads(Path(manifest).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CommandError(f"cannot read the export or its manifest: {exc}") from exc
    if not isinstance(data, list) or not isinstance(subjects, dict):
        raise CommandError("the export must be a JSON list and the manifest a JSON object")
    return History(export=data, manifest=subjects)


class Command(BaseCommand):
    help = "Import a generated life's chat history and measure the review queue it leaves."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--conversations", type=int, default=2000)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--export", help="an export made by python -m eval.life_history")
        parser.add_argument("--manifest", help="its manifest (--manifest of the generator)")
        parser.add_argument("--extractor", choices=EXTRACTORS, default=None)
        parser.add_argument("--user", help="import into this person and keep everything")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["conversations"] < 1:
            raise CommandError("--conversations must be at least 1")
        if bool(opts["export"]) != bool(opts["manifest"]):
            raise CommandError("--export and --manifest go together")
        history = _read_history(opts["export"], opts["manifest"]) if opts["export"] else None
        owner = None
        if opts["user"]:
            owner = get_user_model().objects.filter(username=opts["user"]).first()
            if owner is None:
                raise CommandError(f"unknown user {opts['user']!r}")
        progress = Progress.for_command(2, self.stderr, as_json=opts["json"])
        figures = run_eval(
            conversations=opts["conversations"],
            seed=opts["seed"],
            history=history,
            extractor=opts["extractor"],
            owner=owner,
            on_step=progress.step,
        )
        progress.finish()
        data = figures.as_json()
        if opts["json"]:
            self.stdout.write(json.dumps(data, ensure_ascii=False))
            return
        self._table(data)

    def _table(self, data: dict[str, Any]) -> None:
        out = self.stdout.write
        out(
            f"triage eval: {data['conversations']} conversations ({data['messages']} messages), "
            f"seed {data['seed']}, {data['extractor']} extractor"
        )
        out(f"  import                 {data['import_seconds']} s")
        out(
            f"  cards                  {data['cards']} (memories written directly: {data['nodes']})"
        )
        out(f"  duplicates             {data['duplicates']} ({data['duplicate_rate']:.1%})")
        out(
            f"  typo duplicates        {data['typo_duplicates']} "
            f"({data['typo_duplicate_rate']:.1%}: one card's words with a slip in one)"
        )
        out(f"  fold duplicates        {data['fold_duplicates']}")
        out(f"  junk                   {data['junk']} ({data['junk_rate']:.1%})")
        out(
            f"  life subjects found    {data['life_subjects_found']} of {data['life_subjects']}"
            f" ({data['cards_on_life_subjects']} cards about them)"
        )
        start = data["start_here"]
        out(
            f"  start here             {start['cards']} cards: {start['on_life_subjects']} about "
            f"the life, {start['recurring_subjects']} about recurring subjects"
        )
        out(f"  said in the history    {data['said_in_history_rate']:.1%} of cards")
        out(f"  stale values           {data['stale_values']}")
        out(
            f"  one-offs expiring      {data['one_offs_expiring']} after "
            f"{data['one_off_days']} days unreviewed"
        )
        for name in ("start_labels", "duplicate_labels", "typo_labels", "junk_labels"):
            if data[name]:
                out(f"  {name.replace('_', ' ')}: {data[name][:30]}")
