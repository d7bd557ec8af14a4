"""Deletions a person asks for: undo one ingest, or delete all of their memory.

Both run in one transaction that also raises the owner's deletion barrier
(``memory.services.barrier``), so an ingest that was already in flight cannot land afterwards:
it records a ``deletion_conflict`` receipt instead. A failure anywhere rolls everything back,
suppressions included.

Decisions, written down:

- **Undo removes what the run created** (nodes, aliases, slices, events, edges, candidates,
  pages and the run's evidence), found both from ``receipt.detail["created"]`` and from the
  ``created_receipt`` foreign keys. Slices and events that later runs added to a node this run
  created go with the node, and are listed as such.
- **Candidates a person has since promoted or merged are kept**, with their nodes and
  evidence: a person's decision outranks undoing the machine's run. They are listed.
- **Touches are reverted where they can be**: mention and session counts of nodes and
  candidates the run touched, node state changes (only while the node still has the state the
  run gave it), slices the run superseded (made current again unless a newer slice of that kind
  is current), held details and revived status of candidates it bumped (only if nothing
  mentioned the candidate since). What cannot be reverted is listed in the undo receipt;
  ``last_seen_at`` is never rewound.
- **Suppressions** (reason ``undo``) are written by default for every label the run created,
  so the same transcript cannot recreate them; labels already actively suppressed are skipped.
- **The transcript** the run processed is deleted with it (and its episodes, what was said in
  it), so uploading the same file again is
  processed afresh rather than reported as a duplicate of an undone run. The suppressions
  block the labels either way; with ``suppress=False`` a re-ingest recreates them, which is
  what "undo, and let me run it again" means.
- **Delete all** removes every memory row the owner has: nodes, aliases, slices, events,
  edges, candidates, evidence, episodes, transcripts, pages, receipts and (unless
  ``keep_suppressions``) suppressions. It keeps the owner's memory rules and access tokens
  (settings and credentials, not memory: connected assistants keep working against the empty
  store; revoke tokens separately) and the deletion barrier itself. It then writes one receipt
  with counts only, no labels, so the Saves page says what happened.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Max, Min, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from memory.keys import core_key
from memory.models import (
    Alias,
    Candidate,
    ChatImport,
    Edge,
    Episode,
    ErasedConversation,
    Erasure,
    Event,
    Evidence,
    IdempotencyKey,
    Node,
    Outcome,
    Page,
    Receipt,
    Revision,
    Slice,
    Source,
    Suppression,
    Transcript,
)
from memory.owned import Person
from memory.selectors import active_suppressions
from memory.services.barrier import barrier_hold, barrier_raise, barrier_release
from memory.services.bulk import claim_first, delete_in_chunks
from memory.services.episodes import episodes_delete
from memory.services.erased import erased_conversations_record
from memory.services.history import History, delete_tree, update_rows
from memory.services.recall_index import recall_index_rebuild, recall_index_refresh
from memory.services.receipts import receipt_write
from memory.tombstones import sign
from memory.vocab import (
    SUPERSEDING_SLICE_KINDS,
    CandidateStatus,
    ErasureState,
    RevisionAction,
    SuppressionKind,
    SuppressionReason,
)

# Sources whose receipts record an ingest (and so can be undone here).
INGEST_SOURCES = frozenset({Source.UPLOAD, Source.COMMAND, Source.MCP, Source.API})
_KEPT_STATUSES = (CandidateStatus.PROMOTED, CandidateStatus.MERGED)


class EraseError(ValueError):
    """A deletion that cannot be done; the message is fit to show the person."""


# --- undo an ingest -------------------------------------------------------------------------


def _check_undoable(receipt: Receipt) -> None:
    if receipt.origin_hash:
        raise EraseError(
            f"receipt #{receipt.pk} was imported with a ume export: it records what another ume "
            "wrote (the ids it lists are that ume's), so it cannot be undone here"
        )
    if (receipt.detail or {}).get("action") == "memory_import":
        raise EraseError(
            f"receipt #{receipt.pk} imported a whole memory; to take that back, delete all "
            "(the import is one transaction and has no parts to undo)"
        )
    if receipt.undone_at is not None:
        raise EraseError(
            f"receipt #{receipt.pk} was already undone at {receipt.undone_at:%Y-%m-%d %H:%M}; "
            "nothing was changed"
        )
    if receipt.source not in INGEST_SOURCES:
        raise EraseError(
            f"receipt #{receipt.pk} records a {receipt.source} action, not an ingest; "
            "only what an ingest wrote can be undone this way"
        )
    if receipt.outcome != Outcome.WROTE and not _said_in(receipt).exists():
        raise EraseError(
            f"receipt #{receipt.pk} wrote nothing ({receipt.get_outcome_display()}); "
            "there is nothing to undo"
        )


def _said_in(receipt: Receipt) -> QuerySet[Episode]:
    """The episodes of the conversation ``receipt`` saved: a save that kept no memory still
    kept what was said, and undoing it removes that."""
    return Episode.objects.for_owner(receipt.owner_id).filter(
        transcript__in=Transcript.objects.for_owner(receipt.owner_id).filter(
            pk=(receipt.detail or {}).get("transcript") or 0,
            receipt=receipt,
        ),
    )


def _ids(rows: Iterable[Any]) -> set[int]:
    out = set()
    for row in rows:
        value = row.get("id") if isinstance(row, dict) else row
        if isinstance(value, int):
            out.add(value)
    return out


def _created(receipt: Receipt) -> dict[str, set[int]]:
    """Primary keys of what ``receipt``'s run created, from its detail and the FKs."""
    created = (receipt.detail or {}).get("created", {})
    owner = receipt.owner_id

    def both(model: Any, key: str) -> set[int]:
        by_fk = (
            model.objects.for_owner(owner)
            .filter(created_receipt=receipt)
            .values_list("pk", flat=True)
        )
        listed = (
            model.objects.for_owner(owner)
            .filter(pk__in=_ids(created.get(key, [])))
            .values_list("pk", flat=True)
        )
        return set(by_fk) | set(listed)

    return {
        "nodes": both(Node, "nodes"),
        "slices": both(Slice, "slices"),
        "events": both(Event, "events"),
        "edges": both(Edge, "edges"),
        "candidates": both(Candidate, "candidates"),
        "aliases": set(
            Alias.objects.for_owner(owner)
            .filter(pk__in=_ids(created.get("aliases", [])))
            .values_list("pk", flat=True)
        ),
        "pages": set(
            Page.objects.for_owner(owner)
            .filter(created_receipt=receipt)
            .values_list("pk", flat=True)
        ),
    }


