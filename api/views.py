"""The /v1/ routes. Each one: the token's owner, one selector or service call, a JSON shape.

Another owner's object is always ``404 not_found``, exactly like one that does not exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from ninja import File, Form, Query, Router, Status
from ninja.files import UploadedFile

from api.auth import TokenAuth
from api.errors import IDEMPOTENT, ApiError, answers, not_found, too_large
from api.idempotency import idempotent
from api.pages import (
    CandidatesPage,
    Listing,
    NodesPage,
    ReceiptsPage,
    RevisionsPage,
    SuppressionsPage,
    paginated,
)
from api.schemas import (
    CandidateFilters,
    ConversationIn,
    DetailPageIn,
    MemoryIn,
    MergeIn,
    NodeFilters,
    NodePatch,
    PromoteIn,
    RecallIn,
    ReceiptFilters,
    RejectIn,
    RollbackIn,
    RulesIn,
)
from memory.cursors import CursorError, Position, cursor_decode
from memory.history import timeline
from memory.models import AccessToken, Outcome, Receipt, Transcript
from memory.models import Source as ReceiptSource
from memory.recall import recall
from memory.selectors import (
    candidate_get,
    candidate_queue,
    memory_rule_for,
    node_events_page,
    node_get,
    node_history,
    node_links,
    node_list,
    node_slices_page,
    receipt_get,
    receipt_list,
    revision_get,
    revision_parents,
    suppression_get,
    suppression_list,
    transcript_get,
)
from memory.services.ingest import Run, process, save_memory_text, save_messages, store
from memory.services.labels import LabelSuppressed
from memory.services.nodes import (
    NodeEditError,
    StaleRevision,
    alias_add,
    node_delete,
    node_update,
    suppression_lift,
)
from memory.services.review import (
    CandidateAlreadyDecided,
    ReviewError,
    candidate_merge,
    candidate_promote,
    candidate_reject,
)
from memory.services.rollback import RollbackError, revision_rollback
from memory.services.rules import TERM_LISTS, RulesError, memory_rule_update
from memory.services.saves import (
    TOO_LARGE,
    SaveRefused,
    conversation_checked,
    file_checked,
    memory_checked,
)
from memory.shapes import (
    CandidateOut,
    DecisionOut,
    DeletedOut,
    NodeDetailOut,
    NodeEventsOut,
    NodeOut,
    NodeSlicesOut,
    QueuedOut,
    RecallOut,
    ReceiptOut,
    RejectOut,
    RevisionOut,
    RollbackOut,
    RulesOut,
    SuppressionOut,
    TranscriptOut,
    UploadOut,
    candidate_json,
    node_detail_json,
    node_events_json,
    node_json,
    node_slices_json,
    revision_json,
    rules_json,
    suppression_json,
    transcript_json,
)
from memory.vocab import SCOPE_READ, SCOPE_WRITE, CandidateStatus

READ = TokenAuth(SCOPE_READ)
WRITE = TokenAuth(SCOPE_WRITE)

router = Router()


def _token(request: HttpRequest) -> AccessToken:
    token = request.auth  # type: ignore[attr-defined]
    assert isinstance(token, AccessToken)
    return token


def _owner(request: HttpRequest) -> Any:
    return _token(request).owner


# --- saves ----------------------------------------------------------------------------------


def _saved(request: HttpRequest, saved: Receipt | Transcript) -> Status[dict[str, Any]]:
    """The receipt (200), or ``202`` with the status link of a save left to the pending
    workers because it was larger than one request may process."""
    if isinstance(saved, Receipt):
        return Status(200, saved.as_json())
    # Answered from the row as the save left it: the hand-over to the workers was its last
    # write, and nothing read after it can fail the answer of a save that was made.
    body = {
        "status": "queued",
        "status_url": f"/v1/transcripts/{saved.pk}",
        "transcript": transcript_json(saved),
    }
    return Status(202, body)


@contextmanager
def _refusals() -> Iterator[None]:
    """A save the domain's rules refuse (``memory.services.saves``): too large is 413,
    anything else 400."""
    try:
        yield
    except SaveRefused as exc:
        if exc.code == TOO_LARGE:
            raise too_large(str(exc)) from exc
        raise ApiError(400, "invalid_input", str(exc)) from exc


@router.post(
    "/memories",
    auth=WRITE,
    tags=["saves"],
    summary="Save one memory",
    response=answers({200: ReceiptOut, 202: QueuedOut}, *IDEMPOTENT),
)
@idempotent
def save_memory(request: HttpRequest, payload: MemoryIn) -> Status[dict[str, Any]]:
    """Runs the text through the extractor and the gate; returns the receipt. A text over
    ``UME_INLINE_UPLOAD_BYTES`` waits for the pending workers: ``202`` with a status link."""
    with _refusals():
        memory_checked(payload.text)
    saved = save_memory_text(
        owner=_owner(request), text=payload.text, source=ReceiptSource.API, token=_token(request)
    )
    return _saved(request, saved)


@router.post(
    "/conversations",
    auth=WRITE,
    tags=["saves"],
    summary="Save a conversation",
    response=answers({200: ReceiptOut, 202: QueuedOut}, *IDEMPOTENT),
)
@idempotent
def save_conversation(request: HttpRequest, payload: ConversationIn) -> Status[dict[str, Any]]:
    """Stores the conversation as a transcript and runs it through the gate; returns the
    receipt. Sending the same conversation again the same day is a ``duplicate``. One over
    ``UME_INLINE_UPLOAD_BYTES`` or ``UME_INLINE_MESSAGES`` waits for the pending workers:
    ``202`` with a status link."""
    messages = [m.model_dump(exclude_none=True) for m in payload.messages]
    for message in messages:
        if "ts" in message and not isinstance(message["ts"], int | float):
            message["ts"] = message["ts"].isoformat()
    with _refusals():
        name = conversation_checked(messages)  # validated before anything is stored
    saved = save_messages(
        owner=_owner(request),
        messages=messages,
        name=name,
        source=ReceiptSource.API,
        token=_token(request),
        source_time=payload.source_time,
    )
    return _saved(request, saved)


@router.post(
    "/recall",
    auth=READ,
    tags=["recall"],
    summary="Recall what ume knows",
    response=answers({200: RecallOut}),
    exclude_unset=True,
)
def recall_view(request: HttpRequest, payload: RecallIn) -> dict[str, Any]:
    result = recall(_owner(request), payload.query, limit=payload.limit)
    return result.as_json()


# --- nodes ----------------------------------------------------------------------------------


@router.get(
    "/nodes",
    auth=READ,
    tags=["nodes"],
    summary="List memories",
    response=answers({200: list[NodeOut]}),
)
@paginated(NodesPage)
def list_nodes(request: HttpRequest, filters: Query[NodeFilters]) -> Listing[Any]:
    if "\x00" in filters.q:
        raise ApiError(400, "invalid_input", "q: must not contain NUL characters")
    nodes = node_list(
        _owner(request), category=filters.category or "", state=filters.state or "", q=filters.q
    )
    return Listing.of(nodes, node_json)


def _node_or_404(request: HttpRequest, node_id: int) -> Any:
    node = node_get(_owner(request), node_id)
    if node is None:
        raise not_found("node")
    return node


def etag(revision: int) -> str:
    return f'"{revision}"'


_ENTITY_TAG = re.compile(r'(W/)?"([\x21\x23-\x7e\x80-\U0010ffff]*)"')
_MALFORMED_IF_MATCH = (
    'If-Match: give "*" or one or more quoted ETags separated by commas, e.g. If-Match: "3"'
)


def _if_match(request: HttpRequest) -> frozenset[int] | None:
    """The revisions ``If-Match`` accepts (RFC 9110, 13.1.1); None without one, or with ``*``
    (any current representation: the node exists). A write compares strongly: a weak tag
    (``W/"3"``) never matches, nor does a tag that is no revision of ours, so a header naming
    only such tags is an empty set (412). Malformed: 400."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    if raw.strip() == "*":
        return None
    revisions: set[int] = set()
    named = 0
    rest = raw.strip()
    while rest:
        if rest.startswith(","):  # empty list elements are allowed
            rest = rest[1:].lstrip()
            continue
        tag = _ENTITY_TAG.match(rest)
        if tag is None:
            raise ApiError(400, "invalid_input", _MALFORMED_IF_MATCH)
        named += 1
        weak, opaque = tag.group(1), tag.group(2)
        if not weak and opaque.isascii() and opaque.isdigit():
            revisions.add(int(opaque))
        rest = rest[tag.end() :].lstrip(" \t")
        if rest and not rest.startswith(","):
            raise ApiError(400, "invalid_input", _MALFORMED_IF_MATCH)
    if not named:
        raise ApiError(400, "invalid_input", _MALFORMED_IF_MATCH)
    return frozenset(revisions)


