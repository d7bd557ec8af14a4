"""The web server's guard against slow and surplus clients: ``-k ume.server.UvicornWorker``.

uvicorn waits for a request's headers and body as long as the client likes, and accepts
connections until the process runs out of file descriptors; asyncio then logs every refused
accept, and the worker stops answering. This worker class (gunicorn with uvicorn, as
docs/deploy.md runs it) adds:

- a header timeout (``UME_HTTP_HEADER_TIMEOUT``): a connection whose request headers are not
  complete that many seconds after it opened, or after its previous response, gets 408 and is
  closed;
- a body timeout (``UME_HTTP_BODY_TIMEOUT``): a body must arrive within that many seconds plus
  one second per KB received (a slow but steady upload goes on, a trickle does not); while
  ume itself is not reading (flow control), the clock stops;
- a connection cap per worker (gunicorn's ``--worker-connections``): past it a new connection
  gets 503 and is closed at once, and the soft file descriptor limit is raised to fit it;
- one log line for such clients: the first of each kind in a minute, then one line with how
  many more there were, never a line per byte or per connection.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn_worker import UvicornWorker as _UvicornWorker

log = logging.getLogger("ume.server")

TICK_SECONDS = 0.5
BODY_BYTES_PER_SECOND = 1024
LOG_WINDOW_SECONDS = 60.0
FD_RESERVE = 256  # descriptors beyond the client connections: pool, files, logs


class _OncePerWindow:
    """The first event of each kind in a window is logged; the rest are counted and logged as
    one line when the window ends."""

    def __init__(self) -> None:
        self.window_end: dict[str, float] = {}
        self.more: dict[str, int] = {}

    def event(self, kind: str, message: str, loop: asyncio.AbstractEventLoop) -> None:
        now = time.monotonic()
        if now < self.window_end.get(kind, 0.0):
            self.more[kind] = self.more.get(kind, 0) + 1
            return
        self.window_end[kind] = now + LOG_WINDOW_SECONDS
        self.more[kind] = 0
        log.warning("%s (further ones in the next %d s are counted)", message, LOG_WINDOW_SECONDS)
        loop.call_later(LOG_WINDOW_SECONDS, self._flush, kind)

    def _flush(self, kind: str) -> None:
        if self.more.get(kind):
            log.warning("%s: %d more in the last %d s", kind, self.more[kind], LOG_WINDOW_SECONDS)
        self.more[kind] = 0


_log_once = _OncePerWindow()


def _raw_response(status: int, reason: str, text: str) -> bytes:
    body = text.encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode() + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the timeouts and the cap of the module docstring."""

    max_connections: int | None = None  # set by the worker

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from django.conf import settings  # the application (and Django) is loaded by now

        self.header_timeout = float(settings.UME_HTTP_HEADER_TIMEOUT)
        self.body_timeout = float(settings.UME_HTTP_BODY_TIMEOUT)
        self._received = 0
        self._waiting_since = time.monotonic()  # for a request's headers
        self._body_cycle: object | None = None
        self._body_began = 0.0
        self._body_base = 0
        self._tick_handle: asyncio.TimerHandle | None = None

    def _address(self) -> str:
        return str(self.client[0]) if self.client else "unknown"

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        cap = self.max_connections
        if cap is not None and len(self.connections) > cap:
            transport.write(_raw_response(503, "Service Unavailable", "too many connections"))
            transport.close()
            _log_once.event(
                "connections refused over the cap",
                f"refused a connection from {self._address()}: this worker already has {cap}",
                self.loop,
            )
            return
        self._waiting_since = time.monotonic()
        self._tick_handle = self.loop.call_later(TICK_SECONDS, self._tick)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._received += len(data)
        super().data_received(data)

    def on_response_complete(self) -> None:
        self._waiting_since = time.monotonic()
        super().on_response_complete()

    def _tick(self) -> None:
        self._tick_handle = None
        if self.transport.is_closing():
            return
        now = time.monotonic()
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            if now - self._waiting_since > self.header_timeout:
                self._drop_waiting_for_headers()
                return
        elif self.conn.their_state is h11.SEND_BODY:
            if cycle is not self._body_cycle:
                self._body_cycle, self._body_began = cycle, now
                self._body_base = self._received
            if self.flow.read_paused:  # ume is not reading: not the client's delay
                self._body_began += TICK_SECONDS
            allowed = self.body_timeout + (self._received - self._body_base) / BODY_BYTES_PER_SECOND
            if now - self._body_began > allowed:
                self._drop_slow_body(cycle)
                return
        self._tick_handle = self.loop.call_later(TICK_SECONDS, self._tick)

    def _drop_waiting_for_headers(self) -> None:
        if self._received:  # a request was started and never finished
            self.transport.write(_raw_response(408, "Request Timeout", "request timeout"))
        _log_once.event(
            "slow request headers",
            f"closed a connection from {self._address()} whose request headers were not "
            f"complete within {self.header_timeout:g} s",
            self.loop,
        )
        self.transport.close()

    def _drop_slow_body(self, cycle: Any) -> None:
        if not cycle.response_started:
            self.transport.write(_raw_response(408, "Request Timeout", "request timeout"))
        cycle.disconnected = True  # the application sees a client that went away
        cycle.message_event.set()
        _log_once.event(
            "slow request bodies",
            f"closed a connection from {self._address()} whose request body arrived slower "
            f"than {self.body_timeout:g} s plus 1 s per KB",
            self.loop,
        )
        self.transport.close()


class UvicornWorker(_UvicornWorker):
    """gunicorn's worker for ``ume.asgi``: uvicorn with :class:`GuardedH11Protocol`, capped
    at ``--worker-connections`` simultaneous connections."""

    CONFIG_KWARGS: dict[str, Any] = {"loop": "auto", "http": GuardedH11Protocol}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        GuardedH11Protocol.max_connections = self._fit_descriptors(int(self.cfg.worker_connections))

    def _fit_descriptors(self, cap: int) -> int:
        """Raise the soft descriptor limit as far as the cap needs (up to the hard limit); a
        cap the hard limit cannot hold is lowered to what it can, and said once."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = cap + FD_RESERVE
        if soft != resource.RLIM_INFINITY and soft < want:
            new = want if hard == resource.RLIM_INFINITY else min(want, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        if soft != resource.RLIM_INFINITY and soft < want:
            fitted = max(1, int(soft) - FD_RESERVE)
            self.log.warning(
                "--worker-connections %d needs %d file descriptors, the limit is %d: "
                "capped at %d connections (raise LimitNOFILE)",
                cap,
                want,
                soft,
                fitted,
            )
            return fitted
        return cap