def receipt_undo_preview(*, receipt: Receipt) -> dict[str, Any]:
    """What :func:`receipt_undo` would delete, read only (for a confirmation step)."""
    _check_undoable(receipt)
    ids = _created(receipt)
    candidates = list(Candidate.objects.filter(pk__in=ids["candidates"]).order_by("id"))
    nodes = list(Node.objects.filter(pk__in=ids["nodes"]).order_by("id"))
    return {
        "receipt_id": receipt.pk,
        "nodes": [{"id": n.pk, "label": n.label} for n in nodes],
        "candidates": [
            {"id": c.pk, "label": c.label_guess}
            for c in candidates
            if c.status == CandidateStatus.PENDING
        ],
        # Guesses already turned down (rejected, suppressed, expired): deleted too, but they are
        # not "waiting for review", and their suppressions stay.
        "declined": [
            {"id": c.pk, "label": c.label_guess, "status": c.get_status_display()}
            for c in candidates
            if c.status not in _KEPT_STATUSES and c.status != CandidateStatus.PENDING
        ],
        "kept": [
            {"id": c.pk, "label": c.label_guess, "status": c.status}
            for c in candidates
            if c.status in _KEPT_STATUSES
        ],
        "counts": {
            "nodes": len(nodes),
            "slices": Slice.objects.filter(
                Q(pk__in=ids["slices"]) | Q(node_id__in=ids["nodes"])
            ).count(),
            "events": Event.objects.filter(
                Q(pk__in=ids["events"]) | Q(node_id__in=ids["nodes"])
            ).count(),
            "edges": Edge.objects.filter(
                Q(pk__in=ids["edges"])
                | Q(from_node_id__in=ids["nodes"])
                | Q(to_node_id__in=ids["nodes"])
            ).count(),
            "candidates": sum(1 for c in candidates if c.status not in _KEPT_STATUSES),
            "episodes": _said_in(receipt).count(),
        },
    }


