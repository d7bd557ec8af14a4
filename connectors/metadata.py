"""ume's policy for Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
the MCP authorization spec's preferred way for a client to say who it is), pure.

A client may use an ``https`` URL as its ``client_id``: the JSON document at that URL is its
metadata, in RFC 7591's vocabulary. This module decides, without any I/O:

- :func:`is_metadata_url`: whether a ``client_id`` names a metadata document at all (the cheap
  gate; anything else is an ordinary registered client);
- :func:`client_id_url_problem`: whether that URL is one ume will fetch (section 3 of the
  draft: ``https``, a host, a path, no userinfo, fragment or dot segments);
- :func:`address_problem`: whether an address the host resolves to may be connected to (public
  addresses only: never loopback, private, link-local or other internal ranges, including
  IPv4 addresses embedded in IPv6 forms), so a client cannot make ume reach inside its network;
- :func:`document_problem`: whether the document is acceptable: its ``client_id`` is the URL
  itself, it carries no secret (such clients are public), and the rest obeys exactly the rules
  a registration obeys (:func:`connectors.registration.metadata_problem`: redirect URIs, grant
  and response types, sizes and types of every field);
- :func:`cache_seconds`: how long a fetched document is kept, from its ``Cache-Control``,
  within :data:`MIN_CACHE_SECONDS` and :data:`MAX_CACHE_SECONDS`.

``local`` (the test-only setting ``UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA``) also allows
``http`` URLs on a loopback host, and loopback addresses; nothing else.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from connectors.registration import LOOPBACK_HOSTS, MAX_BODY_BYTES, metadata_problem

# The same bound as a registration's body: a document is the same metadata.
MAX_DOCUMENT_BYTES = MAX_BODY_BYTES
# django-oauth-toolkit's client_id column holds at most 255 characters.
MAX_URL_LENGTH = 255
MIN_CACHE_SECONDS = 300
MAX_CACHE_SECONDS = 86400
# A document that could not be used is not fetched again for this long (per URL), so a
# person reloading the consent page, or a flood of requests, cannot make ume fetch it in a loop.
FAILURE_BACKOFF_SECONDS = 60

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_MAX_AGE = re.compile(r"^max-age\s*=\s*\"?(\d+)\"?$")


class MetadataRefused(Exception):
    """A client's metadata document cannot be used; the message says why, in words meant for
    the person on the consent page and the client's developer."""


def is_metadata_url(client_id: str, *, local: bool = False) -> bool:
    """Whether ``client_id`` names a metadata document (as opposed to a registered id)."""
    lowered = client_id[:8].lower()
    return lowered == "https://" or (local and lowered.startswith("http://"))


def client_id_url_problem(url: str, *, local: bool = False) -> str | None:
    """Why ume will not fetch a document from ``url``, or None."""
    if len(url) > MAX_URL_LENGTH:
        return f"a client_id URL may be at most {MAX_URL_LENGTH} characters"
    if any(ord(ch) <= 32 or ord(ch) == 127 for ch in url):
        return "a client_id URL may not contain spaces or control characters"
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (an out-of-range port raises here)
    except ValueError:
        return "the client_id is not a valid URL"
    if parts.scheme != "https" and not (local and parts.scheme == "http"):
        return "a client_id URL must use https"
    if parts.scheme == "http" and host not in LOOPBACK_HOSTS:
        return "http is allowed for a client_id URL only on this machine's loopback address"
    if not host:
        return "a client_id URL must name a host"
    if "@" in parts.netloc:
        return "a client_id URL may not contain a user name or password"
    if parts.fragment or url.endswith("#"):
        return "a client_id URL may not contain a fragment"
    if parts.path in ("", "/"):
        return "a client_id URL must have a path (such as /oauth/client.json)"
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return "a client_id URL may not contain . or .. path segments"
    return None


def address_problem(address: str, *, local: bool = False) -> str | None:
    """Why ume will not connect to ``address`` (an IP the client's host resolved to), or None.

    Only globally routable unicast addresses are allowed. IPv6 forms that embed an IPv4 address
    (IPv4-mapped, 6to4, Teredo, NAT64) are judged by the address they embed. ``local`` also
    allows loopback addresses (a test server on this machine)."""
    try:
        ip: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(address)
    except ValueError:
        return f"{address!r} is not an IP address"
    judged = _embedded_ipv4(ip) or [ip]
    if all(_public(part) or (local and part.is_loopback) for part in judged):
        return None
    return f"its host resolves to {address}, an internal address ume never fetches from"


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # is_global alone lets multicast through (224.0.0.0/4 is in no "private" range).
    return ip.is_global and not ip.is_multicast


def _embedded_ipv4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> list[Any] | None:
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.teredo is not None:
        return list(ip.teredo)  # server and client: both must be public
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip in _NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return None


def document_problem(data: Any, *, client_id: str, loopback_redirects: bool) -> str | None:
    """Why the metadata document fetched from ``client_id`` is refused, or None."""
    if not isinstance(data, dict):
        return "the document must be a JSON object"
    if "client_id" not in data:
        return "the document has no client_id; it must be the document's own URL"
    if data["client_id"] != client_id:
        shown = str(data["client_id"])[:100]
        return f"the document's client_id ({shown!r}) is not the URL it was fetched from"
    if "client_secret" in data or "client_secret_expires_at" in data:
        return "a metadata document may not contain a client_secret"
    method = data.get("token_endpoint_auth_method", "none")
    if method != "none":
        return (
            f"token_endpoint_auth_method {str(method)[:50]!r}: a client known by its metadata "
            'document is a public client here ("none", with PKCE)'
        )
    return metadata_problem(data, loopback_redirects=loopback_redirects)


def cache_seconds(cache_control: str | None) -> int:
    """How long to keep a document answered with this ``Cache-Control`` header: its
    ``max-age``, the shortest time for ``no-store`` or ``no-cache`` (the client still has to
    exist while the person decides), the longest time without a header; always within
    [:data:`MIN_CACHE_SECONDS`, :data:`MAX_CACHE_SECONDS`]."""
    seconds = MAX_CACHE_SECONDS
    for directive in (cache_control or "").lower().split(","):
        directive = directive.strip()
        if directive in ("no-store", "no-cache"):
            seconds = MIN_CACHE_SECONDS
            break
        matched = _MAX_AGE.match(directive)
        if matched:
            seconds = int(matched.group(1))
    return max(MIN_CACHE_SECONDS, min(seconds, MAX_CACHE_SECONDS))


def content_type_problem(content_type: str | None) -> str | None:
    """Why a document served with this ``Content-Type`` is refused, or None: ``application/json``
    or a ``+json`` type (RFC 6839)."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    ):
        return None
    return f"it was served as {media or 'no content type'!r}, not application/json"
