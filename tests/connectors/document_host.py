"""A client's web host on this machine, for Client ID Metadata Document tests: a real HTTP
server (optionally over TLS) that serves whatever a test puts at a path, misbehaving on demand
(slow, dripping, redirecting, oversized), counts the requests to every path, and is also the
client's loopback redirect URI (``/callback`` records each query it receives)."""

from __future__ import annotations

import json
import ssl
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

CALLBACK_PAGE = (
    b'<!doctype html><link rel="icon" href="data:,"><title>Connected</title>'
    b"<p>You can close this tab."
)


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before the status line
    drip: float = 0.0  # seconds between bytes of the body (its full length is declared)
    chunked: bool = False  # no Content-Length: the body is sent until the connection closes


class DocumentHost:
    """``with DocumentHost() as host``: ``host.url(path)``, ``host.serve(path, ...)``,
    ``host.document(...)`` (a valid metadata document), ``host.hits[path]``,
    ``host.callbacks`` and ``host.callback_uri``."""

    def __init__(self, *, tls: ssl.SSLContext | None = None, name: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route] = {}
        self.hits: Counter[str] = Counter()
        self.callbacks: list[dict[str, str]] = []
        self._closing = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.base = f"{scheme}://{name}:{self.server.server_address[1]}"
        self.callback_uri = f"http://127.0.0.1:{self.server.server_address[1]}/callback"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def url(self, path: str) -> str:
        return self.base + path

    def serve(self, path: str, body: bytes | dict[str, Any] | list[Any] = b"", **route: Any) -> str:
        """Put ``body`` (JSON for a dict or list) at ``path``; returns its URL."""
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
            route.setdefault("headers", {}).setdefault("Content-Type", "application/json")
        self.routes[path] = Route(body=body, **route)
        return self.url(path)

    def document(
        self, path: str = "/client.json", *, headers: dict[str, str] | None = None, **fields: Any
    ) -> str:
        """A valid metadata document at ``path`` whose client_id is its own URL and whose
        redirect URI is this host's callback; ``fields`` override or add fields (None drops
        one). Returns the client_id."""
        client_id = self.url(path)
        document: dict[str, Any] = {
            "client_id": client_id,
            "client_name": "Document connector",
            "client_uri": self.base,
            "redirect_uris": [self.callback_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        document.update(fields)
        document = {k: v for k, v in document.items() if v is not None}
        self.serve(path, document, headers={"Content-Type": "application/json", **(headers or {})})
        return client_id

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                path = urlsplit(self.path).path
                host.hits[path] += 1
                if path == "/callback":
                    query = parse_qs(urlsplit(self.path).query)
                    host.callbacks.append({k: v[0] for k, v in query.items()})
                    self._send(Route(CALLBACK_PAGE, headers={"Content-Type": "text/html"}))
                    return
                self._send(host.routes.get(path, Route(b"not here", status=404)))

            def _send(self, route: Route) -> None:
                if route.delay and host._closing.wait(route.delay):
                    return
                self.send_response(route.status)
                for name, value in route.headers.items():
                    self.send_header(name, value)
                if route.chunked:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                try:
                    self._body(route)
                except OSError:  # the fetcher gave up and closed the connection
                    self.close_connection = True

            def _body(self, route: Route) -> None:
                if not route.drip:
                    self.wfile.write(route.body)
                    return
                for index in range(len(route.body)):
                    if host._closing.wait(route.drip):
                        return
                    self.wfile.write(route.body[index : index + 1])
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> DocumentHost:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def wait_for_callback(host: DocumentHost, count: int, timeout: float = 10.0) -> dict[str, str]:
    """The ``count``-th query the callback received, waiting for it to arrive."""
    deadline = time.monotonic() + timeout
    while len(host.callbacks) < count:
        assert time.monotonic() < deadline, f"the callback got {len(host.callbacks)} of {count}"
        time.sleep(0.02)
    return host.callbacks[count - 1]
