"""ume's policy for client metadata (RFC 7591 registration, RFC 7592 update), pure.

:func:`metadata_problem` takes the decoded JSON body of a registration or an update and
returns why it is refused (the ``error_description`` of a ``400 invalid_client_metadata``), or
None. It is the one check both ``POST /oauth/register/`` and ``PUT /oauth/register/<id>/`` run
before the toolkit sees the body, so an update can never store what a registration may not.

What it holds a client to:

- the MCP profile: the authorization code grant (with refresh tokens), the ``code`` response
  type, ``https`` redirect URIs or ``http`` on a loopback host;
- bounded size: at most :data:`MAX_BODY_BYTES` of JSON, :data:`MAX_REDIRECT_URIS` redirect
  URIs, a length cap on every string, a count cap on every list, at most
  :data:`MAX_UNKNOWN_FIELDS` fields this server does not know (they are ignored, never
  stored);
- types: every known field has the JSON type RFC 7591 gives it (lists of strings are lists of
  strings), so no malformed body reaches the toolkit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

MAX_BODY_BYTES = 16 * 1024
MAX_REDIRECT_URIS = 10
MAX_URI_LENGTH = 2000
MAX_NAME_LENGTH = 200
MAX_LIST_ITEMS = 10
MAX_UNKNOWN_FIELDS = 20
MAX_FIELD_NAME_LENGTH = 100

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
GRANT_TYPES = frozenset({"authorization_code", "refresh_token"})
RESPONSE_TYPES = frozenset({"code"})
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")

# Known string fields and their longest value.
_STRINGS: dict[str, int] = {
    "client_name": MAX_NAME_LENGTH,
    "client_uri": MAX_URI_LENGTH,
    "logo_uri": MAX_URI_LENGTH,
    "tos_uri": MAX_URI_LENGTH,
    "policy_uri": MAX_URI_LENGTH,
    "jwks_uri": MAX_URI_LENGTH,
    "scope": 1000,
    "software_id": MAX_NAME_LENGTH,
    "software_version": MAX_NAME_LENGTH,
    "software_statement": 8000,
    "token_endpoint_auth_method": 50,
}
# Known list-of-string fields: (most items, longest item).
_LISTS: dict[str, tuple[int, int]] = {
    "redirect_uris": (MAX_REDIRECT_URIS, MAX_URI_LENGTH),
    "grant_types": (MAX_LIST_ITEMS, 100),
    "response_types": (MAX_LIST_ITEMS, 100),
    "contacts": (MAX_LIST_ITEMS, 320),
}
_OBJECTS = frozenset({"jwks"})
# Fields the server itself assigns: a client may echo them back on an update (RFC 7592).
_SERVER_FIELDS = frozenset(
    {
        "client_id",
        "client_secret",
        "client_id_issued_at",
        "client_secret_expires_at",
        "registration_access_token",
        "registration_client_uri",
    }
)


def metadata_problem(data: Any, *, loopback_redirects: bool = True) -> str | None:
    """Why this client metadata is refused, or None when ume accepts it."""
    if not isinstance(data, dict):
        return "the request body must be a JSON object"
    for check in (_shape_problem, _policy_problem):
        problem = check(data, loopback_redirects)
        if problem:
            return problem
    return None


def _shape_problem(data: dict[str, Any], _loopback: bool) -> str | None:
    unknown = [key for key in data if not _known(key)]
    if len(unknown) > MAX_UNKNOWN_FIELDS:
        return f"at most {MAX_UNKNOWN_FIELDS} fields this server does not know, got {len(unknown)}"
    for key in unknown:
        if len(key) > MAX_FIELD_NAME_LENGTH:
            return f"a field name is longer than {MAX_FIELD_NAME_LENGTH} characters"
    for key, value in data.items():
        base = key.split("#", 1)[0]  # "client_name#fr": a language-tagged variant (RFC 7591 2.2)
        if base in _STRINGS:
            problem = _string_problem(key, value, _STRINGS[base])
        elif base in _LISTS:
            problem = _list_problem(key, value, *_LISTS[base])
        elif base in _OBJECTS:
            problem = None if isinstance(value, dict) else f"{key} must be a JSON object"
        else:
            problem = None
        if problem:
            return problem
    if "redirect_uris" not in data or not data["redirect_uris"]:
        return "redirect_uris must list at least one redirect URI"
    return None


def _known(key: str) -> bool:
    base = key.split("#", 1)[0]
    return base in _STRINGS or base in _LISTS or base in _OBJECTS or key in _SERVER_FIELDS


def _string_problem(key: str, value: Any, longest: int) -> str | None:
    if not isinstance(value, str):
        return f"{key} must be a string"
    if len(value) > longest:
        return f"{key} is longer than {longest} characters"
    return None


def _list_problem(key: str, value: Any, most: int, longest: int) -> str | None:
    if not isinstance(value, list):
        return f"{key} must be an array of strings"
    if len(value) > most:
        return f"{key} may list at most {most} values, got {len(value)}"
    for item in value:
        if not isinstance(item, str):
            return f"{key} must be an array of strings"
        if len(item) > longest:
            return f"a value of {key} is longer than {longest} characters"
    return None


def _policy_problem(data: dict[str, Any], loopback_redirects: bool) -> str | None:
    grants = data.get("grant_types", ["authorization_code"])
    if not set(grants) <= GRANT_TYPES or "authorization_code" not in grants:
        return "grant_types: only authorization_code (with refresh_token) is supported"
    responses = data.get("response_types", ["code"])
    if not set(responses) <= RESPONSE_TYPES:
        return 'response_types: only "code" is supported'
    method = data.get("token_endpoint_auth_method", "client_secret_basic")
    if method not in AUTH_METHODS:
        return f"token_endpoint_auth_method must be one of {', '.join(AUTH_METHODS)}"
    for uri in data["redirect_uris"]:
        problem = _redirect_problem(uri, loopback_redirects)
        if problem:
            return problem
    return None


def _redirect_problem(uri: str, loopback_redirects: bool) -> str | None:
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
    except ValueError:
        return f"redirect URI {uri!r} is not a valid URI"
    if parts.fragment:
        return f"redirect URI {uri!r} must not have a fragment"
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        if loopback_redirects:
            return None
        return (
            f"redirect URI {uri!r}: this server accepts only https redirects; its operator "
            "allows programs on the person's own machine (desktop clients) with "
            "UME_OAUTH_LOOPBACK_REDIRECTS=true"
        )
    if parts.scheme == "http":
        return f"redirect URI {uri!r}: http is allowed on a loopback host only"
    return f"redirect URI {uri!r}: https, or http on a loopback host"


def registration_answer(
    data: dict[str, Any], answer: dict[str, Any], *, scopes: Iterable[str]
) -> dict[str, Any]:
    """The toolkit's registration answer made true to RFC 7591 section 3.2.1.

    ``data`` is the metadata the client sent (empty for a read, RFC 7592), ``answer`` the
    toolkit's answer, ``scopes`` the scopes this server offers. The answer echoes the
    ``token_endpoint_auth_method`` the client asked for (the token endpoint accepts a secret
    in the body and in the Authorization header alike; the toolkit always said "basic"), says
    that a secret never expires (``client_secret_expires_at`` 0; a client that never completes
    an authorization is removed as a whole, see ``connectors.services``), and gives the
    ``scope`` the client may ask for: the ones it named that this server offers, or all of
    them when it named none.
    """
    offered = list(scopes)
    out = dict(answer)
    if out.get("token_endpoint_auth_method") != "none":
        method = data.get("token_endpoint_auth_method", "client_secret_basic")
        out["token_endpoint_auth_method"] = (
            method
            if method in ("client_secret_basic", "client_secret_post")
            else "client_secret_basic"
        )
    if "client_secret" in out:
        out["client_secret_expires_at"] = 0
    asked = str(data.get("scope") or "").split()
    granted = [scope for scope in offered if scope in asked] if asked else offered
    out["scope"] = " ".join(granted or offered)
    return out
