"""ume's export format, version 1: one JSON object per line (docs/export.md). Pure: no
database.

A file is a ``header`` line, then the person's rows section by section in :data:`SECTIONS`
order (rules, suppressions, receipts, transcripts, episodes, nodes, aliases, slices, events,
edges, pages, candidates, evidence, revisions), then an ``end`` line that counts them. Every
row has a ``type`` and an ``id``: the row's id in the ume that wrote the file, meaningful only
inside it. A reference (``"node": 12``) names a row of an earlier section by that id, so a
reader resolves every reference with the rows it has already read; a reference to an id the
file does not define is an error, never a look-up in the database. Keys are sorted, times
are ISO 8601 in UTC with microseconds, text is UTF-8.

:class:`Section` describes each kind of row field by field; the exporter
(:mod:`memory.exports.selectors`) writes rows from it and :class:`ExportReader` checks every
line against it, so what is written is exactly what is read back. A row with a key missing,
an unknown key, a value of the wrong kind, too long or outside its choices, a section out of
order, a second header, no ``end`` line (a file cut short) or counts that do not match is an
:class:`ExportFormatError` naming the line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any

from memory import receipt_chain
from memory.vocab import (
    CandidateStatus,
    CaptureDefault,
    Category,
    EdgeType,
    EventAction,
    Importance,
    NodeOrigin,
    NodeState,
    Outcome,
    RevisionAction,
    RevisionActor,
    RevisionKind,
    SliceKind,
    Source,
    SuppressionKind,
    SuppressionReason,
    TimePrecision,
    TimeSource,
    TranscriptStatus,
)

FORMAT = "ume-export"
VERSION = 1
MEDIA_TYPE = "application/x-ndjson"
HEADER, END = "header", "end"

POSITIVE = 2**31 - 1  # PositiveIntegerField's ceiling on every backend
BIG = 2**63 - 1


class ExportFormatError(ValueError):
    """The file is not an export this ume can import; the message says where and why."""


@dataclass(frozen=True)
class Field:
    """One key of a row: its kind (``str``, ``text``, ``int``, ``float``, ``bool``, ``time``,
    ``enum``, ``list``, ``dict``, ``ref``, ``number``, ``group``), the column it is read from,
    and its limits. A ``ref`` names a row of section ``target``; a ``number`` is a plain id
    that may name a row of the file (a revision's object); a ``group`` nests ``fields``."""

    name: str
    kind: str
    column: str = ""
    null: bool = False
    max_length: int = 0
    nonempty: bool = False
    choices: tuple[str, ...] = ()
    minimum: float = 0
    maximum: float = POSITIVE
    target: str = ""
    fields: tuple[Field, ...] = ()

    @property
    def source(self) -> str:
        return self.column or self.name


def _str(name: str, max_length: int, **kw: Any) -> Field:
    return Field(name, "str", max_length=max_length, **kw)


def _enum(name: str, choices: Any, *, blank: bool = False, **kw: Any) -> Field:
    values = tuple(choices.values) + (("",) if blank else ())
    return Field(name, "enum", choices=values, **kw)


def _time(name: str, *, null: bool = False) -> Field:
    return Field(name, "time", null=null)


def _int(name: str, *, null: bool = False, maximum: float = POSITIVE, **kw: Any) -> Field:
    return Field(name, "int", null=null, maximum=maximum, **kw)


def _ref(name: str, target: str, *, null: bool = False) -> Field:
    return Field(name, "ref", column=f"{name}_id", null=null, target=target)


@dataclass(frozen=True)
class Section:
    """One kind of row: its ``type``, the plural its counts use, and its keys (``id`` first)."""

    type: str
    plural: str
    fields: tuple[Field, ...]

    def keys(self) -> frozenset[str]:
        return frozenset({"type", "id", *(f.name for f in self.fields)})


ID = Field("id", "int", maximum=BIG, minimum=-BIG)
RECEIPT_REF = _ref("created_receipt", "receipt", null=True)

SECTIONS: tuple[Section, ...] = (
    Section(
        "rules",
        "rules",
        (
            Field("custom_instructions", "text"),
            Field("includes", "list"),
            Field("excludes", "list"),
            Field("custom_categories", "list"),
            _enum("capture_default", CaptureDefault),
            Field("auto_collect", "bool"),
            _int("retention_days", null=True),
            Field("episodes", "bool"),
            _time("created_at"),
            _time("updated_at"),
        ),
    ),
    Section(
        "suppression",
        "suppressions",
        (
            _enum("kind", SuppressionKind),
            _str("canonical_key", 200, nonempty=True),
            _str("core_key", 200),
            _str("label", 200),
            _enum("reason", SuppressionReason),
            _str("source", 64),
            _time("created_at"),
            _time("suppressed_until", null=True),
            _time("lifted_at", null=True),
            _int("hit_count"),
            _time("last_hit_at", null=True),
            # What identifies the forgotten thing beside its key (memory.tombstones.sign), and
            # the names a person kept although they look like it.
            Field("signature", "dict"),
            Field("exceptions", "list"),
        ),
    ),
    Section(
        "receipt",
        "receipts",
        (
            _enum("source", Source),
            _enum("outcome", Outcome),
            _str("extractor", 16),
            _str("subject", 255),
            Field("counts", "dict"),
            Field("rejected", "list"),
            Field("reasons", "dict"),
            Field("detail", "dict"),
            _str("summary", 500),
            Field("error", "text"),
            _int("duration_ms"),
            _time("undone_at", null=True),
            _time("created_at"),
            # Its place in the chain of the ume that wrote the file, and what that chain hashed
            # besides the content above (docs/export.md, "Receipts").
            Field(
                "chain",
                "group",
                fields=(
                    _int("seq", null=True, maximum=BIG),
                    _str("prev_hash", 64),
                    _str("content_hash", 64),
                    _str("origin_hash", 64),
                    _int("owner_id", maximum=BIG),
                    _int("token_id", null=True, maximum=BIG),
                ),
            ),
        ),
    ),
    Section(
        "transcript",
        "transcripts",
        (
            _str("name", 255),
            Field("text", "text"),
            _str("sha256", 64),
            _str("source", 16),
            _time("source_time", null=True),
            _enum("status", TranscriptStatus),
            Field("error", "text"),
            _int("size_bytes"),
            _int("attempts"),
            _ref("receipt", "receipt", null=True),
            _time("created_at"),
            _time("claimed_at", null=True),
            _time("processed_at", null=True),
            Field("inline", "bool"),
            _str("conversation_key", 120),
        ),
    ),
    Section(
        "episode",
        "episodes",
        (
            _ref("transcript", "transcript"),
            _str("message_id", 80),
            _int("seq"),
            _str("role", 16),
            Field("text", "text"),
            _time("said_at"),
            _time("learned_at"),
        ),
    ),
    Section(
        "node",
        "nodes",
        (
            _str("label", 200),
            _str("canonical_key", 200, nonempty=True),
            _enum("category", Category),
            _enum("state", NodeState),
            Field("summary", "text"),
            _enum("origin", NodeOrigin),
            _int("mention_count"),
            _int("session_count"),
            _time("last_seen_at"),
            RECEIPT_REF,
            _time("created_at"),
            _time("updated_at"),
            _int("revision"),
        ),
    ),
    Section(
        "alias",
        "aliases",
        (
            _ref("node", "node"),
            _str("alias", 200),
            _str("canonical_key", 200, nonempty=True),
            _time("created_at"),
            _int("revision"),
        ),
    ),
    Section(
        "slice",
        "slices",
        (
            _ref("node", "node"),
            Field("text", "text"),
            _enum("kind", SliceKind),
            Field("is_current", "bool"),
            _time("superseded_at", null=True),
            RECEIPT_REF,
            _time("created_at"),
            _int("revision"),
        ),
    ),
    Section(
        "event",
        "events",
        (
            _ref("node", "node"),
            _enum("action", EventAction),
            Field("text", "text"),
            _enum("importance", Importance),
            _time("happened_at", null=True),
            _enum("happened_at_precision", TimePrecision, blank=True),
            _enum("happened_at_source", TimeSource),
            RECEIPT_REF,
            _time("created_at"),
            _int("revision"),
        ),
    ),
    Section(
        "edge",
        "edges",
        (
            _ref("from_node", "node"),
            _ref("to_node", "node"),
            # ``type`` names the row's kind in every line: the link's type is its relation.
            _enum("relation", EdgeType, column="type"),
            _str("label", 64),
            RECEIPT_REF,
            _time("created_at"),
            _int("revision"),
        ),
    ),
    Section(
        "page",
        "pages",
        (
            _str("title", 200),
            _str("canonical_key", 200),
            _str("topic", 200),
            Field("summary", "text"),
            Field("body", "text"),
            _ref("node", "node", null=True),
            RECEIPT_REF,
            _time("created_at"),
            _time("updated_at"),
            _int("revision"),
        ),
    ),
    Section(
        "candidate",
        "candidates",
        (
            _str("label_guess", 200),
            _str("canonical_key", 200, nonempty=True),
            _str("fold_key", 200),
            _enum("category_guess", Category),
            Field("confidence", "float", maximum=1),
            _enum("status", CandidateStatus),
            _str("reason", 64),
            _time("first_seen_at"),
            _time("last_seen_at"),
            _int("mention_count"),
            _int("session_count"),
            Field("held_objects", "list"),
            _ref("possible_existing_node", "node", null=True),
            _time("expires_at", null=True),
            _time("reviewed_at", null=True),
            # Whether the person themself decided it (the only reviewer a file can name).
            Field("reviewed_by_owner", "bool"),
            _ref("promoted_node", "node", null=True),
            RECEIPT_REF,
            _time("created_at"),
            # When it was said (the messages' own times) and its value on the queue.
            _time("first_said_at", null=True),
            _time("last_said_at", null=True),
            Field("value", "float"),
            # The cleanup run that expired it, and when a person brought it back.
            _ref("expired_receipt", "receipt", null=True),
            _time("restored_at", null=True),
            # Held: the suppression it looks like, while that suppression is in force.
            _ref("resembles", "suppression", null=True),
            _str("held_why", 200),
        ),
    ),
    Section(
        "evidence",
        "evidence",
        (
            _ref("transcript", "transcript", null=True),
            _ref("receipt", "receipt", null=True),
            _str("source", 16),
            _str("message_id", 64),
            _time("message_ts", null=True),
            Field("quote", "text"),
            _ref("node", "node", null=True),
            _ref("slice", "slice", null=True),
            _ref("event", "event", null=True),
            _ref("edge", "edge", null=True),
            _ref("candidate", "candidate", null=True),
            _time("created_at"),
        ),
    ),
    Section(
        "revision",
        "revisions",
        (
            _enum("kind", RevisionKind),
            # The object and its node, by their ids in the file's ume: a row of the file when
            # it still existed, else an object deleted before the export (docs/export.md).
            Field("object", "number", column="object_id", minimum=-BIG, maximum=BIG),
            Field("node", "number", column="node_id", null=True, minimum=-BIG, maximum=BIG),
            _int("number"),
            _int("parent", null=True),
            _enum("action", RevisionAction),
            _enum("actor", RevisionActor),
            _str("actor_name", 150),
            _ref("receipt", "receipt", null=True),
            _str("reason", 255),
            Field("snapshot", "dict"),
            _time("created_at"),
        ),
    ),
)

BY_TYPE: dict[str, Section] = {s.type: s for s in SECTIONS}
ORDER: dict[str, int] = {s.type: i for i, s in enumerate(SECTIONS)}
#: The snapshot keys of a revision that name a node (``memory.services.history.FIELDS``).
SNAPSHOT_NODE_KEYS = ("node_id", "from_node_id", "to_node_id")


def columns(section: Section) -> list[str]:
    """The columns a row of ``section`` is written from, in :meth:`encode` order."""
    out = ["id"]
    for f in section.fields:
        out.extend(sub.source for sub in f.fields) if f.kind == "group" else out.append(f.source)
    return out


def instant(value: datetime) -> str:
    """A time as the file writes it: ISO 8601, UTC, microseconds."""
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def _out(f: Field, value: Any) -> Any:
    if f.kind == "time" and value is not None:
        return instant(value)
    if f.kind == "bool":
        return bool(value)
    return value


def encode(section: Section, values: Sequence[Any]) -> dict[str, Any]:
    """One row of ``section`` from the values of :func:`columns`, as the file holds it."""
    it = iter(values)
    row: dict[str, Any] = {"type": section.type, "id": next(it)}
    for f in section.fields:
        if f.kind == "group":
            row[f.name] = {sub.name: _out(sub, next(it)) for sub in f.fields}
        else:
            row[f.name] = _out(f, next(it))
    return row


def dumps(row: Mapping[str, Any]) -> bytes:
    """One line of the file: compact JSON, keys sorted (the same bytes from any backend)."""
    text = json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


def header(*, owner: str, counts: Mapping[str, int], exported_at: datetime) -> dict[str, Any]:
    return {
        "type": HEADER,
        "format": FORMAT,
        "version": VERSION,
        "exported_at": instant(exported_at),
        "owner": owner,
        "counts": dict(counts),
    }


def end(counts: Mapping[str, int]) -> dict[str, Any]:
    return {"type": END, "counts": dict(counts), "rows": sum(counts.values())}


def is_header(item: Any) -> bool:
    """Whether ``item`` (a file's first line, decoded) is the header of ume's export."""
    return isinstance(item, dict) and item.get("type") == HEADER and item.get("format") == FORMAT


def announced_rows(stream: IO[bytes]) -> int:
    """How many rows the header of the export in ``stream`` announces (for a progress bar;
    0 when it cannot be read). Reads the first line at most, and rewinds."""
    start = stream.tell()
    try:
        item = json.loads(stream.readline(1024 * 1024))
        counts = item.get("counts") if is_header(item) else None
        return (
            sum(n for n in counts.values() if isinstance(n, int)) if isinstance(counts, dict) else 0
        )
    except (ValueError, UnicodeDecodeError, RecursionError):
        return 0
    finally:
        stream.seek(start)


# --- reading -------------------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number ume stores")


@dataclass
class ExportReader:
    """The rows of an export read from a binary stream, one line at a time, each checked
    against its :class:`Section`: ``(section, row)`` with times as datetimes. Holds one line.

    ``max_bytes`` bounds the file, ``max_line_bytes`` each line. ``header`` is the file's
    header once :meth:`rows` has started; ``counts`` what has been read so far."""

    stream: IO[bytes]
    max_bytes: int
    max_line_bytes: int
    header: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    line: int = 0
    line_bytes: int = 0  # the length of the last line read
    size: int = 0

    def _lines(self) -> Iterator[Any]:
        while True:
            raw = self.stream.readline(self.max_line_bytes + 1)
            if not raw:
                return
            self.line += 1
            self.line_bytes = len(raw)
            self.size += len(raw)
            if self.size > self.max_bytes:
                raise ExportFormatError(f"the file is over the limit of {self.max_bytes:,} bytes")
            if len(raw) > self.max_line_bytes:
                raise ExportFormatError(
                    f"line {self.line} is over the limit of {self.max_line_bytes:,} bytes"
                )
            yield _decode_line(raw, self.line)

    def rows(self) -> Iterator[tuple[Section, dict[str, Any]]]:
        lines = self._lines()
        self.header = check_header(next(lines, None))
        self.counts = {s.type: 0 for s in SECTIONS}
        last = -1
        for item in lines:
            kind = item.get("type")
            if kind == END:
                self._end(item, lines)
                return
            section = BY_TYPE.get(kind) if isinstance(kind, str) else None
            if section is None:
                raise ExportFormatError(f"line {self.line}: unknown row type {kind!r}")
            if ORDER[kind] < last:
                raise ExportFormatError(
                    f"line {self.line}: a {kind} row after the {SECTIONS[last].type} rows "
                    "(sections come in a fixed order)"
                )
            last = ORDER[kind]
            if kind == "rules" and self.counts["rules"]:
                raise ExportFormatError(f"line {self.line}: a second rules row")
            self.counts[kind] += 1
            yield section, decode(section, item, where=f"line {self.line} ({kind})")
        raise ExportFormatError(
            f"the file ends after line {self.line} without its end line: it was cut short "
            "(nothing was imported)"
        )

    def _end(self, item: dict[str, Any], lines: Iterator[Any]) -> None:
        said = item.get("counts")
        for s in SECTIONS:
            stated = said.get(s.type) if isinstance(said, dict) else None
            if stated != self.counts[s.type]:
                raise ExportFormatError(
                    f"line {self.line}: the end line counts {stated!r} {s.plural} but the "
                    f"file holds {self.counts[s.type]}: rows were lost or added"
                )
        if next(lines, None) is not None:
            raise ExportFormatError(f"line {self.line}: lines after the end line")


def _decode_line(raw: bytes, number: int) -> dict[str, Any]:
    try:
        item = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError as exc:
        raise ExportFormatError(f"line {number} is not UTF-8 text") from exc
    except RecursionError as exc:
        raise ExportFormatError(f"line {number}: JSON nested too deeply") from exc
    except ValueError as exc:
        raise ExportFormatError(f"line {number} is not a JSON object ({exc})") from exc
    if not isinstance(item, dict):
        raise ExportFormatError(f"line {number} is not a JSON object")
    return item


def check_header(item: Any) -> dict[str, Any]:
    """The header line, checked: the format and a version this ume reads."""
    if item is None:
        raise ExportFormatError("the file is empty")
    if not is_header(item):
        raise ExportFormatError(f"the first line is not the header of a {FORMAT} file")
    version = item.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ExportFormatError(f"the header's version {version!r} is not a version number")
    if version > VERSION:
        raise ExportFormatError(
            f"the file is version {version} of {FORMAT}, written by a newer ume; this ume "
            f"reads version {VERSION}: upgrade it, then import the file again"
        )
    if version != VERSION:
        raise ExportFormatError(f"version {version} of {FORMAT} is not one this ume reads")
    counts = item.get("counts")
    if not isinstance(counts, dict) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts.values()
    ):
        raise ExportFormatError("the header's counts are not a set of row counts")
    return item


