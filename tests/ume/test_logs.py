"""UME_LOG_FORMAT=json: one JSON object per line, with request ids, and never secrets or text."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import anyio
import httpx
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from mcp_server.http import BearerTokenMiddleware
from memory.services.ingest import transcript_store
from memory.services.tokens import token_create
from tests.factories import make_candidate
from ume.logs import AsgiAccessLog, JsonFormatter, RequestIdFilter
from ume.settings import BASE_DIR

SECRET_WORDS = "my sister Dolores started kickboxing"


@pytest.fixture
def json_lines() -> Iterator[Any]:
    """Every line the access and worker loggers emit, as the JSON handler formats it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    loggers = [logging.getLogger("ume.request"), logging.getLogger("ume.worker")]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
        lg.propagate = False

    def read() -> list[dict]:
        return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]

    yield read
    for lg, (level, propagate) in zip(loggers, saved, strict=True):
        lg.removeHandler(handler)
        lg.setLevel(level)
        lg.propagate = propagate


@pytest.mark.django_db
def test_an_api_request_logs_route_status_duration_and_user_but_no_token_or_text(
    client: Client, owner: User, json_lines: Any
) -> None:
    token, secret = token_create(owner=owner, name="logs test")
    response = client.post(
        "/v1/memories",
        {"text": SECRET_WORDS},
        content_type="application/json",
        headers={"Authorization": f"Bearer {secret}", "X-Request-ID": "probe-123"},
    )
    assert response.status_code == 200, response.content
    assert response["X-Request-ID"] == "probe-123"
    lines = json_lines()
    access = [line for line in lines if line["logger"] == "ume.request"]
    assert len(access) == 1
    entry = access[0]
    assert entry["request_id"] == "probe-123"
    assert entry["method"] == "POST"
    assert entry["route"] == "/v1/memories"
    assert entry["status"] == 200
    assert entry["user_id"] == owner.pk
    assert isinstance(entry["duration_ms"], float)
    raw = json.dumps(lines)
    assert secret not in raw and token.prefix not in raw
    assert "Dolores" not in raw and "kickboxing" not in raw


@pytest.mark.django_db
def test_the_route_is_the_pattern_not_the_path_and_a_bad_request_id_is_replaced(
    client: Client, owner: User, json_lines: Any
) -> None:
    candidate = make_candidate(owner=owner, label="Dolores")
    client.force_login(owner)
    response = client.get(f"/memory/nodes/{candidate.pk + 1000}/", headers={"X-Request-ID": "a b"})
    entry = [line for line in json_lines() if line["logger"] == "ume.request"][-1]
    assert entry["status"] == response.status_code
    assert response.status_code == 404
    assert entry["route"] == "/memory/nodes/<int:node_id>/"
    assert entry["request_id"] != "a b" and len(entry["request_id"]) == 32
    assert response["X-Request-ID"] == entry["request_id"]
    assert entry["user_id"] == owner.pk


def test_anonymous_requests_log_no_user(client: Client, json_lines: Any) -> None:
    client.get("/healthz")
    (entry,) = [line for line in json_lines() if line["logger"] == "ume.request"]
    assert entry["route"] == "/healthz" and entry["status"] == 200 and entry["user_id"] is None


@pytest.mark.django_db(transaction=True)
def test_mcp_requests_are_logged_with_the_token_owner(owner: User, json_lines: Any) -> None:
    _token, secret = token_create(owner=owner, name="mcp log test")

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    app = AsgiAccessLog(BearerTokenMiddleware(inner), route="/mcp")

    async def go() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            return [
                await http.post("/mcp", headers={"Authorization": f"Bearer {secret}"}),
                await http.post("/mcp", headers={"Authorization": "Bearer ume_nope"}),
            ]

    good, bad = anyio.run(go)
    assert (good.status_code, bad.status_code) == (202, 401)
    entries = [line for line in json_lines() if line["logger"] == "ume.request"]
    assert [(e["route"], e["status"], e["user_id"]) for e in entries] == [
        ("/mcp", 202, owner.pk),
        ("/mcp", 401, None),
    ]
    assert good.headers["x-request-id"] == entries[0]["request_id"]
    assert secret not in json.dumps(entries)


