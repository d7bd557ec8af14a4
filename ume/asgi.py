"""ASGI entry point: ``/mcp`` to the MCP SDK's Streamable HTTP app, everything else to Django.

Django's ASGI handler refuses lifespan events, so this router answers them itself and runs the
SDK's session manager for the life of the process. Production:
``gunicorn ume.asgi:application -k uvicorn_worker.UvicornWorker``.
"""

from __future__ import annotations

import os
from contextlib import AsyncExitStack
from typing import cast

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ume.settings")

from django.core.asgi import get_asgi_application  # noqa: E402
from starlette.types import ASGIApp, Receive, Scope, Send  # noqa: E402

# Sets Django up before anything below imports models.
django_app = cast(ASGIApp, get_asgi_application())

from mcp_server.http import MCP_PATH, build_mcp_app  # noqa: E402
from ume.cors import Cors  # noqa: E402
from ume.guard import Guard  # noqa: E402
from ume.https import https_redirect  # noqa: E402
from ume.logs import AsgiAccessLog  # noqa: E402
from ume.workers import freeze_loaded_objects, refuse_persistent_connections  # noqa: E402

refuse_persistent_connections()  # under ASGI a kept connection would never be reused

mcp_app, session_manager = build_mcp_app()
mcp_app = AsgiAccessLog(mcp_app, route=MCP_PATH)


async def _lifespan(receive: Receive, send: Send) -> None:
    message = await receive()
    assert message["type"] == "lifespan.startup"
    async with AsyncExitStack() as stack:
        try:
            await stack.enter_async_context(session_manager.run())
        except Exception as exc:  # report it to the server instead of dying silently
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        message = await receive()  # lifespan.shutdown
    await send({"type": "lifespan.shutdown.complete"})


async def _route(scope: Scope, receive: Receive, send: Send) -> None:
    path = scope.get("path", "")
    if path == MCP_PATH or path.startswith(MCP_PATH + "/"):
        location = https_redirect(scope) if scope["type"] == "http" else None
        if location is not None:  # under UME_HTTPS, as Django redirects /v1/ (ume/https.py)
            await send(
                {
                    "type": "http.response.start",
                    "status": 301,
                    "headers": [(b"location", location.encode()), (b"content-length", b"0")],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        await mcp_app(scope, receive, send)
        return
    await django_app(scope, receive, send)


# Body limits, unauthenticated API writes and a database that is down are answered here,
# before Django or the MCP SDK read a byte of the body (see ume/guard.py). Outside it, CORS
# for browser-based MCP clients (ume/cors.py): their preflights carry no token.
guarded = Cors(Guard(_route))


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    await guarded(scope, receive, send)


freeze_loaded_objects()  # what start-up loaded lives as long as the worker (ume/workers.py)