def _suppressed(exc: LabelSuppressed) -> ApiError:
    """409 ``suppressed``: the name is one an active suppression covers, or the memory rules
    exclude (``suppression_id`` null); ``resembles_forgotten``: it looks like what the
    suppression forgets. Nothing was written."""
    code = "suppressed" if exc.exact else "resembles_forgotten"
    suppression_id = exc.suppression.pk if exc.suppression is not None else None
    return ApiError(409, code, str(exc), suppression_id=suppression_id)


@contextmanager
def _edit() -> Iterator[None]:
    """An edit's refusals as API errors: 412 if the node changed since If-Match, else 400."""
    try:
        yield
    except StaleRevision as exc:
        raise ApiError(412, "stale_revision", str(exc), current_revision=exc.node.revision) from exc
    except LabelSuppressed as exc:
        raise _suppressed(exc) from exc
    except NodeEditError as exc:
        raise ApiError(400, "invalid_edit", str(exc)) from exc


@router.get(
    "/nodes/{node_id}",
    auth=READ,
    tags=["nodes"],
    summary="One memory with its details",
    response=answers({200: NodeDetailOut}, 404),
)
def get_node(
    request: HttpRequest, node_id: int, response: HttpResponse, page: Query[DetailPageIn]
) -> dict[str, Any]:
    """With ``ETag``: the node's revision, to send back as ``If-Match`` on PATCH or DELETE.

    Its links both ways (the other end, the type and the name it was given). The first
    ``limit`` facts and events, with how many there are and the cursor of the next
    page of each (``GET /v1/nodes/{id}/slices`` and ``/events``)."""
    if page.cursor:
        raise ApiError(400, "invalid_input", "cursor: page on /slices or /events of this node")
    node = _node_or_404(request, node_id)
    owner = _owner(request)
    response["ETag"] = etag(node.revision)
    return node_detail_json(
        node,
        node_slices_page(owner, node.pk, limit=page.limit),
        node_events_page(owner, node.pk, limit=page.limit),
        node_links(owner, node.pk),
    )


