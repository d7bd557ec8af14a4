"""Projects, decisions and routines: one test module for three small families."""

from __future__ import annotations

from memory.extractors.rules.decisions import decision
from memory.extractors.rules.projects import projects
from memory.extractors.rules.routines import routine
from tests.memory.rules.helpers import clause, nodes, slices


def test_projects():
    assert ("Atlas", "project") in nodes(projects(clause("Atlas is my invoicing app")))


def test_decisions():
    found = decision(clause("let's go with Postgres"))
    assert nodes(found) == [("Postgres", "tool")]
    assert slices(found)[0].kind == "decision"


def test_routines():
    found = routine(clause("I train boxing three days a week"))
    assert nodes(found) == [("Boxing", "skill")]
    assert slices(found)[0].kind == "progress"
    assert routine(clause("I train three days a week")) == []
