"""The shape the code keeps (docs/architecture.md, "Layers"): short functions, and every read
scoped to its owner through the owned querysets rather than by hand."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from ume.settings import BASE_DIR

PACKAGES = ("ume", "memory", "browser", "receipts", "review", "connectors", "eval", "tests")
MAX_FUNCTION_LINES = 80


def _sources(*packages: str) -> list[Path]:
    return [
        path
        for package in packages
        for path in sorted((BASE_DIR / package).rglob("*.py"))
        if "migrations" not in path.parts
    ]


def test_no_function_is_over_80_lines() -> None:
    long = []
    for path in _sources(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(BASE_DIR)}:{node.lineno} {node.name}")
    assert long == []


def test_owner_filters_are_written_only_in_the_managers_and_selectors() -> None:
    """``Model.objects.for_owner(user)`` everywhere else (``memory/owned.py``), tests included;
    ``test_owned.py`` writes the filter by hand on purpose, to compare the two."""
    by_hand = re.compile(r"\.filter\(owner(_id)?=")
    allowed = {"owned.py", "selectors.py", "test_owned.py"}
    found = [
        f"{path.relative_to(BASE_DIR)}:{number}"
        for path in _sources(*PACKAGES)
        if path.name not in allowed
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if by_hand.search(line)
    ]
    assert found == []
