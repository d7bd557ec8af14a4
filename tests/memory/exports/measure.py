"""Measure an export's traced memory in a process of its own: ``python -m
tests.memory.exports.measure USERNAME OUT`` prints one JSON object.

tracemalloc counts every thread of a process. A test worker may be running the live server
(``live_asgi_url``) and the MCP SDK's threads for other tests, whose allocations landed in the
export's figure (4.5 to 4.9 MB where the export holds about 1 MB), so the measurement runs
where nothing else does, on the test's own database (committed rows)."""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from pathlib import Path

import django


class _Counted:
    """A file that keeps nothing: what an export writes, counted."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes) -> None:
        self.size += len(data)


def main(username: str, out: Path) -> dict[str, int]:
    django.setup()
    from django.contrib.auth import get_user_model

    from memory.exports.folder import export_folder
    from memory.exports.selectors import export_lines

    owner = get_user_model().objects.get(username=username)
    # A first export warms what a process builds once (imports, compiled patterns, caches).
    export_folder(owner, out / "warm")
    gc.collect()
    sink = _Counted()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for line in export_lines(owner):
            sink.write(line)
        _, peak = tracemalloc.get_traced_memory()
        gc.collect()
        tracemalloc.reset_peak()
        before_folder, _ = tracemalloc.get_traced_memory()
        folder = export_folder(owner, out / "out")
        _, folder_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {
        "bytes": sink.size,
        "peak": peak - before,
        "folder_peak": folder_peak - before_folder,
        "pages": folder.pages,
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], Path(sys.argv[2]))))
