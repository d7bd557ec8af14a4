"""``manage.py create_token --user U --name NAME [--scopes ...]``: prints the secret once."""

from __future__ import annotations

import json
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from memory.services.tokens import TokenError, token_create
from memory.vocab import SCOPES


class Command(BaseCommand):
    help = "Create an access token for a tool (API or MCP). The secret is shown once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="username of the owner")
        parser.add_argument("--name", required=True, help="the tool this token is for")
        parser.add_argument(
            "--scopes",
            default=",".join(SCOPES),
            help=f"comma-separated, from {', '.join(SCOPES)} (default: both; write implies read)",
        )
        parser.add_argument("--expires-days", type=int, default=None, help="expire after N days")
        parser.add_argument("--json", action="store_true", help="print JSON only")

    def handle(self, *args: object, **options: object) -> None:
        username = str(options["user"])
        owner = get_user_model().objects.filter(username=username).first()
        if owner is None:
            raise CommandError(f"no user {username!r}")
        days = options["expires_days"]
        if days is not None and int(str(days)) < 1:
            raise CommandError("--expires-days must be at least 1")
        try:
            expires = timezone.now() + timedelta(days=int(str(days))) if days is not None else None
        except OverflowError as exc:
            raise CommandError("--expires-days is too large") from exc
        try:
            token, secret = token_create(
                owner=owner,
                name=str(options["name"]),
                scopes=str(options["scopes"]).split(","),
                expires_at=expires,
            )
        except TokenError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            data = {
                "id": token.pk,
                "name": token.name,
                "prefix": token.prefix,
                "scopes": token.scopes,
                "expires_at": expires.isoformat() if expires else None,
                "secret": secret,
            }
            self.stdout.write(json.dumps(data))
            return
        self.stdout.write(secret)
        self.stderr.write(
            f"token {token.prefix}… for {token.name!r} ({', '.join(token.scopes)}); "
            "this secret is shown once and cannot be recovered"
        )
