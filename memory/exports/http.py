"""The export as an HTTP download, streamed (``GET /v1/export`` and the Saves page's button).

The lines come from :func:`memory.exports.selectors.export_lines`, gathered into pieces of
:data:`PIECE_BYTES`, and are sent as they are read: memory holds one piece and one chunk of
rows, never the file. Under ASGI (how ume is served) the response is an asynchronous
iterator whose every piece is read by the request's own thread (``sync_to_async``, thread
sensitive), so the database connection and the export's read transaction stay in one thread
from the first piece to the last; Django would otherwise gather a synchronous iterator into a
list before sending a byte. Under WSGI (the test client) it is the plain iterator. A client
that goes away mid-download closes the read (its transaction is rolled back).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone
from django.utils.text import slugify

from memory.exports.format import MEDIA_TYPE
from memory.exports.selectors import export_lines
from memory.owned import Person

PIECE_BYTES = 64 * 1024


def _pieces(lines: Iterator[bytes]) -> Iterator[bytes]:
    pending: list[bytes] = []
    size = 0
    for line in lines:
        pending.append(line)
        size += len(line)
        if size >= PIECE_BYTES:
            yield b"".join(pending)
            pending, size = [], 0
    if pending:
        yield b"".join(pending)


def _next(pieces: Iterator[bytes]) -> bytes | None:
    return next(pieces, None)


async def _streamed(pieces: Iterator[bytes]) -> AsyncIterator[bytes]:
    """``pieces`` read one at a time in the request's thread; closed there at the end."""
    read = sync_to_async(_next, thread_sensitive=True)
    try:
        while (piece := await read(pieces)) is not None:
            yield piece
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            await sync_to_async(close, thread_sensitive=True)()


def file_name(owner: Person) -> str:
    """``ume-export-<username>-<date>.jsonl``."""
    name = slugify(owner.get_username()) or "memory"
    return f"ume-export-{name}-{timezone.localdate().isoformat()}.jsonl"


def export_response(request: HttpRequest, owner: Person) -> StreamingHttpResponse:
    """``owner``'s export as a streamed download (nothing is read until it is sent)."""
    pieces = _pieces(export_lines(owner))
    content = _streamed(pieces) if isinstance(request, ASGIRequest) else pieces
    response = StreamingHttpResponse(content, content_type=f"{MEDIA_TYPE}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{file_name(owner)}"'
    response["Cache-Control"] = "no-store"
    return response
