"""Tools: named in a list, by use or by what is built with them."""

from __future__ import annotations

from typing import Any

import pytest

from memory.extractors.rules.tools import tools
from tests.memory.rules.helpers import clause, nodes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm using Node.js with PostgreSQL and Redis", ["Node.js", "PostgreSQL", "Redis"]),
        ("we build with dbt and Airflow", ["Dbt", "Airflow"]),
        ("I use a tool called R&D Tracker to log experiments", ["R&D Tracker"]),
        ("I mostly write C++ for the billing engine", ["C++"]),
    ],
)
def test_tools_in_a_list_keep_their_names(text: Any, expected: Any) -> None:
    assert [
        label for label, category in nodes(tools(clause(text))) if category == "tool"
    ] == expected
