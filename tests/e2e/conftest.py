"""Real headless Chromium (Debian's ``chromium``) driven by Playwright against ``live_server``.

Every test in this folder is a browser test (marked ``browser`` here, so ``make test`` runs them
as its second step); the dashboard's views through Django's test client are in
``tests/browser``, beside the ``browser`` app they test.

Playwright's own downloaded browsers cannot be fetched here, so the system Chromium is
launched through ``executable_path``. Without it the tests skip and say how to install it;
in CI (``CI=true``) a missing browser fails them instead, so a green run means they ran.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the test
# body (fixtures, assertions) are still plain synchronous calls.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "pw-for-browser-tests-1"
INSTALL_HINT = "Chromium is not installed: `apt-get install chromium` (or `make browser-deps`)"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark what this folder holds as browser tests, whatever its module says."""
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.path).startswith(here + os.sep):
            item.add_marker(pytest.mark.browser)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{INSTALL_HINT}; CI must run the browser tests")
        pytest.skip(f"{INSTALL_HINT} to run the browser tests")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # launch() gives every run a fresh temporary user-data dir of its own.
        chromium = playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, live_server: Any, request: Any) -> Iterator[Any]:
    """A tab of a fresh browser context. Any console error or uncaught exception on any page
    fails the test: htmx reports a bad selector or a missing swap target only there."""
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 1280, "height": 900}, device_scale_factor=1
    )
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors: list[str] = []
    tab.on(
        "console",
        lambda message: (
            errors.append(f"console.{message.type}: {message.text}")
            if message.type == "error"
            else None
        ),
    )
    tab.on("pageerror", lambda error: errors.append(f"uncaught: {error}"))
    tab.console_errors = errors  # a test that provokes an error on purpose may clear them
    yield tab
    context.close()
    if errors:
        pytest.fail("the browser console showed errors:\n" + "\n".join(errors), pytrace=False)


@pytest.fixture
def person(transactional_db: Any) -> Any:
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username="ada", password=PASSWORD)


def sign_in(page: Any, username: str = "ada", password: str = PASSWORD) -> None:
    page.goto("/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/review/")


@pytest.fixture
def signed_in(page: Any, person: Any) -> Any:
    sign_in(page)
    return page


def expected_console_error(page: Any, text: str) -> None:
    """A test that provokes an error on purpose (a 400 page) takes it off the list, and
    checks that it was there."""
    matching = [e for e in page.console_errors if text in e]
    assert matching, f"expected a console error with {text!r}"
    page.console_errors[:] = [e for e in page.console_errors if text not in e]