def receipt_undo(
    *, receipt: Receipt, suppress: bool = True, source: str = Source.CLEANUP
) -> Receipt:
    """Delete everything ``receipt``'s ingest wrote and revert what it touched.

    Returns the undo's own receipt (``source``, outcome ``wrote``), whose detail lists what was
    deleted, reverted, kept and not reverted. Raises :class:`EraseError` for a receipt that is
    not an ingest that wrote something, or that was already undone.
    """
    started = time.perf_counter()
    _check_undoable(receipt)
    now = timezone.now()
    with transaction.atomic():
        locked = Receipt.objects.select_for_update().get(pk=receipt.pk)
        _check_undoable(locked)  # a concurrent undo may have won the lock first
        owner = locked.owner
        barrier_raise(owner, at=now)
        undo = _Undo(locked, now)
        touched = undo.touched_nodes()
        undo.run(suppress=suppress)
        recall_index_refresh(owner_id=owner.pk, nodes=touched, pages=undo.ids["pages"])
        locked.undone_at = now
        locked.save(update_fields=["undone_at"])
        result = receipt_write(
            owner=owner,
            source=source,
            outcome=Outcome.WROTE,
            subject=f"undo: receipt #{locked.pk} ({locked.subject})",
            counts=undo.counts(),
            detail=undo.detail(),
            summary=undo.summary(),
            started=started,
            created_at=now,
        )
        undo.history.flush(receipt_id=result.pk)
    receipt.refresh_from_db()
    return result


def _plural(n: int) -> str:
    return "" if n == 1 else "s"


