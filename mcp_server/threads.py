"""Where /mcp's synchronous work runs, so that one person's slow calls never delay another's.

The ORM is synchronous and the SDK's handlers are async, so every database step of a request
runs in a thread. Not in the event loop's default executor: Django and everything else share
it, and it has only a few threads, so a handful of one person's saves waiting on their
barrier lock used to leave no thread for anyone's token check. Each process has instead:

- an authentication pool (``AUTH_THREADS``): token lookups and rate-limit counts, short
  statements that never wait on a person's write;
- a tool pool (``UME_MCP_THREADS``): the tool calls;
- a cap on the requests each person has in the process at once
  (``UME_MCP_CALLS_PER_PERSON``, below the tool pool's size): one more is answered at once
  with 429 ``busy`` and ``Retry-After`` instead of queueing. A person whose calls all wait
  holds at most that many tool threads; the others stay free for everyone else.

A request's slot is held until its tool call's thread has finished, even when the SDK goes on
with the call after the HTTP exchange ended: ``sync_to_async`` returns only once the thread's
work is done or was cancelled before it started. Each thread has its own database connection
(Django's connections are per thread), closed or returned after every call by
``close_old_connections``, so the pools bound the connections /mcp holds.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings

T = TypeVar("T")

AUTH_THREADS = 4
SLOT = "ume.slot"  # the request's Slot, in the ASGI scope
BUSY_RETRY_AFTER = 1  # seconds: a person's calls in flight are usually done by then

_pools: dict[str, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _pool(name: str, size: int) -> ThreadPoolExecutor:
    with _pools_lock:
        pool = _pools.get(name)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix=f"ume-mcp-{name}")
            _pools[name] = pool
        return pool


async def run_auth(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the authentication pool."""
    pool = _pool("auth", AUTH_THREADS)
    return await sync_to_async(fn, thread_sensitive=False, executor=pool)(*args)


async def run_tool(slot: Slot | None, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in the tool pool, holding the request's ``slot`` until the thread is done."""
    pool = _pool("tools", int(settings.UME_MCP_THREADS))
    if slot is not None:
        slot.retain()
    try:
        return await sync_to_async(fn, thread_sensitive=False, executor=pool)(*args)
    finally:
        if slot is not None:
            slot.release()


class Busy(Exception):
    """This person already has ``limit`` requests in this process."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"you already have {limit} requests in progress on this server; "
            f"retry in {BUSY_RETRY_AFTER} s"
        )
        self.limit = limit


class Slot:
    """One request's place in its person's count; freed when the request and the tool call it
    started are both done."""

    def __init__(self, person: int) -> None:
        self.person = person
        self._refs = 1

    def retain(self) -> None:
        with _counts_lock:
            if self._refs == 0:
                # The SDK started the call after the HTTP exchange had ended and freed the
                # slot: the call is accepted, so it counts again while its thread runs.
                _in_flight[self.person] = _in_flight.get(self.person, 0) + 1
            self._refs += 1

    def release(self) -> None:
        with _counts_lock:
            self._refs -= 1
            if self._refs == 0:
                left = _in_flight[self.person] - 1
                if left:
                    _in_flight[self.person] = left
                else:
                    del _in_flight[self.person]


_in_flight: dict[int, int] = {}
_counts_lock = threading.Lock()


def take_slot(person: int) -> Slot:
    """A slot for one more request of ``person``; :class:`Busy` if they have the most already."""
    limit = int(settings.UME_MCP_CALLS_PER_PERSON)
    with _counts_lock:
        held = _in_flight.get(person, 0)
        if held >= limit:
            raise Busy(limit)
        _in_flight[person] = held + 1
    return Slot(person)


def in_flight(person: int) -> int:
    """How many requests of ``person`` this process holds now."""
    with _counts_lock:
        return _in_flight.get(person, 0)
