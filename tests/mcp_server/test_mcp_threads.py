"""mcp_server/threads.py: the per-person cap on requests in flight, and that a request's place
is held exactly as long as its work runs (on the live server: tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from mcp_server import tools
from mcp_server.threads import Busy, in_flight, take_slot
from memory.services.tokens import token_create
from tests.factories import make_user

ROOT = Path(__file__).resolve().parents[2]


@override_settings(UME_MCP_CALLS_PER_PERSON=2)
def test_a_person_gets_no_more_slots_than_the_cap_and_each_is_freed_once() -> None:
    first, second = take_slot(101), take_slot(101)
    with pytest.raises(Busy, match="2 requests in progress"):
        take_slot(101)
    other = take_slot(202)  # another person is not counted with them
    first.release()
    third = take_slot(101)
    assert in_flight(101) == 2
    for slot in (second, third, other):
        slot.release()
    assert in_flight(101) == 0 and in_flight(202) == 0


@override_settings(UME_MCP_CALLS_PER_PERSON=1)
def test_a_call_started_after_its_request_ended_counts_while_it_runs() -> None:
    slot = take_slot(404)
    slot.release()  # the HTTP exchange ended before the SDK started the tool call
    assert in_flight(404) == 0
    slot.retain()
    with pytest.raises(Busy):
        take_slot(404)
    slot.release()
    assert in_flight(404) == 0
    take_slot(404).release()


@override_settings(UME_MCP_CALLS_PER_PERSON=1)
def test_a_slot_a_tool_call_retained_is_held_until_both_are_done() -> None:
    slot = take_slot(303)
    slot.retain()  # the tool call
    slot.release()  # the request ended first
    with pytest.raises(Busy):
        take_slot(303)
    slot.release()  # the call's thread is done
    take_slot(303).release()
    assert in_flight(303) == 0


def test_the_cap_must_leave_threads_for_everyone_else() -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "ume.settings",
        "SECRET_KEY": "a-real-secret-for-this-test",
        "UME_MCP_THREADS": "4",
        "UME_MCP_CALLS_PER_PERSON": "4",
    }
    run = [sys.executable, "-c", "import django; django.setup()"]
    result = subprocess.run(run, env=env, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode != 0
    assert "UME_MCP_CALLS_PER_PERSON (4) must be below UME_MCP_THREADS (4)" in result.stderr
    env["UME_MCP_CALLS_PER_PERSON"] = "3"
    assert subprocess.run(run, env=env, cwd=ROOT).returncode == 0


# --- on the live server ----------------------------------------------------------------------


def _post(url: str, secret: str, method: str, params: dict[str, Any], **kw: Any) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    headers = {
        "Authorization": f"Bearer {secret}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    return httpx.post(f"{url}/mcp", json=body, headers=headers, timeout=kw.get("timeout", 60))


def _recall(url: str, secret: str, **kw: Any) -> httpx.Response:
    params = {"name": "recall_memory", "arguments": {"query": "boxing"}}
    return _post(url, secret, "tools/call", params, **kw)


@pytest.fixture
def held_recall(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[threading.Event, threading.Event]]:
    """recall_memory waits (in its tool thread) until the test sets ``release``."""
    inside, release = threading.Event(), threading.Event()
    real = tools.recall_memory

    def held(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(tools, "recall_memory", held)
    yield inside, release
    release.set()


def _wait_until_free(person: int) -> None:
    deadline = time.monotonic() + 30
    while in_flight(person) and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.mark.django_db(transaction=True)
@override_settings(UME_MCP_CALLS_PER_PERSON=1, UME_API_RATE_LIMIT=10_000)
def test_past_the_cap_a_persons_request_is_a_retryable_429_and_others_are_served(
    live_asgi_url: str, held_recall: tuple[threading.Event, threading.Event]
) -> None:
    inside, release = held_recall
    a: User = make_user("capped")
    a_secret = token_create(owner=a, name="a")[1]
    b_secret = token_create(owner=make_user("served"), name="b")[1]
    answers: list[httpx.Response] = []
    first = threading.Thread(target=lambda: answers.append(_recall(live_asgi_url, a_secret)))
    first.start()
    try:
        assert inside.wait(30), "the recall never started"
        refused = _post(live_asgi_url, a_secret, "tools/list", {})
        served = _post(live_asgi_url, b_secret, "tools/list", {})
        assert in_flight(a.pk) == 1
    finally:
        release.set()
        first.join(60)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert "1 requests in progress" in refused.text
    error = refused.json()["error"]  # a JSON-RPC error the SDK hands the agent
    assert error["data"] == {"status": 429, "code": "busy", "retryAfter": 1}
    assert served.status_code == 200 and "recall_memory" in served.text
    assert answers[0].status_code == 200 and '"isError":false' in answers[0].text.replace(" ", "")
    _wait_until_free(a.pk)
    assert in_flight(a.pk) == 0
    assert _post(live_asgi_url, a_secret, "tools/list", {}).status_code == 200


@pytest.mark.django_db(transaction=True)
@override_settings(UME_MCP_CALLS_PER_PERSON=1, UME_API_RATE_LIMIT=10_000)
def test_a_call_whose_client_gave_up_holds_its_place_until_its_thread_is_done(
    live_asgi_url: str, held_recall: tuple[threading.Event, threading.Event]
) -> None:
    inside, release = held_recall
    a: User = make_user("gave-up")
    a_secret = token_create(owner=a, name="a")[1]
    with pytest.raises(httpx.ReadTimeout):
        _recall(live_asgi_url, a_secret, timeout=1)
    assert inside.is_set()
    # The client is gone but the recall still runs in its thread: it still counts.
    assert in_flight(a.pk) == 1
    assert _post(live_asgi_url, a_secret, "tools/list", {}).status_code == 429
    release.set()
    _wait_until_free(a.pk)
    assert in_flight(a.pk) == 0
    assert _recall(live_asgi_url, a_secret).status_code == 200