class _Undo:
    """The undo of one receipt, step by step; keeps what it did for the undo receipt."""

    def __init__(self, receipt: Receipt, now: datetime) -> None:
        self.receipt = receipt
        self.owner = receipt.owner
        self.now = now
        self.ids = _created(receipt)
        self.deleted: dict[str, Any] = {}
        self.reverted: list[str] = []
        self.not_reverted: list[str] = []
        self.kept: list[dict[str, Any]] = []
        self.also_removed: list[str] = []
        self.suppressions: list[dict[str, Any]] = []
        self.transcript_deleted = False
        self.episodes_deleted = 0
        self.history = History(
            owner_id=receipt.owner_id, reason=f"undo of receipt #{receipt.pk}", now=now
        )

    def touched_nodes(self) -> set[int]:
        """The nodes whose recall documents the undo changes: those it deletes and those
        whose slices, events or aliases it deletes or restores."""
        owner, ids = self.owner, self.ids
        touched = set(ids["nodes"])
        for model, key in ((Slice, "slices"), (Event, "events"), (Alias, "aliases")):
            touched |= set(
                model.objects.for_owner(owner)
                .filter(pk__in=ids[key])
                .values_list("node_id", flat=True)
            )
        return touched

    def run(self, *, suppress: bool) -> None:
        owner, ids = self.owner, self.ids
        nodes = list(Node.objects.for_owner(owner).filter(pk__in=ids["nodes"]).order_by("id"))
        node_ids = {n.pk for n in nodes}
        candidates = list(
            Candidate.objects.for_owner(owner).filter(pk__in=ids["candidates"]).order_by("id")
        )
        kept = [c for c in candidates if c.status in _KEPT_STATUSES]
        doomed = [c for c in candidates if c.status not in _KEPT_STATUSES]
        self.kept = [
            {"id": c.pk, "label": c.label_guess, "status": c.status, "node": c.promoted_node_id}
            for c in kept
        ]

        # Work out what to revert before anything is deleted.
        created_slices = list(
            Slice.objects.for_owner(owner)
            .filter(pk__in=ids["slices"])
            .exclude(node_id__in=node_ids)
        )
        self._note_later_additions(node_ids)

        labels = self._labels(nodes, node_ids, doomed)
        self._delete_created(nodes, node_ids, kept, doomed)

        # Revert what it touched.
        self._restore_superseded(created_slices)
        self._revert_state_changes(node_ids)
        self._revert_node_touches(node_ids)
        self._revert_candidate_bumps({c.pk for c in candidates})
        self._delete_transcript()
        if suppress:
            self._suppress(labels)

    # -- the steps

    def _labels(
        self, nodes: list[Node], node_ids: set[int], doomed: list[Candidate]
    ) -> dict[str, tuple[str, str, str]]:
        """What make-it-stick suppresses: the labels and aliases of the nodes the run
        created, and the labels of its guesses that go (key -> kind, label, category)."""
        owner = self.owner
        labels: dict[str, tuple[str, str, str]] = {}
        category = {node.pk: node.category for node in nodes}
        for node in nodes:
            labels.setdefault(node.canonical_key, (SuppressionKind.NODE, node.label, node.category))
        for alias in Alias.objects.for_owner(owner).filter(node_id__in=node_ids).order_by("id"):
            labels.setdefault(
                alias.canonical_key,
                (SuppressionKind.NODE, alias.alias, category.get(alias.node_id, "")),
            )
        for c in doomed:
            labels.setdefault(
                c.canonical_key, (SuppressionKind.CANDIDATE, c.label_guess, c.category_guess)
            )
        return labels

    def _delete_created(
        self, nodes: list[Node], node_ids: set[int], kept: list[Candidate], doomed: list[Candidate]
    ) -> None:
        """Delete what the run created, each with its final revision; counted in
        ``self.deleted``."""
        owner, ids = self.owner, self.ids
        delete_tree(owner.pk, node_ids, self.history)
        for model, key in (
            (Edge, "edges"),
            (Slice, "slices"),
            (Event, "events"),
            (Alias, "aliases"),
            (Page, "pages"),
        ):
            for row in model.objects.for_owner(owner).filter(pk__in=ids[key]).order_by("pk"):
                self.history.deleted(row)
        kept_ids = [c.pk for c in kept]
        # The run's evidence, and evidence later runs attached to what this run created (it
        # would be left pointing at nothing).
        self.deleted["evidence"] = (
            Evidence.objects.for_owner(owner)
            .filter(
                Q(receipt=self.receipt)
                | Q(node_id__in=node_ids)
                | Q(candidate_id__in=[c.pk for c in doomed])
            )
            .exclude(candidate_id__in=kept_ids)
            .delete()[0]
        )
        self.deleted["edges"] = (
            Edge.objects.for_owner(owner).filter(pk__in=ids["edges"]).delete()[0]
        )
        self.deleted["slices"] = (
            Slice.objects.for_owner(owner).filter(pk__in=ids["slices"]).delete()[0]
        )
        self.deleted["events"] = (
            Event.objects.for_owner(owner).filter(pk__in=ids["events"]).delete()[0]
        )
        self.deleted["aliases"] = (
            Alias.objects.for_owner(owner).filter(pk__in=ids["aliases"]).delete()[0]
        )
        self.deleted["pages"] = (
            Page.objects.for_owner(owner).filter(pk__in=ids["pages"]).delete()[0]
        )
        self.deleted["candidates"] = (
            Candidate.objects.for_owner(owner).filter(pk__in=[c.pk for c in doomed]).delete()[0]
        )
        cascade = Node.objects.for_owner(owner).filter(pk__in=node_ids).delete()[1]
        self.deleted["nodes"] = cascade.get(Node._meta.label, 0)
        for model, key in (
            (Slice, "slices"),
            (Event, "events"),
            (Edge, "edges"),
            (Alias, "aliases"),
        ):
            self.deleted[key] += cascade.get(model._meta.label, 0)
        self.deleted["node_labels"] = [n.label for n in nodes]
        self.deleted["candidate_labels"] = [c.label_guess for c in doomed]

    def _note_later_additions(self, node_ids: set[int]) -> None:
        later_slices = (
            Slice.objects.for_owner(self.owner)
            .filter(node_id__in=node_ids)
            .exclude(pk__in=self.ids["slices"])
            .count()
        )
        later_events = (
            Event.objects.for_owner(self.owner)
            .filter(node_id__in=node_ids)
            .exclude(pk__in=self.ids["events"])
            .count()
        )
        if later_slices or later_events:
            self.also_removed.append(
                f"{later_slices} slices and {later_events} events added later to the nodes "
                "this run created were removed with them"
            )
        adopted = list(
            Candidate.objects.for_owner(self.owner)
            .filter(promoted_node_id__in=node_ids)
            .exclude(pk__in=self.ids["candidates"])
            .values_list("label_guess", flat=True)
        )
        if adopted:
            self.also_removed.append(
                "candidates a person merged into these nodes keep their decision but lose "
                f"their node: {', '.join(adopted)}"
            )

    def _restore_superseded(self, created_slices: list[Slice]) -> None:
        for new in created_slices:
            if new.kind not in SUPERSEDING_SLICE_KINDS:
                continue
            # apply() stamps the superseded slices with the very time it creates the new one.
            old = (
                Slice.objects.for_owner(self.owner)
                .filter(
                    node_id=new.node_id,
                    kind=new.kind,
                    is_current=False,
                    superseded_at=new.created_at,
                )
                .exclude(pk__in=self.ids["slices"])
            )
            if not old.exists():
                continue
            label = new.node.label
            if Slice.objects.filter(node_id=new.node_id, kind=new.kind, is_current=True).exists():
                self.not_reverted.append(
                    f"{new.kind} of “{label}”: a newer {new.kind} slice is current, "
                    "so the one this run superseded stays history"
                )
                continue
            n = update_rows(
                list(old),
                self.history,
                RevisionAction.RESTORED,
                is_current=True,
                superseded_at=None,
            )
            self.reverted.append(f"{n} {new.kind} fact{_plural(n)} of “{label}” made current again")

    def _revert_state_changes(self, node_ids: set[int]) -> None:
        changes = (self.receipt.detail or {}).get("updated", {}).get("state_changes", [])
        for change in reversed(changes):
            node_id = change.get("node")
            if node_id in node_ids:
                continue
            node = Node.objects.for_owner(self.owner).filter(pk=node_id).first()
            if node is None:
                name = change.get("label") or "a memory"
                self.not_reverted.append(f"state of “{name}”: the memory no longer exists")
            elif node.state != change.get("to") or not change.get("from"):
                self.not_reverted.append(
                    f"state of “{node.label}”: changed again since (now {node.state}); left as is"
                )
            else:
                update_rows(
                    [node],
                    self.history,
                    RevisionAction.RESTORED,
                    state=change["from"],
                    updated_at=self.now,
                )
                self.reverted.append(f"state of “{node.label}” back to {change['from']}")

    def _revert_node_touches(self, node_ids: set[int]) -> None:
        touched = (self.receipt.detail or {}).get("updated", {}).get("nodes", [])
        for entry in touched:
            node_id = entry.get("id")
            if node_id in node_ids:
                continue
            label = entry.get("label", f"#{node_id}")
            mentions = entry.get("mentions")
            if not isinstance(mentions, int):
                self.not_reverted.append(f"mention count of “{label}”: not recorded by this run")
                continue
            done = (
                Node.objects.for_owner(self.owner)
                .filter(pk=node_id, mention_count__gt=mentions, session_count__gt=1)
                .update(
                    mention_count=F("mention_count") - mentions,
                    session_count=F("session_count") - 1,
                )
            )
            if done:
                self.reverted.append(f"mention count of “{label}” (-{mentions})")
            else:
                self.not_reverted.append(
                    f"mention count of “{label}”: the node is gone or its counts were reset"
                )
            self._revert_last_seen(Node, node_id, field="node_id")

    def _revert_candidate_bumps(self, created: set[int]) -> None:
        bumps = (self.receipt.detail or {}).get("updated", {}).get("candidates", [])
        for entry in bumps:
            candidate_id = entry.get("id")
            if candidate_id in created:
                continue
            label = entry.get("label", f"#{candidate_id}")
            row = (
                Candidate.objects.select_for_update()
                .for_owner(self.owner)
                .filter(pk=candidate_id)
                .first()
            )
            if row is None:
                self.not_reverted.append(f"candidate “{label}”: no longer exists")
                continue
            if row.status not in (CandidateStatus.PENDING, CandidateStatus.EXPIRED):
                self.not_reverted.append(
                    f"candidate “{label}”: {row.status} by a person since; left as is"
                )
                continue
            fields: list[str] = []
            mentions = entry.get("mentions")
            if isinstance(mentions, int) and row.mention_count > mentions:
                row.mention_count -= mentions
                fields.append("mention_count")
            if row.session_count > 1:
                row.session_count -= 1
                fields.append("session_count")
            quiet_since = (
                row.last_seen_at <= self.receipt.created_at
                and not Evidence.objects.filter(
                    candidate=row, receipt_id__gt=self.receipt.pk
                ).exists()
            )
            held = entry.get("held")
            if isinstance(held, int) and held:
                if quiet_since and len(row.held_objects) >= held:
                    row.held_objects = list(row.held_objects)[:-held]
                    fields.append("held_objects")
                else:
                    self.not_reverted.append(
                        f"candidate “{label}”: {held} held details kept (mentioned again since)"
                    )
            if entry.get("revived") and row.status == CandidateStatus.PENDING:
                if quiet_since:
                    row.status = CandidateStatus.EXPIRED
                    fields.append("status")
                else:
                    self.not_reverted.append(
                        f"candidate “{label}”: stays pending (mentioned again since)"
                    )
            if fields:
                row.save(update_fields=fields)
                self.reverted.append(f"candidate “{label}”: {', '.join(fields)}")
            if quiet_since:
                self._revert_last_seen(Candidate, row.pk, field="candidate_id")
                self._revert_said(row)

    def _revert_said(self, row: Candidate) -> None:
        """When the guess was said goes back to the quotes that are left (this run's are
        deleted); its value on the queue follows (``Candidate.save``)."""
        said = Coalesce("message_ts", "transcript__source_time", "created_at")
        left = (
            Evidence.objects.for_owner(self.owner)
            .filter(candidate_id=row.pk)
            .aggregate(first=Min(said), last=Max(said))
        )
        if left["last"] is None:
            return
        row.first_said_at, row.last_said_at = left["first"], left["last"]
        row.save(update_fields=["first_said_at", "last_said_at"])

    def _revert_last_seen(self, model: Any, row_id: int, *, field: str) -> None:
        """ "Last seen" goes back to the latest quote that is left (this run's are deleted),
        unless the row was seen again after this run."""
        row = model.objects.for_owner(self.owner).filter(pk=row_id).first()
        if row is None or row.last_seen_at > self.receipt.created_at + timedelta(seconds=1):
            return
        left = (
            Evidence.objects.for_owner(self.owner)
            .filter(**{field: row_id})
            .aggregate(latest=Max("created_at"))["latest"]
        )
        floor = getattr(row, "first_seen_at", None) or row.created_at
        previous = max(left, floor) if left else floor
        if previous < row.last_seen_at:
            model.objects.filter(pk=row_id).update(last_seen_at=previous)

    def _delete_transcript(self) -> None:
        transcript_id = (self.receipt.detail or {}).get("transcript")
        if transcript_id is None:
            return
        rows = Transcript.objects.for_owner(self.owner).filter(
            pk=transcript_id, receipt=self.receipt
        )
        if rows.exists():
            # What was said in it goes too: recall must not quote an undone conversation.
            self.episodes_deleted = episodes_delete(
                owner=self.owner, transcript_ids=[transcript_id]
            )
        self.transcript_deleted = bool(rows.delete()[0])

    def _suppress(self, labels: dict[str, tuple[str, str, str]]) -> None:
        covered = set(
            active_suppressions(self.owner, now=self.now)
            .filter(canonical_key__in=list(labels))
            .values_list("canonical_key", flat=True)
        )
        for key, (kind, label, category) in labels.items():
            if key in covered:
                continue
            row = Suppression.objects.create(
                owner=self.owner,
                kind=kind,
                canonical_key=key,
                core_key=core_key(key),
                label=label[:200],
                **sign(label, category=category),
                reason=SuppressionReason.UNDO,
                source=f"undo:receipt:{self.receipt.pk}",
                created_at=self.now,
            )
            self.suppressions.append({"id": row.pk, "kind": kind, "label": row.label})

    # -- the undo receipt

    def counts(self) -> dict[str, int]:
        return {
            "nodes_deleted": self.deleted["nodes"],
            "slices_deleted": self.deleted["slices"],
            "events_deleted": self.deleted["events"],
            "edges_deleted": self.deleted["edges"],
            "aliases_deleted": self.deleted["aliases"],
            "candidates_deleted": self.deleted["candidates"],
            "evidence_deleted": self.deleted["evidence"],
            "episodes_deleted": self.episodes_deleted,
            "suppressions": len(self.suppressions),
            "reverted": len(self.reverted),
            "not_reverted": len(self.not_reverted),
        }

    def detail(self) -> dict[str, Any]:
        return {
            "action": "undo",
            "undone_receipt": self.receipt.pk,
            "deleted": self.deleted,
            "kept": self.kept,
            "reverted": self.reverted,
            "not_reverted": self.not_reverted,
            "also_removed": self.also_removed,
            "suppressions": self.suppressions,
            "transcript_deleted": self.transcript_deleted,
        }

    def summary(self) -> str:
        labels = self.deleted["node_labels"] + self.deleted["candidate_labels"]
        shown = ", ".join(labels[:3]) + (", …" if len(labels) > 3 else "")
        d = self.deleted
        line = (
            f"undid receipt #{self.receipt.pk}: deleted {d['nodes']} node{_plural(d['nodes'])}, "
            f"{d['candidates']} candidate{_plural(d['candidates'])}"
            + (f" ({shown})" if shown else "")
            + f", {d['slices']} slice{_plural(d['slices'])}, "
            f"{d['events']} event{_plural(d['events'])}"
        )
        if self.suppressions:
            n = len(self.suppressions)
            line += f"; {n} label{_plural(n)} suppressed"
        if self.not_reverted:
            n = len(self.not_reverted)
            line += f"; {n} change{_plural(n)} could not be reverted"
        return line[:500]


