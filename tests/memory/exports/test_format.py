"""ume's export format, version 1 (docs/export.md): what it holds of each model, and how a
reader refuses a file that is not one, line by line. Pure: no database."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import models

from memory import receipt_chain
from memory.exports.format import (
    BY_TYPE,
    END,
    HEADER,
    ORDER,
    SECTIONS,
    ExportFormatError,
    ExportReader,
    OldChain,
    dumps,
    end,
    header,
)
from memory.exports.selectors import MODELS

#: What a file does not carry, and why (docs/export.md, "What stays behind").
LEFT_BEHIND = {
    "owner": "the person importing it owns every row",
    "token": "tokens are credentials: they stay with the ume that issued them",
    "chat_import": "the bookkeeping of a chat import, not memory (its conversations come)",
    "reviewed_by": "carried as reviewed_by_owner: a file can name no other account",
    "vector": "a suppression's meaning: the local model's vector of its name, made again "
    "from its names when it is read (memory.tombstones.tombstone)",
    "vector_model": "the model of that vector",
}
#: Columns kept elsewhere in the file: a receipt's chain fields sit in its ``chain`` group.
IN_CHAIN = {"seq", "prev_hash", "content_hash", "origin_hash"}


def _columns(model: type[models.Model]) -> set[str]:
    return {f.name for f in model._meta.concrete_fields if f.name != "id"}


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.type)
def test_every_column_of_every_exported_model_is_in_the_file(section: Any) -> None:
    """Nothing is lost silently: a column added to a model later fails here until the
    format carries it or says why not."""
    carried = {f.name if f.kind == "ref" else f.source for f in section.fields}
    if section.type == "receipt":
        carried |= IN_CHAIN
    missing = _columns(MODELS[section.type]) - carried - set(LEFT_BEHIND)
    assert missing == set()


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.type)
def test_the_limits_of_the_file_are_the_columns_limits(section: Any) -> None:
    model = MODELS[section.type]
    for f in section.fields:
        if f.kind in ("group", "number") or f.name == "reviewed_by_owner":
            continue
        column = model._meta.get_field(f.name if f.kind == "ref" else f.source)
        assert isinstance(column, models.Field), (section.type, f.name)
        assert f.null == column.null, (section.type, f.name)
        if f.kind == "str":
            assert f.max_length == column.max_length, (section.type, f.name)


def test_a_reference_points_at_an_earlier_section_and_no_key_is_taken_twice() -> None:
    for section in SECTIONS:
        names = [f.name for f in section.fields]
        assert "type" not in names and "id" not in names, section.type
        for f in section.fields:
            if f.kind == "ref":
                assert ORDER[f.target] < ORDER[section.type], (section.type, f.name)


# --- reading ----------------------------------------------------------------------------

MOMENT = datetime(2025, 3, 2, 9, 30, tzinfo=UTC)


def node(row_id: int = 7, **changes: Any) -> dict[str, Any]:
    row = {
        "type": "node",
        "id": row_id,
        "label": "Cello",
        "canonical_key": "cello",
        "category": "skill",
        "state": "active",
        "summary": "",
        "origin": "promoted",
        "mention_count": 2,
        "session_count": 1,
        "last_seen_at": MOMENT.isoformat(),
        "created_receipt": None,
        "created_at": MOMENT.isoformat(),
        "updated_at": MOMENT.isoformat(),
        "revision": 1,
    }
    row.update(changes)
    return row


def alias(node_id: int = 7) -> dict[str, Any]:
    return {
        "type": "alias",
        "id": 3,
        "node": node_id,
        "alias": "my instrument",
        "canonical_key": "my instrument",
        "created_at": MOMENT.isoformat(),
        "revision": 1,
    }


def file(*rows: dict[str, Any], head: dict[str, Any] | None = None, last: Any = True) -> bytes:
    counts = {s.type: 0 for s in SECTIONS}
    for row in rows:
        counts[row["type"]] = counts.get(row["type"], 0) + 1
    lines = [dumps(head or header(owner="ana", counts=counts, exported_at=MOMENT))]
    lines += [dumps(row) for row in rows]
    if last is True:
        lines.append(dumps(end(counts)))
    elif last:
        lines.append(dumps(last))
    return b"".join(lines)


def read(data: bytes, *, max_bytes: int = 10**7, max_line_bytes: int = 10**6) -> list[Any]:
    reader = ExportReader(io.BytesIO(data), max_bytes=max_bytes, max_line_bytes=max_line_bytes)
    return [(section.type, row) for section, row in reader.rows()]


def test_a_file_reads_back_as_it_was_written() -> None:
    rows = read(file(node(), alias()))
    assert [kind for kind, _row in rows] == ["node", "alias"]
    kind, first = rows[0]
    assert first["label"] == "Cello" and first["created_at"] == MOMENT
    assert rows[1][1]["node"] == 7  # a reference stays the file's id


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"", "the file is empty"),
        (b'{"role": "user", "content": "hi"}\n', "not the header"),
        (file(node(), last=False), "cut short"),
        (file(node())[:-30], "line 3 is not a JSON object"),
        (file(node(), last={"type": END, "counts": {"node": 2}}), "rows were lost or added"),
        (file(node(), head={"type": HEADER, "format": "ume-export", "version": 2}), "newer ume"),
        (file(node(), head={"type": HEADER, "format": "ume-export", "version": "1"}), "version"),
        (file(node(mood="fine")), "keys unknown mood"),
        (file({k: v for k, v in node().items() if k != "label"}), "keys missing label"),
        (file(node(category="hobby")), "category 'hobby' is not one of person"),
        (file(node(label="x" * 201)), "label is over 200 characters"),
        (file(node(label="Cel\x00lo")), "NUL"),
        (file(node(canonical_key="")), "canonical_key is empty"),
        (file(node(mention_count=-1)), "mention_count -1 is out of range"),
        (file(node(mention_count=True)), "mention_count must be a whole number"),
        (file(node(created_at="last Tuesday")), "created_at is not an ISO 8601 time"),
        (file(node(created_at="2025-03-02T09:30:00")), "with its offset"),
        (file(alias(), node()), "a node row after the alias rows"),
        (file(node(), {"type": "memory", "id": 1}), "unknown row type 'memory'"),
        (file(node()) + b'{"type": "node"}\n', "lines after the end line"),
        (file(node()).replace(b'"mention_count":2', b'"mention_count":NaN'), "not a JSON"),
        (b"\xff\xfe" + file(node()), "not UTF-8"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_file_that_is_not_an_export_is_refused_naming_the_line(data: bytes, said: str) -> None:
    with pytest.raises(ExportFormatError, match=said.replace("(", r"\(")):
        read(data)


def test_hostile_sizes_are_refused_by_the_file_and_by_the_line() -> None:
    data = file(node(summary="long " * 50_000))
    with pytest.raises(ExportFormatError, match="over the limit of 100,000 bytes"):
        read(data, max_bytes=100_000)
    with pytest.raises(ExportFormatError, match="line 2 is over the limit of 1,000 bytes"):
        read(data, max_line_bytes=1_000)


def test_a_link_to_itself_and_a_date_without_precision_are_refused() -> None:
    edge = {
        "type": "edge",
        "id": 1,
        "from_node": 7,
        "to_node": 7,
        "relation": "uses",
        "label": "",
        "created_receipt": None,
        "created_at": MOMENT.isoformat(),
        "revision": 1,
    }
    with pytest.raises(ExportFormatError, match="from a node to itself"):
        read(file(node(), edge))


# --- the chain the receipts came from ----------------------------------------------------


def receipt(seq: int, prev: str, **changes: Any) -> dict[str, Any]:
    content = {
        "source": "command",
        "outcome": "wrote",
        "extractor": "rules",
        "subject": f"save {seq}",
        "counts": {"nodes": 1},
        "rejected": [],
        "reasons": {},
        "detail": {"created": {"nodes": [seq]}},
        "summary": "",
        "error": "",
        "duration_ms": 5,
        "created_at": MOMENT,
    }
    values = {**content, "owner_id": 41, "token_id": None}
    digest = receipt_chain.digest(values)
    content.update(changes)
    chain = {
        "seq": seq,
        "prev_hash": prev,
        "content_hash": receipt_chain.link(prev, seq, digest),
        "origin_hash": "",
        "owner_id": 41,
        "token_id": None,
    }
    return {**content, "undone_at": None, "chain": chain}


def test_the_old_chain_verifies_from_the_file_and_an_edit_shows() -> None:
    chain = OldChain()
    first = receipt(1, "")
    second = receipt(2, first["chain"]["content_hash"])
    fourth = receipt(4, "a" * 64)  # the third was deleted there: a gap, not a break
    for row in (first, second, fourth):
        chain.add(row)
    assert chain.as_json()["intact"] and (chain.gaps, chain.last_seq) == (1, 4)
    edited = OldChain()
    edited.add(first)
    edited.add(receipt(2, first["chain"]["content_hash"], summary="changed afterwards"))
    assert (edited.problem, edited.problem_seq) == ("content changed", 2)
    unlinked = OldChain()
    unlinked.add(first)
    unlinked.add(receipt(2, "b" * 64))
    assert (unlinked.problem, unlinked.problem_seq) == ("reordered", 2)


def test_an_imported_receipts_origin_is_hashed_and_a_receipt_made_here_hashes_as_before() -> None:
    values = {name: None for name in receipt_chain.HASHED} | {"created_at": MOMENT}
    plain = receipt_chain.digest(values)
    assert receipt_chain.digest({**values, receipt_chain.ORIGIN: ""}) == plain
    assert receipt_chain.digest({**values, receipt_chain.ORIGIN: "c" * 64}) != plain


def test_sections_are_named_as_the_file_names_them() -> None:
    first_line = json.loads(file(node()).splitlines()[0])
    assert first_line["format"] == "ume-export" and first_line["version"] == 1
    assert set(first_line["counts"]) == set(BY_TYPE)
