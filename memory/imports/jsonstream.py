"""Big JSON exports read one element at a time, with ijson (pure: no database).

An export can be hundreds of megabytes: it is never read whole. ``ijson`` (maintained, with a C
parser, yajl2) turns the byte stream into parse events; this module builds one element of the
top-level array at a time from them, so memory stays near the size of the largest element
that is kept:

- an element whose content passes ``max_element_bytes`` is not built further: it is yielded
  as an :class:`ImportFormatError` (that conversation fails alone) and the reading goes on
  after it;
- a single value (one string) so long that no event comes for four times the limit stops the
  reading, because the parser would have to hold it whole;
- malformed JSON, bytes that are not UTF-8, or nesting deeper than :data:`MAX_DEPTH` stop the
  reading with an :class:`ImportFormatError` that names the element; what came before is
  kept.

An element's size is counted on its content (strings and keys in characters, which are never
more than their bytes, and a few characters for each other value and separator), not on the
raw bytes, so an escaped export and a plain one fail at the same conversation.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterator
from typing import IO, Any

import ijson
from ijson.common import ObjectBuilder

_CHUNK = 64 * 1024
_BOM = b"\xef\xbb\xbf"
# Deeper than any export nests, and than Python's own JSON reader goes (its recursion limit).
MAX_DEPTH = 512
_OPEN = frozenset({"start_map", "start_array"})
_CLOSE = frozenset({"end_map", "end_array"})


class ImportFormatError(ValueError):
    """The export (or one conversation in it) cannot be read; the message says why."""


class _NotUtf8(Exception):
    """The bytes are not UTF-8 (checked as they are read, before the parser sees them)."""


class _LongToken(Exception):
    """No parse event for longer than the reader may hold: one value too long to read."""


class _Counted:
    """The stream without its byte-order mark, counting the bytes handed to the parser.

    ``mark`` is where the reader last saw an event; reading on past ``limit`` bytes after it
    means the parser is holding one value that long, and the reading stops."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.stream, self.limit = stream, limit
        self.read_bytes, self.mark, self.started = 0, 0, False
        self.utf8 = codecs.getincrementaldecoder("utf-8")("strict")

    def read(self, size: int = -1) -> bytes:
        if size == 0:  # ijson asks for nothing first, to learn bytes from text
            return b""
        if self.read_bytes - self.mark > self.limit:
            raise _LongToken
        data = self.stream.read(size if size and size > 0 else _CHUNK)
        if not self.started:
            self.started = True
            data = data.removeprefix(_BOM)
        self.read_bytes += len(data)
        try:
            self.utf8.decode(data, final=not data)
        except UnicodeDecodeError:
            raise _NotUtf8 from None
        return data


def _reason(exc: Exception) -> str:
    """The parser's complaint, first line only: the lines after it quote the file's text."""
    raw = exc.args[0] if exc.args else ""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    first = (text.splitlines() or ["unreadable"])[0]
    if "UTF8" in first or "UTF-8" in first:
        return "not valid UTF-8; export files are UTF-8 JSON"
    return first.rstrip(".")


def iter_json_array(stream: IO[bytes], *, max_element_bytes: int) -> Iterator[Any]:
    """The elements of a top-level JSON array, decoded one at a time from a byte stream.

    An element over ``max_element_bytes`` is yielded as an :class:`ImportFormatError`;
    malformed JSON raises it, naming the element (see the module's docstring)."""
    counted = _Counted(stream, 4 * max_element_bytes + _CHUNK)
    reader = _Elements(max_element_bytes)
    try:
        for prefix, event, value in ijson.parse(counted, buf_size=_CHUNK, use_float=True):
            counted.mark = counted.read_bytes
            done = reader.event(prefix, event, value)
            if done is not None:
                yield done[0]
    except _NotUtf8:
        raise ImportFormatError("not valid UTF-8; export files are UTF-8 JSON") from None
    except _LongToken:
        raise ImportFormatError(
            f"conversation {reader.index + 1} holds one value over "
            f"{max_element_bytes:,} bytes; the reading stops there"
        ) from None
    except ijson.JSONError as exc:
        if not reader.started:
            raise ImportFormatError(
                f"expected a JSON list of conversations ({_reason(exc)})"
            ) from None
        where = (
            f"in conversation {reader.index + 1}"
            if reader.depth > 1
            else f"after conversation {reader.index}"
        )
        raise ImportFormatError(f"malformed JSON {where}: {_reason(exc)}") from None
    reader.finish()


class _Elements:
    """The state of one read: the depth, the element being built and its size so far."""

    def __init__(self, max_element_bytes: int) -> None:
        self.max_element_bytes = max_element_bytes
        self.depth, self.index, self.size = 0, 0, 0
        self.started, self.ended = False, False
        self.builder: ObjectBuilder | None = None
        self.too_large = False

    def event(self, prefix: str, event: str, value: Any) -> tuple[Any] | None:
        """Take one event; the element it completes, if any (in a 1-tuple, as it may be
        None)."""
        if not self.started:
            if event != "start_array":
                raise ImportFormatError("expected a JSON list of conversations")
            self.started, self.depth = True, 1
            return None
        if event in _OPEN:
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ImportFormatError(
                    f"malformed JSON in conversation {self.index + 1}: nested too deeply"
                )
        elif event in _CLOSE:
            self.depth -= 1
            if self.depth == 0:
                self.ended = True
                return None
        if self.depth == 1 and event not in _CLOSE and event not in _OPEN:
            return self._complete((value,))  # a scalar element: whole in one event
        if self.builder is None and not self.too_large:
            self.builder, self.size = ObjectBuilder(), 0
        self.size += len(value) + 3 if isinstance(value, str) else 4
        if self.builder is not None:
            if self.size > self.max_element_bytes:
                self.builder, self.too_large = None, True  # not built further
            else:
                self.builder.event(event, value)
        if self.depth == 1:  # the element's last event
            if self.too_large:
                return self._complete((self._over(),))
            assert self.builder is not None
            return self._complete((self.builder.value,))
        return None

    def _over(self) -> ImportFormatError:
        return ImportFormatError(f"over {self.max_element_bytes:,} bytes")

    def _complete(self, element: tuple[Any]) -> tuple[Any]:
        self.index += 1
        self.builder, self.too_large, self.size = None, False, 0
        if isinstance(element[0], str) and len(element[0]) > self.max_element_bytes:
            return (self._over(),)
        return element

    def finish(self) -> None:
        if not self.started:
            raise ImportFormatError("expected a JSON list of conversations")
        if not self.ended:
            raise ImportFormatError(
                f"malformed JSON in conversation {self.index + 1}: the file ends inside it"
            )


HEAD_BYTES = 1024 * 1024


def head_events(
    stream: IO[bytes], *, max_bytes: int = HEAD_BYTES
) -> Iterator[tuple[str, str, Any]]:
    """The parse events ``(prefix, event, value)`` of the first ``max_bytes`` of a stream,
    ending quietly where those bytes end or the JSON breaks: enough to tell a file's format
    by its first keys without building its values."""
    head = io.BytesIO(stream.read(max_bytes))
    try:
        yield from ijson.parse(_Counted(head, max_bytes), buf_size=_CHUNK, use_float=True)
    except (ijson.JSONError, _LongToken, _NotUtf8):
        return