def decode(section: Section, item: dict[str, Any], *, where: str) -> dict[str, Any]:
    """``item`` checked against ``section``: exactly its keys, each value valid. Times become
    datetimes; references and numbers stay ids of the file."""
    keys = set(item)
    if keys != section.keys():
        missing = sorted(section.keys() - keys)
        extra = sorted(keys - section.keys())
        problem = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
        raise ExportFormatError(f"{where}: keys {problem}")
    row: dict[str, Any] = {"id": _value(ID, item["id"], where)}
    for f in section.fields:
        if f.kind == "group":
            row[f.name] = _group(f, item[f.name], where)
        else:
            row[f.name] = _value(f, item[f.name], where)
    _check_row(section.type, row, where)
    return row


def _group(f: Field, value: Any, where: str) -> dict[str, Any]:
    names = {sub.name for sub in f.fields}
    if not isinstance(value, dict) or set(value) != names:
        raise ExportFormatError(f"{where}: {f.name} must hold exactly {', '.join(sorted(names))}")
    return {sub.name: _value(sub, value[sub.name], f"{where} {f.name}") for sub in f.fields}


def _value(f: Field, value: Any, where: str) -> Any:
    if value is None:
        if f.null:
            return None
        raise ExportFormatError(f"{where}: {f.name} is missing (null)")
    kind = f.kind
    if kind in ("str", "text", "enum"):
        return _text(f, value, where)
    if kind in ("int", "ref", "number"):
        if not isinstance(value, int) or isinstance(value, bool):
            raise ExportFormatError(f"{where}: {f.name} must be a whole number")
        low = f.minimum if kind == "int" else -BIG
        if not low <= value <= (f.maximum if kind == "int" else BIG):
            raise ExportFormatError(f"{where}: {f.name} {value} is out of range")
        return value
    if kind == "float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or not f.minimum <= value <= f.maximum:
            raise ExportFormatError(f"{where}: {f.name} must be a number within its range")
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise ExportFormatError(f"{where}: {f.name} must be true or false")
        return value
    if kind == "time":
        return _moment(f, value, where)
    expected = list if kind == "list" else dict
    if not isinstance(value, expected):
        raise ExportFormatError(f"{where}: {f.name} must be a JSON {expected.__name__}")
    _no_nul(value, f"{where}: {f.name}")
    return value