# --- delete all my memory -------------------------------------------------------------------


# What delete-all removes, in this order (what points at a row goes before it).
OWNED: tuple[tuple[str, Any], ...] = (
    ("evidence", Evidence),
    ("edges", Edge),
    ("slices", Slice),
    ("events", Event),
    ("aliases", Alias),
    ("candidates", Candidate),
    ("pages", Page),
    ("nodes", Node),
    ("episodes", Episode),
    ("transcripts", Transcript),
    ("chat_imports", ChatImport),  # so importing the same export again starts afresh
    ("receipts", Receipt),
    ("revisions", Revision),  # forgetting means forgetting: the history goes too
    ("idempotency_keys", IdempotencyKey),
)

ERASE_CHUNK = 2000  # rows deleted per statement by delete_owned


def delete_owned(model: Any, owner: Person) -> int:
    """Delete ``owner``'s rows of ``model``, :data:`ERASE_CHUNK` at a time (see
    :func:`memory.services.bulk.delete_in_chunks` for why in chunks); how many went."""
    return delete_in_chunks(model.objects.for_owner(owner), model, size=ERASE_CHUNK)


def account_delete(user: Any) -> dict[str, int]:
    """Delete a person's account: every memory row first, suppressions included, in chunks
    (:func:`delete_owned`), then the user, whose cascade removes what is left (their barrier,
    rules, tokens, per-day counts). One transaction. Django's cascade alone would clear the
    links to a large memory in one statement with more parameters than the database takes.
    Returns how many rows of each kind went."""
    with transaction.atomic():
        counts = {
            name: delete_owned(model, user)
            for name, model in (*OWNED, ("suppressions", Suppression))
        }
        user.delete()
    return counts


