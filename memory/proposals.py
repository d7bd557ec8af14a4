"""The proposal schema: what an extractor (rules, an LLM, or an assistant's JSON) may propose.

Every proposed object names its kind in ``object`` and carries ``evidence``: the source
message id and the quoted span. Parsing is strict about shape and lenient about vocabulary:
an unknown category, action or slice kind becomes ``other``; an unknown edge type is kept so
the gate can reject it with ``invalid_edge_type``.
"""

from __future__ import annotations

from collections import deque
from datetime import UTC, date, datetime, time
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from memory.vocab import (
    Category,
    EventAction,
    Importance,
    NodeState,
    SliceKind,
    TimePrecision,
    TimeSource,
)

MAX_LABEL = 200
MAX_TEXT = 4000
MAX_OBJECTS = 500
MAX_EVIDENCE = 5000  # spans in one batch: each is a row written in the apply transaction

_CATEGORIES = set(Category.values)
_ACTIONS = set(EventAction.values)
_KINDS = set(SliceKind.values)
_STATES = set(NodeState.values)
_IMPORTANCE = set(Importance.values)


class ProposalError(ValueError):
    """The proposals could not be read; the message says what and where."""


class _Base(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", str_strip_whitespace=True)


class EvidenceSpan(_Base):
    message_id: str = Field(default="", max_length=64)
    quote: str = Field(default="", max_length=MAX_TEXT)
    ts: datetime | None = None


def _clean_category(value: Any) -> str:
    text = str(value or "").strip().lower().replace(" ", "_")
    return text if text in _CATEGORIES else Category.OTHER.value


class _Object(_Base):
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)
    evidence: tuple[EvidenceSpan, ...] = ()

    def texts(self) -> list[str]:
        """Every piece of text this object would put into the store (for memory rules)."""
        return [span.quote for span in self.evidence if span.quote]


class NodeProposal(_Object):
    object: Literal["node"] = "node"
    label: str = Field(max_length=MAX_LABEL)
    category: str = Category.OTHER.value
    state: str | None = None
    aliases: tuple[Annotated[str, Field(max_length=MAX_LABEL)], ...] = ()

    _category = field_validator("category", mode="before")(_clean_category)

    @field_validator("state", mode="before")
    @classmethod
    def _state(cls, value: Any) -> str | None:
        text = str(value or "").strip().lower()
        return text if text in _STATES else None

    def texts(self) -> list[str]:
        return [self.label, *self.aliases, *super().texts()]


class SliceProposal(_Object):
    object: Literal["slice"] = "slice"
    on: str = Field(max_length=MAX_LABEL)
    text: str = Field(max_length=MAX_TEXT)
    kind: str = SliceKind.OTHER.value
    category: str = Category.OTHER.value  # category for the subject if it is new

    _category = field_validator("category", mode="before")(_clean_category)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: Any) -> str:
        text = str(value or "").strip().lower()
        return text if text in _KINDS else SliceKind.OTHER.value

    def texts(self) -> list[str]:
        return [self.on, self.text, *super().texts()]


class EventProposal(_Object):
    object: Literal["event"] = "event"
    on: str = Field(max_length=MAX_LABEL)
    action: str = EventAction.OTHER.value
    text: str = Field(max_length=MAX_TEXT)
    importance: str = Importance.ORDINARY.value
    category: str = Category.OTHER.value
    happened_at: datetime | None = None
    happened_at_precision: str = ""
    happened_at_source: str = TimeSource.UNKNOWN.value

    _category = field_validator("category", mode="before")(_clean_category)

    @field_validator("action", mode="before")
    @classmethod
    def _action(cls, value: Any) -> str:
        text = str(value or "").strip().lower().replace(" ", "_")
        return text if text in _ACTIONS else EventAction.OTHER.value

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> str:
        text = str(value or "").strip().lower()
        return text if text in _IMPORTANCE else Importance.ORDINARY.value

    @model_validator(mode="before")
    @classmethod
    def _partial_date(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("happened_at"), str):
            raw = data["happened_at"]
            data = dict(data)
            if not raw.strip():
                data["happened_at"] = None
                return data
            parsed = parse_partial_date(raw)
            if parsed is None:
                raise ValueError(
                    f"happened_at {raw!r} is not an ISO date (YYYY, YYYY-MM, YYYY-MM-DD)"
                )
            data["happened_at"] = parsed[0]
            data.setdefault("happened_at_precision", parsed[1])
        return data

    def model_post_init(self, __context: Any) -> None:
        # Keep the three temporal fields consistent: a date needs a precision and a source;
        # no date means unknown.
        if self.happened_at is None:
            object.__setattr__(self, "happened_at_precision", "")
            object.__setattr__(self, "happened_at_source", TimeSource.UNKNOWN.value)
            return
        if self.happened_at.tzinfo is None:
            object.__setattr__(self, "happened_at", self.happened_at.replace(tzinfo=UTC))
        if self.happened_at_precision not in TimePrecision.values:
            object.__setattr__(self, "happened_at_precision", TimePrecision.DAY.value)
        if self.happened_at_source not in TimeSource.values or self.happened_at_source == "unknown":
            object.__setattr__(self, "happened_at_source", TimeSource.STATED.value)

    def texts(self) -> list[str]:
        return [self.on, self.text, *super().texts()]


