"""The closed vocabularies of ume: categories, states, kinds, actions, reasons, outcomes.

Kept apart from the models so the pure gate and the extractors can import them without
touching the database.
"""

from __future__ import annotations

from django.db import models


class Category(models.TextChoices):
    PERSON = "person"
    FAMILY = "family"
    RELATIONSHIP = "relationship"
    PROJECT = "project"
    SYSTEM = "system"
    TOOL = "tool"
    SKILL = "skill"
    HABIT = "habit"
    HEALTH = "health"
    GOAL = "goal"
    PREFERENCE = "preference"
    IDENTITY = "identity"
    LIFE_EVENT = "life_event", "life event"
    PLACE = "place"
    ORGANIZATION = "organization"
    POSSESSION = "possession"
    INTEREST = "interest"
    OTHER = "other"


class NodeState(models.TextChoices):
    ACTIVE = "active"
    PAUSED = "paused"
    STOPPED = "stopped"
    COMPLETED = "completed"
    INACTIVE = "inactive"


class NodeOrigin(models.TextChoices):
    EXTRACTED = "extracted", "written by the gate"
    PROMOTED = "promoted", "promoted by a person"
    MANUAL = "manual", "created by a person"


class SliceKind(models.TextChoices):
    FEATURE_DETAIL = "feature_detail", "feature detail"
    TECHNICAL_DETAIL = "technical_detail", "technical detail"
    PROGRESS = "progress"
    BLOCKER = "blocker"
    FIX = "fix"
    DECISION = "decision"
    PREFERENCE = "preference"
    OTHER = "other"


# Slice kinds where a new slice replaces the current one on the node (history is kept).
SUPERSEDING_SLICE_KINDS = frozenset({SliceKind.PROGRESS.value, SliceKind.PREFERENCE.value})


class EventAction(models.TextChoices):
    STARTED = "started"
    STOPPED = "stopped"
    PAUSED = "paused"
    RESUMED = "resumed"
    LAUNCHED = "launched"
    COMPLETED = "completed"
    FIXED = "fixed"
    REMOVED = "removed"
    CHANGED_PLAN = "changed_plan", "changed plan"
    DECIDED = "decided"
    DIAGNOSED = "diagnosed"
    PASSED_AWAY = "passed_away", "passed away"
    MARRIED = "married"
    BORN = "born"
    MOVED = "moved"
    BROKE_UP = "broke_up", "broke up"
    INJURED = "injured"
    RECOVERED = "recovered"
    ACHIEVED = "achieved"
    JOINED = "joined"
    LEFT = "left"
    PRACTICED = "practiced"
    OTHER = "other"


# What an event's action says about its node's state. Actions not listed leave it alone.
ACTION_STATE = {
    "started": NodeState.ACTIVE.value,
    "resumed": NodeState.ACTIVE.value,
    "launched": NodeState.ACTIVE.value,
    "joined": NodeState.ACTIVE.value,
    "practiced": NodeState.ACTIVE.value,
    "stopped": NodeState.STOPPED.value,
    "removed": NodeState.STOPPED.value,
    "left": NodeState.STOPPED.value,
    "paused": NodeState.PAUSED.value,
    "completed": NodeState.COMPLETED.value,
    "achieved": NodeState.COMPLETED.value,
    "passed_away": NodeState.INACTIVE.value,
    "broke_up": NodeState.INACTIVE.value,
}


class Importance(models.TextChoices):
    ORDINARY = "ordinary"
    IMPORTANT = "important"
    LIFE_SIGNIFICANT = "life_significant", "life significant"


class EdgeType(models.TextChoices):
    PART_OF = "part_of", "part of"
    USES = "uses"
    DEPENDS_ON = "depends_on", "depends on"
    DRIVES = "drives"
    SUPPORTS = "supports"
    IMPROVES = "improves"
    BLOCKED_BY = "blocked_by", "blocked by"
    CAUSED = "caused"
    REPLACED_BY = "replaced_by", "replaced by"
    RELATED_TO = "related_to", "related to"
    FAMILY_OF = "family_of", "family of"
    WORKS_WITH = "works_with", "works with"


class TimePrecision(models.TextChoices):
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


class TimeSource(models.TextChoices):
    STATED = "stated", "stated in the text"
    RESOLVED_PHRASE = "resolved_phrase", "relative phrase resolved against the transcript time"
    SOURCE_TIME = "source_time", "the transcript's own time"
    USER = "user", "set by a person"
    UNKNOWN = "unknown"


class CandidateStatus(models.TextChoices):
    PENDING = "pending"
    PROMOTED = "promoted"
    MERGED = "merged"
    REJECTED = "rejected"
    SUPPRESSED = "suppressed"
    EXPIRED = "expired"


