"""Opaque cursors over a node's facts and events (the API's detail pages, MCP's ``open_nodes``).

A cursor names the node, the list it pages (``slices``, ``events``, ``observations``) and the
position of the last row handed out, ``(created_at, id)``: the next page starts strictly after
it, so following cursors returns every row exactly once even while rows are added. It is
base64url JSON, not signed: it grants nothing, the owner's scope is applied on every read.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

Position = tuple[datetime, int]


class CursorError(ValueError):
    """The cursor is malformed, or belongs to another node or list."""


def cursor_encode(kind: str, node_id: int, position: Position) -> str:
    raw = json.dumps([kind, node_id, position[0].isoformat(), position[1]], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def cursor_node(cursor: str) -> tuple[str, int]:
    """The list and node a cursor pages, without checking them against anything."""
    kind, node_id, _ = _parts(cursor)
    return kind, node_id


def cursor_decode(cursor: str, *, kind: str, node_id: int) -> Position:
    """Where the next page starts; :class:`CursorError` if the cursor is not one this list of
    this node handed out."""
    found_kind, found_node, position = _parts(cursor)
    if found_kind != kind or found_node != node_id:
        raise CursorError(f"this cursor pages another list ({found_kind} of node {found_node})")
    return position


def _parts(cursor: str) -> tuple[str, int, Position]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        kind, node_id, moment, row_id = json.loads(raw)
        position = (datetime.fromisoformat(moment), int(row_id))
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise CursorError("not a cursor this server handed out") from exc
    if not isinstance(kind, str) or not isinstance(node_id, int) or position[0].tzinfo is None:
        raise CursorError("not a cursor this server handed out")
    return kind, node_id, position