def _after(page: DetailPageIn, kind: str, node_id: int) -> Position | None:
    if not page.cursor:
        return None
    try:
        return cursor_decode(page.cursor, kind=kind, node_id=node_id)
    except CursorError as exc:
        raise ApiError(400, "invalid_input", f"cursor: {exc}") from exc


@router.get(
    "/nodes/{node_id}/slices",
    auth=READ,
    tags=["nodes"],
    summary="A page of a memory's facts",
    response=answers({200: NodeSlicesOut}, 404),
)
def node_slices_view(
    request: HttpRequest, node_id: int, page: Query[DetailPageIn]
) -> dict[str, Any]:
    """Its facts, current and superseded, newest first, from ``cursor`` on."""
    node = _node_or_404(request, node_id)
    after = _after(page, "slices", node.pk)
    rows = node_slices_page(_owner(request), node.pk, after=after, limit=page.limit)
    return node_slices_json(node.pk, rows)


@router.get(
    "/nodes/{node_id}/events",
    auth=READ,
    tags=["nodes"],
    summary="A page of a memory's events",
    response=answers({200: NodeEventsOut}, 404),
)
def node_events_view(
    request: HttpRequest, node_id: int, page: Query[DetailPageIn]
) -> dict[str, Any]:
    """Its events, the newest ume learned first, from ``cursor`` on."""
    node = _node_or_404(request, node_id)
    after = _after(page, "events", node.pk)
    rows = node_events_page(_owner(request), node.pk, after=after, limit=page.limit)
    return node_events_json(node.pk, rows)


