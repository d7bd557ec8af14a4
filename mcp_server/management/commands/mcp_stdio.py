"""``manage.py mcp_stdio --token SECRET``: the MCP tools over stdio, for desktop clients.

stdout carries the protocol, so nothing else is printed there; logs go to stderr. The token
may also come from ``UME_TOKEN`` so it need not appear in a process list.
"""

from __future__ import annotations

import os

import anyio
from django.core.management.base import BaseCommand, CommandError, CommandParser

from mcp_server.server import mcp_server, use_stdio_secret
from memory.services.tokens import token_authenticate


class Command(BaseCommand):
    help = "Serve ume's MCP tools over stdio (for Claude Desktop and other local clients)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--token", default="", help="an access token (or set UME_TOKEN)")

    def handle(self, *args: object, **options: object) -> None:
        secret = str(options["token"] or os.environ.get("UME_TOKEN", "")).strip()
        if not secret:
            raise CommandError("give --token SECRET (create one with manage.py create_token)")
        if token_authenticate(secret) is None:
            raise CommandError("that token is unknown, revoked or expired")
        use_stdio_secret(secret)
        anyio.run(mcp_server.run_stdio_async)
