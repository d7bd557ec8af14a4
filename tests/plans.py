"""Query plans for tests: which reads walk every row of a person (SQLite's
``EXPLAIN QUERY PLAN``). Without table statistics, SQLite reads a lookup by key or id that
is ordered by id from the index on the owner alone, in id order: every node, slice or
episode of the person, to return a handful. The plan is the same on a tiny table as on a
large one, so a small fixture shows it."""

from __future__ import annotations

import re

from django.db import connection

# Tables that grow with a person's memory. Suppressions, rules and the index statistics are
# a few rows per person and may be read by owner alone.
GROWING = (
    "memory_node",
    "memory_alias",
    "memory_episode",
    "memory_slice",
    "memory_event",
    "memory_recallterm",
    "memory_recalldoc",
    "memory_nodekeyword",
)
OWNER_ONLY = re.compile(r"^(SCAN|SEARCH) (\w+) USING (?:COVERING )?INDEX \S+ \(owner_id=\?\)$")
FULL_SCAN = re.compile(r"^SCAN (\w+)(?: USING (?:COVERING )?INDEX \S+)?$")
# "FROM table alias" and "JOIN table AS alias": the plan names a table by its alias.
# The alias is read ahead, not consumed: "FROM a JOIN b n" must still see "JOIN b n".
ALIASED = re.compile(r"\b(?:FROM|JOIN)\s+\"?(\w+)\"?(?=\s+(?:AS\s+)?\"?(\w+)\"?)?", re.IGNORECASE)
NOT_ALIASES = set(
    "on where join inner left right full outer cross natural group order limit union using".split()
)


def tables(sql: str) -> dict[str, str]:
    """The tables ``sql`` reads, by the name a plan gives them (their alias, if any)."""
    named = {}
    for table, alias in ALIASED.findall(sql):
        named[table] = table
        if alias and alias.lower() not in NOT_ALIASES:
            named[alias] = table
    return named


def walks(sql: str) -> list[str]:
    """The plan lines of ``sql`` that read every row of a growing table, or every row of
    the person in one."""
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN QUERY PLAN " + sql)
        lines = [row[-1] for row in cursor.fetchall()]
    named = tables(sql)
    bad = []
    for line in lines:
        match = OWNER_ONLY.match(line) or FULL_SCAN.match(line)
        if match and named.get(match.groups()[-1], match.groups()[-1]) in GROWING:
            bad.append(line)
    return bad
