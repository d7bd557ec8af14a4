"""The headers of the API's conditional and idempotent requests, in ``/v1/openapi.json``.

django-ninja documents what a view's signature declares; these headers are read and written
by the views and by :func:`api.idempotency.idempotent` themselves, so they are added to
the schema here: ``Idempotency-Key`` (request) and ``Idempotent-Replayed`` (answer) on every
operation wrapped by ``idempotent`` (found by the wrapper, so a new idempotent route cannot be
left out), ``If-Match`` on the node edits that check it and ``ETag`` on the answers that carry
it. A client generated from the schema then sends and reads them (docs/clients.md).
"""

from __future__ import annotations

from typing import Any

from ninja import Router

from api.idempotency import is_idempotent

IDEMPOTENCY_KEY: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Send the same key when retrying: the write is made once and a retry gets "
    "the first answer again (with Idempotent-Replayed: true). A key reused for a different "
    "request is 422 idempotency_key_reused; a retry while the first still runs is 409 "
    "idempotency_in_progress with Retry-After.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}
REPLAYED: dict[str, Any] = {
    "description": "true when this is the stored answer of an earlier request with the same "
    "Idempotency-Key (nothing was written again).",
    "schema": {"type": "string", "enum": ["true"]},
}
IF_MATCH: dict[str, Any] = {
    "name": "If-Match",
    "in": "header",
    "required": False,
    "description": 'The ETag of the memory as you read it (e.g. "3"), or several, or *: the '
    "change is refused with 412 stale_revision if the memory changed since.",
    "schema": {"type": "string"},
}
ETAG: dict[str, Any] = {
    "description": "The memory's revision as a strong ETag: send it back as If-Match.",
    "schema": {"type": "string"},
}

# (method, path) of the operations that read If-Match, and of those whose answer has an ETag.
TAKES_IF_MATCH = frozenset({("PATCH", "/nodes/{node_id}"), ("DELETE", "/nodes/{node_id}")})
GIVES_ETAG = frozenset(
    {
        ("GET", "/nodes/{node_id}"),
        ("PATCH", "/nodes/{node_id}"),
        ("POST", "/nodes/{node_id}/rollback"),
    }
)


def document_headers(*routers: Router) -> None:
    """Add the headers above to the ``openapi_extra`` of each operation they apply to."""
    for router in routers:
        for path, view in router.path_operations.items():
            for operation in view.operations:
                for method in operation.methods:
                    _document(operation, method.upper(), path)


def _document(operation: Any, method: str, path: str) -> None:
    successes = sorted(code for code in operation.response_models if 200 <= int(code) < 300)
    parameters: list[dict[str, Any]] = []
    headers: dict[str, Any] = {}
    if is_idempotent(operation.view_func):
        parameters.append(IDEMPOTENCY_KEY)
        headers["Idempotent-Replayed"] = REPLAYED
    if (method, path) in TAKES_IF_MATCH:
        parameters.append(IF_MATCH)
    if (method, path) in GIVES_ETAG:
        headers["ETag"] = ETAG
    if not parameters and not headers:
        return
    extra: dict[str, Any] = dict(operation.openapi_extra or {})
    if parameters:
        extra["parameters"] = [*extra.get("parameters", []), *parameters]
    if headers:
        responses = dict(extra.get("responses", {}))
        for code in successes:  # keyed as django-ninja keys its responses (the status code)
            answer = dict(responses.get(code, {}))
            answer["headers"] = {**answer.get("headers", {}), **headers}
            responses[code] = answer
        extra["responses"] = responses
    operation.openapi_extra = extra
