"""Request bodies. Every string refuses NUL characters (PostgreSQL cannot store them) and has
a length cap, so hostile input is a 400 before anything is written. Booleans and numbers are
strict: ``true`` is not 1, ``"yes"`` is not true, and ``"ts": true`` is not 1970.

A field with a fixed vocabulary is its enum (``memory.vocab``, ``memory.models``), so the
OpenAPI schema lists the values; an empty value means "any" (or "keep") as it always has, and
any other value is ``400 invalid_input`` with ``<field>: choose one of ...``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from django.db.models import TextChoices
from ninja import Schema
from pydantic import AfterValidator, BeforeValidator, Field, StrictBool, StrictFloat, StrictInt
from pydantic_core import PydanticCustomError

from memory.models import Outcome
from memory.models import Source as ReceiptSource
from memory.shapes import Moment
from memory.transcripts import MAX_MESSAGES
from memory.vocab import CandidateStatus, Category, NodeState


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def _one_of(choices: type[TextChoices]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if value is None or value == "":
            return None
        if value not in choices.values:
            raise PydanticCustomError(
                "choice", "choose one of {allowed}", {"allowed": ", ".join(choices.values)}
            )
        return value

    return check


CategoryChoice = Annotated[Category | None, BeforeValidator(_one_of(Category))]
StateChoice = Annotated[NodeState | None, BeforeValidator(_one_of(NodeState))]
StatusChoice = Annotated[CandidateStatus | None, BeforeValidator(_one_of(CandidateStatus))]
OutcomeChoice = Annotated[Outcome | None, BeforeValidator(_one_of(Outcome))]
SourceChoice = Annotated[ReceiptSource | None, BeforeValidator(_one_of(ReceiptSource))]

Text = Annotated[str, AfterValidator(_no_nul)]
RequiredText = Annotated[str, AfterValidator(_no_nul), AfterValidator(_not_blank)]
Label = Annotated[str, Field(max_length=200), AfterValidator(_no_nul), AfterValidator(_not_blank)]
Word = Annotated[str, Field(max_length=32), AfterValidator(_no_nul)]


class MemoryIn(Schema):
    text: RequiredText = Field(description="One memory in the person's words.")


class MessageIn(Schema):
    role: Word = Field(description="user, assistant or system")
    content: Text | list[dict[str, Any]] = Field(description="Text, or OpenAI-style parts.")
    ts: Moment | StrictInt | StrictFloat | None = Field(
        default=None, description="ISO 8601 or epoch seconds."
    )
    id: Annotated[str, Field(max_length=64), AfterValidator(_no_nul)] | None = None


class ConversationIn(Schema):
    messages: list[MessageIn] = Field(min_length=1, max_length=MAX_MESSAGES)
    source_time: Moment | None = Field(
        default=None, description="When the conversation happened (resolves 'last March')."
    )


class RecallIn(Schema):
    query: Annotated[
        str, Field(max_length=1000), AfterValidator(_no_nul), AfterValidator(_not_blank)
    ]
    limit: StrictInt = Field(default=10, ge=1, le=50)


class NodePatch(Schema):
    label: Label | None = None
    category: Word | None = None
    state: Word | None = None
    summary: Annotated[str, Field(max_length=4000), AfterValidator(_no_nul)] | None = None
    add_alias: Label | None = Field(default=None, description="Another name for this memory.")


class RollbackIn(Schema):
    revision: int = Field(ge=1, le=2_147_483_647, description="The revision to make current.")
    kind: Literal["node", "slice", "event", "alias", "edge", "page"] = Field(
        default="node", description="Roll back the node itself, or one of its details."
    )
    id: int | None = Field(
        default=None, ge=1, description="The detail's id (with kind); the node's own by default."
    )


class PromoteIn(Schema):
    label: Label | None = None
    category: CategoryChoice = None
    state: StateChoice = None
    resemblance: Literal["lift", "keep"] | None = Field(
        default=None,
        description="When the label looks like something the person asked to forget (a held "
        "card; otherwise 409 resembles_forgotten): lift that suppression, or keep it and make "
        "this memory its exception.",
    )


class RejectIn(Schema):
    suppress_similar: StrictBool = Field(
        default=False, description="Also stop proposing this label (a suppression)."
    )
    until: Moment | None = Field(
        default=None, description="End of the suppression; null = for ever."
    )
    forget: bool = Field(
        default=False,
        description="And forget what was said about it: a permanent suppression that also "
        "hides every message mentioning the label from recall.",
    )


class MergeIn(Schema):
    node_id: StrictInt
    add_alias: StrictBool = True


Term = Annotated[str, Field(max_length=80), AfterValidator(_no_nul)]


class RulesIn(Schema):
    """Fields left out are kept as they are."""

    custom_instructions: Annotated[str, Field(max_length=2000), AfterValidator(_no_nul)] | None = (
        None
    )
    includes: list[Term] | None = Field(default=None, max_length=32)
    excludes: list[Term] | None = Field(default=None, max_length=32)
    custom_categories: list[Term] | None = Field(default=None, max_length=32)
    capture_default: Word | None = Field(default=None, description="review or auto")
    auto_collect: StrictBool | None = None
    retention_days: StrictInt | None = Field(default=None, ge=1, le=36500)
    episodes: StrictBool | None = Field(
        default=None,
        description="Recall also returns what was said in conversations (on by default); "
        "false for reviewed memories only.",
    )


# --- the filters of the lists (``limit`` and ``offset`` come from ``api.pages``) -------


class NodeFilters(Schema):
    category: CategoryChoice = None
    state: StateChoice = None
    q: str = Field(default="", max_length=200)


class DetailPageIn(Schema):
    """A page of a node's facts or events: the ``cursor`` the previous page gave as its
    ``next`` (none for the first page), at most ``limit`` rows."""

    limit: int = Field(default=50, ge=1, le=500, description="At most this many rows.")
    cursor: str = Field(default="", max_length=500, description="The previous page's next.")


class CandidateFilters(Schema):
    status: StatusChoice = Field(default=CandidateStatus.PENDING)


class ReceiptFilters(Schema):
    outcome: OutcomeChoice = None
    source: SourceChoice = None
