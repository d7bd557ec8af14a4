"""``manage.py seed_demo``: a demo user and a few weeks of conversations, ingested for real.

Every demo receipt comes from a real run of the pipeline: the rules extractor and the gate on
the transcripts in ``memory/demo/``, the demo user's own review decisions, a re-ingest
(duplicate), a binary upload (rejected input), the LLM extractor pointed at a closed local
port (extractor failed) and one apply whose last step is patched here to raise (database
write failed; its error says it was simulated). Idempotent: a second run leaves existing demo data
alone unless ``--reset`` is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError
from django.test.utils import override_settings

from memory.models import Candidate, MemoryRule, Node, Receipt, Source
from memory.services import ingest as ingest_module
from memory.services.ingest import ingest_bytes, ingest_memory, ingest_text
from memory.services.receipt_chain import chain_reseal
from memory.services.review import candidate_promote, candidate_reject
from memory.vocab import CandidateStatus

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"

# (file, when the conversation happened)
SCHEDULE = [
    ("01-new-city.txt", datetime(2026, 11, 2, 19, 30, tzinfo=UTC)),
    ("02-atlas-kickoff.txt", datetime(2026, 11, 5, 21, 10, tzinfo=UTC)),
    ("03-health.txt", datetime(2026, 11, 9, 8, 45, tzinfo=UTC)),
    ("04-smalltalk.txt", datetime(2026, 11, 10, 12, 0, tzinfo=UTC)),
    ("05-atlas-progress.txt", datetime(2026, 11, 16, 22, 5, tzinfo=UTC)),
    ("06-habits.txt", datetime(2026, 11, 20, 18, 20, tzinfo=UTC)),
    ("07-later.txt", datetime(2026, 11, 27, 9, 15, tzinfo=UTC)),
]
# What the demo person decided after the first three conversations.
PROMOTE = [
    "Lisbon",
    "Meera",
    "Boxing",
    "Atlas",
    "Postgres",
    "Asthma",
    "Knee Injury",
    "Response Style",
]
SUPPRESS = ["Swimming"]


@contextmanager
def clock(at: datetime) -> Iterator[None]:
    """Run as if it were ``at``, so the Saves page shows the weeks the demo spans."""
    with mock.patch("django.utils.timezone.now", return_value=at):
        yield


def demo_login_line(username: str, password: str) -> str:
    return (
        f"Demo login: username {username!r}, password {password!r}; the demo user is also the "
        "admin (/admin/). Local demo only; set UME_DEMO_PASSWORD to change it."
    )


def on_purpose(receipt: Receipt, what: str) -> Receipt:
    """Label a failure the demo causes deliberately, so it does not read as a real one."""
    # A save, not an update: the receipt is its chain's head still, and gets its hash again.
    receipt.summary = f"Demo of a failure, on purpose ({what}). {receipt.summary}"[:500]
    receipt.save(update_fields=["summary"])
    receipt.refresh_from_db()
    return receipt


def backdate(receipt: Receipt, at: datetime) -> Receipt:
    receipt.created_at = at
    receipt.save(update_fields=["created_at"])
    return receipt


class Command(BaseCommand):
    help = "Create the demo user and ingest demo conversations (idempotent)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reset", action="store_true", help="delete the demo user's data and seed again"
        )
        parser.add_argument(
            "--no-login",
            action="store_true",
            help="do not print the demo login (`serve_demo` prints it after the server starts)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        username, password = settings.UME_DEMO_USERNAME, settings.UME_DEMO_PASSWORD
        users = get_user_model().objects
        user = users.filter(username=username).first()
        if user is not None and opts["reset"]:
            user.delete()
            user = None
        if user is not None and Receipt.objects.for_owner(user).exists():
            self.stdout.write(
                f"Demo data already present for {username!r} (use --reset to reseed)."
            )
            if not opts["no_login"]:
                self.print_login(username, password)
            return
        if user is None:
            user = users.create_superuser(username=username, password=password, email="")
        MemoryRule.objects.get_or_create(owner=user)
        self.seed(user)
        if not opts["no_login"]:
            self.print_login(username, password)

    def print_login(self, username: str, password: str) -> None:
        self.stdout.write(self.style.SUCCESS(demo_login_line(username, password)))

    def ingest_file(self, user: Any, name: str, at: datetime) -> Receipt:
        data = (DEMO_DIR / name).read_bytes()
        with clock(at):
            receipt = ingest_bytes(
                owner=user, data=data, name=name, source="upload", source_time=at
            )
        return backdate(receipt, at)

    def decide(self, user: Any, at: datetime) -> None:
        with clock(at):
            for label in PROMOTE:
                candidate = (
                    Candidate.objects.for_owner(user)
                    .filter(label_guess=label, status=CandidateStatus.PENDING)
                    .first()
                )
                if candidate is not None:
                    backdate_review(candidate_promote(candidate=candidate, by=user), at)
            for label in SUPPRESS:
                candidate = (
                    Candidate.objects.for_owner(user)
                    .filter(label_guess=label, status=CandidateStatus.PENDING)
                    .first()
                )
                if candidate is not None:
                    candidate_reject(candidate=candidate, by=user, suppress=True)
        reviews = Receipt.objects.for_owner(user).filter(source=Source.REVIEW)
        first = reviews.order_by("seq").values_list("seq", flat=True).first()
        reviews.update(created_at=at)
        if first is not None:
            chain_reseal(user, first)  # the demo's own fresh receipts, backdated

    def seed(self, user: Any) -> None:
        receipts: list[Receipt] = []
        for name, at in SCHEDULE[:3]:
            receipts.append(self.ingest_file(user, name, at))
        self.decide(user, SCHEDULE[2][1] + timedelta(hours=2))
        for name, at in SCHEDULE[3:]:
            receipts.append(self.ingest_file(user, name, at))

        # The same upload again: a duplicate, nothing written.
        receipts.append(
            self.ingest_file(user, SCHEDULE[1][0], SCHEDULE[5][1] + timedelta(minutes=5))
        )
        # An assistant's direct save through the API.
        at = datetime(2026, 11, 24, 7, 30, tzinfo=UTC)
        with clock(at):
            receipts.append(
                backdate(
                    ingest_memory(
                        owner=user, text="I started running on Sunday mornings.", source="api"
                    ),
                    at,
                )
            )
        # A photo uploaded by mistake: rejected input.
        at = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
        with clock(at):
            png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
            receipt = ingest_bytes(owner=user, data=png, name="holiday.png", source="upload")
            receipts.append(on_purpose(backdate(receipt, at), "a photo is not a transcript"))
        # The LLM extractor with its endpoint down: extractor failed, transcript kept for retry.
        at = datetime(2026, 11, 26, 16, 40, tzinfo=UTC)
        with (
            clock(at),
            override_settings(
                UME_LLM_BASE_URL="http://127.0.0.1:9/v1",
                UME_LLM_MODEL="local-model",
                UME_LLM_TIMEOUT=2.0,
            ),
        ):
            text = "User: I finished the Atlas tax report feature today.\n"
            receipt = ingest_text(
                owner=user, text=text, name="llm-chat.txt", source="upload", extractor="llm"
            )
            receipts.append(on_purpose(backdate(receipt, at), "the LLM endpoint is switched off"))
        # A database that refuses the write: rolled back, recorded afterwards.
        at = datetime(2026, 11, 28, 11, 5, tzinfo=UTC)
        with clock(at), fault("simulated for the demo: the database refused the write"):
            text = "User: I started a pottery class on Thursdays.\n"
            receipt = ingest_text(owner=user, text=text, name="pottery.txt", source="upload")
            receipts.append(on_purpose(backdate(receipt, at), "the database write is made to fail"))

        outcomes = sorted({r.outcome for r in receipts})
        nodes = Node.objects.for_owner(user).count()
        pending = Candidate.objects.for_owner(user).filter(status=CandidateStatus.PENDING).count()
        self.stdout.write(
            f"Seeded {len(receipts)} saves ({', '.join(outcomes)}), {nodes} memories, {pending} waiting for review."
        )


def backdate_review(node: Node, at: datetime) -> Node:
    Node.objects.filter(pk=node.pk).update(created_at=at, updated_at=at)
    return node


@contextmanager
def fault(message: str) -> Iterator[None]:
    """The apply's last step inside its transaction raises, after every write: the run rolls
    back and records ``db_write_failed`` as a real database failure would. Patched here, for
    the demo only, so the services carry no fault hook."""
    with mock.patch.object(ingest_module, "_complete", side_effect=DatabaseError(message)):
        yield
