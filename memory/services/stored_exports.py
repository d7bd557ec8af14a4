"""An uploaded export's bytes kept in the database until the pending workers have read it.

:func:`store_chunks` writes the upload in :data:`CHUNK_BYTES` pieces (one insert each: the
request's work depends on the file's size, never on what is in it); :func:`stored_export`
reads them back as a seekable binary stream, one piece in memory at a time, so the worker
reads the export exactly as a file on disk (on any host that shares the database).
"""

from __future__ import annotations

import io
from typing import IO

from memory.models import ChatImport, ChatImportChunk

CHUNK_BYTES = 1024 * 1024


def store_chunks(row: ChatImport, stream: IO[bytes], *, size: int = CHUNK_BYTES) -> int:
    """Copy ``stream`` (from its start) into ``row``'s chunks; how many were written."""
    stream.seek(0)
    seq = 0
    while data := stream.read(size):
        ChatImportChunk.objects.create(chat_import=row, seq=seq, data=data)
        seq += 1
    stream.seek(0)
    return seq


class _ChunkReader(io.RawIOBase):
    """The raw stream under :func:`stored_export`: reads the piece holding the position."""

    def __init__(self, row: ChatImport) -> None:
        super().__init__()
        self._rows = ChatImportChunk.objects.filter(chat_import=row)
        self._pos = 0
        self._seq = -1
        self._data = b""
        self._start = 0  # offset of the piece held

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            self._pos = offset
        elif whence == io.SEEK_CUR:
            self._pos += offset
        else:
            raise io.UnsupportedOperation("seek from the end of a stored export")
        return self._pos

    def _load(self, seq: int) -> bool:
        found = self._rows.filter(seq=seq).values_list("data", flat=True).first()
        if found is None:
            return False
        self._seq, self._data = seq, bytes(found)
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        # Pieces are all CHUNK_BYTES long but the last; find the one holding the position.
        while not (self._start <= self._pos < self._start + len(self._data)):
            if self._pos < self._start or self._seq < 0:
                self._seq, self._start, self._data = -1, 0, b""
                if not self._load(0):
                    return 0
                continue
            following = self._start + len(self._data)
            if not self._load(self._seq + 1):
                return 0
            self._start = following
        offset = self._pos - self._start
        n = min(len(buffer), len(self._data) - offset)
        buffer[:n] = self._data[offset : offset + n]
        self._pos += n
        return n


def stored_export(row: ChatImport) -> io.BufferedReader:
    """``row``'s stored bytes as a buffered, seekable binary stream."""
    return io.BufferedReader(_ChunkReader(row), buffer_size=64 * 1024)
