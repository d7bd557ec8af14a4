"""Deletions over the API: ``POST /v1/receipts/{id}/undo`` and ``POST /v1/memory/delete-all``
(with ``GET /v1/memory/delete-all/{id}``, the status of one left to the workers).

Both need the ``memory:write`` scope (the status, ``memory:read``). Error codes, besides the shared ones
(``api.errors``): ``already_undone`` (409) for a receipt undone before,
``not_undoable`` (400) for a receipt that is not an ingest that wrote something, and
``confirmation_required`` (400) when delete-all is sent without ``confirm: "DELETE"``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import Field

from api.auth import TokenAuth
from api.errors import IDEMPOTENT, ApiError, answers, not_found
from api.idempotency import idempotent
from memory.models import AccessToken, Erasure, Receipt, Source
from memory.selectors import erasure_get, receipt_get
from memory.services.erase import EraseError, memory_erase_request, receipt_undo
from memory.shapes import ErasureOut, ErasureQueuedOut, ReceiptDetailOut
from memory.vocab import SCOPE_READ, SCOPE_WRITE

WRITE = TokenAuth(SCOPE_WRITE)
READ = TokenAuth(SCOPE_READ)
CONFIRM_WORD = "DELETE"

router = Router()


class UndoIn(Schema):
    suppress: bool = Field(
        default=True, description="Suppress the labels it created so they cannot come back."
    )


class DeleteAllIn(Schema):
    confirm: str = Field(max_length=20, description=f'Must be "{CONFIRM_WORD}".')
    keep_suppressions: bool = Field(
        default=True, description="Keep the suppression list, so refused labels stay refused."
    )


def _owner(request: HttpRequest) -> Any:
    token = request.auth  # type: ignore[attr-defined]
    assert isinstance(token, AccessToken)
    return token.owner


@router.post(
    "/receipts/{receipt_id}/undo",
    auth=WRITE,
    tags=["receipts"],
    summary="Delete everything an ingest wrote",
    response=answers({200: ReceiptDetailOut}, 404, *IDEMPOTENT),
)
@idempotent
def undo_receipt(
    request: HttpRequest, receipt_id: int, payload: UndoIn | None = None
) -> dict[str, Any]:
    """Removes what the receipt's ingest created, reverts what it touched where possible, and
    (unless ``suppress`` is false) suppresses the labels it created. Returns the undo's own
    receipt, with ``detail`` listing what was deleted, reverted, kept and not reverted."""
    receipt = receipt_get(_owner(request), receipt_id)
    if receipt is None:
        raise not_found("receipt")
    suppress = payload.suppress if payload is not None else True
    try:
        result = receipt_undo(receipt=receipt, suppress=suppress, source=Source.API)
    except EraseError as exc:
        if receipt.undone_at is not None:
            raise ApiError(409, "already_undone", str(exc)) from exc
        raise ApiError(400, "not_undoable", str(exc)) from exc
    return {**result.as_json(), "detail": result.detail}


def erasure_json(erasure: Erasure) -> dict[str, Any]:
    receipt = erasure.receipt
    return {
        "id": erasure.pk,
        "state": erasure.state,
        "keep_suppressions": erasure.keep_suppressions,
        "counts": erasure.counts,
        "requested_at": erasure.requested_at.isoformat(),
        "finished_at": erasure.finished_at.isoformat() if erasure.finished_at else None,
        "receipt": {**receipt.as_json(), "detail": receipt.detail} if receipt else None,
    }


@router.post(
    "/memory/delete-all",
    auth=WRITE,
    tags=["memory"],
    summary="Delete all of this user's memory",
    response=answers({200: ReceiptDetailOut, 202: ErasureQueuedOut}),
)
def delete_all(request: HttpRequest, payload: DeleteAllIn) -> Status[dict[str, Any]]:
    """Deletes every memory row of the token's owner (rules and tokens stay). Send
    ``{"confirm": "DELETE"}``. A small memory is deleted at once: ``200`` with the one receipt
    left, with counts. A larger one (over ``UME_INLINE_ERASE_ROWS`` rows) is deleted by the
    pending workers: ``202`` with its status link (``GET /v1/memory/delete-all/{id}``); from
    that moment every save is refused (``deletion_conflict``), and what is not deleted yet
    can still be read until the workers reach it."""
    if payload.confirm != CONFIRM_WORD:
        raise ApiError(
            400, "confirmation_required", f'send "confirm": "{CONFIRM_WORD}" to delete everything'
        )
    done = memory_erase_request(
        owner=_owner(request), keep_suppressions=payload.keep_suppressions, source=Source.API
    )
    if isinstance(done, Receipt):
        return Status(200, {**done.as_json(), "detail": done.detail})
    body = {
        "status": "queued",
        "status_url": f"/v1/memory/delete-all/{done.pk}",
        "erasure": erasure_json(done),
    }
    return Status(202, body)


@router.get(
    "/memory/delete-all/{erasure_id}",
    auth=READ,
    tags=["memory"],
    summary="A delete-all's progress",
    response=answers({200: ErasureOut}, 404),
)
def delete_all_status(request: HttpRequest, erasure_id: int) -> dict[str, Any]:
    """``state`` is ``waiting`` (for a worker), ``deleting`` (``counts`` so far) or ``done``
    (with ``receipt``, the one receipt left)."""
    erasure = erasure_get(_owner(request), erasure_id)
    if erasure is None:
        raise not_found("delete-all")
    return erasure_json(erasure)
