"""The shape the code keeps (docs/architecture.md, "Layers"): short functions, and every read
scoped to its owner through the owned querysets rather than by hand."""

from __future__ import annotations

import ast
from pathlib import Path

from ume.settings import BASE_DIR

PACKAGES = (
    "ume",
    "memory",
    "dashboard",
    "browser",
    "receipts",
    "review",
    "connectors",
    "eval",
    "tests",
)
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


OWNER_KEYWORDS = {"owner", "owner_id"}
QUERY_METHODS = {"filter", "exclude", "get"}


def _by_hand(tree: ast.AST) -> list[int]:
    """Lines of ``.filter(owner=...)``, ``.exclude(owner_id=...)`` and ``.get(owner=...)`` calls
    in ``tree``: found in the syntax tree, so a call the formatter wrapped over several lines
    (``owner=`` alone on its line) is found as well as a one-line one."""
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in QUERY_METHODS
        and any(keyword.arg in OWNER_KEYWORDS for keyword in node.keywords)
    )


def test_owner_filters_are_written_only_in_the_managers_and_selectors() -> None:
    """``Model.objects.for_owner(user)`` everywhere else (``memory/owned.py``), tests included;
    ``test_owned.py`` writes the filter by hand on purpose, to compare the two."""
    allowed = {"owned.py", "selectors.py", "test_owned.py"}
    found = [
        f"{path.relative_to(BASE_DIR)}:{number}"
        for path in _sources(*PACKAGES)
        if path.name not in allowed
        for number in _by_hand(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_the_owner_check_finds_a_call_the_formatter_wrapped() -> None:
    """The check above is only as good as what it can see: a wrapped call, a ``get`` and an
    ``owner_id`` are found; ``for_owner`` and another field named like it are not."""
    wrapped = """
rows = Node.objects.filter(
    owner=person,
    label="x",
)
one = Candidate.objects.select_for_update().get(pk=1, owner_id=2)
fine = Node.objects.for_owner(person).filter(owner__username="x", label="y")
"""
    assert _by_hand(ast.parse(wrapped)) == [2, 6]


# Raw SQL, where it is and why: each entry is a file that runs SQL Django's ORM cannot say (or
# says at a cost the benchmarks measured); its owner scoping is tested beside it. A new file
# with raw SQL fails until it is added here with its reason; a file that stops using it fails
# until it is taken off, so the list stays true.
RAW_SQL = {
    "memory/recall/statements.py": "recall's hand-written reads, one statement per lane",
    "memory/recall/vectors.py": "stored vectors read in pages without building model objects",
    "memory/services/recall_index.py": "term counts upserted in one statement per chunk",
    "memory/services/bulk.py": "bulk inserts with prepared values, for imports",
    "memory/services/cleanup.py": "the per-person advisory lock (PostgreSQL) of a cleanup run",
    "memory/services/ratelimit.py": "the rate window's upsert-and-read in one statement",
    "memory/exports/selectors.py": "an export's repeatable-read snapshot (PostgreSQL)",
    "memory/models/receipts.py": "receipt day counters upserted, and a receipt's chain fields",
    "ume/health.py": "the health check's SELECT 1",
    "eval/bench.py": "the benchmark's ANALYZE and the database's version",
}


def _raw_sql_lines(tree: ast.AST) -> list[int]:
    """Lines that open a cursor, call ``raw``/``extra`` or build ``RawSQL``."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"cursor", "raw", "extra"}
        ):
            found.append(node.lineno)
        if isinstance(node, ast.Name) and node.id == "RawSQL":
            found.append(node.lineno)
    return found


def test_raw_sql_is_only_where_the_allow_list_says() -> None:
    application = [p for p in _sources(*PACKAGES) if p.parts[len(BASE_DIR.parts)] != "tests"]
    found = {
        str(path.relative_to(BASE_DIR))
        for path in application
        if _raw_sql_lines(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert found == set(RAW_SQL)


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


# Recall's SQL statements are read by recall's loaders and written by the index that keeps
# them true; nothing else builds on their shape.
STATEMENT_USERS = {
    "memory/recall/loaders.py",
    "memory/recall/episode_loaders.py",
    "memory/recall/vectors.py",
    "memory/services/recall_index.py",
    "tests/memory/recall/test_statements.py",
}


def test_only_recalls_loaders_import_its_statements() -> None:
    users = {
        str(path.relative_to(BASE_DIR))
        for path in _sources(*PACKAGES)
        if "memory.recall.statements" in _imports(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert users == STATEMENT_USERS


def test_receipts_are_written_in_one_place() -> None:
    """``memory.services.receipts`` writes every receipt the application creates one at a
    time (an import's ``bulk_create`` aside, which the model layer counts and chains alike);
    tests may build their own."""
    found = [
        f"{path.relative_to(BASE_DIR)}:{node.lineno}"
        for path in _sources(*PACKAGES)
        if path.parts[len(BASE_DIR.parts)] != "tests"
        and path.relative_to(BASE_DIR).as_posix() != "memory/services/receipts.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "create"
        and ast.unparse(node.func.value) == "Receipt.objects"
    ]
    assert found == []


# The interfaces (the HTTP API, the MCP server) read through the selectors and write through
# the services: no ORM query is written in them. Each entry is a file that must, and why; a
# file that stops needing it fails until it is taken off, so the list stays true.
INTERFACES = ("api", "mcp_server")
ORM_IN_INTERFACES: dict[str, str] = {}
ORM_METHODS = {
    "filter",
    "exclude",
    "select_related",
    "prefetch_related",
    "values_list",
    "annotate",
    "aggregate",
    "select_for_update",
    "bulk_create",
    "bulk_update",
}


def _orm_lines(tree: ast.AST) -> list[int]:
    """Lines that name a model's manager (``Model.objects``) or call a queryset's query
    methods (``.filter(``, ``.exclude(``, ``.values_list(`` ...)."""
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr == "objects")
        or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ORM_METHODS
        )
    )


def test_interfaces_query_nothing_themselves() -> None:
    found = {
        str(path.relative_to(BASE_DIR))
        for path in _sources(*INTERFACES)
        if _orm_lines(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert found == set(ORM_IN_INTERFACES)


def test_the_interface_check_sees_a_query() -> None:
    code = """
node = Node.objects.for_owner(person).first()
rows = selected(person).filter(
    pk=1,
)
fine = selector(person, pk=1)
"""
    assert _orm_lines(ast.parse(code)) == [2, 3]