@pytest.mark.django_db
def test_pending_workers_and_cleanup_log_ids_and_outcomes_only(
    owner: User, json_lines: Any
) -> None:
    transcript, _ = transcript_store(
        owner=owner,
        text=f"User: {SECRET_WORDS}",
        name="sister.txt",
        source="upload",
        source_time=None,
    )
    call_command("ingest", pending=True, json=True, stdout=io.StringIO())
    stale = make_candidate(owner=owner, label="Old guess")
    stale.expires_at = timezone.now() - timedelta(days=1)
    stale.save(update_fields=["expires_at"])
    call_command("cleanup", json=True, stdout=io.StringIO())
    worker = [line for line in json_lines() if line["logger"] == "ume.worker"]
    processed = [w for w in worker if w["message"] == "transcript processed"]
    assert len(processed) == 1
    assert processed[0]["transcript_id"] == transcript.pk
    assert processed[0]["user_id"] == owner.pk
    assert processed[0]["outcome"] in {"wrote", "meaningful_no_write"}
    assert processed[0]["request_id"]
    cleaned = [w for w in worker if w["message"] == "cleanup user"]
    assert cleaned and cleaned[0]["user_id"] == owner.pk
    assert cleaned[0]["counts"].get("candidates_expired") == 1
    raw = json.dumps(worker)
    assert "Dolores" not in raw and "Old guess" not in raw and "sister.txt" not in raw


def test_the_json_format_is_chosen_by_the_environment_and_a_typo_is_refused() -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "ume.settings",
        "UME_INSECURE_DEV_KEY": "1",
    }
    code = (
        "import django, logging; django.setup(); "
        "logging.getLogger('ume.request').info('request', extra={'route': '/x', 'status': 200})"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "UME_LOG_FORMAT": "json"},
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
        check=True,
    )
    line = json.loads(run.stderr.strip().splitlines()[-1])
    assert line["route"] == "/x" and line["status"] == 200 and line["level"] == "INFO"
    plain = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=BASE_DIR
    )
    assert plain.returncode == 0 and plain.stderr == ""  # text format: access log below WARNING
    bad = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**env, "UME_LOG_FORMAT": "yaml"},
        capture_output=True,
        text=True,
        cwd=BASE_DIR,
    )
    assert bad.returncode != 0 and "UME_LOG_FORMAT must be text or json" in bad.stderr


@pytest.fixture
def console(settings: Any) -> Iterator[Any]:
    """What the configured console handler prints, in the format chosen (text, then json)."""
    from django.utils.log import configure_logging

    def read(fmt: str) -> Any:
        settings_module = __import__("ume.settings", fromlist=["LOGGING"])
        config = json.loads(json.dumps(settings_module.LOGGING))
        if fmt == "json":
            config["handlers"]["console"]["formatter"] = "json"
        configure_logging(settings.LOGGING_CONFIG, config)
        handler = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
        assert isinstance(handler, logging.StreamHandler)
        stream = io.StringIO()
        handler.setStream(stream)
        return stream

    yield read
    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_djangos_request_records_carry_no_query_string_body_or_exception_message(
    owner: User, console: Any, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from api import views

    stream = console(fmt)
    token, secret = token_create(owner=owner, name="logs test")
    client = Client(raise_request_exception=False)
    auth = {"Authorization": f"Bearer {secret}"}
    missing = client.get(f"/v1/nodes/999999?access_token={secret}&q=Dolores", headers=auth)
    assert missing.status_code == 404

    def broken(*args: Any, **kwargs: Any) -> Any:  # a failure whose message quotes the input
        raise RuntimeError(f"could not save {kwargs.get('text') or args}")

    monkeypatch.setattr(views, "save_memory_text", broken)
    failed = client.post(
        f"/v1/memories?token={secret}",
        {"text": SECRET_WORDS},
        content_type="application/json",
        headers=auth,
    )
    assert failed.status_code == 500
    printed = stream.getvalue()
    assert "404 GET /v1/nodes/<node_id>" in printed
    assert "500 POST /v1/memories" in printed
    assert "RuntimeError" in printed and "broken" in printed  # the type and frames are kept
    for leak in (secret, token.prefix, "Dolores", "kickboxing", "access_token", "?token"):
        assert leak not in printed, (leak, printed)
    if fmt == "json":
        entries = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
        assert {e["logger"] for e in entries} >= {"django.request"}
        assert all("request" not in e for e in entries)
