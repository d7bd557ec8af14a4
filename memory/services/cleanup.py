"""The cron job: expire, retain, de-junk and sweep, one receipt per user it changed.

For each user, :func:`cleanup_user` first *plans* (reads only) and then, unless ``dry_run``,
*applies* that plan in one transaction under a per-user lock, so a dry run reports exactly what
a real run would do and writes nothing. Each step:

- **candidates**: pending candidates whose ``expires_at`` has passed become ``expired``
  (``stale``), and so do one-off, low-value guesses (:func:`memory.triage.is_one_off`) that
  ume last saw ``UME_ONE_OFF_DAYS`` ago or more (``one_off``), unless a person restored them
  once. Each expired guess is listed in the run's receipt with its reason and points at that
  receipt (``Candidate.expired_receipt``), so a person can bring it back
  (:func:`memory.services.triage.candidates_restore`). Their evidence is kept, and a later
  mention revives the same row as pending (see ``memory.selectors.gate_snapshot`` and
  ``memory.services.apply``);
- **suppressions**: one whose ``suppressed_until`` has passed stops blocking by definition
  (``memory.selectors.active_suppressions``, which the gate uses too), so nothing is written;
  cleanup reports those that expired since this user's previous cleanup receipt and leaves
  them listed (the suppression list shows them as expired);
- **retention**: with ``MemoryRule.retention_days`` set, evidence created before the cut-off,
  finished transcripts stored before it and slices superseded before it are deleted. Nodes are
  never deleted by retention, so nodes a person promoted (or any other) stay;
- **junk**: extracted nodes whose label fails ``memory.policy.label_rejection`` (the same
  ``is_junk_label``/``is_bad_title``/``is_bad_label`` the gate uses) are deleted with a
  ``cleanup`` suppression so they do not come back. Nodes a person promoted or made are
  reported, never deleted;
- **episodes**: retention deletes what was said before the cut-off (and the episodes of the
  transcripts it deletes); episodes of a transcript that is no longer a finished save are
  swept as orphans;
- **orphans**: evidence whose every target (node, slice, event, edge, candidate) is gone.
  Edges to deleted nodes cannot exist: both ends are ``on_delete=CASCADE`` foreign keys,
  enforced by the database on SQLite and PostgreSQL alike, so there is nothing to sweep.

Cleanup does not raise the deletion barrier: it runs every few minutes and would otherwise
drop every ingest in flight. It needs no barrier: a write aimed at a junk node it deleted fails
its foreign key and is planned again against the suppression, and a bump of a candidate it
expired revives that candidate.

Two runs may overlap (two cron hosts). On PostgreSQL each user is processed under a
transaction-level advisory lock taken with ``pg_try_advisory_xact_lock``: the second run skips
a user the first holds and reports it as ``busy``. On SQLite the first write of the per-user
transaction takes the database's write lock, which serialises the runs; the second one then
finds nothing left to do. Every write is also conditional (``status=pending``, ``expires_at``
still past), so nothing is counted twice.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from memory.keys import core_key
from memory.models import (
    Candidate,
    DeletionBarrier,
    Edge,
    Episode,
    Event,
    Evidence,
    IdempotencyKey,
    MemoryRule,
    Node,
    Outcome,
    Receipt,
    Revision,
    Slice,
    Source,
    Suppression,
    Transcript,
)
from memory.owned import OwnedQuerySet, Person
from memory.policy import label_rejection
from memory.selectors import active_suppressions
from memory.services.bulk import delete_in_chunks
from memory.services.history import Actor, History, delete_tree
from memory.services.recall_index import recall_index_refresh
from memory.services.receipts import receipt_write
from memory.triage import ONE_OFF_MAX_MENTIONS
from memory.vocab import (
    CandidateStatus,
    NodeOrigin,
    RevisionAction,
    RevisionActor,
    SuppressionKind,
    SuppressionReason,
    TranscriptStatus,
)

# One line per user checked (ids, counts, status; never labels): see ume/logs.py.
worker_log = logging.getLogger("ume.worker")

# The first key of the two-key advisory lock: "ume cleanup", so other advisory-lock users of
# the same database do not collide with us.
_LOCK_NAMESPACE = zlib.crc32(b"ume.cleanup") & 0x7FFFFFFF

# Rows per statement when cleanup reads or deletes at scale: memory stays bounded whatever
# the size of the store (a delete with cascades loads the rows it deletes).
CHUNK = 2000
# Entries listed per step in a report (the counts stay exact): a receipt of a run that
# expired 10,000 candidates names the first ones, not every one.
LIST_LIMIT = 1000

# The step counts of a cleanup, in the order they are reported.
COUNT_KEYS = (
    "candidates_expired",
    "one_offs_expired",
    "suppressions_expired",
    "evidence_deleted",
    "transcripts_deleted",
    "episodes_deleted",
    "slices_deleted",
    "junk_nodes_removed",
    "junk_slices_removed",
    "junk_events_removed",
    "junk_edges_removed",
    "suppressions_written",
    "orphan_evidence_deleted",
    "orphan_episodes_deleted",
    "revisions_deleted",
    "idempotency_keys_expired",
)


StepCallback = Callable[["UserCleanup", str, int], None]

# Sweeps that belong to no user, registered by the apps that own them (the domain imports no
# app: connectors adds the expiry of unused OAuth clients in its AppConfig.ready). Each is
# called as ``sweep(now, dry_run)`` and returns how many rows it deleted (or would delete).
Sweep = Callable[[datetime, bool], int]
SWEEPS: dict[str, Sweep] = {}


def cleanup_sweeps(*, now: datetime, dry_run: bool = False) -> dict[str, int]:
    """Run every registered sweep once: its name and count."""
    return {name: sweep(now, dry_run) for name, sweep in SWEEPS.items()}


@dataclass
class UserCleanup:
    """What cleanup did (or, in a dry run, would do) for one user."""

    user_id: int
    username: str
    as_of: datetime
    dry_run: bool
    status: str = "clean"  # clean | changed | busy
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNT_KEYS, 0))
    candidates: list[dict[str, Any]] = field(default_factory=list)
    suppressions: list[dict[str, Any]] = field(default_factory=list)
    junk: list[dict[str, Any]] = field(default_factory=list)
    junk_kept: list[dict[str, Any]] = field(default_factory=list)
    retention: dict[str, Any] | None = None
    receipt: Receipt | None = None
    history: History | None = None
    step: Callable[[str, int], None] = field(default=lambda name, count: None, repr=False)

    @property
    def changed(self) -> bool:
        return any(self.counts.values())

    def as_json(self) -> dict[str, Any]:
        return {
            "user": self.username,
            "status": self.status,
            "receipt_id": self.receipt.pk if self.receipt else None,
            "counts": self.counts,
            "candidates_expired": self.candidates,
            "suppressions_expired": self.suppressions,
            "junk_removed": self.junk,
            "junk_kept": self.junk_kept,
            "retention": self.retention,
        }

    def summary(self) -> str:
        c = self.counts
        one_offs = (
            f" ({c['one_offs_expired']} one-off guesses unreviewed for "
            f"{settings.UME_ONE_OFF_DAYS} days)"
            if c["one_offs_expired"]
            else ""
        )
        parts = [
            f"{c['candidates_expired']} candidates expired{one_offs}",
            f"{c['suppressions_expired']} suppressions expired",
        ]
        if self.retention:
            parts.append(
                f"retention {self.retention['days']} days: {c['evidence_deleted']} evidence, "
                f"{c['transcripts_deleted']} transcripts, {c['episodes_deleted']} episodes, "
                f"{c['slices_deleted']} old slices deleted"
            )
        parts.append(f"{c['junk_nodes_removed']} junk nodes removed")
        parts.append(f"{c['orphan_evidence_deleted']} orphan evidence deleted")
        if c["orphan_episodes_deleted"]:
            parts.append(f"{c['orphan_episodes_deleted']} orphan episodes deleted")
        return "; ".join(parts)[:500]


@dataclass
class _Plan:
    """The rows a run will touch, as primary keys (read before any write)."""

    candidate_ids: list[int] = field(default_factory=list)
    retention_cutoff: datetime | None = None
    junk: list[tuple[Node, str]] = field(default_factory=list)


# --- entry points ---------------------------------------------------------------------------


def cleanup_run(
    *,
    now: datetime | None = None,
    dry_run: bool = False,
    user: Any = None,
    on_user: Callable[[UserCleanup], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    on_step: StepCallback | None = None,
) -> list[UserCleanup]:
    """Clean up every user that has memory data (or just ``user``). One report per user.
    ``on_step(report, step, count)`` is called after each step of each user."""
    now = now or timezone.now()
    if user is not None:
        owners = [user]
    else:
        ids: set[int] = set()
        for model in (Node, Candidate, Suppression, Evidence, Transcript):
            ids.update(model.objects.values_list("owner_id", flat=True).distinct().order_by())
        ids.update(
            MemoryRule.objects.filter(retention_days__isnull=False).values_list(
                "owner_id", flat=True
            )
        )
        owners = list(get_user_model().objects.filter(pk__in=ids).order_by("pk"))
    if on_start is not None:
        on_start(len(owners))
    reports = []
    for owner in owners:
        report = cleanup_user(owner=owner, now=now, dry_run=dry_run, on_step=on_step)
        worker_log.info(
            "cleanup user",
            extra={
                "route": "cleanup",
                "user_id": owner.pk,
                "status": report.status,
                "dry_run": dry_run,
                "counts": {k: n for k, n in report.counts.items() if n},
                "receipt_id": report.receipt.pk if report.receipt else None,
            },
        )
        reports.append(report)
        if on_user is not None:
            on_user(report)
    return reports


def cleanup_user(
    *,
    owner: Person,
    now: datetime | None = None,
    dry_run: bool = False,
    on_step: StepCallback | None = None,
) -> UserCleanup:
    """Plan and (unless ``dry_run``) apply one user's cleanup; see the module docstring.
    ``on_step(report, step, count)`` is called after each step (planned, then applied)."""
    now = now or timezone.now()
    started = time.perf_counter()
    report = UserCleanup(
        user_id=owner.pk, username=owner.get_username(), as_of=now, dry_run=dry_run
    )

    def step(name: str, count: int) -> None:
        if on_step is not None:
            on_step(report, name, count)

    report.step = step
    if dry_run:
        _plan(owner, now, report)
        report.status = "changed" if report.changed else "clean"
        return report
    with transaction.atomic():
        if not _lock_user(owner):
            report.status = "busy"
            return report
        plan = _plan(owner, now, report)
        if report.changed:
            _apply(owner, now, plan, report)
            report.status = "changed"
            report.receipt = _write_receipt(owner, now, report, started)
            _mark_expired(owner, plan.candidate_ids, report.receipt)
            if report.history is not None:
                report.history.flush(receipt_id=report.receipt.pk)
    return report


# --- locking --------------------------------------------------------------------------------


def _lock_user(owner: Person) -> bool:
    """Take this user's cleanup lock for the current transaction. False if another run has it."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT pg_try_advisory_xact_lock(%s, %s)",
                [_LOCK_NAMESPACE, owner.pk & 0x7FFFFFFF],
            )
            return bool(cursor.fetchone()[0])
        # SQLite: a write (even one that changes no value) takes the database's write lock
        # for the rest of this transaction, so a second run waits here instead of planning on
        # state the first is about to change. Other backends: best effort, the same write.
        cursor.execute(
            f"UPDATE {DeletionBarrier._meta.db_table} SET barrier_at = barrier_at "
            "WHERE owner_id = %s",
            [owner.pk],
        )
    return True


