from __future__ import annotations

from django.apps import AppConfig


class ConnectorsConfig(AppConfig):
    name = "connectors"
    verbose_name = "Connectors (OAuth)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from connectors import checks  # noqa: F401 (registers the deploy check)

        # /mcp accepts OAuth access tokens beside ume's own, and its 401 says where the
        # protected resource metadata is (RFC 9728).
        from connectors.oauth import mcp_authenticate, mcp_challenge
        from connectors.services import oauth_clients_expire
        from mcp_server import http
        from memory.services.cleanup import SWEEPS

        if mcp_authenticate not in http.AUTHENTICATORS:
            http.AUTHENTICATORS.append(mcp_authenticate)
        if mcp_challenge not in http.CHALLENGES:
            http.CHALLENGES.append(mcp_challenge)
        # `manage.py cleanup` (the cron job) deletes clients nobody authorized.
        SWEEPS["oauth_clients_expired"] = lambda now, dry_run: oauth_clients_expire(
            now=now, dry_run=dry_run
        )
