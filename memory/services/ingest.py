"""Ingest: a transcript (or an assistant's save) through extractor, gate and apply, to a receipt.

Every attempt leaves exactly one receipt, whatever happens:

- ``rejected_input``: too large, binary, not UTF-8, malformed JSON, invalid proposals;
- ``meaningful_no_write``: read fine, nothing worth keeping (or everything was rejected);
- ``duplicate``: identical content was already ingested for this owner; nothing is written;
- ``llm_failed``: the extractor failed; nothing is written and the transcript stays retryable;
- ``db_write_failed``: the apply transaction failed and rolled back; recorded afterwards in a
  transaction of its own;
- ``deletion_conflict``: the owner deleted something while this write was in flight;
- ``wrote``: something was written, bumped or queued for review.
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, overload

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memory.extractors import ExtractorFailed, get_extractor
from memory.extractors.subjects import Heard
from memory.extractors.subjects.history import heard
from memory.gate import WritePlan, plan_writes
from memory.models import DeletionBarrier, Outcome, Receipt, Transcript
from memory.owned import Person
from memory.proposals import AnyProposal, ProposalError, parse_proposals, proposals_dedupe
from memory.receipt_summary import summarise
from memory.selectors import SaidSoFar, gate_snapshot, recurring_subjects, said_before
from memory.services.apply import ApplyResult, CandidateDecided, plan_apply, plan_recheck
from memory.services.barrier import (
    DeletionConflict,
    barrier_check,
    barrier_lock,
    barrier_refuse,
)
from memory.services.episodes import episodes_index, episodes_insert, episodes_record
from memory.services.erased import conversation_erased
from memory.services.receipts import elapsed_ms, receipt_write
from memory.transcripts import (
    Message,
    TranscriptError,
    content_sha256,
    decode_bytes,
    messages_from_json,
    parse_transcript,
)
from memory.vocab import TranscriptStatus

log = logging.getLogger(__name__)
# One line per processed transcript (ids, outcome, duration; never text): see ume/logs.py.
worker_log = logging.getLogger("ume.worker")

APPLY_ATTEMPTS = 4
MAX_ATTEMPTS = 5


def _lease() -> timedelta:
    """How long a claim holds without finishing (``UME_CLAIM_LEASE_SECONDS``)."""
    return timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS)


@dataclass(frozen=True)
class Run:
    """One ingest as its caller describes it, read by every step from storing to the receipt:
    whose memory, through which door and with which token, read by which extractor, and when
    it began (the receipt's duration). Frozen: no step changes what a later one reads."""

    owner: Person
    source: str = "command"
    token: Any = None
    extractor: str = ""
    started: float = field(default_factory=time.perf_counter)

    @classmethod
    def begin(
        cls,
        owner: Person,
        source: str = "command",
        *,
        token: Any = None,
        extractor: str | None = None,
        started: float | None = None,
    ) -> Run:
        """A run from now (or ``started``), with the deployment's extractor unless named."""
        return cls(
            owner=owner,
            source=source,
            token=token,
            extractor=extractor or settings.UME_DEFAULT_EXTRACTOR,
            started=time.perf_counter() if started is None else started,
        )


@dataclass(frozen=True)
class Stored:
    """What :func:`store` kept: the transcript, whether it is new, and whether it is this
    run's to process (new, or stored by a save that failed before finishing, which nobody
    but a retry processes)."""

    transcript: Transcript
    created: bool
    ours: bool


def _receipt(
    run: Run,
    *,
    outcome: str,
    subject: str,
    error: str = "",
    counts: dict[str, int] | None = None,
    detail: dict[str, Any] | None = None,
) -> Receipt:
    """Record a receipt with nothing written, in a transaction of its own."""
    detail = detail or {}
    summary = error.splitlines()[0][:300] if error else summarise({}, detail, {})
    with transaction.atomic():
        return receipt_write(
            owner=run.owner,
            source=run.source,
            token=run.token,
            outcome=outcome,
            extractor=run.extractor,
            subject=subject,
            counts=counts or {},
            detail=detail,
            summary=summary,
            error=error,
            started=run.started,
        )


# --- the two verbs: store, then process now or defer ----------------------------------------


def store(
    run: Run,
    text: str,
    *,
    name: str,
    source_time: datetime | None = None,
    dedupe_key: str = "",
    inline: bool = True,
) -> Stored:
    """Keep ``text`` (already checked) as a transcript, once per owner and content.

    ``inline`` (a save or an upload): until :func:`process` runs it or defers it to the
    workers, no worker takes it (:func:`transcript_store`)."""
    transcript, created = transcript_store(
        owner=run.owner,
        text=text,
        name=name,
        source=run.source,
        source_time=source_time,
        dedupe_key=dedupe_key,
        inline=inline,
    )
    return Stored(transcript, created, created or transcript_is_orphan(transcript))


@overload
def process(run: Run, transcript: Transcript, *, defer: Literal[False] = False) -> Receipt: ...


@overload
def process(run: Run, transcript: Transcript, *, defer: Literal[True]) -> Transcript: ...


@overload
def process(run: Run, transcript: Transcript, *, defer: bool) -> Receipt | Transcript: ...


def process(run: Run, transcript: Transcript, *, defer: bool = False) -> Receipt | Transcript:
    """Run a stored transcript through extractor, gate and apply now (its receipt), or hand it
    to the pending workers (the transcript, whose receipt comes when they are done)."""
    if defer:
        return transcript_queue(transcript)
    return process_now(run, transcript)


# --- entry points ---------------------------------------------------------------------------


def ingest_bytes(
    *,
    owner: Person,
    data: bytes,
    name: str,
    source: str = "command",
    extractor: str | None = None,
    source_time: datetime | None = None,
    token: Any = None,
) -> Receipt:
    """A file's bytes: decoded and size-checked here, so bad files still get a receipt."""
    run = Run.begin(owner, source, token=token, extractor=extractor)
    try:
        text = decode_bytes(data, name=name, max_bytes=settings.UME_MAX_TRANSCRIPT_BYTES)
    except TranscriptError as exc:
        return _receipt(run, outcome=Outcome.REJECTED_INPUT, subject=name, error=str(exc))
    return _ingest(run, text, name=name, source_time=source_time)


def ingest_text(
    *,
    owner: Person,
    text: str,
    name: str,
    source: str = "command",
    extractor: str | None = None,
    source_time: datetime | None = None,
    token: Any = None,
    dedupe_key: str = "",
) -> Receipt:
    """A transcript's text: stored once per owner (by content hash), then processed."""
    run = Run.begin(owner, source, token=token, extractor=extractor)
    return _ingest(run, text, name=name, source_time=source_time, dedupe_key=dedupe_key)


def _ingest(
    run: Run, text: str, *, name: str, source_time: datetime | None, dedupe_key: str = ""
) -> Receipt:
    """Checked, stored and processed now; a refusal is a receipt."""
    size = len(text.encode("utf-8"))
    limit = settings.UME_MAX_TRANSCRIPT_BYTES
    if size > limit:
        error = f"{name}: {size:,} bytes is over the limit of {limit:,} bytes"
        return _receipt(run, outcome=Outcome.REJECTED_INPUT, subject=name, error=error)
    name = name.replace("\x00", "")  # PostgreSQL refuses NUL in text columns
    if "\x00" in text:
        error = f"{name}: contains NUL characters, not a transcript"
        return _receipt(run, outcome=Outcome.REJECTED_INPUT, subject=name, error=error)
    if not text.strip():
        return _receipt(
            run,
            outcome=Outcome.MEANINGFUL_NO_WRITE,
            subject=name,
            detail={"reason": "empty transcript"},
        )
    stored = store(run, text, name=name, source_time=source_time, dedupe_key=dedupe_key)
    return process(run, stored.transcript)


def ingest_messages(
    *,
    owner: Person,
    messages: Sequence[dict[str, Any]],
    name: str,
    source: str,
    token: Any = None,
    extractor: str | None = None,
    source_time: datetime | None = None,
) -> Receipt:
    """A conversation sent by an assistant (API or MCP): stored as a JSON transcript."""
    run = Run.begin(owner, source, token=token, extractor=extractor)
    try:
        text, when, day = _conversation(messages, source_time)
    except TranscriptError as exc:
        return _receipt(run, outcome=Outcome.REJECTED_INPUT, subject=name, error=str(exc))
    return _ingest(run, text, name=name, source_time=when, dedupe_key=day)


def _conversation(
    messages: Sequence[dict[str, Any]], source_time: datetime | None
) -> tuple[str, datetime, str]:
    """The stored text of a conversation, its time and its dedupe key (the day)."""
    parsed = messages_from_json(list(messages))
    payload = [
        {
            "id": m.id,
            "role": m.role,
            "content": m.content,
            **({"ts": m.ts.isoformat()} if m.ts else {}),
        }
        for m in parsed
    ]
    when = source_time or timezone.now()
    return json.dumps({"messages": payload}, ensure_ascii=False), when, when.date().isoformat()


def save_messages(
    *,
    owner: Person,
    messages: Sequence[dict[str, Any]],
    name: str,
    source: str,
    token: Any = None,
    source_time: datetime | None = None,
) -> Receipt | Transcript:
    """An assistant's save (API or MCP), with the work one request may do bounded.

    A conversation within ``UME_INLINE_UPLOAD_BYTES`` and ``UME_INLINE_MESSAGES`` is processed
    now and its receipt returned. A larger one is stored for the pending workers (``ingest
    --pending``) and its transcript returned: its status, and its receipt once processed, are at
    ``GET /v1/transcripts/{id}``. Too large or malformed: a ``rejected_input`` receipt either way.

    Either way nothing is left for the workers unless the save succeeds: a transcript processed
    now is never theirs (``Transcript.inline``), and a large one is handed to them by the last
    write of the save (:func:`transcript_queue`).
    """
    started = time.perf_counter()
    try:
        text, when, day = _conversation(messages, source_time)
    except TranscriptError:
        text = ""
    size = len(text.encode("utf-8"))
    inline = (
        size <= settings.UME_INLINE_UPLOAD_BYTES and len(messages) <= settings.UME_INLINE_MESSAGES
    )
    if not text or inline or size > settings.UME_MAX_TRANSCRIPT_BYTES or "\x00" in text:
        return ingest_messages(
            owner=owner,
            messages=messages,
            name=name,
            source=source,
            token=token,
            source_time=source_time,
        )
    run = Run.begin(owner, source, token=token, started=started)
    stored = store(run, text, name=name, source_time=when, dedupe_key=day)
    return process(run, stored.transcript, defer=True)


def ingest_memory(*, owner: Person, text: str, source: str, token: Any = None) -> Receipt:
    """One memory in the person's words ("I started boxing last week")."""
    now = timezone.now()
    return ingest_messages(**_memory_save(owner, text, source, token, now))


def save_memory_text(
    *, owner: Person, text: str, source: str, token: Any = None
) -> Receipt | Transcript:
    """:func:`ingest_memory` with the bounds of :func:`save_messages` (a large text waits for
    the pending workers)."""
    return save_messages(**_memory_save(owner, text, source, token, timezone.now()))


def _memory_save(
    owner: Person, text: str, source: str, token: Any, now: datetime
) -> dict[str, Any]:
    return {
        "owner": owner,
        "messages": [{"role": "user", "content": text, "ts": now.isoformat()}],
        "name": "memory: " + " ".join(text.replace("\x00", "").split())[:80],
        "source": source,
        "token": token,
        "source_time": now,
    }


def ingest_proposals(
    *, owner: Person, objects: Any, name: str, source: str, token: Any = None
) -> Receipt:
    """Already-extracted objects (an assistant's JSON), straight to the gate."""
    text = json.dumps({"objects": objects}, ensure_ascii=False, default=str)
    return ingest_text(
        owner=owner,
        text=text,
        name=name,
        source=source,
        extractor="proposals",
        token=token,
        dedupe_key=timezone.now().isoformat(),
    )


# --- storing and claiming transcripts -------------------------------------------------------


def transcript_store(
    *,
    owner: Person,
    text: str,
    name: str,
    source: str,
    source_time: datetime | None,
    dedupe_key: str = "",
    inline: bool = False,
) -> tuple[Transcript, bool]:
    """Store ``text`` once per owner. Returns the row and whether it is new.

    ``inline``: the caller processes it in its own request (or hands it to the workers with
    :func:`transcript_queue` once its answer is settled); until then no worker applies it, so
    a save whose request fails or is killed leaves nothing that is written later behind its
    client's back. A retry of the same content finds the row and processes it."""
    sha = content_sha256(f"{dedupe_key}\n{text}" if dedupe_key else text)
    existing = Transcript.objects.for_owner(owner).filter(sha256=sha).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            row = Transcript.objects.create(
                owner=owner,
                name=name[:255],
                text=text,
                sha256=sha,
                source=source,
                source_time=source_time,
                size_bytes=len(text.encode("utf-8")),
                inline=inline,
            )
            return row, True
    except IntegrityError:
        # A concurrent writer stored the same content a moment ago.
        return Transcript.objects.for_owner(owner).get(sha256=sha), False


def transcript_queue(transcript: Transcript) -> Transcript:
    """Hand an ``inline`` transcript that is not done to the pending workers (the last write
    of a save answered "queued"); one a failed request left is queued again afresh."""
    if transcript.inline and transcript.status != TranscriptStatus.DONE:
        Transcript.objects.filter(
            pk=transcript.pk,
            inline=True,
            status__in=[TranscriptStatus.PENDING, TranscriptStatus.FAILED],
        ).update(inline=False, status=TranscriptStatus.PENDING, error="")
        transcript.refresh_from_db()
    return transcript


def transcript_is_orphan(transcript: Transcript) -> bool:
    """Stored by a save processed in its request, and not done: the request failed or was
    killed before finishing, so nobody but a retry will process it."""
    return transcript.inline and transcript.status != TranscriptStatus.DONE


ORPHAN_ERROR = (
    "the save stopped before it finished (the database failed or the request was stopped); "
    "nothing was written: send it again"
)


def _release(transcript: Transcript) -> None:
    """Best effort, as a save's request fails: let go of its claim on an ``inline`` transcript,
    so that a retry of the same content need not wait for the lease. The workers still never
    take it. Nothing is released if the failure came after the transcript was done."""
    try:
        Transcript.objects.filter(
            pk=transcript.pk,
            inline=True,
            status=TranscriptStatus.PROCESSING,
            claimed_at=transcript.claimed_at,
        ).update(status=TranscriptStatus.FAILED, error=ORPHAN_ERROR, processed_at=timezone.now())
    except DatabaseError:  # the database is gone: the claim's lease runs out instead
        log.warning("could not release the claim on transcript %s", transcript.pk)


def transcript_claim(transcript: Transcript, *, now: datetime) -> bool:
    """Atomically move a transcript to ``processing``; False if another worker has it or it is done."""
    claimable = Transcript.objects.filter(
        pk=transcript.pk, status__in=[TranscriptStatus.PENDING, TranscriptStatus.FAILED]
    )
    stale = Transcript.objects.filter(
        pk=transcript.pk, status=TranscriptStatus.PROCESSING, claimed_at__lt=now - _lease()
    )
    # An attempt is counted when it starts, so a transcript that kills its worker every time
    # still runs out of attempts.
    attempt = F("attempts") + 1
    claimed = claimable.update(
        status=TranscriptStatus.PROCESSING, claimed_at=now, attempts=attempt
    ) or stale.update(claimed_at=now, attempts=attempt)
    if claimed:
        transcript.status = TranscriptStatus.PROCESSING
        transcript.claimed_at = now
        transcript.attempts += 1
    return bool(claimed)


def _claim_or_wait(transcript: Transcript) -> tuple[str, dict[str, Any], str] | None:
    """Claim ``transcript``, or say why not: ``None`` once claimed, else (outcome, detail,
    error) for the receipt.

    Identical content being processed right now is waited for (up to its lease), so the answer
    is ``duplicate`` naming the receipt it duplicates; a first attempt that never finished (its
    worker died) loses its claim when the lease runs out, and this attempt processes it.
    """
    lease = timedelta(seconds=settings.UME_CLAIM_LEASE_SECONDS)
    deadline = time.monotonic() + lease.total_seconds() + 1
    pause = 0.02
    while True:
        if transcript_claim(transcript, now=timezone.now()):
            return None
        try:
            transcript.refresh_from_db(fields=["status", "receipt", "claimed_at", "attempts"])
        except Transcript.DoesNotExist:
            # Deleted (delete all, undo) between storing it and claiming it.
            error = "the transcript was deleted while this save was in flight; nothing was written"
            return Outcome.DELETION_CONFLICT, {}, error
        if transcript.status == TranscriptStatus.DONE and transcript.receipt_id is not None:
            detail = {
                "original_receipt": transcript.receipt_id,
                "reason": "identical content already processed",
            }
            return Outcome.DUPLICATE, detail, ""
        if time.monotonic() > deadline:
            error = "identical content is still being processed; try again later"
            return Outcome.DB_WRITE_FAILED, {"retryable": True}, error
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def _finish(transcript: Transcript, *, status: str, receipt: Receipt, error: str = "") -> None:
    # The outcome is recorded (and will be answered): from now on a retryable failure is the
    # workers' to retry, as its receipt says.
    Transcript.objects.filter(pk=transcript.pk).update(
        status=status,
        receipt=receipt,
        error=error,
        processed_at=timezone.now(),
        inline=False,
    )
    transcript.status = status
    transcript.receipt = receipt
    transcript.error = error
    transcript.inline = False


# --- the pipeline ---------------------------------------------------------------------------


def _read(
    transcript: Transcript, extractor: str, said: SaidSoFar | None = None
) -> tuple[list[Message], list[AnyProposal]]:
    """Messages and proposals of a stored transcript (``said``: an import's
    :func:`~memory.selectors.said_before`). Raises TranscriptError, ProposalError,
    ExtractorFailed."""
    if extractor == "proposals":
        try:
            data = json.loads(transcript.text)
        except json.JSONDecodeError as exc:
            raise ProposalError(
                f"{transcript.name}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            ) from exc
        except RecursionError as exc:
            raise ProposalError(f"{transcript.name}: malformed JSON (nested too deeply)") from exc
        messages = (
            messages_from_json(data["messages"])
            if isinstance(data, dict) and "messages" in data
            else []
        )
        return messages, proposals_dedupe(parse_proposals(data))
    messages = parse_transcript(transcript.text, name=transcript.name)
    extract = get_extractor(extractor)
    if extractor == "rules":
        # The subject proposer counts a subject said again in another conversation as evidence.
        owner = transcript.owner

        def recurring(keys: set[str]) -> set[str]:
            return recurring_subjects(owner, keys)

        def history(needles: dict[str, str]) -> dict[str, Heard]:
            if said is None:
                texts, labels = said_before(
                    owner, needles.values(), exclude_transcript=transcript.pk
                )
                return heard(texts, labels, needles)
            texts, labels = said(needles.values(), exclude_transcript=transcript.pk)
            return heard(texts, labels, needles, known=said.holding)

        found = extract(
            messages, source_time=transcript.source_time, recurring=recurring, history=history
        )
        return messages, proposals_dedupe(found)
    return messages, proposals_dedupe(extract(messages, source_time=transcript.source_time))


class OverBudget(Exception):
    """Extraction ran past the time budget of one transcript."""


@contextmanager
def _time_budget(seconds: float | None) -> Iterator[None]:
    """Raise :class:`OverBudget` in this (main) thread after ``seconds``; no-op elsewhere.

    The alarm repeats every 0.1 s once the budget is spent: a raise that lands inside a
    finalizer or a ``__del__`` is swallowed by Python ("Exception ignored"), so one alarm alone
    can be lost. Work that outruns the budget and still finishes also counts as over budget.
    """
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    message = f"extraction took longer than the budget of {seconds:g} s; stopped"

    def expire(signum: int, frame: Any) -> None:
        raise OverBudget(message)

    began = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    if time.monotonic() - began > seconds:
        raise OverBudget(message)


def _read_failure(
    exc: Exception, transcript: Transcript, extractor: str
) -> tuple[str, str, dict[str, Any]]:
    """The outcome, error and detail of a transcript that could not be read or extracted.

    Bad input is ``rejected_input``; an extractor that failed (endpoint down, bad answer) is
    ``llm_failed`` and retryable; one that ran past its budget or crashed is ``llm_failed``
    and not retried (the same input would fail the same way)."""
    name = transcript.name
    if isinstance(exc, OverBudget):
        return Outcome.LLM_FAILED, f"{name}: {exc}", {"retryable": False}
    if isinstance(exc, TranscriptError | ProposalError):
        error = str(exc)
        return (
            Outcome.REJECTED_INPUT,
            error if error.startswith(f"{name}: ") else f"{name}: {error}",
            {},
        )
    if isinstance(exc, ExtractorFailed):
        return Outcome.LLM_FAILED, str(exc), {"retryable": True}
    log.exception("extractor %s failed on %s", extractor, name)
    error = f"{name}: the {extractor} extractor failed ({type(exc).__name__}: {exc})"
    return Outcome.LLM_FAILED, error, {"retryable": False}


def process_now(
    run: Run, transcript: Transcript, *, claimed: bool = False, budget: float | None = None
) -> Receipt:
    """Run one stored transcript through extractor, gate and apply. One receipt, always.

    With ``budget`` (seconds), reading and extracting stop when it runs out (in the main thread,
    where the pending workers run) and the transcript fails visibly instead of running on.
    """
    began = timezone.now()
    if not claimed:
        waiting = _claim_or_wait(transcript)
        if waiting is not None:
            return _receipt(
                run,
                outcome=waiting[0],
                subject=transcript.name,
                error=waiting[2],
                detail={"transcript": transcript.pk, **waiting[1]},
            )
        began = timezone.now()
    try:
        return _ingest_claimed(run, transcript, began, budget)
    except BaseException:
        # Failing with no outcome recorded (the database went away, a bug, the worker told to
        # stop): the save's client hears of a failure, so its transcript must not be written
        # by anyone but a retry (``inline``); let go of the claim so the retry needs no wait.
        if transcript.inline:
            _release(transcript)
        raise


def _ingest_claimed(
    run: Run,
    transcript: Transcript,
    began: datetime,
    budget: float | None,
    apply: Callable[..., Receipt] | None = None,
    said: SaidSoFar | None = None,
) -> Receipt:
    """:func:`process_now` once the transcript is claimed. ``apply``: how the proposals are
    applied (:func:`apply_proposals`, or a group's, :func:`process_group`); ``said``: what
    was said before, an import's (:func:`_read`)."""
    try:
        with _time_budget(budget):
            messages, proposals = _read(transcript, run.extractor, said)
    except Exception as exc:  # a bug must not leave the transcript in ``processing`` either
        outcome, error, detail = _read_failure(exc, transcript, run.extractor)
        receipt = _receipt(
            run,
            outcome=outcome,
            subject=transcript.name,
            error=error,
            detail={"transcript": transcript.pk, **detail},
        )
        _finish(transcript, status=TranscriptStatus.FAILED, receipt=receipt, error=error)
        return receipt
    if messages and conversation_erased(transcript.owner, messages):
        return _erased_again(run, transcript)
    receipt = (apply or apply_proposals)(
        run=run,
        proposals=proposals,
        subject=transcript.name,
        began=began,
        transcript=transcript,
        messages=messages,
        extra={
            "messages": len(messages),
            "user_messages": sum(1 for m in messages if m.role == "user"),
        },
    )
    if receipt.outcome in {Outcome.DB_WRITE_FAILED, Outcome.DELETION_CONFLICT}:
        _finish(transcript, status=TranscriptStatus.FAILED, receipt=receipt, error=receipt.error)
    # else the transcript was marked done in the transaction that applied it (_apply_once)
    return receipt


def _erased_again(run: Run, transcript: Transcript) -> Receipt:
    """A conversation the person's delete-all erased, sent again: refused, and its transcript
    not kept (``memory.services.erased``)."""
    error = (
        f"{transcript.name}: this conversation was erased by “delete all my memory”; it is not "
        "read again (a new conversation is)"
    )
    receipt = _receipt(
        run,
        outcome=Outcome.REJECTED_INPUT,
        subject=transcript.name,
        error=error,
        detail={"transcript": None, "erased_conversation": True},
    )
    Transcript.objects.for_owner(transcript.owner).filter(pk=transcript.pk).delete()
    return receipt


def apply_proposals(
    *,
    run: Run,
    proposals: Sequence[AnyProposal],
    subject: str,
    began: datetime,
    transcript: Transcript | None = None,
    messages: Sequence[Message] = (),
    extra: dict[str, Any] | None = None,
) -> Receipt:
    """Gate ``proposals`` against fresh state and apply the plan; retry on unique-key races.

    The transcript's messages are kept as episodes in the same transaction."""
    last_error: Exception | None = None

    def failed(outcome: str, error: str, *, retryable: bool | None) -> Receipt:
        detail: dict[str, Any] = {"transcript": transcript.pk if transcript else None}
        if retryable is not None:
            detail["retryable"] = retryable
        return _receipt(run, outcome=outcome, subject=subject, error=error, detail=detail)

    for _attempt in range(APPLY_ATTEMPTS):
        try:
            return _apply_once(
                run=run,
                proposals=proposals,
                subject=subject,
                began=began,
                transcript=transcript,
                messages=messages,
                extra=extra or {},
            )
        except (IntegrityError, CandidateDecided) as exc:
            # A concurrent writer created the same key (or a person decided a candidate):
            # the transaction rolled back; plan again against what is there now.
            last_error = exc
            continue
        except DeletionConflict as exc:
            return failed(Outcome.DELETION_CONFLICT, str(exc), retryable=None)
        except DatabaseError as exc:
            log.error("apply failed for %s: %s", subject, exc)
            return failed(Outcome.DB_WRITE_FAILED, f"database write failed: {exc}", retryable=True)
        except Exception as exc:  # a bug: rolled back; a receipt, never a crash
            log.exception("apply failed for %s", subject)
            error = f"{subject}: the write failed and was rolled back ({type(exc).__name__}: {exc})"
            return failed(Outcome.DB_WRITE_FAILED, error, retryable=False)
    error = f"database write failed after {APPLY_ATTEMPTS} attempts: {last_error}"
    return failed(Outcome.DB_WRITE_FAILED, error, retryable=True)


def _apply_once(
    *,
    run: Run,
    proposals: Sequence[AnyProposal],
    subject: str,
    began: datetime,
    transcript: Transcript | None,
    messages: Sequence[Message],
    extra: dict[str, Any],
) -> Receipt:
    """One attempt of :func:`apply_proposals`: snapshot, plan, and in one transaction the
    barrier check, the plan's writes, the episodes and the receipt. Raises what the caller
    retries on (``IntegrityError``, :class:`CandidateDecided`) or records."""
    now = timezone.now()
    snapshot = gate_snapshot(run.owner, proposals, now=now)
    plan = plan_writes(proposals, snapshot)
    with transaction.atomic():
        barrier_check(run.owner, started_at=began)
        if transcript is not None and not _still_there(transcript):
            # Deleted (delete all, undo) after it was claimed: the deletion has
            # committed, since it holds the barrier row we now hold.
            raise DeletionConflict(timezone.now())
        return _write_plan(
            run=run,
            plan=plan,
            proposals=len(proposals),
            subject=subject,
            now=now,
            transcript=transcript,
            messages=messages,
            extra=extra,
            keep=_keep_episodes,
        )


def _keep_episodes(transcript: Transcript, messages: Sequence[Message], now: datetime) -> None:
    episodes_record(transcript=transcript, messages=messages, now=now)


def _write_plan(
    *,
    run: Run,
    plan: WritePlan,
    proposals: int,
    subject: str,
    now: datetime,
    transcript: Transcript | None,
    messages: Sequence[Message],
    extra: dict[str, Any],
    keep: Callable[[Transcript, Sequence[Message], datetime], None],
) -> Receipt:
    """The writes of one save, inside the caller's transaction, once the barrier is checked:
    the suppressions rechecked, the receipt, the plan's rows, the episodes (by ``keep``), the
    receipt's figures and the transcript marked done."""
    plan_recheck(owner=run.owner, plan=plan, now=now)
    receipt = receipt_write(
        owner=run.owner,
        source=run.source,
        token=run.token,
        outcome=Outcome.WROTE,
        extractor=run.extractor,
        subject=subject,
    )
    result = plan_apply(
        owner=run.owner,
        plan=plan,
        receipt=receipt,
        now=now,
        transcript=transcript,
        source=run.source,
    )
    if transcript is not None and messages:
        keep(transcript, messages, now)
    _complete(
        receipt,
        plan=plan,
        result=result,
        started=run.started,
        extra=extra,
        proposals=proposals,
        transcript=transcript,
    )
    if transcript is not None:
        # In the same transaction as what it wrote: a worker killed just after the commit
        # must not leave the transcript "processing", or the next worker to take over its
        # claim would apply it a second time.
        _finish(transcript, status=TranscriptStatus.DONE, receipt=receipt)
    return receipt


# --- several transcripts in one transaction (an import) ---------------------------------------


class _Regroup(RuntimeError):
    """A transcript of a group cannot be processed inside it: the group rolls back and each
    of its transcripts is processed on its own."""


@dataclass
class _Group:
    """The transcripts of one owner applied by :func:`process_group`, in one transaction:
    the barrier row locked once, and the episodes of all of them indexed in one write."""

    barrier: DeletionBarrier
    episodes: dict[int, dict[str, str]] = field(default_factory=dict)

    def apply(
        self,
        *,
        run: Run,
        proposals: Sequence[AnyProposal],
        subject: str,
        began: datetime,
        transcript: Transcript | None = None,
        messages: Sequence[Message] = (),
        extra: dict[str, Any] | None = None,
    ) -> Receipt:
        """:func:`_apply_once` inside the group's transaction. Whatever fails is raised (the
        group rolls back); nothing is retried or recorded here."""
        # The barrier row is locked since the group began: no deletion has committed since,
        # and none can until the group does. The transcript was claimed by an UPDATE of
        # this transaction, which holds its row the same way: it is still there.
        barrier_refuse(self.barrier, started_at=began)
        now = timezone.now()
        plan = plan_writes(proposals, gate_snapshot(run.owner, proposals, now=now))
        return _write_plan(
            run=run,
            plan=plan,
            proposals=len(proposals),
            subject=subject,
            now=now,
            transcript=transcript,
            messages=messages,
            extra=extra or {},
            keep=self.keep,
        )

    def keep(self, transcript: Transcript, messages: Sequence[Message], now: datetime) -> None:
        inserted = episodes_insert(transcript=transcript, messages=messages, now=now)
        if inserted:
            self.episodes[transcript.pk] = inserted


def process_group(
    transcripts: Sequence[Transcript],
    *,
    extractor: str | None = None,
    said: SaidSoFar | None = None,
) -> list[Receipt]:
    """Process stored transcripts of one owner now, in order, in one transaction: each one
    claimed, read, gated against what the ones before it wrote, applied and receipted on its
    own, as :func:`process_now` does, with the deletion barrier locked once and their
    episodes indexed in one recall write (one statistics lock, one embedding call) before the
    one commit. Their receipts, in order.

    If anything fails inside the group (a database error, a unique-key race, a deletion, a
    transcript another worker holds), the whole group rolls back, nothing of it written, and
    each transcript is processed on its own by :func:`process_now`, whose retries and failure
    receipts then apply to the one that fails while the others land.

    ``said``: what the person said before, kept across an import's groups (each conversation
    reads the earlier ones' messages; the same answer as :func:`~memory.selectors.said_before`)."""
    if not transcripts:
        return []
    owner = transcripts[0].owner
    if any(t.owner_id != owner.pk for t in transcripts):
        raise ValueError("process_group: the transcripts of one owner only")
    try:
        with transaction.atomic():
            group = _Group(barrier=barrier_lock(owner))
            if said is not None:
                said.check()  # under the barrier: no deletion commits while the group runs
            receipts = []
            for transcript in transcripts:
                run = Run.begin(owner, transcript.source, extractor=extractor)
                if not transcript_claim(transcript, now=timezone.now()):
                    raise _Regroup(f"transcript {transcript.pk} is not free to claim")
                receipts.append(
                    _ingest_claimed(
                        run, transcript, timezone.now(), None, apply=group.apply, said=said
                    )
                )
            episodes_index(owner_id=owner.pk, inserted=group.episodes)
        return receipts
    except Exception as exc:  # rolled back whole: each one again, on its own
        if said is not None:
            said.reset()  # it read the group's own messages, now gone
        log.warning(
            "a group of %d transcripts rolled back (%s: %s); processing them one by one",
            len(transcripts),
            type(exc).__name__,
            exc,
        )
    for transcript in transcripts:
        # What the rolled-back claim and finish set on the instance; a transcript deleted
        # meanwhile is process_now's to report.
        with suppress(Transcript.DoesNotExist):
            transcript.refresh_from_db(
                fields=["status", "receipt", "error", "claimed_at", "attempts", "inline"]
            )
    return [process_now(Run.begin(owner, t.source, extractor=extractor), t) for t in transcripts]


def _still_there(transcript: Transcript) -> bool:
    return Transcript.objects.filter(pk=transcript.pk).exists()


def _complete(
    receipt: Receipt,
    *,
    plan: WritePlan,
    result: ApplyResult,
    started: float,
    extra: dict[str, Any],
    proposals: int,
    transcript: Transcript | None,
) -> None:
    counts = result.counts(plan)
    reasons = plan.reason_counts()
    detail = result.detail()
    detail.update(extra)
    detail["proposed"] = proposals
    detail["transcript"] = transcript.pk if transcript else None
    receipt.outcome = Outcome.WROTE if plan.has_writes else Outcome.MEANINGFUL_NO_WRITE
    receipt.counts = counts
    receipt.rejected = [r.as_json() for r in plan.rejected]
    receipt.reasons = reasons
    receipt.detail = detail
    receipt.summary = summarise(counts, detail, reasons)
    receipt.duration_ms = elapsed_ms(started)
    receipt.save(
        update_fields=[
            "outcome",
            "counts",
            "rejected",
            "reasons",
            "detail",
            "summary",
            "duration_ms",
        ]
    )


def _next_to_claim(now: datetime) -> Transcript | None:
    """The next transcript to claim, locked, skipping rows another worker holds: a waiting
    upload, else a retryable failure whose wait is over, else one a dead worker left."""
    for rows in (
        Transcript.objects.waiting(),
        Transcript.objects.retry_due(now, MAX_ATTEMPTS),
        Transcript.objects.abandoned(now - _lease(), MAX_ATTEMPTS),
    ):
        row = rows.select_for_update(skip_locked=True).select_related("owner").first()
        if row is not None:
            return row
    return None


def _pending_wholes(limit: int, collect: Callable[[list[Receipt]], None]) -> int:
    """The pending work that comes whole, one unit each: delete-alls, ume exports to import,
    chat exports to split. How many units were done."""
    # Imported here: these modules build on this one.
    from memory.exports.services import memory_imports_run_pending
    from memory.services.erase import erasures_run_pending
    from memory.services.imports import chat_imports_read_pending

    units = 0
    for erased in erasures_run_pending(limit=limit):
        units += 1
        collect([erased])
    if units < limit:
        for imported in memory_imports_run_pending(limit=limit - units):
            units += 1
            collect([imported.receipt] if imported.receipt else [])
    if units < limit:
        for result in chat_imports_read_pending(limit=limit - units):
            units += 1
            collect([*result.broken, *([result.receipt] if result.receipt else [])])
    return units


def ingest_pending(
    *,
    limit: int = 50,
    extractor: str | None = None,
    on_done: Callable[[Receipt], None] | None = None,
) -> list[Receipt]:
    """The pending work, oldest first: requested delete-alls (writes are refused until they
    are done), then uploaded ume exports to import, then chat exports to split into
    conversations, then uploaded transcripts.

    Safe with several workers at once: rows are claimed with ``SELECT ... FOR UPDATE SKIP
    LOCKED`` on PostgreSQL, and every claim is also a conditional UPDATE, so a row is processed
    by exactly one worker on any backend. A delete-all or an export counts as one towards
    ``limit``; their receipts are returned (and passed to ``on_done``) with the transcripts'.
    """
    receipts: list[Receipt] = []

    def collect(done: list[Receipt]) -> None:
        receipts.extend(done)
        if on_done is not None:
            for receipt in done:
                on_done(receipt)

    units = _pending_wholes(limit, collect)
    now = timezone.now()
    # A worker that died on the same transcript MAX_ATTEMPTS times: give up on it, visibly.
    Transcript.objects.given_up(now - _lease(), MAX_ATTEMPTS).update(
        status=TranscriptStatus.FAILED,
        error=f"gave up after {MAX_ATTEMPTS} attempts: the worker stopped before finishing",
        processed_at=now,
    )
    # A save that was to process its transcript in its own request and stopped before it
    # finished: never applied here (its client was told it failed); visibly failed, so its
    # status says so. A retry of the same content still processes it.
    Transcript.objects.orphaned(now - _lease()).update(
        status=TranscriptStatus.FAILED, error=ORPHAN_ERROR, processed_at=now
    )
    while units < limit:
        now = timezone.now()
        with transaction.atomic():
            row = _next_to_claim(now)
            if row is None:
                break
            if not transcript_claim(row, now=now):
                continue
        run = Run.begin(row.owner, row.source, extractor=extractor)
        receipt = process_now(run, row, claimed=True, budget=settings.UME_INGEST_BUDGET_SECONDS)
        worker_log.info(
            "transcript processed",
            extra={
                "route": "ingest --pending",
                "user_id": row.owner_id,
                "transcript_id": row.pk,
                "receipt_id": receipt.pk,
                "outcome": receipt.outcome,
                "duration_ms": receipt.duration_ms,
            },
        )
        units += 1
        collect([receipt])
    return receipts