def _erase_receipt(
    owner: Person,
    *,
    source: str,
    counts: dict[str, int],
    keep_suppressions: bool,
    started: float,
    now: datetime,
) -> Receipt:
    kept = Suppression.objects.for_owner(owner).count() if keep_suppressions else 0
    return receipt_write(
        owner=owner,
        source=source,
        outcome=Outcome.WROTE,
        subject="delete all memory",
        counts=counts,
        detail={
            "action": "erase_all",
            "kept_suppressions": keep_suppressions,
            "suppressions_kept": kept,
        },
        summary=(
            f"deleted all memory: {counts.get('nodes', 0)} nodes, {counts.get('candidates', 0)} "
            f"candidates, {counts.get('transcripts', 0)} transcripts, "
            f"{counts.get('receipts', 0)} receipts"
            + (f"; kept {kept} suppressions" if keep_suppressions else "")
        ),
        started=started,
        created_at=now,
    )


def _erased_models(keep_suppressions: bool) -> list[tuple[str, Any]]:
    models = list(OWNED)
    if not keep_suppressions:
        models.append(("suppressions", Suppression))
        models.append(("erased_conversations", ErasedConversation))
    return models


def _remember_erased(owner: Person, keep_suppressions: bool) -> None:
    """Before the transcripts go: with suppressions kept, what was said stays erased (the
    same conversation sent again is not read again, ``memory.services.erased``)."""
    if keep_suppressions:
        erased_conversations_record(
            owner, Transcript.objects.for_owner(owner).only("text", "name").iterator()
        )


