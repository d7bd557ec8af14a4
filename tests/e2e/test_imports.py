"""A whole chat export uploaded in the browser; its progress refreshes itself until done."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_django import Settings

from memory.models import ChatImport
from memory.services.imports import chat_imports_read_pending
from memory.services.ingest import ingest_pending

pytestmark = pytest.mark.browser
EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"


def test_a_large_export_shows_its_progress_until_the_workers_finish(
    signed_in: Any, person: Any, settings: Settings
) -> None:
    from playwright.sync_api import expect

    settings.UME_INLINE_UPLOAD_BYTES = 100  # every export waits for the workers
    page = signed_in
    page.goto("/review/uploads/")
    page.set_input_files("input[type=file]", str(EXPORTS / "chatgpt_conversations.json"))
    page.get_by_role("button", name="Upload").click()
    # the request only stored the file: nothing is known of its conversations yet
    expect(page.locator("#upload-panel")).to_contain_text("the export is read")
    row = ChatImport.objects.for_owner(person).get()
    panel = page.locator(f"#import-{row.pk}")
    expect(panel).to_contain_text("waiting for a worker")
    with page.expect_response(lambda r: f"/review/imports/{row.pk}/" in r.url):
        pass
    chat_imports_read_pending()  # a worker splits the export, meanwhile
    expect(panel).to_contain_text("2 left", timeout=8_000)
    expect(panel).to_contain_text("4 in the file")
    # Processing writes for longer than a poll's interval, and SQLite's test database cannot
    # be read while it is written: the page is left meanwhile (the polling without a reload
    # is shown above, from "waiting" to "2 left").
    page.goto("about:blank")
    ingest_pending(limit=10)  # and processes its conversations
    page.goto(f"/review/imports/{row.pk}/")
    panel = page.locator(f"#import-{row.pk}")
    expect(panel).to_contain_text("finished", timeout=8_000)
    expect(panel).to_contain_text("2 done")
    assert panel.get_attribute("hx-trigger") is None


def test_the_connections_page_revokes_in_place(signed_in: Any, person: Any) -> None:
    from playwright.sync_api import expect

    from memory.services.tokens import token_create

    token, _secret = token_create(owner=person, name="Desktop client")
    page = signed_in
    page.goto("/connections/")
    row = page.locator(f"#token-{token.pk}")
    expect(row).to_contain_text("active")
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Revoke").click()
    expect(row).to_contain_text("revoked")
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_revoke_is_on_screen_at_phone_width(signed_in: Any, person: Any) -> None:
    """At 390 px every row of the Connections page still shows its name, status and Revoke
    button (the table becomes one card per row), and Revoke works there."""
    from playwright.sync_api import expect

    from memory.services.tokens import token_create

    token, _secret = token_create(owner=person, name="Phone assistant")
    page = signed_in
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/connections/")
    row = page.locator(f"#token-{token.pk}")
    button = row.get_by_role("button", name="Revoke")
    expect(button).to_be_visible()
    expect(row.locator("[data-label=Status]")).to_be_visible()
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways: {width} px"
    page.once("dialog", lambda dialog: dialog.accept())
    button.click()
    expect(row).to_contain_text("revoked")
    token.refresh_from_db()
    assert token.revoked_at is not None