class SuppressionKind(models.TextChoices):
    NODE = "node"
    CANDIDATE = "candidate"


class SuppressionReason(models.TextChoices):
    REJECTED = "rejected", "rejected in review (suppress similar)"
    DELETED = "deleted", "deleted with make-it-stick"
    CLEANUP = "cleanup", "removed by cleanup"
    UNDO = "undo", "ingest undone"
    MANUAL = "manual", "added by a person"
    FORGOTTEN = "forgotten", "rejected in review, and what was said about it forgotten"


class TranscriptStatus(models.TextChoices):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class ImportState(models.TextChoices):
    """A chat export's reading (its conversations' processing is their transcripts')."""

    WAITING = "waiting"
    READING = "reading"
    READ = "read"
    FAILED = "failed"


class ErasureState(models.TextChoices):
    """A delete-all left to the pending workers."""

    WAITING = "waiting"
    DELETING = "deleting"
    DONE = "done"


class CaptureDefault(models.TextChoices):
    REVIEW = "review", "new identities wait for review"
    AUTO = "auto", "high-confidence identities are written directly"


class RejectReason(models.TextChoices):
    JUNK_LABEL = "junk_label", "junk label"
    BAD_TITLE = "bad_title", "bad title"
    BAD_LABEL = "bad_label", "not a name (a fragment)"
    EXCLUDED_BY_RULE = "excluded_by_rule", "excluded by a rule"
    OUTSIDE_INCLUDE_RULES = "outside_include_rules", "outside the include rules"
    SUPPRESSED_BLOCKED = "suppressed_blocked", "suppressed"
    RESEMBLES_FORGOTTEN = "resembles_forgotten", "looks like something you asked to forget"
    LOW_CONFIDENCE = "low_confidence", "low confidence"
    EVENT_NO_NODE = "event_no_node", "event without a node"
    SLICE_NO_NODE = "slice_no_node", "slice without a node"
    EMPTY_TEXT = "empty_text", "empty text"
    EDGE_ENDPOINT_MISSING = "edge_endpoint_missing", "edge endpoint missing"
    EDGE_SELF_LOOP = "edge_self_loop", "edge to itself"
    INVALID_EDGE_TYPE = "invalid_edge_type", "invalid edge type"
    INVALID_CATEGORY = "invalid_category", "invalid category"
    INVALID_ACTION = "invalid_action", "invalid event action"
    DUPLICATE = "duplicate", "already known"


SCOPE_READ = "memory:read"
SCOPE_WRITE = "memory:write"
SCOPES = (SCOPE_READ, SCOPE_WRITE)


class RevisionKind(models.TextChoices):
    """What a revision is of (``memory.models.Revision``)."""

    NODE = "node"
    SLICE = "slice", "fact"
    EVENT = "event"
    ALIAS = "alias"
    EDGE = "edge", "link"
    PAGE = "page"


class RevisionAction(models.TextChoices):
    CREATED = "created"
    UPDATED = "updated"
    MERGED = "merged"
    PROMOTED = "promoted"
    SUPERSEDED = "superseded"
    DELETED = "deleted"
    RESTORED = "restored"
    ROLLED_BACK = "rolled_back", "rolled back"


class RevisionActor(models.TextChoices):
    """Who or what made a change."""

    PERSON = "person", "a person in the dashboard"
    TOKEN = "token", "an assistant or script with a token"
    INGEST = "ingest", "a save (with its receipt)"
    CLEANUP = "cleanup", "a cleanup run"
    SYSTEM = "system", "ume itself"


class Outcome(models.TextChoices):
    """How a save attempt or a decision ended: one per receipt (docs/architecture.md, "Receipts")."""

    WROTE = "wrote"
    MEANINGFUL_NO_WRITE = "meaningful_no_write", "meaningful no-write"
    LLM_FAILED = "llm_failed", "extractor failed"
    DB_WRITE_FAILED = "db_write_failed", "database write failed"
    DUPLICATE = "duplicate"
    REJECTED_INPUT = "rejected_input", "rejected input"
    DELETION_CONFLICT = "deletion_conflict", "dropped: a deletion happened meanwhile"


class Source(models.TextChoices):
    """Which door a receipt's write came through."""

    UPLOAD = "upload"
    COMMAND = "command"
    MCP = "mcp", "MCP"
    API = "api", "API"
    REVIEW = "review"
    CLEANUP = "cleanup"


#: What a person calls each kind of detail (``memory.models.DETAIL_KINDS``).
DETAIL_NOUNS = {"slice": "fact", "event": "event", "alias": "alias", "edge": "link"}
