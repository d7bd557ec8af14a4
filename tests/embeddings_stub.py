"""A local server that speaks the OpenAI embeddings protocol (``POST /v1/embeddings``), for
tests: a real socket in a thread, answering real JSON, and failing on demand.

Its "model" knows a few concepts: each word of :data:`CONCEPTS` stands for one axis, and a
text's vector is the sum of its words' axes (a text without a known word gets a small vector
of its own length, so that it is never all zeros). "teeth" and "dentist" share an axis: a
question about teeth finds the dentist by meaning alone, which shows that the stub's vectors
are the ones in use."""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIM = 8
CONCEPTS = {
    "teeth": 0,
    "dentist": 0,
    "tooth": 0,
    "bread": 1,
    "sourdough": 1,
    "bakery": 1,
    "apartment": 2,
    "landlord": 2,
    "rent": 2,
    "piano": 3,
    "music": 3,
}


def vector_of(text: str, dim: int = DIM) -> list[float]:
    out = [0.0] * dim
    words = [w.strip(".,!?;:'\"").lower() for w in text.split()]
    for word in words:
        if word in CONCEPTS:
            out[CONCEPTS[word] % dim] += 1.0
    if not any(out):
        out[dim - 1] = 0.1 + (len(text) % 7) / 100  # unrelated to every concept
    norm = math.sqrt(sum(v * v for v in out))
    return [v / norm for v in out]


@dataclass
class Stub:
    """What the server answers (``mode``: ok, error, slow, malformed, wrong_dim, short) and
    what it was asked (``requests``: the inputs of each request, in order)."""

    mode: str = "ok"
    status: int = 500
    delay: float = 0.0
    dim: int = DIM
    fail_after: int | None = None  # answer this many requests, then fail with ``status``
    requests: list[list[str]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    url: str = ""

    def reply(self, body: dict[str, Any]) -> tuple[int, bytes]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        self.requests.append(list(texts))
        answered = len(self.requests) - 1
        if self.mode == "error" or (self.fail_after is not None and answered >= self.fail_after):
            return self.status, b'{"error": {"message": "the model is loading"}}'
        if self.mode == "slow":
            time.sleep(self.delay)
        if self.mode == "malformed":
            return 200, b'{"data": [{"embedding": [0.1, '
        dim = self.dim + 1 if self.mode == "wrong_dim" else self.dim
        data = [
            {"object": "embedding", "index": i, "embedding": vector_of(t, dim)}
            for i, t in enumerate(texts)
        ]
        if self.mode == "short":
            data = data[:-1]
        data.reverse()  # the protocol gives each vector's index: order is not promised
        answer = {"object": "list", "model": body["model"], "data": data}
        return 200, json.dumps(answer).encode()


@contextmanager
def serving(stub: Stub) -> Iterator[Stub]:
    """Run ``stub`` on a free local port for the duration; ``stub.url`` is its ``/v1`` base."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            stub.headers.append(dict(self.headers))
            if self.path != "/v1/embeddings":
                status, payload = 404, b"{}"
            else:
                status, payload = stub.reply(body)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
