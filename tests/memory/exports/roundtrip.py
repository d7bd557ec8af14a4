"""Comparing two exports row by row, ids aside: every reference is replaced by the place of
the row it names among the rows of its kind, so two files of the same memory written by two
umes (or one ume before and after "delete all" and an import) compare equal."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from memory.exports.format import BY_TYPE, END, HEADER, SNAPSHOT_NODE_KEYS

Rows = dict[str, list[dict[str, Any]]]


def parse(data: bytes) -> tuple[dict[str, Any], Rows, dict[str, Any]]:
    """The header, the rows by type in file order, and the end line."""
    lines = [json.loads(line) for line in data.splitlines()]
    head, last = lines[0], lines[-1]
    assert head["type"] == HEADER and last["type"] == END
    rows: Rows = {}
    for row in lines[1:-1]:
        rows.setdefault(row["type"], []).append(row)
    return head, rows, last


def normalized(rows: Rows, *, keep: Callable[[str, dict[str, Any]], bool]) -> Rows:
    """``rows`` (those ``keep`` keeps) with ids replaced by places, receipts' chain fields
    (their place in their own chain) left out."""
    kept = {kind: [r for r in items if keep(kind, r)] for kind, items in rows.items()}
    place = {(kind, r["id"]): i for kind, items in kept.items() for i, r in enumerate(items)}
    gone: dict[tuple[str, int], str] = {}

    def named(kind: str, old: int | None) -> Any:
        if old is None:
            return None
        if (kind, old) in place:
            return place[(kind, old)]
        return gone.setdefault((kind, old), f"deleted {kind} #{len(gone)}")

    out: Rows = {}
    for kind, items in kept.items():
        section = BY_TYPE[kind]
        refs = [(f.name, f.target) for f in section.fields if f.kind == "ref"]
        for row in items:
            row = dict(row)
            del row["id"]
            row.pop("chain", None)
            for name, target in refs:
                row[name] = named(target, row[name])
            if kind == "revision":
                row["object"] = named(row["kind"], row["object"])
                row["node"] = named("node", row["node"])
                row["snapshot"] = {
                    k: named("node", v) if k in SNAPSHOT_NODE_KEYS and isinstance(v, int) else v
                    for k, v in row["snapshot"].items()
                }
            out.setdefault(kind, []).append(row)
    return out


def imported_only(kind: str, row: dict[str, Any]) -> bool:
    """Of a file written after an import: the rows it brought (receipts made here, such as
    the import's own or a "delete all", are left out)."""
    return kind != "receipt" or bool(row["chain"]["origin_hash"])


def everything(kind: str, row: dict[str, Any]) -> bool:
    return True


def differences(before: bytes, after: bytes) -> list[str]:
    """Where ``after`` (exported after an import of ``before``) differs from it, row by row."""
    _h1, first, _e1 = parse(before)
    _h2, second, _e2 = parse(after)
    a = normalized(first, keep=everything)
    b = normalized(second, keep=imported_only)
    found: list[str] = []
    for kind in sorted(set(a) | set(b)):
        left, right = a.get(kind, []), b.get(kind, [])
        if len(left) != len(right):
            found.append(f"{kind}: {len(left)} rows before, {len(right)} after")
            continue
        found.extend(
            f"{kind} #{i}: {_diff(x, y)}"
            for i, (x, y) in enumerate(zip(left, right, strict=True))
            if x != y
        )
    return found


def _diff(x: dict[str, Any], y: dict[str, Any]) -> str:
    keys: Iterable[str] = sorted(set(x) | set(y))
    return "; ".join(f"{k}: {x.get(k)!r} != {y.get(k)!r}" for k in keys if x.get(k) != y.get(k))