def memory_erase_all(
    *, owner: Person, keep_suppressions: bool = True, source: str = Source.CLEANUP
) -> Receipt:
    """Delete every memory row ``owner`` has, now, in one transaction; see the module
    docstring for what stays. (A person's request goes through :func:`memory_erase_request`,
    which leaves a large memory to the pending workers.)

    Returns the one receipt left afterwards (counts only). Another owner's rows are never
    touched: every delete filters on ``owner``.
    """
    started = time.perf_counter()
    now = timezone.now()
    counts: dict[str, int] = {}
    with transaction.atomic():
        barrier_raise(owner, at=now)
        _remember_erased(owner, keep_suppressions)
        for name, model in _erased_models(keep_suppressions):
            counts[name] = delete_owned(model, owner)
        recall_index_rebuild(owner_id=owner.pk)  # nothing left to index: empties it
        receipt = _erase_receipt(
            owner,
            source=source,
            counts=counts,
            keep_suppressions=keep_suppressions,
            started=started,
            now=now,
        )
    return receipt


# --- delete all, left to the pending workers ------------------------------------------------


def memory_size_over(owner: Person, limit: int) -> bool:
    """Whether ``owner`` has more than ``limit`` rows to delete (at most one bounded query per
    kind, stopping as soon as the count is over)."""
    left = limit
    for _name, model in OWNED:
        left -= len(
            model.objects.for_owner(owner).order_by().values_list("pk", flat=True)[: left + 1]
        )
        if left < 0:
            return True
    return False


def erasure_pending(owner: Person) -> Erasure | None:
    """The owner's delete-all that waits for (or is being done by) the workers, if any."""
    return (
        Erasure.objects.for_owner(owner)
        .exclude(state=ErasureState.DONE)
        .order_by("requested_at", "id")
        .first()
    )