@router.patch(
    "/nodes/{node_id}",
    auth=WRITE,
    tags=["nodes"],
    summary="Edit a memory",
    response=answers({200: NodeOut}, 404, 412, *IDEMPOTENT),
)
@idempotent
def patch_node(
    request: HttpRequest, node_id: int, payload: NodePatch, response: HttpResponse
) -> dict[str, Any]:
    """With ``If-Match`` (the ``ETag`` of GET) an edit of a node that changed since is refused
    with ``412 stale_revision`` and its ``current_revision``; without it the edit is made."""
    node = _node_or_404(request, node_id)
    expected = _if_match(request)
    with _edit(), transaction.atomic():
        node = node_update(
            node=node,
            label=payload.label,
            category=payload.category,
            state=payload.state,
            summary=payload.summary,
            expected_revision=expected,
        )
        if payload.add_alias:
            alias_add(node=node, alias=payload.add_alias)
    fresh = _node_or_404(request, node.pk)
    response["ETag"] = etag(fresh.revision)
    return node_json(fresh)


@router.delete(
    "/nodes/{node_id}",
    auth=WRITE,
    tags=["nodes"],
    summary="Forget a memory",
    response=answers({200: DeletedOut}, 404, 412, *IDEMPOTENT),
)
@idempotent
def delete_node(request: HttpRequest, node_id: int, stick: bool = True) -> dict[str, Any]:
    """Deletes the memory with its details. Unless ``?stick=false`` its label and aliases are
    suppressed, so extraction cannot bring it back. With ``If-Match`` a node that changed since
    is kept and the answer is ``412 stale_revision``."""
    node = _node_or_404(request, node_id)
    with _edit():
        suppressions = node_delete(
            node=node, stick=stick, source="api", expected_revision=_if_match(request)
        )
    now = timezone.now()
    return {
        "deleted": node_id,
        "stick": stick,
        "suppressions": [suppression_json(s, now=now) for s in suppressions],
    }


@router.get(
    "/nodes/{node_id}/history",
    auth=READ,
    tags=["nodes"],
    summary="A memory's revisions",
    response=answers({200: list[RevisionOut]}, 404),
)
@paginated(RevisionsPage)
def node_history_view(request: HttpRequest, node_id: int) -> Listing[Any]:
    """The revisions of the memory and of its aliases, facts, events and links, newest first;
    each with who made it, why, its snapshot and what it changed. Kept after a deletion."""
    owner = _owner(request)

    def rows(offset: int, limit: int) -> list[Any]:
        page = node_history(owner, node_id, limit=offset + limit)[offset:]
        if not page and offset == 0 and node_get(owner, node_id) is None:
            raise not_found("node")
        return page

    def shape(page: list[Any]) -> list[dict[str, Any]]:
        return [revision_json(e) for e in timeline(page, revision_parents(owner, page))]

    return Listing(rows=rows, shape=shape)


