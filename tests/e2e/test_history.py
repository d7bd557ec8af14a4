"""The History tab in real Chromium: a change made on the node page is listed with who made
it and what changed, and "Restore this version" swaps the timeline in place."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Node
from memory.services.nodes import node_update
from tests.factories import make_node

pytestmark = pytest.mark.browser


def test_restore_a_version_from_the_history_tab(signed_in: Any, person: Any) -> None:
    from playwright.sync_api import expect

    page = signed_in
    node = make_node(owner=person, label="Boxing")
    node_update(node=node, summary="once a week")
    page.goto(f"/memory/nodes/{node.pk}/")
    page.get_by_text("Edit label, category, state, summary").click()
    page.get_by_label("Summary").fill("twice a week")
    page.get_by_role("button", name="Save").first.click()
    expect(page.locator("#node-head")).to_contain_text("twice a week")

    page.get_by_role("link", name="History").click()
    newest = page.locator("ol.revisions > li").first
    expect(newest).to_contain_text("by ada")
    expect(newest.locator("del")).to_have_text("once a week")
    expect(newest.locator("ins")).to_have_text("twice a week")

    page.locator("#history").get_by_role("button", name="Restore this version").first.click()
    expect(page.locator("#history .note")).to_contain_text("back to revision 2")
    expect(page.locator("ol.revisions > li").first).to_contain_text("rolled back")
    assert Node.objects.get(pk=node.pk).summary == "once a week"
