"""Shared fixtures: a cast of users and plain factory functions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_user


@pytest.fixture
def owner(db: None) -> Any:
    return make_user("owner")


@pytest.fixture
def other_user(db: None) -> Any:
    return make_user("other")


@pytest.fixture
def is_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


@pytest.fixture
def User() -> Any:
    return get_user_model()


@pytest.fixture(scope="session")
def live_asgi_url(django_db_setup: None) -> Iterator[str]:
    """One live ume (``ume.asgi:application`` under uvicorn, in a thread of this process) for
    the whole session: the MCP SDK's session manager can run only once per process.

    It reads and writes the test database, so tests that use it need ``transactional_db``.
    Static files are served from the finders, as Django's own live server serves them (no
    ``collectstatic`` in tests), so pages a browser opens here have their styles and scripts.
    """
    import socket
    import threading
    import time

    import uvicorn
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    from ume.asgi import application as ume_application

    # Typed for a Django handler; it only calls the app it wraps for every other path.
    application = ASGIStaticFilesHandler(ume_application)  # type: ignore[arg-type]

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


# The stub LLM server fixture, available to every test module.
from tests.llm_stub import llm_server  # noqa: E402,F401


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last. Playwright's sync API keeps an asyncio loop running in the main
    thread for the whole session once it starts, and the MCP tests need to start their own."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


# The middle of a 60-second and of a 900-second rate window (1,800,000,450 is 30 s into a
# minute and 450 s into a quarter hour): counters are fixed windows on the epoch, so a test
# that counts several hits on the real clock failed whenever it ran across a window's edge
# (a sign-in test at 22:00:00 saw its count start again). What happens at the edge is tested
# with explicit times in tests/memory/test_ratelimit.py.
RATE_CLOCK = 1_800_000_450.0


class _FrozenRateClock:
    @staticmethod
    def time() -> float:
        return RATE_CLOCK


@pytest.fixture(autouse=True)
def _rate_windows_never_turn_mid_test(monkeypatch: pytest.MonkeyPatch) -> None:
    from memory.services import ratelimit

    monkeypatch.setattr(ratelimit, "time", _FrozenRateClock)