@router.post(
    "/nodes/{node_id}/rollback",
    auth=WRITE,
    tags=["nodes"],
    summary="Roll back to a revision",
    response=answers({200: RollbackOut}, 404, *IDEMPOTENT),
)
@idempotent
def rollback_node(
    request: HttpRequest, node_id: int, payload: RollbackIn, response: HttpResponse
) -> dict[str, Any]:
    """Makes revision ``revision`` of the memory (or, with ``kind`` and ``id``, of one of its
    details) current again as a new revision. Refused with ``400 invalid_rollback`` when it
    would break an invariant or the object was deleted; leaves a receipt either way."""
    owner = _owner(request)
    kind, object_id = payload.kind, payload.id if payload.id is not None else node_id
    if kind == "node" and object_id != node_id:
        raise ApiError(400, "invalid_input", "id: a node's own revisions have its id")
    if kind == "node" and node_get(owner, node_id) is None:
        raise not_found("node")
    target = revision_get(owner, kind, object_id, payload.revision)
    if target is None or target.node_id != node_id:
        raise not_found("revision")
    try:
        receipt = revision_rollback(
            owner=owner,
            kind=kind,
            object_id=object_id,
            number=payload.revision,
            source=ReceiptSource.API,
            token=_token(request),
        )
    except LabelSuppressed as exc:
        raise _suppressed(exc) from exc
    except RollbackError as exc:
        raise ApiError(400, "invalid_rollback", str(exc)) from exc
    node = node_get(owner, node_id)
    if node is not None:
        response["ETag"] = etag(node.revision)
    return {"receipt": receipt.as_json(), "node": node_json(node) if node else None}


# --- the review queue -----------------------------------------------------------------------


@router.get(
    "/candidates",
    auth=READ,
    tags=["candidates"],
    summary="The review queue",
    response=answers({200: list[CandidateOut]}),
)
@paginated(CandidatesPage)
def list_candidates(request: HttpRequest, filters: Query[CandidateFilters]) -> Listing[Any]:
    rows = candidate_queue(_owner(request), status=filters.status or CandidateStatus.PENDING)
    return Listing.of(rows, candidate_json)


def _candidate_or_404(request: HttpRequest, candidate_id: int) -> Any:
    candidate = candidate_get(_owner(request), candidate_id)
    if candidate is None:
        raise not_found("candidate")
    return candidate


@contextmanager
def _decision() -> Iterator[None]:
    """A review decision's refusals as API errors: 409 if already decided, else 400."""
    try:
        yield
    except CandidateAlreadyDecided as exc:
        raise ApiError(409, "already_decided", str(exc)) from exc
    except LabelSuppressed as exc:
        raise _suppressed(exc) from exc
    except ReviewError as exc:
        raise ApiError(400, "invalid_decision", str(exc)) from exc


def _candidate_after(request: HttpRequest, candidate_id: int) -> dict[str, Any]:
    row = candidate_get(_owner(request), candidate_id)
    assert row is not None
    return candidate_json(row)


@router.post(
    "/candidates/{candidate_id}/promote",
    auth=WRITE,
    tags=["candidates"],
    summary="Keep it",
    response=answers({200: DecisionOut}, 404, *IDEMPOTENT),
)
@idempotent
def promote_candidate(
    request: HttpRequest, candidate_id: int, payload: PromoteIn | None = None
) -> dict[str, Any]:
    candidate = _candidate_or_404(request, candidate_id)
    payload = payload or PromoteIn()
    with _decision():
        node = candidate_promote(
            candidate=candidate,
            by=_owner(request),
            label=payload.label,
            category=payload.category,
            state=payload.state,
            resemblance=payload.resemblance or "",
        )
    return {
        "candidate": _candidate_after(request, candidate_id),
        "node": node_json(_node_or_404(request, node.pk)),
    }


