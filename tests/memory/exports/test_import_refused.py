"""An export that cannot be imported gets a clear error and writes nothing else: one
``rejected_input`` receipt naming the line and why, no memory, no conversation, no history,
no record of the import (so the same file, once fixed, imports)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from pytest_django import Settings

from memory.exports.selectors import export_counts
from memory.exports.services import memory_import
from memory.models import ChatImport, Receipt
from memory.vocab import Outcome
from tests.factories import make_node, make_user
from tests.memory.exports.conftest import export_bytes

pytestmark = pytest.mark.django_db


def lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def joined(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def refused(user: Any, data: bytes, said: str) -> Receipt:
    """Import ``data`` for ``user``: refused with ``said``, and nothing but its receipt."""
    before = Receipt.objects.for_owner(user).count()
    result = memory_import(
        owner=user, stream=io.BytesIO(data), name="moved.jsonl", source="command"
    )
    assert not result.ok
    assert result.receipt is not None
    assert result.receipt.outcome == Outcome.REJECTED_INPUT
    assert said in result.receipt.error and "nothing was imported" in result.receipt.error
    counts = export_counts(user)
    assert {k: n for k, n in counts.items() if n and k != "receipt"} == {}, counts
    assert counts["receipt"] == before + 1
    assert not ChatImport.objects.for_owner(user).exists()
    return result.receipt


@pytest.fixture
def exported(owner: Any, rich: dict[str, Any]) -> bytes:
    return export_bytes("owner")


@pytest.fixture
def newcomer(db: None) -> Any:
    return make_user("newcomer")


def test_a_file_cut_short_writes_nothing(exported: bytes, newcomer: Any) -> None:
    refused(newcomer, exported[: exported.rindex(b'{"counts"')], "cut short")
    middle = exported.index(b"\n", len(exported) // 2) - 10  # inside a line
    refused(newcomer, exported[:middle], "is not a JSON object")


def test_a_file_of_another_version_writes_nothing(exported: bytes, newcomer: Any) -> None:
    rows = lines(exported)
    rows[0]["version"] = 2
    refused(newcomer, joined(rows), "version 2 of ume-export, written by a newer ume")


def test_a_file_over_the_limits_writes_nothing(
    exported: bytes, newcomer: Any, settings: Settings
) -> None:
    settings.UME_MAX_IMPORT_BYTES = len(exported) // 2
    refused(newcomer, exported, "over the limit")
    settings.UME_MAX_IMPORT_BYTES = 10**8
    settings.UME_MAX_TRANSCRIPT_BYTES = 1  # the longest line: 4 bytes and 1 MB of overhead
    rows = lines(exported)
    node = next(r for r in rows if r["type"] == "node")
    node["summary"] = "a very long summary " * 60_000
    refused(newcomer, joined(rows), "is over the limit of 1,048,580 bytes")


def test_another_persons_ids_resolve_to_nothing(
    exported: bytes, newcomer: Any, other_user: Any
) -> None:
    """A fact pointing at a node id the file does not hold is refused, even when that id is
    a real node of someone else here; so is a late row, after everything before it."""
    theirs = make_node(owner=other_user, label="Kayak")
    rows = lines(exported)
    fact = next(r for r in rows if r["type"] == "slice")
    fact["node"] = theirs.pk
    refused(newcomer, joined(rows), f"node {theirs.pk} is not a node of this file")
    rows = lines(exported)
    last = [r for r in rows if r["type"] == "evidence"][-1]
    last["candidate"] = 10**9
    refused(newcomer, joined(rows), "candidate 1000000000 is not a candidate of this file")
    assert export_counts(other_user)["node"] == 1


def test_rows_the_database_refuses_together_write_nothing(exported: bytes, newcomer: Any) -> None:
    """Two memories with one key (a file changed by hand): the database's rule, said."""
    rows = lines(exported)
    first = next(i for i, r in enumerate(rows) if r["type"] == "node")
    twin = {**rows[first], "id": 10**9}
    rows.insert(first + 1, twin)
    rows[-1]["counts"]["node"] += 1
    refused(newcomer, joined(rows), "breaks a rule of the database")


def test_the_same_id_twice_is_refused(exported: bytes, newcomer: Any) -> None:
    rows = lines(exported)
    nodes = [r for r in rows if r["type"] == "node"]
    nodes[1]["id"] = nodes[0]["id"]
    nodes[1]["canonical_key"] += " again"  # so the database would take both
    refused(newcomer, joined(rows), f"two nodes have the id {nodes[0]['id']}")


def test_a_memory_that_is_not_empty_takes_no_import(
    exported: bytes, newcomer: Any, tmp_path: Path
) -> None:
    make_node(owner=newcomer, label="Sourdough")
    path = tmp_path / "moved.jsonl"
    path.write_bytes(exported)
    out = io.StringIO()
    call_command("ingest", str(path), user="newcomer", json=True, stdout=out)
    [line] = [json.loads(x) for x in out.getvalue().splitlines()]
    assert line["outcome"] == Outcome.REJECTED_INPUT
    assert "already holds memories" in line["error"] and "delete all first" in line["error"]
    assert export_counts(newcomer)["node"] == 1
