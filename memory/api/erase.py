"""Deletions over the API: ``POST /v1/receipts/{id}/undo`` and ``POST /v1/memory/delete-all``.

Both need the ``memory:write`` scope. Error codes, besides the shared ones
(``memory.api.errors``): ``already_undone`` (409) for a receipt undone before,
``not_undoable`` (400) for a receipt that is not an ingest that wrote something, and
``confirmation_required`` (400) when delete-all is sent without ``confirm: "DELETE"``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field

from memory.api.auth import TokenAuth
from memory.api.errors import IDEMPOTENT, ApiError, answers, not_found
from memory.api.idempotency import idempotent
from memory.api.shapes import ReceiptDetailOut
from memory.models import AccessToken, Source
from memory.selectors import receipt_get
from memory.services.erase import EraseError, memory_erase_all, receipt_undo
from memory.vocab import SCOPE_WRITE

WRITE = TokenAuth(SCOPE_WRITE)
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


@router.post(
    "/memory/delete-all",
    auth=WRITE,
    tags=["memory"],
    summary="Delete all of this user's memory",
    response=answers({200: ReceiptDetailOut}),
)
def delete_all(request: HttpRequest, payload: DeleteAllIn) -> dict[str, Any]:
    """Deletes every memory row of the token's owner (rules and tokens stay). Send
    ``{"confirm": "DELETE"}``. Returns the one receipt left, with counts."""
    if payload.confirm != CONFIRM_WORD:
        raise ApiError(
            400, "confirmation_required", f'send "confirm": "{CONFIRM_WORD}" to delete everything'
        )
    receipt = memory_erase_all(
        owner=_owner(request), keep_suppressions=payload.keep_suppressions, source=Source.API
    )
    return {**receipt.as_json(), "detail": receipt.detail}