class EdgeProposal(_Object):
    model_config = ConfigDict(
        frozen=True, extra="ignore", str_strip_whitespace=True, populate_by_name=True
    )

    object: Literal["edge"] = "edge"
    from_label: str = Field(alias="from", max_length=MAX_LABEL)
    to_label: str = Field(alias="to", max_length=MAX_LABEL)
    type: str = Field(max_length=64)
    # The relation as the caller named it, when that says more than its type ("works on"
    # for related_to); kept on the edge (Edge.label).
    label: str = Field(default="", max_length=64)

    def texts(self) -> list[str]:
        return [self.from_label, self.to_label, *super().texts()]


class CandidateProposal(_Object):
    object: Literal["candidate"] = "candidate"
    label: str = Field(max_length=MAX_LABEL)
    category: str = Category.OTHER.value
    reason: str = Field(default="", max_length=64)

    _category = field_validator("category", mode="before")(_clean_category)

    def texts(self) -> list[str]:
        return [self.label, *super().texts()]


Proposal = Annotated[
    NodeProposal | SliceProposal | EventProposal | EdgeProposal | CandidateProposal,
    Field(discriminator="object"),
]
_ADAPTER: TypeAdapter[list[Any]] = TypeAdapter(list[Proposal])  # type: ignore[arg-type]

AnyProposal = NodeProposal | SliceProposal | EventProposal | EdgeProposal | CandidateProposal


def parse_proposals(data: Any) -> list[AnyProposal]:
    """Validate already-decoded JSON: a list of objects or ``{"objects": [...]}``."""
    if isinstance(data, dict) and "objects" in data:
        data = data["objects"]
    if not isinstance(data, list):
        raise ProposalError('expected a list of proposed objects or {"objects": [...]}')
    if len(data) > MAX_OBJECTS:
        raise ProposalError(f"too many proposed objects ({len(data)} > {MAX_OBJECTS})")
    nul = _nul_path(data)
    if nul is not None:
        raise ProposalError(f"invalid proposal at {nul}: contains a NUL character (\\u0000)")
    try:
        proposals = list(_ADAPTER.validate_python(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ProposalError(f"invalid proposal at {where}: {first['msg']}") from exc
    spans = sum(len(p.evidence) for p in proposals)
    if spans > MAX_EVIDENCE:
        raise ProposalError(f"too many evidence spans ({spans} > {MAX_EVIDENCE})")
    return proposals


def proposals_dedupe(proposals: list[AnyProposal]) -> list[AnyProposal]:
    """The same object proposed several times (a fact said three times, a sentence pasted a
    thousand times) becomes one, with the highest confidence and one evidence span per distinct
    message and quote. Order is kept: the first occurrence stands for the others."""
    merged: dict[str, tuple[AnyProposal, float, dict[tuple[str, str], EvidenceSpan]]] = {}
    for proposal in proposals:
        key = proposal.model_dump_json(exclude={"evidence", "confidence"}, by_alias=True)
        first, confidence, spans = merged.get(key, (proposal, 0.0, {}))
        for span in proposal.evidence:
            spans.setdefault((span.message_id, span.quote), span)
        merged[key] = (first, max(confidence, proposal.confidence), spans)
    return [
        first.model_copy(update={"confidence": confidence, "evidence": tuple(spans.values())})
        for first, confidence, spans in merged.values()
    ]


def _nul_path(data: Any) -> str | None:
    """Where the first string holding a NUL character is (PostgreSQL refuses NUL in text)."""
    queue: deque[tuple[tuple[str, ...], Any]] = deque([((), data)])
    while queue:
        path, item = queue.popleft()
        if isinstance(item, str):
            if "\x00" in item:
                return ".".join(path)
        elif isinstance(item, dict):
            queue.extend(((*path, str(key)), value) for key, value in item.items())
        elif isinstance(item, list | tuple):
            queue.extend(((*path, str(i)), value) for i, value in enumerate(item))
    return None


def dump_proposal(proposal: AnyProposal) -> dict[str, Any]:
    """JSON-safe form, used to hold details on a candidate until it is promoted."""
    return proposal.model_dump(mode="json", by_alias=True)


def parse_partial_date(value: str) -> tuple[datetime, str] | None:
    """``"2021"``, ``"2021-03"``, ``"2021-03-05"`` or a full ISO datetime -> (UTC datetime, precision)."""
    text = value.strip()
    try:
        if len(text) == 4 and text.isdigit():
            return datetime(int(text), 1, 1, tzinfo=UTC), TimePrecision.YEAR.value
        if len(text) == 7 and text[4] == "-":
            return datetime(int(text[:4]), int(text[5:7]), 1, tzinfo=UTC), TimePrecision.MONTH.value
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime.combine(day, time(), tzinfo=UTC), TimePrecision.DAY.value
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment, TimePrecision.DAY.value
