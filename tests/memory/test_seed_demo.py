"""The README's first command: a demo user whose queue and Saves page have real content."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.db import connection, connections
from pytest_django import Settings

from memory.models import Candidate, Event, Node, Receipt, Suppression, Transcript
from memory.services.ingest import ingest_pending, transcript_store
from memory.services.receipt_chain import chain_verify
from tests.factories import make_user


@pytest.mark.django_db
def test_seed_demo_fills_every_outcome_and_is_idempotent(
    capsys: pytest.CaptureFixture[str], settings: Settings
) -> None:
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "Demo login: username 'demo', password 'demo-memory-2026'" in out
    user = authenticate(username="demo", password="demo-memory-2026")
    assert user is not None and user.is_staff
    outcomes = set(Receipt.objects.for_owner(user).values_list("outcome", flat=True))
    assert outcomes >= {
        "wrote",
        "meaningful_no_write",
        "llm_failed",
        "db_write_failed",
        "duplicate",
        "rejected_input",
    }
    # The failures the demo causes on purpose say so, and only those.
    failed = Receipt.objects.for_owner(user).filter(
        outcome__in=["llm_failed", "db_write_failed", "rejected_input"]
    )
    assert failed.count() == 3
    for receipt in failed:
        assert receipt.summary.startswith("Demo of a failure, on purpose (")
    assert (
        not Receipt.objects.for_owner(user)
        .filter(outcome="wrote", summary__contains="Demo")
        .exists()
    )
    assert "also the admin" in out
    days = {r.created_at.date() for r in Receipt.objects.for_owner(user)}
    assert len(days) >= 7  # a few weeks of conversations, not one burst
    assert Candidate.objects.for_owner(user).filter(status="pending").count() >= 5
    assert Node.objects.for_owner(user).filter(origin="promoted").count() >= 5
    assert Suppression.objects.for_owner(user).exists()
    boxing = Node.objects.for_owner(user).get(label="Boxing")
    assert boxing.events.filter(happened_at__isnull=False).exists()
    assert Event.objects.for_owner(user).filter(happened_at__isnull=True).exists()
    # Backdated and relabelled as it goes, and its receipts chain still whole.
    assert chain_verify(user).intact

    before = (Receipt.objects.count(), Node.objects.count(), Candidate.objects.count())
    call_command("seed_demo")
    assert "already present" in capsys.readouterr().out
    assert (Receipt.objects.count(), Node.objects.count(), Candidate.objects.count()) == before

    call_command("seed_demo", reset=True)
    assert Receipt.objects.count() == before[0]
    user = authenticate(username="demo", password="demo-memory-2026")
    assert user is not None and chain_verify(user).intact


@pytest.mark.django_db(transaction=True)
def test_pending_workers_in_parallel_process_each_upload_once() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs row locks with SKIP LOCKED across connections: runs on PostgreSQL")
    owner = make_user("uploader")
    for n in range(12):
        transcript_store(
            owner=owner,
            text=f"User: I started project Number{n} last week.\n",
            name=f"t{n}.txt",
            source="upload",
            source_time=None,
        )
    results: list[list[Receipt]] = [[], []]
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = ingest_pending(limit=50)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    handled = [r.subject for batch in results for r in batch]
    assert sorted(handled) == sorted(f"t{n}.txt" for n in range(12))
    assert set(Transcript.objects.values_list("status", flat=True)) == {"done"}
    assert not any(r.outcome == "duplicate" for batch in results for r in batch)


def test_serve_demo_prints_the_login_after_the_servers_start_up_lines(settings: Settings) -> None:
    import io

    from memory.management.commands.serve_demo import Command

    out = io.StringIO()
    command = Command(stdout=out)
    # django-stubs' runserver.Command declares no addr, port or _raw_ipv6 (handle() sets them)
    command.addr, command.port, command._raw_ipv6, command.protocol = (  # type: ignore[attr-defined]
        "127.0.0.1",
        "8000",
        False,
        "http",
    )
    command.on_bind("8000")
    text = out.getvalue()
    assert "Starting development server at http://127.0.0.1:8000/" in text
    assert text.index("Quit the server") < text.index("Demo login: username 'demo'")
    assert text.rstrip().splitlines()[-1].startswith("Demo login")


@pytest.mark.django_db
def test_seed_demo_can_leave_the_login_to_the_server(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("seed_demo", no_login=True)
    assert "Demo login" not in capsys.readouterr().out
