"""Shared fixtures: a cast of users and plain factory functions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.factories import make_user

# People's passwords are hashed with PBKDF2 in ume (0.75 s a hash on this machine, as it
# should be); a test that makes a user does not need that cost. The suite hashes with MD5,
# first in the list, and keeps ume's own hashers after it, so a hash made by ume's settings
# still verifies. tests/connectors/test_hashers.py checks the production list itself.
PRODUCTION_PASSWORD_HASHERS: list[str] = []
FAST_PASSWORD_HASHER = "django.contrib.auth.hashers.MD5PasswordHasher"


def pytest_configure(config: pytest.Config) -> None:
    import atexit
    import shutil
    import tempfile

    from django.conf import settings
    from django.test.utils import override_settings

    # On SQLite the test database is a file, as ume's own database is (WAL, a busy timeout),
    # not Django's default shared in-memory one: there, a page the live server reads while
    # another of its threads writes fails at once with "table is locked", which a person's
    # browser never meets (a merge and its preview at the same moment did, in the browser
    # tests). pytest-django adds each worker's suffix to the name.
    default = settings.DATABASES["default"]
    if default["ENGINE"].endswith("sqlite3") and not default.get("TEST", {}).get("NAME"):
        folder = tempfile.mkdtemp(prefix="ume-tests-")
        atexit.register(shutil.rmtree, folder, True)
        default.setdefault("TEST", {})["NAME"] = f"{folder}/test.sqlite3"

    PRODUCTION_PASSWORD_HASHERS[:] = settings.PASSWORD_HASHERS
    override_settings(
        PASSWORD_HASHERS=[FAST_PASSWORD_HASHER, *PRODUCTION_PASSWORD_HASHERS]
    ).enable()


@pytest.fixture
def owner(db: None) -> Any:
    return make_user("owner")


@pytest.fixture
def other_user(db: None) -> Any:
    return make_user("other")


@pytest.fixture
def owner_client(client: Any, owner: Any) -> Any:
    """The test client signed in as ``owner``."""
    client.force_login(owner)
    return client


@pytest.fixture
def other_client(client: Any, other_user: Any) -> Any:
    """The test client signed in as another person."""
    client.force_login(other_user)
    return client


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


@pytest.fixture(scope="module")
def server_url(live_asgi_url: str) -> str:
    """The session's live server: /mcp to the SDK, the rest to Django."""
    return f"{live_asgi_url}/mcp"


@pytest.fixture
def secret(owner: Any) -> str:
    """A token of ``owner`` with every scope."""
    from memory.services.tokens import token_create

    return token_create(owner=owner, name="mcp test")[1]


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
