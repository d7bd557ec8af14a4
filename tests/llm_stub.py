"""A real local HTTP server that speaks the OpenAI chat-completions protocol, for tests.

Use the ``llm_server`` fixture (registered for every test in ``tests/conftest.py``) or the class as a
context manager. Script its answers, then point the code under test at ``server.base_url``::

    llm_server.reply_objects([{"object": "node", ...}])
    llm_server.reply_status(500, "boom")

Each ``reply_*`` call queues one answer; requests take answers in order, and once the queue
is empty the last answer is repeated (with nothing scripted the server answers
``{"objects": []}``). Every request is recorded in ``server.requests``.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # decoded JSON, or the raw text when it is not JSON

    @property
    def user_payload(self) -> Any:
        """The last user message's content decoded as JSON (what ume's extractor sends)."""
        user = [m for m in self.body["messages"] if m.get("role") == "user"]
        return json.loads(user[-1]["content"])


def conversation_key(messages: list[dict[str, Any]]) -> str:
    """The key a recorded answer is filed under: the conversation's ids, roles and texts."""
    return json.dumps(
        [[str(m.get("id")), m.get("role"), m.get("content")] for m in messages], ensure_ascii=False
    )


@dataclass(frozen=True)
class _Answer:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    delay: float = 0.0


def completion(
    content: str | None, *, finish_reason: str = "stop", **message: Any
) -> dict[str, Any]:
    """A well-formed chat-completions response body."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _json_answer(data: Any, *, delay: float = 0.0) -> _Answer:
    return _Answer(body=json.dumps(data).encode(), delay=delay)


@dataclass
class StubLLMServer:
    """A chat-completions server on 127.0.0.1 with a scripted queue of answers."""

    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: deque[_Answer] = deque()
        self._last = _json_answer(completion(json.dumps({"objects": []})))
        self._replay: dict[str, str] | None = None
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------

    def reply_objects(self, objects: list[dict[str, Any]]) -> None:
        """A good completion whose content is ``{"objects": objects}``."""
        self._push(_json_answer(completion(json.dumps({"objects": objects}))))

    def reply_content(self, content: str, *, finish_reason: str = "stop") -> None:
        """A good completion whose message content is ``content`` verbatim."""
        self._push(_json_answer(completion(content, finish_reason=finish_reason)))

    def reply_body(self, data: Any) -> None:
        """Any JSON body with status 200 (for malformed chat-completions responses)."""
        self._push(_json_answer(data))

    def reply_status(self, status: int, body: str = "", content_type: str = "text/plain") -> None:
        """An answer with this HTTP status and raw body."""
        self._push(_Answer(status=status, body=body.encode(), content_type=content_type))

    def reply_delay(self, seconds: float, objects: list[dict[str, Any]] | None = None) -> None:
        """Wait ``seconds`` before answering (to make clients time out), then answer."""
        content = json.dumps({"objects": objects or []})
        self._push(_json_answer(completion(content), delay=seconds))

    def reply_refusal(self, kind: str = "refusal") -> None:
        """A refusal: a ``refusal`` message field, or ``kind="content_filter"``."""
        if kind == "content_filter":
            self._push(_json_answer(completion(None, finish_reason="content_filter")))
        else:
            self._push(_json_answer(completion(None, refusal="I can't help with that.")))

    def replay(self, answers: dict[str, str]) -> None:
        """Answer each request with the recorded reply content for its conversation (see
        :func:`conversation_key`); a conversation with no recording gets HTTP 404."""
        with self._lock:
            self._replay = dict(answers)

    def _push(self, answer: _Answer) -> None:
        with self._lock:
            self._queue.append(answer)

    def _answer_for(self, body: Any) -> _Answer:
        if self._replay is None:
            return self._next()
        try:
            user = [m for m in body["messages"] if m.get("role") == "user"]
            key = conversation_key(json.loads(user[-1]["content"])["messages"])
        except (KeyError, IndexError, TypeError, json.JSONDecodeError):
            return _Answer(status=400, body=b"not an extraction request", content_type="text/plain")
        content = self._replay.get(key)
        if content is None:
            return _Answer(status=404, body=b"no recorded answer", content_type="text/plain")
        return _json_answer(completion(content))

    def _next(self) -> _Answer:
        with self._lock:
            if self._queue:
                self._last = self._queue.popleft()
            return self._last

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the stub server is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def last_request(self) -> RecordedRequest:
        assert self.requests, "the stub server has received no request"
        return self.requests[-1]

    def start(self) -> StubLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            # HTTP/1.0 (the default): one request per connection, so no handler thread
            # lingers on a kept-alive socket when the server stops.

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8", errors="replace")
                try:
                    body: Any = json.loads(raw)
                except json.JSONDecodeError:
                    body = raw
                headers = {name.lower(): value for name, value in self.headers.items()}
                with server._lock:
                    server.requests.append(RecordedRequest("POST", self.path, headers, body))
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(_Answer(status=404, body=b"not found", content_type="text/plain"))
                    return
                answer = server._answer_for(body)
                # Interruptible, so stopping the server never waits for a long delay.
                if answer.delay and server._stopping.wait(answer.delay):
                    return
                self._send(answer)

            def _send(self, answer: _Answer) -> None:
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.content_type)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test); nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output quiet

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()  # joins handler threads; delays end at once
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> StubLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def closed_base_url() -> str:
    """A base URL on a local port that nothing listens on (connection refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def llm_server() -> Iterator[StubLLMServer]:
    """A running stub chat-completions server, stopped at teardown."""
    with StubLLMServer() as server:
        yield server