def _text(f: Field, value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ExportFormatError(f"{where}: {f.name} must be text")
    if "\x00" in value:
        raise ExportFormatError(f"{where}: {f.name} holds a NUL character")
    if f.max_length and len(value) > f.max_length:
        raise ExportFormatError(f"{where}: {f.name} is over {f.max_length} characters")
    if f.nonempty and not value:
        raise ExportFormatError(f"{where}: {f.name} is empty")
    if f.choices and value not in f.choices:
        shown = ", ".join(c or '""' for c in f.choices)
        raise ExportFormatError(f"{where}: {f.name} {value[:40]!r} is not one of {shown}")
    return value


def _moment(f: Field, value: Any, where: str) -> datetime:
    moment = None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = None
    if moment is None or moment.tzinfo is None:
        raise ExportFormatError(f"{where}: {f.name} is not an ISO 8601 time with its offset")
    return moment


def _no_nul(value: Any, where: str) -> None:
    """JSON values hold no NUL (PostgreSQL's jsonb refuses it), in keys or strings."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise ExportFormatError(f"{where} holds a NUL character")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _check_row(kind: str, row: dict[str, Any], where: str) -> None:
    """What the database would refuse, said plainly."""
    if kind == "event" and (row["happened_at"] is None) != (row["happened_at_precision"] == ""):
        raise ExportFormatError(f"{where}: happened_at and its precision go together")
    if kind == "edge" and row["from_node"] == row["to_node"]:
        raise ExportFormatError(f"{where}: a link from a node to itself")


# --- the receipts chain of the file's ume ------------------------------------------------


@dataclass
class OldChain:
    """The receipts chain of the ume that wrote the file, checked as its receipts are read
    (in chain order): each receipt's hash against its content, each link against the one
    before. Receipts deleted there leave gaps, counted (their checkpoints stay behind).
    Problems are named as ``verify_receipts`` names them."""

    receipts: int = 0
    first_seq: int | None = None
    last_seq: int | None = None
    head: str = ""
    gaps: int = 0
    unchained: int = 0
    problem: str = ""
    problem_seq: int | None = None

    def add(self, row: dict[str, Any]) -> None:
        self.receipts += 1
        chain = row["chain"]
        seq = chain["seq"]
        if seq is None:
            self.unchained += 1
            return
        if self.first_seq is None:
            self.first_seq = seq
        elif not self.problem:
            assert self.last_seq is not None
            if seq <= self.last_seq or (
                seq == self.last_seq + 1 and chain["prev_hash"] != self.head
            ):
                self._fail("reordered", seq)
            elif seq > self.last_seq + 1:
                self.gaps += 1
        values = {name: row.get(name) for name in receipt_chain.HASHED}
        values.update(owner_id=chain["owner_id"], token_id=chain["token_id"])
        values[receipt_chain.ORIGIN] = chain["origin_hash"]
        linked = receipt_chain.link(chain["prev_hash"], seq, receipt_chain.digest(values))
        if linked != chain["content_hash"] and not self.problem:
            self._fail("content changed", seq)
        self.last_seq, self.head = seq, chain["content_hash"]

    def _fail(self, problem: str, seq: int) -> None:
        self.problem, self.problem_seq = problem, seq

    def as_json(self) -> dict[str, Any]:
        return {
            "receipts": self.receipts,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "head": self.head,
            "gaps": self.gaps,
            "unchained": self.unchained,
            "intact": not self.problem,
            "problem": self.problem or None,
            "problem_seq": self.problem_seq,
        }