@router.post(
    "/candidates/{candidate_id}/reject",
    auth=WRITE,
    tags=["candidates"],
    summary="Reject",
    response=answers({200: RejectOut}, 404, *IDEMPOTENT),
)
@idempotent
def reject_candidate(
    request: HttpRequest, candidate_id: int, payload: RejectIn | None = None
) -> dict[str, Any]:
    candidate = _candidate_or_404(request, candidate_id)
    payload = payload or RejectIn()
    with _decision():
        suppression = candidate_reject(
            candidate=candidate,
            by=_owner(request),
            suppress=payload.suppress_similar,
            until=payload.until,
            forget=payload.forget,
        )
    return {
        "candidate": _candidate_after(request, candidate_id),
        "suppression": suppression_json(suppression, now=timezone.now()) if suppression else None,
    }


@router.post(
    "/candidates/{candidate_id}/merge",
    auth=WRITE,
    tags=["candidates"],
    summary="Merge into a node",
    response=answers({200: DecisionOut}, 404, *IDEMPOTENT),
)
@idempotent
def merge_candidate(request: HttpRequest, candidate_id: int, payload: MergeIn) -> dict[str, Any]:
    candidate = _candidate_or_404(request, candidate_id)
    node = node_get(_owner(request), payload.node_id)
    if node is None:
        raise not_found("node")
    with _decision():
        merged = candidate_merge(
            candidate=candidate, node=node, by=_owner(request), add_alias=payload.add_alias
        )
    return {
        "candidate": _candidate_after(request, candidate_id),
        "node": node_json(_node_or_404(request, merged.pk)),
    }


# --- receipts and suppressions ---------------------------------------------------------------


@router.get(
    "/receipts",
    auth=READ,
    tags=["receipts"],
    summary="Save attempts, newest first",
    response=answers({200: list[ReceiptOut]}),
)
@paginated(ReceiptsPage)
def list_receipts(request: HttpRequest, filters: Query[ReceiptFilters]) -> Listing[Any]:
    rows = receipt_list(_owner(request), outcome=filters.outcome or "", source=filters.source or "")
    return Listing.of(rows, Receipt.as_json)


@router.get(
    "/receipts/{receipt_id}",
    auth=READ,
    tags=["receipts"],
    summary="One receipt",
    response=answers({200: ReceiptOut}, 404),
)
def get_receipt(request: HttpRequest, receipt_id: int) -> dict[str, Any]:
    receipt = receipt_get(_owner(request), receipt_id)
    if receipt is None:
        raise not_found("receipt")
    return receipt.as_json()


@router.get(
    "/suppressions",
    auth=READ,
    tags=["suppressions"],
    summary="Suppressed labels",
    response=answers({200: list[SuppressionOut]}),
)
@paginated(SuppressionsPage)
def list_suppressions(request: HttpRequest) -> Listing[Any]:
    now = timezone.now()
    return Listing.of(suppression_list(_owner(request)), lambda s: suppression_json(s, now=now))


@router.post(
    "/suppressions/{suppression_id}/lift",
    auth=WRITE,
    tags=["suppressions"],
    summary="Lift",
    response=answers({200: SuppressionOut}, 404, *IDEMPOTENT),
)
@idempotent
def lift_suppression(request: HttpRequest, suppression_id: int) -> dict[str, Any]:
    row = suppression_get(_owner(request), suppression_id)
    if row is None:
        raise not_found("suppression")
    return suppression_json(suppression_lift(suppression=row), now=timezone.now())


# --- rules ----------------------------------------------------------------------------------


@router.get(
    "/rules",
    auth=READ,
    tags=["rules"],
    summary="The memory rules",
    response=answers({200: RulesOut}),
)
def get_rules(request: HttpRequest) -> dict[str, Any]:
    return rules_json(memory_rule_for(_owner(request)))


@router.put(
    "/rules",
    auth=WRITE,
    tags=["rules"],
    summary="Update the memory rules",
    response=answers({200: RulesOut}, *IDEMPOTENT),
)
@idempotent
def put_rules(request: HttpRequest, payload: RulesIn) -> dict[str, Any]:
    """Fields you leave out are kept. Lists hold at most 32 terms of at most 80 characters."""
    changes = payload.model_dump(exclude_unset=True)
    for name in TERM_LISTS:
        if name in changes and changes[name] is None:
            changes[name] = []
    try:
        rule = memory_rule_update(owner=_owner(request), changes=changes)
    except RulesError as exc:
        raise ApiError(400, "invalid_input", str(exc)) from exc
    return rules_json(rule)