# --- planning (reads only) ------------------------------------------------------------------


def _plan(owner: Person, now: datetime, report: UserCleanup) -> _Plan:
    """What this run will change, counted and listed for the report, in this order."""
    plan = _Plan()
    for step in (
        _plan_candidates,
        _plan_suppressions,
        _plan_retention,
        _plan_junk,
        _plan_orphans,
    ):
        step(owner, now, plan, report)
    return plan


def _plan_candidates(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Candidates past their expiry date, and one-off guesses left unreviewed too long (read
    in chunks: only the columns reported), each with its reason."""
    counts = report.counts
    rows = (
        _expiring_candidates(owner, now)
        .order_by("expires_at", "id")
        .values_list("id", "label_guess", "expires_at")
    )
    for pk, label, expires_at in rows.iterator(chunk_size=CHUNK):
        plan.candidate_ids.append(pk)
        reason = "stale" if expires_at is not None and expires_at <= now else "one_off"
        counts["one_offs_expired"] += reason == "one_off"
        if len(report.candidates) < LIST_LIMIT:
            report.candidates.append(
                {"id": pk, "label": label, "expires_at": _iso(expires_at), "reason": reason}
            )
    counts["candidates_expired"] = len(plan.candidate_ids)
    report.step("candidates to expire", counts["candidates_expired"])


def _plan_suppressions(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Suppressions that stopped blocking since this user's previous cleanup."""
    counts = report.counts
    since = (
        Receipt.objects.for_owner(owner)
        .filter(source=Source.CLEANUP, detail__action="cleanup")
        .order_by("-created_at", "-id")
        .values_list("created_at", flat=True)
        .first()
    )
    expired = (
        Suppression.objects.for_owner(owner)
        .filter(lifted_at__isnull=True)
        .exclude(pk__in=active_suppressions(owner, now=now).values("pk"))
    )
    if since is not None:
        expired = expired.filter(suppressed_until__gt=since)
    for s in expired.order_by("suppressed_until", "id"):
        report.suppressions.append(
            {"id": s.pk, "label": s.label, "kind": s.kind, "until": _iso(s.suppressed_until)}
        )
    counts["suppressions_expired"] = len(report.suppressions)
    report.step("suppressions expired", counts["suppressions_expired"])


def _plan_retention(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Rows past the person's retention period, and expired idempotency keys."""
    counts = report.counts
    rule = MemoryRule.objects.for_owner(owner).filter(retention_days__isnull=False).first()
    if rule is not None and rule.retention_days is not None:
        cutoff = now - timedelta(days=rule.retention_days)
        plan.retention_cutoff = cutoff
        report.retention = {"days": rule.retention_days, "cutoff": cutoff.isoformat()}
        counts["evidence_deleted"] = _old_evidence(owner, cutoff).count()
        counts["transcripts_deleted"] = _old_transcripts(owner, cutoff).count()
        counts["episodes_deleted"] = _old_episodes(owner, cutoff).count()
        counts["slices_deleted"] = _old_slices(owner, cutoff).count()
        counts["revisions_deleted"] = _old_revisions(owner, cutoff).count()
        report.step(
            "rows past retention",
            sum(counts[k] for k in ("evidence_deleted", "episodes_deleted", "slices_deleted")),
        )
    counts["idempotency_keys_expired"] = _expired_keys(owner, now).count()


def _plan_junk(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Junk nodes: extracted labels that are not memories (kept when a person made them)."""
    counts = report.counts
    nodes = Node.objects.for_owner(owner).only("id", "label", "canonical_key", "origin")
    for node in nodes.order_by("id").iterator(chunk_size=2000):
        reason = label_rejection(node.label)
        if reason is None:
            continue
        entry = {"id": node.pk, "label": node.label, "reason": reason, "origin": node.origin}
        if node.origin != NodeOrigin.EXTRACTED:
            if len(report.junk_kept) < LIST_LIMIT:
                report.junk_kept.append(entry)
            continue
        plan.junk.append((node, reason))
        report.junk.append(entry)
    junk_ids = [node.pk for node, _ in plan.junk]
    if junk_ids:
        # Slices that retention deletes anyway are counted there, not twice.
        junk_slices = Slice.objects.for_owner(owner).filter(node_id__in=junk_ids)
        if plan.retention_cutoff is not None:
            junk_slices = junk_slices.exclude(pk__in=_old_slices(owner, plan.retention_cutoff))
        counts["junk_nodes_removed"] = len(junk_ids)
        counts["junk_slices_removed"] = junk_slices.count()
        counts["junk_events_removed"] = (
            Event.objects.for_owner(owner).filter(node_id__in=junk_ids).count()
        )
        counts["junk_edges_removed"] = (
            Edge.objects.for_owner(owner)
            .filter(Q(from_node_id__in=junk_ids) | Q(to_node_id__in=junk_ids))
            .count()
        )
        counts["suppressions_written"] = len(_keys_to_suppress(owner, plan.junk, now))
    report.step("junk nodes", len(junk_ids))


def _plan_orphans(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Evidence left with no target, including what the steps above will leave so."""
    counts = report.counts
    junk_ids = [node.pk for node, _ in plan.junk]
    counts["orphan_evidence_deleted"] = _orphans_after(owner, plan, junk_ids).count()
    counts["orphan_episodes_deleted"] = _orphan_episodes(owner, plan).count()
    report.step("orphans", counts["orphan_evidence_deleted"] + counts["orphan_episodes_deleted"])


def _expiring_candidates(owner: Person, now: datetime) -> QuerySet[Candidate]:
    """Pending guesses past their expiry date, or one-off guesses (memory.triage.is_one_off,
    written here as a condition) ume last saw ``UME_ONE_OFF_DAYS`` ago that no person
    restored."""
    due = Q(expires_at__isnull=False, expires_at__lte=now)
    days = settings.UME_ONE_OFF_DAYS
    if days:
        due |= Q(
            session_count__lte=1,
            mention_count__lte=ONE_OFF_MAX_MENTIONS,
            confidence__lt=settings.UME_AUTO_CONFIDENCE,
            last_seen_at__lte=now - timedelta(days=days),
            restored_at__isnull=True,
        )
    return Candidate.objects.for_owner(owner).filter(due, status=CandidateStatus.PENDING)


def _old_evidence(owner: Person, cutoff: datetime) -> QuerySet[Evidence]:
    return Evidence.objects.for_owner(owner).filter(created_at__lt=cutoff)


def _old_transcripts(owner: Person, cutoff: datetime) -> QuerySet[Transcript]:
    # Queued or running work is never deleted under a worker's feet.
    return Transcript.objects.for_owner(owner).filter(
        created_at__lt=cutoff,
        status__in=[TranscriptStatus.DONE, TranscriptStatus.FAILED],
    )


def _old_episodes(owner: Person, cutoff: datetime) -> OwnedQuerySet[Episode]:
    """What was said before the cut-off, and everything said in a transcript retention
    deletes (which would take its episodes with it anyway: counted here, not hidden)."""
    return Episode.objects.for_owner(owner).filter(
        Q(learned_at__lt=cutoff) | Q(transcript__in=_old_transcripts(owner, cutoff))
    )


def _orphan_episodes(owner: Person, plan: _Plan) -> OwnedQuerySet[Episode]:
    """Episodes of a transcript that is no longer a finished save (re-queued, or failed on a
    later run): recall shows only what was saved. An episode cannot outlive its transcript
    (a cascading foreign key), so there is nothing else to sweep."""
    rows = Episode.objects.for_owner(owner).exclude(
        transcript__status__in=[TranscriptStatus.DONE, TranscriptStatus.PROCESSING]
    )
    if plan.retention_cutoff is not None:
        rows = rows.exclude(pk__in=_old_episodes(owner, plan.retention_cutoff).values("pk"))
    return rows


def _old_revisions(owner: Person, cutoff: datetime) -> QuerySet[Revision]:
    """History retention forgets: revisions from before the cut-off that a later revision
    replaced or that record a deletion (so the whole history of an object deleted before it),
    and every revision of the old slices retention deletes. The latest revision of a live
    object stays, whatever its age: it is what the object is."""
    newer = Revision.objects.for_owner(owner).filter(
        kind=models.OuterRef("kind"),
        object_id=models.OuterRef("object_id"),
        number__gt=models.OuterRef("number"),
    )
    return Revision.objects.for_owner(owner).filter(
        Q(created_at__lt=cutoff) & (Q(action=RevisionAction.DELETED) | Q(models.Exists(newer)))
        | Q(kind="slice", object_id__in=_old_slices(owner, cutoff).values("pk"))
    )


def _expired_keys(owner: Person, now: datetime) -> QuerySet[IdempotencyKey]:
    return IdempotencyKey.objects.for_owner(owner).filter(expires_at__lte=now)


def _old_slices(owner: Person, cutoff: datetime) -> QuerySet[Slice]:
    return (
        Slice.objects.for_owner(owner)
        .filter(is_current=False)
        .filter(Q(superseded_at__lt=cutoff) | Q(superseded_at__isnull=True, created_at__lt=cutoff))
    )


def _orphans_after(owner: Person, plan: _Plan, junk_ids: list[int]) -> QuerySet[Evidence]:
    """Evidence that will have no target once the junk nodes and old slices are gone."""
    gone_slices = Q(slice__node_id__in=junk_ids)
    if plan.retention_cutoff is not None:
        gone_slices |= Q(slice_id__in=_old_slices(owner, plan.retention_cutoff).values("pk"))
    rows = Evidence.objects.for_owner(owner).filter(
        Q(node__isnull=True) | Q(node_id__in=junk_ids),
        Q(slice__isnull=True) | gone_slices,
        Q(event__isnull=True) | Q(event__node_id__in=junk_ids),
        Q(edge__isnull=True)
        | Q(edge__from_node_id__in=junk_ids)
        | Q(edge__to_node_id__in=junk_ids),
        candidate__isnull=True,
    )
    if plan.retention_cutoff is not None:
        rows = rows.exclude(created_at__lt=plan.retention_cutoff)
    return rows


def _keys_to_suppress(owner: Person, junk: list[tuple[Node, str]], now: datetime) -> dict[str, str]:
    """The junk labels that no active suppression covers yet: canonical key -> label."""
    wanted = {node.canonical_key: node.label for node, _ in junk}
    covered = set(
        active_suppressions(owner, now=now)
        .filter(canonical_key__in=list(wanted))
        .values_list("canonical_key", flat=True)
    )
    return {key: label for key, label in wanted.items() if key not in covered}


# --- applying -------------------------------------------------------------------------------


def _apply(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Write the plan. Runs inside the per-user transaction, under the lock; every write is
    conditional, so the counts are of rows actually changed. Deletes run ``CHUNK`` rows at a
    time, so memory stays bounded whatever the size of the store."""
    counts = report.counts
    counts["candidates_expired"] = sum(
        _expiring_candidates(owner, now).filter(pk__in=ids).update(status=CandidateStatus.EXPIRED)
        for ids in _chunks(plan.candidate_ids)
    )
    report.step("candidates expired", counts["candidates_expired"])

    # The nodes whose recall documents change (episodes are refreshed chunk by chunk).
    touched: set[int] = {n.pk for n, _ in plan.junk}
    if plan.retention_cutoff is not None:
        touched |= _apply_retention(owner, plan.retention_cutoff, report)
    if plan.junk:
        _apply_junk(owner, now, plan, report)
    counts["orphan_evidence_deleted"] = (
        Evidence.objects.for_owner(owner)
        .filter(
            node__isnull=True,
            slice__isnull=True,
            event__isnull=True,
            edge__isnull=True,
            candidate__isnull=True,
        )
        .delete()[0]
    )
    counts["orphan_episodes_deleted"] = _delete_episodes(owner, _orphan_episodes(owner, plan))
    counts["idempotency_keys_expired"] = _expired_keys(owner, now).delete()[0]
    for ids in _chunks(sorted(touched)):
        recall_index_refresh(owner_id=owner.pk, nodes=ids)
    report.step(
        "orphans deleted", counts["orphan_evidence_deleted"] + counts["orphan_episodes_deleted"]
    )


def _apply_retention(owner: Person, cutoff: datetime, report: UserCleanup) -> set[int]:
    """Delete what is past the retention period; the nodes whose facts went."""
    counts = report.counts
    touched = set(
        _old_slices(owner, cutoff).order_by().values_list("node_id", flat=True).distinct()
    )
    # Before the slices go: their history is found by their ids.
    counts["revisions_deleted"] = _old_revisions(owner, cutoff).delete()[0]
    # Evidence has nothing that depends on it: one DELETE, no rows loaded.
    counts["evidence_deleted"] = _old_evidence(owner, cutoff).delete()[0]
    # What was said before the cut-off, including every episode of the transcripts
    # deleted next (so they take none with them).
    counts["episodes_deleted"] = _delete_episodes(owner, _old_episodes(owner, cutoff))
    counts["transcripts_deleted"] = _delete_chunks(_old_transcripts(owner, cutoff), Transcript)
    counts["slices_deleted"] = _delete_chunks(_old_slices(owner, cutoff), Slice)
    report.step(
        "rows deleted by retention",
        sum(counts[k] for k in ("evidence_deleted", "episodes_deleted", "slices_deleted")),
    )
    return touched


def _apply_junk(owner: Person, now: datetime, plan: _Plan, report: UserCleanup) -> None:
    """Suppress the junk labels, then delete their nodes (with their history)."""
    counts = report.counts
    keys = _keys_to_suppress(owner, plan.junk, now)
    Suppression.objects.bulk_create(
        Suppression(
            owner=owner,
            kind=SuppressionKind.NODE,
            canonical_key=key,
            core_key=core_key(key),
            label=label,
            reason=SuppressionReason.CLEANUP,
            source="cleanup:junk",
            created_at=now,
        )
        for key, label in keys.items()
    )
    counts["suppressions_written"] = len(keys)
    junk_keys = [node.canonical_key for node, _ in plan.junk]
    by_key: dict[str, int] = {}
    for chunk in _chunks(junk_keys):
        by_key.update(
            active_suppressions(owner, now=now)
            .filter(canonical_key__in=chunk)
            .order_by("id")
            .values_list("canonical_key", "pk")
        )
    for entry, (node, _reason) in zip(report.junk, plan.junk, strict=True):
        entry["suppression"] = by_key.get(node.canonical_key)
    history = History(
        owner_id=owner.pk,
        actor=Actor(RevisionActor.CLEANUP, "cleanup"),
        reason="junk label",
        now=now,
    )
    removed: dict[str, int] = {}
    for ids in _chunks([n.pk for n, _ in plan.junk], size=max(1, CHUNK // 4)):
        doomed = Node.objects.for_owner(owner).filter(pk__in=ids, origin=NodeOrigin.EXTRACTED)
        delete_tree(owner.pk, doomed.values_list("pk", flat=True), history)
        _total, by_model = doomed.delete()
        for label, n in by_model.items():
            removed[label] = removed.get(label, 0) + n
    report.history = history
    deleted = (sum(removed.values()), removed)
    counts["junk_nodes_removed"] = _deleted(deleted, Node)
    counts["junk_slices_removed"] = _deleted(deleted, Slice)
    counts["junk_events_removed"] = _deleted(deleted, Event)
    counts["junk_edges_removed"] = _deleted(deleted, Edge)
    report.step("junk nodes removed", counts["junk_nodes_removed"])


def _chunks(ids: list[Any], *, size: int = CHUNK) -> Iterator[list[Any]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def _delete_chunks(rows: QuerySet[Any], model: type[models.Model]) -> int:
    """Delete ``rows`` (of ``model``) ``CHUNK`` at a time; how many ``model`` rows went."""
    return delete_in_chunks(rows, model, size=CHUNK)


def _delete_episodes(owner: Person, rows: OwnedQuerySet[Episode]) -> int:
    """Delete these episodes ``CHUNK`` at a time, each chunk's recall documents with it."""
    return delete_in_chunks(
        rows.for_owner(owner),
        Episode,
        size=CHUNK,
        after=lambda ids: recall_index_refresh(owner_id=owner.pk, episodes=ids),
    )


def _deleted(result: tuple[int, dict[str, int]], model: type[models.Model]) -> int:
    return result[1].get(model._meta.label, 0)


def _mark_expired(owner: Person, ids: list[int], receipt: Receipt) -> None:
    """Each guess this run expired points at its receipt: what says so, and what a person
    restores them from."""
    for chunk in _chunks(ids):
        Candidate.objects.for_owner(owner).filter(
            pk__in=chunk, status=CandidateStatus.EXPIRED
        ).update(expired_receipt=receipt)


def _write_receipt(owner: Person, now: datetime, report: UserCleanup, started: float) -> Receipt:
    detail = {"action": "cleanup", "as_of": now.isoformat(), **report.as_json()}
    detail.pop("receipt_id", None)
    return receipt_write(
        owner=owner,
        source=Source.CLEANUP,
        outcome=Outcome.WROTE,
        subject="cleanup",
        counts=report.counts,
        detail=detail,
        summary=report.summary(),
        started=started,
        created_at=now,
    )


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
