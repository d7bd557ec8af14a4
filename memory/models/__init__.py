"""The memory graph and its receipts: data and integrity only, one module per concept.

Every row has an ``owner``; every selector filters on it. Constraints live in ``Meta`` so two
concurrent writers cannot create twins (see ``memory.services.apply``). ``Receipt`` and
``ReceiptDay`` keep the tables they had in the ``receipts`` app (``db_table``), which now only
holds the Saves page. Everything is re-exported here: import from ``memory.models``.
"""

from memory.models.access import (
    AccessToken,
    IdempotencyKey,
    RateCount,
    default_scopes,
)
from memory.models.base import Owned, Owner, Recorded, owner_key
from memory.models.graph import (
    DETAIL_KINDS,
    Alias,
    Edge,
    Event,
    Node,
    Page,
    Slice,
)
from memory.models.history import (
    DeletionBarrier,
    Erasure,
    Revision,
)
from memory.models.recall_index import (
    NodeKeyWord,
    RecallDoc,
    RecallStats,
    RecallTerm,
    RecallTermCount,
    random_epoch,
)
from memory.models.receipts import (
    COUNTED,
    DAYS_PER_STATEMENT,
    DayKey,
    Receipt,
    ReceiptChain,
    ReceiptCheckpoint,
    ReceiptDay,
    ReceiptQuerySet,
    chain_bulk,
    checkpoints_write,
    day_key,
    days_add,
)

# Migration 0067 names these two fields by this module's path.
from memory.models.receipts import _ReturnedBigInteger as _ReturnedBigInteger
from memory.models.receipts import _ReturnedChar as _ReturnedChar
from memory.models.review import (
    VALUE_INPUTS,
    Candidate,
    ErasedConversation,
    MemoryRule,
    Suppression,
)
from memory.models.transcripts import (
    ChatImport,
    ChatImportChunk,
    Episode,
    Evidence,
    Transcript,
    TranscriptQuerySet,
)
from memory.vocab import Outcome, Source

__all__ = [
    "AccessToken",
    "Alias",
    "COUNTED",
    "Candidate",
    "ChatImport",
    "ChatImportChunk",
    "DAYS_PER_STATEMENT",
    "DETAIL_KINDS",
    "DayKey",
    "DeletionBarrier",
    "Edge",
    "Episode",
    "ErasedConversation",
    "Erasure",
    "Event",
    "Evidence",
    "IdempotencyKey",
    "MemoryRule",
    "Node",
    "NodeKeyWord",
    "Outcome",
    "Owned",
    "Owner",
    "Page",
    "RateCount",
    "RecallDoc",
    "RecallStats",
    "RecallTerm",
    "RecallTermCount",
    "Receipt",
    "ReceiptChain",
    "ReceiptCheckpoint",
    "ReceiptDay",
    "ReceiptQuerySet",
    "Recorded",
    "Revision",
    "Slice",
    "Source",
    "Suppression",
    "Transcript",
    "TranscriptQuerySet",
    "VALUE_INPUTS",
    "chain_bulk",
    "checkpoints_write",
    "day_key",
    "days_add",
    "default_scopes",
    "owner_key",
    "random_epoch",
]
