"""What the fold-key migrations share (Django's loader reads no module whose name starts with
"_"): the fold keys of existing candidates computed again as ``memory.keys.fold_key`` folds
now, writing only the rows whose key changes."""

from __future__ import annotations

from typing import Any


def refold(apps: Any, schema_editor: Any) -> None:
    from memory.keys import fold_key

    Candidate = apps.get_model("memory", "Candidate")
    changed = []
    for row in Candidate.objects.only("pk", "canonical_key", "fold_key").iterator(chunk_size=2000):
        key = fold_key(row.canonical_key)
        if key != row.fold_key:
            row.fold_key = key
            changed.append(row)
    Candidate.objects.bulk_update(changed, ["fold_key"], batch_size=1000)
