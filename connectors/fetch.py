"""Fetching a client's metadata document: the one request ume makes to an address a client
chose, so every step is bounded and nothing inside ume's network can be reached through it.

:func:`fetch_document` takes a ``client_id`` URL and returns the decoded JSON with the answer's
``Cache-Control``, or raises :class:`connectors.metadata.MetadataRefused` saying why:

- the URL must pass :func:`connectors.metadata.client_id_url_problem` (``https``, a path, ...);
- the host is resolved once and **every** address it resolves to must pass
  :func:`connectors.metadata.address_problem` (public addresses only); the request then goes to
  one of those very addresses (the TLS name check and the ``Host`` header still use the host
  name), so a second DNS answer cannot point it elsewhere;
- one deadline (``timeout`` seconds) covers the lookup, the connection, TLS, the headers and
  the whole body: a host that answers slowly, or drips its body, is cut off at the deadline;
- redirects are never followed (any ``3xx`` is refused), the answer must be ``200`` with a JSON
  content type and no content encoding, and at most
  :data:`connectors.metadata.MAX_DOCUMENT_BYTES` are read (a larger declared length is refused
  before reading); proxies from the environment are not used.

It makes no database call; :func:`connectors.services.metadata_client_resolve` decides when to
fetch and what to keep.
"""

from __future__ import annotations

import json
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import SplitResult, urlsplit

import anyio
import anyio.to_thread
import httpx

from connectors.metadata import (
    MAX_DOCUMENT_BYTES,
    MetadataRefused,
    address_problem,
    client_id_url_problem,
    content_type_problem,
)

USER_AGENT = "ume (OAuth client metadata fetcher)"


@dataclass(frozen=True)
class Fetched:
    data: Any
    cache_control: str | None


def fetch_document(
    url: str, *, local: bool, timeout: float, verify: ssl.SSLContext | bool = True
) -> Fetched:
    """The JSON document at ``url`` (see the module's docstring for every limit).

    ``local`` is the test-only ``UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA``: ``http`` on a
    loopback host and loopback addresses. ``verify`` is the TLS trust (the system's by
    default; a test passes a context that trusts its own authority). Must not be called from
    a thread running an event loop (it runs its own)."""
    problem = client_id_url_problem(url, local=local)
    if problem:
        raise MetadataRefused(problem)
    return anyio.run(_fetch_by, url, local, timeout, verify)


async def _fetch_by(
    url: str, local: bool, timeout: float, verify: ssl.SSLContext | bool
) -> Fetched:
    try:
        with anyio.fail_after(timeout):
            return await _fetch(urlsplit(url), local, verify)
    except TimeoutError:
        raise MetadataRefused(f"its host did not answer within {timeout:g} seconds") from None


async def _fetch(parts: SplitResult, local: bool, verify: ssl.SSLContext | bool) -> Fetched:
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = await _addresses(host, port)
    for address in addresses:
        problem = address_problem(address, local=local)
        if problem:
            raise MetadataRefused(problem)
    unreachable: Exception | None = None
    async with httpx.AsyncClient(
        verify=verify, follow_redirects=False, trust_env=False, timeout=None
    ) as client:
        for address in addresses:
            try:
                return await _get(client, parts, address, port)
            except httpx.ConnectError as error:  # this address is down: try the next one
                unreachable = error
            except httpx.HTTPError as error:
                raise MetadataRefused(f"it could not be fetched ({_said(error)})") from None
    raise MetadataRefused(f"its host could not be reached ({_said(unreachable)})")


async def _addresses(host: str, port: int) -> list[str]:
    try:
        # In a worker thread given up at the deadline: a hanging resolver cannot hold the
        # request past it (the loop's own executor would be waited for on exit).
        infos = await anyio.to_thread.run_sync(
            socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM, abandon_on_cancel=True
        )
    except (OSError, UnicodeError):
        raise MetadataRefused(f"its host name {host!r} could not be resolved") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise MetadataRefused(f"its host name {host!r} has no address")
    return addresses


async def _get(client: httpx.AsyncClient, parts: SplitResult, address: str, port: int) -> Fetched:
    literal = f"[{address}]" if ":" in address else address
    target = f"{parts.scheme}://{literal}:{port}{parts.path}"
    if parts.query:
        target += "?" + parts.query
    request = client.build_request(
        "GET",
        target,
        headers={
            "Host": parts.netloc,
            "Accept": "application/json",
            "Accept-Encoding": "identity",
            "User-Agent": USER_AGENT,
        },
        # TLS checks the certificate against the host name, not the address connected to.
        extensions={"sni_hostname": parts.hostname} if parts.scheme == "https" else {},
    )
    response = await client.send(request, stream=True)
    try:
        _check_answer(response)
        body = await _read_bounded(response)
    finally:
        await response.aclose()
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise MetadataRefused("it is not valid JSON") from None
    return Fetched(data=data, cache_control=response.headers.get("Cache-Control"))


def _check_answer(response: httpx.Response) -> None:
    status = response.status_code
    if 300 <= status < 400:
        where = response.headers.get("Location", "")[:200]
        raise MetadataRefused(
            f"it answered with a redirect (HTTP {status}{' to ' + where if where else ''}); "
            "ume follows no redirects: the document must be served at the client_id URL itself"
        )
    if status != 200:
        raise MetadataRefused(f"it answered HTTP {status}, not 200")
    problem = content_type_problem(response.headers.get("Content-Type"))
    if problem:
        raise MetadataRefused(problem)
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise MetadataRefused(
            f"it was sent with content encoding {encoding[:30]!r}; ume asks for none"
        )
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > MAX_DOCUMENT_BYTES:
        raise _too_big()


async def _read_bounded(response: httpx.Response) -> bytes:
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) > MAX_DOCUMENT_BYTES:
            raise _too_big()
    return bytes(body)


def _too_big() -> MetadataRefused:
    return MetadataRefused(f"it is larger than {MAX_DOCUMENT_BYTES // 1024} KiB")


def _said(error: Exception | None) -> str:
    text = str(error or "no address answered").strip() or type(error).__name__
    return text[:200]
