"""Errors are shown where they happened, in real Chromium, under DEBUG (as ``make run`` serves
the dashboard) as well as in production: a refused edit swaps its region, never the whole
page, and an answer the server could not give is said on the page."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from tests.factories import make_node

pytestmark = pytest.mark.browser


PROVOKED = ("the server responded with a status of", "Response Status Error Code")


def _drop_failed_loads(page: Any, wait_for: int = 0) -> None:
    """Chromium logs every 4xx/5xx answer as a console error, and htmx logs a 5xx: these are
    provoked on purpose. With ``wait_for``, first waits until that many have been logged: the
    console message can come after the swap the test already saw."""
    for _ in range(100):
        if sum(any(p in e for p in PROVOKED) for e in page.console_errors) >= wait_for:
            break
        page.wait_for_timeout(50)
    else:
        raise AssertionError(f"expected {wait_for} failed loads in the console")
    page.console_errors[:] = [e for e in page.console_errors if not any(p in e for p in PROVOKED)]


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
def test_an_alias_equal_to_the_label_is_refused_in_place(
    signed_in: Any, person: Any, debug: bool
) -> None:
    page = signed_in
    node = make_node(owner=person, label="Rowing")
    with override_settings(DEBUG=debug):
        page.goto(f"/memory/nodes/{node.pk}/")
        page.locator("#alias-new").fill("Rowing")
        page.locator("#aliases").get_by_role("button", name="Add").click()
        expect(page.locator("#aliases")).to_contain_text("label")
        # the page is still the page: its heading, the navigation and the other regions
        expect(page.locator("h1")).to_contain_text("Rowing")
        expect(page.locator("nav.sidenav")).to_be_visible()
        expect(page.locator("#links")).to_be_attached()
        assert not node.aliases.exists()
    _drop_failed_loads(page, wait_for=1)


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
def test_a_to_date_before_the_from_date_is_refused_in_place(signed_in: Any, debug: bool) -> None:
    page = signed_in
    with override_settings(DEBUG=debug):
        page.goto("/saves/")
        page.locator("#id_start").fill("2026-05-10")
        page.locator("#id_end").fill("2026-05-01")  # fill sends the change that submits
        results = page.locator("#saves-results")
        expect(results).to_contain_text("before")
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator("nav.sidenav")).to_be_visible()
        expect(page.locator("#id_start")).to_have_value("2026-05-10")  # the form is still there
    _drop_failed_loads(page, wait_for=1)


def test_an_answer_the_server_could_not_give_is_said_on_the_page(
    signed_in: Any, person: Any
) -> None:
    page = signed_in
    node = make_node(owner=person, label="Rowing")
    page.goto(f"/memory/nodes/{node.pk}/")
    banner = page.locator("#request-error")
    expect(banner).to_be_hidden()
    page.route("**/aliases/**", lambda route: route.fulfill(status=502, body="bad gateway"))
    page.locator("#alias-new").fill("Sculling")
    page.locator("#aliases").get_by_role("button", name="Add").click()
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("HTTP 502")
    expect(page.locator("#aliases")).to_contain_text("Also known as")  # nothing was swapped
    page.unroute("**/aliases/**")
    page.locator("#aliases").get_by_role("button", name="Add").click()
    expect(page.locator("#aliases")).to_contain_text("Sculling")
    expect(banner).to_be_hidden()  # the next request clears it
    _drop_failed_loads(page)
