"""``GET /v1/export``: everything the token's owner has, as ume's export file, streamed
(docs/export.md). Needs ``memory:read``; a token exports its own owner's memory only."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Router

from api.auth import TokenAuth
from api.errors import answers
from memory.exports.format import FORMAT, MEDIA_TYPE, VERSION
from memory.exports.http import export_response
from memory.models import AccessToken
from memory.vocab import SCOPE_READ

READ = TokenAuth(SCOPE_READ)

router = Router()

FILE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "description": f"JSON Lines, {FORMAT} version {VERSION}: a header line, one object per "
    "row, each with its `type` and `id`, and an end line with the counts (docs/export.md).",
}
EXPORT_DOC: dict[str, Any] = {
    "responses": {
        200: {
            "description": "The export file, streamed as it is read.",
            "headers": {
                "Content-Disposition": {
                    "description": "attachment; filename=ume-export-<user>-<date>.jsonl",
                    "schema": {"type": "string"},
                }
            },
            "content": {MEDIA_TYPE: {"schema": FILE_SCHEMA}},
        }
    }
}


@router.get(
    "/export",
    auth=READ,
    tags=["export"],
    summary="Everything you own, as ume's export file",
    response=answers({}),
    openapi_extra=EXPORT_DOC,
)
def export_view(request: HttpRequest) -> StreamingHttpResponse:
    """Your whole memory as one JSON Lines file: memories with their aliases, facts (and the
    ones they replaced), events, links, pages, guesses, evidence, suppressions, rules,
    receipts with their chain fields, conversations and their messages, and history. It is
    one consistent read, streamed: the first bytes come at once whatever its size. Another
    ume imports it with `manage.py ingest FILE --user U` or its Upload page."""
    token = request.auth  # type: ignore[attr-defined]
    assert isinstance(token, AccessToken)
    return export_response(request, token.owner)
