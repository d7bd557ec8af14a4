"""``python -m eval.export_bench``: what taking a memory away costs, at each size.

For each size it seeds a throwaway person (``eval.bench``'s corpus: nodes with an alias every
fourth, a current and a replaced fact and an event each, a page every twentieth; messages
kept as episodes; pending guesses with their quotes; receipts of every outcome), then runs,
each in a fresh process so that its peak is its own: the export to a file, the export to a
folder with a page per memory, and the import of that file into a second throwaway person.
Each prints its seconds and its peak resident memory (``VmHWM``) beside the memory the
process had before it started working (Django and its imports), and the export also its
size. Asserts nothing. Runs against the configured database (``DATABASE_URL``; SQLite in the
project folder by default), which it migrates first; every person it creates is deleted
afterwards, also when it fails.

``--sizes 10000,100000`` shows that the export's peak does not grow with the memory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any


def _vm(field: str) -> float:
    """``VmRSS`` or ``VmHWM`` of this process in MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no {field} in /proc/self/status")


def _child(step: str, username: str, path: str) -> dict[str, Any]:
    """One step in this (fresh) process: its time, and its memory before and at its peak."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from memory.exports.folder import export_folder
    from memory.exports.selectors import export_lines
    from memory.exports.services import memory_import

    owner = get_user_model().objects.get(username=username)
    owner.get_username()  # loaded before the baseline is taken
    base = _vm("VmRSS")
    started = time.perf_counter()
    result: dict[str, Any] = {"step": step}
    if step == "export":
        with open(path, "wb") as out:
            for line in export_lines(owner):
                out.write(line)
        result["bytes"] = os.path.getsize(path)
    elif step == "folder":
        folder = export_folder(owner, Path(path))
        result.update(bytes=folder.bytes, pages=folder.pages)
    else:
        with open(path, "rb") as stream:
            done = memory_import(owner=owner, stream=stream, name="bench.jsonl", source="command")
        assert done.receipt is not None
        result.update(outcome=done.receipt.outcome, error=done.receipt.error[:200])
    result.update(
        seconds=round(time.perf_counter() - started, 1), base_mb=base, peak_mb=_vm("VmHWM")
    )
    return result


def _run_child(step: str, username: str, path: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "eval.export_bench", "--child", step, username, path]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{step} failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _seed(owner: Any, nodes: int, episodes: int, rng: random.Random) -> float:
    from eval.bench import seed_corpus, seed_episodes, seed_review_and_saves

    started = time.perf_counter()
    seed_corpus(owner, nodes, rng)
    seed_episodes(owner, episodes, rng)
    seed_review_and_saves(owner, nodes, nodes // 10, nodes // 10, rng)
    return round(time.perf_counter() - started, 1)


def run_size(nodes: int, episodes: int, seed: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from memory.exports.selectors import export_counts
    from memory.services.erase import account_delete

    users = get_user_model()
    tag = uuid.uuid4().hex[:10]
    owner = users.objects.create_user(username=f"export-bench-{tag}", password=None)
    moved = users.objects.create_user(username=f"import-bench-{tag}", password=None)
    try:
        row: dict[str, Any] = {"backend": connection.vendor, "nodes": nodes}
        row["seed_s"] = _seed(owner, nodes, episodes, random.Random(seed + nodes))
        row["rows"] = export_counts(owner)
        with tempfile.TemporaryDirectory(prefix="ume-export-bench-") as work:
            file = str(Path(work) / "memory.jsonl")
            row["export"] = _run_child("export", owner.get_username(), file)
            row["folder"] = _run_child("folder", owner.get_username(), str(Path(work) / "out"))
            row["import"] = _run_child("import", moved.get_username(), file)
        return row
    finally:
        for person in (owner, moved):
            account_delete(person)


def _show(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row), flush=True)
        return
    export, folder, imported = row["export"], row["folder"], row["import"]
    print(
        f"{row['backend']:<10} nodes={row['nodes']:<7} rows={sum(row['rows'].values()):<8} "
        f"export {export['bytes'] / 1e6:.1f} MB in {export['seconds']} s, "
        f"peak {export['peak_mb']} MB (from {export['base_mb']}); "
        f"folder ({folder['pages']} pages) {folder['seconds']} s, peak {folder['peak_mb']} MB; "
        f"import {imported['outcome']} in {imported['seconds']} s, peak {imported['peak_mb']} MB "
        f"(from {imported['base_mb']})",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000", help="nodes per run (comma list)")
    parser.add_argument(
        "--episodes", type=int, default=2, help="messages kept as episodes per node"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="one JSON object per size")
    parser.add_argument(
        "--child", nargs=3, metavar=("STEP", "USER", "PATH"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(*args.child)))
        return 0
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes whole numbers separated by commas")
    if not sizes or min(sizes) < 1 or args.episodes < 0:
        parser.error("sizes must be at least 1, --episodes 0 or more")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    for nodes in sizes:
        _show(run_size(nodes, nodes * args.episodes, args.seed), args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
