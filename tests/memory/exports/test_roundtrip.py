"""Taking a memory away and back: exported, imported into another person (another ume, as
far as the file knows) or into the same person after "delete all", and exported again, every
row compares equal, ids aside; the receipts chain verifies; suppressions still bind; the same
file twice is one ``duplicate``. Run on SQLite and on PostgreSQL (``DATABASE_URL``)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from memory.exports.selectors import export_counts
from memory.models import Candidate, ChatImport, Node, Receipt, Suppression
from memory.services.erase import EraseError, memory_erase_all, receipt_undo
from memory.services.ingest import ingest_text
from memory.services.receipt_chain import chain_verify
from memory.vocab import CandidateStatus, Outcome, RejectReason
from tests.factories import make_node, make_user
from tests.memory.exports.conftest import export_bytes
from tests.memory.exports.roundtrip import differences, parse

pytestmark = pytest.mark.django_db


def ingest_file(path: Path, username: str) -> list[dict[str, Any]]:
    out = io.StringIO()
    call_command("ingest", str(path), user=username, json=True, stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def saved(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "ume-export-owner.jsonl"
    path.write_bytes(data)
    return path


def test_imported_into_another_person_every_row_comes_back_the_same(
    owner: Any, other_user: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    before = export_bytes("owner")
    [line] = ingest_file(saved(tmp_path, before), "other")
    assert line["outcome"] == Outcome.WROTE, line
    after = export_bytes("other")
    assert differences(before, after) == []
    head, rows, _end = parse(after)
    # Everything came (one receipt more: the import's own), and each kind has rows to compare.
    expected = {kind: n for kind, n in parse(before)[0]["counts"].items()}
    expected["receipt"] += 1
    assert head["counts"] == expected
    assert all(head["counts"][kind] for kind in head["counts"])
    assert chain_verify(other_user).intact
    imported = Receipt.objects.for_owner(other_user).exclude(origin_hash="")
    assert imported.count() == expected["receipt"] - 1
    mine = Receipt.objects.for_owner(other_user).get(pk=line["receipt_id"])
    assert mine.detail["receipts"]["old_chain"]["intact"] is True
    assert mine.detail["receipts"]["imported"] == imported.count()
    # the history of the deleted node came too, never mistaken for a live node's
    deleted = [r for r in rows["revision"] if r["action"] == "deleted"]
    assert deleted and all(r["object"] < 0 for r in deleted if r["kind"] == "node")


def test_an_imported_guess_is_folded_as_this_version_folds(
    owner: Any, other_user: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    """A file written before a fold rule changed carries the fold key of its day; the import
    folds the key again, so a guess said later in the other spelling joins the imported one."""
    card = Candidate.objects.for_owner(owner).filter(status=CandidateStatus.PENDING).first()
    assert card is not None
    Candidate.objects.filter(pk=card.pk).update(
        label_guess="Colour Theory Society",
        canonical_key="colour theory society",
        fold_key="colour theory society",
    )
    [line] = ingest_file(saved(tmp_path, export_bytes("owner")), "other")
    assert line["outcome"] == Outcome.WROTE, line
    imported = Candidate.objects.for_owner(other_user).get(label_guess="Colour Theory Society")
    assert imported.fold_key == "color theory society"


def test_after_delete_all_the_same_person_gets_everything_back_once(
    owner: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    before = export_bytes("owner")
    suppressions = Suppression.objects.for_owner(owner).count()
    memory_erase_all(owner=owner, keep_suppressions=True)
    assert export_counts(owner)["node"] == 0
    [line] = ingest_file(saved(tmp_path, before), "owner")
    assert line["outcome"] == Outcome.WROTE, line
    after = export_bytes("owner")
    assert differences(before, after) == []
    # kept by "delete all", and not added twice by the import
    assert Suppression.objects.for_owner(owner).count() == suppressions
    receipt = Receipt.objects.for_owner(owner).get(pk=line["receipt_id"])
    assert receipt.detail["suppressions_already_here"] == suppressions
    report = chain_verify(owner)
    assert report.intact, report.as_json()


def test_a_second_import_of_the_same_file_is_one_duplicate_receipt(
    owner: Any, other_user: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    path = saved(tmp_path, export_bytes("owner"))
    ingest_file(path, "other")
    counts = export_counts(other_user)
    receipts = Receipt.objects.for_owner(other_user).count()
    [again] = ingest_file(path, "other")
    assert again["outcome"] == Outcome.DUPLICATE
    assert Receipt.objects.for_owner(other_user).count() == receipts + 1
    assert {k: v for k, v in export_counts(other_user).items() if k != "receipt"} == {
        k: v for k, v in counts.items() if k != "receipt"
    }
    assert ChatImport.objects.for_owner(other_user).count() == 1


def test_suppressions_keep_binding_after_the_import(
    owner: Any, other_user: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    """The person rejected "green tea" for ever before moving: the new ume refuses it too."""
    assert rich["suppressed"].label == "Green Tea"
    ingest_file(saved(tmp_path, export_bytes("owner")), "other")
    said = "User: I prefer green tea with honey these days.\n"
    receipt = ingest_text(owner=other_user, text=said, name="later.txt")
    assert receipt.reasons.get(RejectReason.SUPPRESSED_BLOCKED, 0) >= 1, receipt.reasons
    assert (
        not Candidate.objects.for_owner(other_user)
        .filter(canonical_key="green tea", status=CandidateStatus.PENDING)
        .exists()
    )
    # Someone who imported nothing gets the guess: the refusal is the imported suppression.
    fresh = make_user("fresh")
    control = ingest_text(owner=fresh, text=said, name="later.txt")
    assert RejectReason.SUPPRESSED_BLOCKED not in control.reasons
    assert Candidate.objects.for_owner(fresh).filter(canonical_key="green tea").exists()


def test_imported_receipts_are_records_and_cannot_be_undone_here(
    owner: Any, other_user: Any, rich: dict[str, Any], tmp_path: Path
) -> None:
    [line] = ingest_file(saved(tmp_path, export_bytes("owner")), "other")
    old_save = (
        Receipt.objects.for_owner(other_user)
        .exclude(origin_hash="")
        .filter(subject__startswith="session-")
        .first()
    )
    assert old_save is not None
    with pytest.raises(EraseError, match="imported with a ume export"):
        receipt_undo(receipt=old_save)
    with pytest.raises(EraseError, match="imported a whole memory"):
        receipt_undo(receipt=Receipt.objects.for_owner(other_user).get(pk=line["receipt_id"]))


def test_an_export_holds_only_its_owners_rows(
    owner: Any, other_user: Any, rich: dict[str, Any]
) -> None:
    theirs = make_node(owner=other_user, label="Zanzibar Sailing Trip", category="goal")
    ingest_text(owner=other_user, text="User: I started learning Esperanto.\n", name="t.txt")
    data = export_bytes("owner")
    assert b"Zanzibar" not in data and b"Esperanto" not in data
    head, rows, _end = parse(data)
    assert theirs.pk not in {r["id"] for r in rows["node"]}
    assert head["counts"] == export_counts(owner)
    assert head["owner"] == "owner"


def test_an_imported_receipt_names_what_it_did_and_links_only_to_memories_here(
    owner: Any, other_user: Any, rich: dict[str, Any], tmp_path: Path, client: Client
) -> None:
    """Its detail lists the old ume's ids: never turned into links to whatever has that id."""
    ingest_file(saved(tmp_path, export_bytes("owner")), "other")
    promote = (
        Receipt.objects.for_owner(other_user).exclude(origin_hash="").get(subject="promote: Cello")
    )
    client.force_login(other_user)
    for url in (f"/saves/{promote.pk}/", "/saves/"):
        page = client.get(url).content.decode()
        assert "Imported with a ume export" in page
        linked = {int(n) for n in re.findall(r'href="/memory/nodes/(\d+)/"', page)}
        mine = set(Node.objects.for_owner(other_user).values_list("pk", flat=True))
        assert linked <= mine, (url, linked - mine)
    assert "Cello" in client.get(f"/saves/{promote.pk}/").content.decode()