def memory_erase_request(
    *, owner: Person, keep_suppressions: bool = True, source: str = Source.CLEANUP
) -> Receipt | Erasure:
    """A person's "delete all my memory".

    Up to ``UME_INLINE_ERASE_ROWS`` rows it is done now (:func:`memory_erase_all`) and its
    receipt returned. A larger memory is left to the pending workers and the
    :class:`~memory.models.Erasure` returned: from this moment every write of the owner is
    refused (:func:`~memory.services.barrier.barrier_hold`), so nothing saved meanwhile can
    land; what is not deleted yet can still be read until the workers reach it. Asking again
    while one is pending returns that one."""
    if not memory_size_over(owner, settings.UME_INLINE_ERASE_ROWS):
        return memory_erase_all(owner=owner, keep_suppressions=keep_suppressions, source=source)
    now = timezone.now()
    with transaction.atomic():
        barrier_hold(owner, at=now)  # locks the owner's barrier row: requests serialise here
        pending = erasure_pending(owner)
        if pending is not None:
            return pending
        return Erasure.objects.create(
            owner=owner, source=source, keep_suppressions=keep_suppressions, requested_at=now
        )


class _LostClaim(RuntimeError):
    """Another worker took over this delete-all (this one stalled past its lease)."""


def _claim_erasure(now: datetime) -> Erasure | None:
    stale = now - timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS)
    claimed: Erasure | None = claim_first(
        (
            Erasure.objects.filter(state=ErasureState.WAITING).order_by("requested_at", "id"),
            Erasure.objects.filter(state=ErasureState.DELETING, claimed_at__lt=stale).order_by(
                "claimed_at", "id"
            ),
        ),
        state=ErasureState.DELETING,
        now=now,
    )
    return claimed


def _erase_chunk(erasure: Erasure, name: str, model: Any) -> int:
    """Delete one chunk of ``model``'s rows of the owner, counted on ``erasure`` (and its
    claim renewed) in the same transaction; how many went."""
    label = model._meta.label
    with transaction.atomic():
        ids = list(
            model.objects.for_owner(erasure.owner)
            .order_by()
            .values_list("pk", flat=True)[:ERASE_CHUNK]
        )
        if not ids:
            return 0
        gone = model._default_manager.filter(pk__in=ids).delete()[1].get(label, 0)
        erasure.counts[name] = erasure.counts.get(name, 0) + gone
        now = timezone.now()
        if not Erasure.objects.filter(pk=erasure.pk, claimed_at=erasure.claimed_at).update(
            counts=erasure.counts, claimed_at=now
        ):
            raise _LostClaim(f"delete-all {erasure.pk}: another worker took it over")
        erasure.claimed_at = now
    return gone


def erasure_run(erasure: Erasure) -> Receipt:
    """Do a claimed delete-all: every kind of row in chunks, each chunk its own transaction
    (a worker killed midway loses only its chunk in progress; the next one resumes with the
    counts so far), then, with the barrier row locked, a last pass for anything stored
    meanwhile, recall's index emptied, the receipt, and writes allowed again."""
    started = time.perf_counter()
    owner = erasure.owner
    models = _erased_models(erasure.keep_suppressions)
    _remember_erased(owner, erasure.keep_suppressions)
    for name, model in models:
        while _erase_chunk(erasure, name, model):
            pass
    with transaction.atomic():
        now = timezone.now()
        barrier_release(owner, at=now)
        for name, model in models:
            erasure.counts[name] = erasure.counts.get(name, 0) + delete_owned(model, owner)
        recall_index_rebuild(owner_id=owner.pk)
        counts = {name: erasure.counts.get(name, 0) for name, _model in models}
        receipt = _erase_receipt(
            owner,
            source=erasure.source,
            counts=counts,
            keep_suppressions=erasure.keep_suppressions,
            started=started,
            now=now,
        )
        done = Erasure.objects.filter(pk=erasure.pk, claimed_at=erasure.claimed_at).update(
            state=ErasureState.DONE,
            counts=counts,
            finished_at=now,
            receipt=receipt,
            claimed_at=None,
        )
        if not done:
            raise _LostClaim(f"delete-all {erasure.pk}: another worker took it over")
    erasure.state, erasure.receipt, erasure.counts = ErasureState.DONE, receipt, counts
    return receipt


def erasures_run_pending(*, limit: int = 10) -> list[Receipt]:
    """The pending workers' share: each requested delete-all claimed and done; its receipts."""
    receipts: list[Receipt] = []
    while len(receipts) < limit:
        erasure = _claim_erasure(timezone.now())
        if erasure is None:
            break
        try:
            receipts.append(erasure_run(erasure))
        except _LostClaim:
            continue
    return receipts