# --- transcripts ----------------------------------------------------------------------------


@router.post(
    "/transcripts",
    auth=WRITE,
    tags=["transcripts"],
    summary="Upload a transcript",
    response=answers({200: UploadOut, 201: UploadOut}, *IDEMPOTENT),
)
@idempotent
def upload_transcript(
    request: HttpRequest,
    file: File[UploadedFile],
    source_time: Form[str] = "",
) -> Status[dict[str, Any]]:
    """Stores the file (text with ``User:``/``Assistant:`` lines, or JSON messages). Small files
    are processed right away; larger ones wait for ``ingest --pending``. Identical content is
    stored once: uploading it again answers 200 with ``duplicate: true``. One file per request:
    several ``file`` fields are refused (400), never all but one silently dropped."""
    sent = len(request.FILES.getlist("file"))
    if sent > 1:
        raise ApiError(
            400,
            "invalid_input",
            f"send one file per request (this one has {sent} 'file' fields); nothing was stored",
        )
    limit = settings.UME_MAX_TRANSCRIPT_BYTES
    if file.size is not None and file.size > limit:
        raise too_large(f"the file is {file.size:,} bytes; the limit is {limit:,}")
    data = file.read(limit + 1)
    if len(data) > limit:
        raise too_large(f"the file is over the limit of {limit:,} bytes")
    name = (file.name or "upload").replace("\x00", "")[:255] or "upload"
    with _refusals():
        text = file_checked(data, name)
    moment = _parse_time("source_time", source_time)
    run = Run.begin(_owner(request), ReceiptSource.API, token=_token(request))
    stored = store(run, text, name=name, source_time=moment)
    transcript = stored.transcript
    # A file stored by an upload that failed before finishing is this upload's to finish.
    fresh_save = stored.ours
    if fresh_save and transcript.size_bytes > settings.UME_INLINE_UPLOAD_BYTES:
        # The workers' from here: handing it over is the last write of this upload.
        queued = process(run, transcript, defer=True)
        return Status(201, {**transcript_json(queued), "duplicate": False})
    if fresh_save:
        receipt = process(run, transcript)
        # An identical upload still running was waited for: this one is its duplicate.
        fresh_save = stored.created or receipt.outcome != Outcome.DUPLICATE
    fresh = transcript_get(_owner(request), transcript.pk)
    assert fresh is not None
    return Status(
        201 if fresh_save else 200, {**transcript_json(fresh), "duplicate": not fresh_save}
    )


def _parse_time(name: str, value: str) -> datetime | None:
    value = value.strip()
    if not value:
        return None
    try:
        moment = parse_datetime(value)
        if moment is None and (day := parse_date(value)) is not None:
            moment = parse_datetime(f"{day.isoformat()}T00:00:00")
    except ValueError:
        moment = None
    if moment is None:
        raise ApiError(400, "invalid_input", f"{name}: {value[:40]!r} is not an ISO 8601 time")
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=UTC)
    try:
        moment.astimezone(UTC)
    except OverflowError as exc:
        raise ApiError(400, "invalid_input", f"{name}: {value[:40]!r} is out of range") from exc
    return moment


@router.get(
    "/transcripts/{transcript_id}",
    auth=READ,
    tags=["transcripts"],
    summary="Upload status",
    response=answers({200: TranscriptOut}, 404),
)
def get_transcript(request: HttpRequest, transcript_id: int) -> dict[str, Any]:
    transcript = transcript_get(_owner(request), transcript_id)
    if transcript is None:
        raise not_found("transcript")
    return transcript_json(transcript)
