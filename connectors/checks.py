"""System checks of the connector settings (``manage.py check --deploy``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, register


@register(Tags.security, deploy=True)
def insecure_local_client_metadata(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """The test-only setting that lets ume fetch client metadata documents over plain http from
    this machine never passes a deployment check: on a server, any local program could then
    describe itself as any client."""
    if not settings.UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA:
        return []
    return [
        Error(
            "UME_OAUTH_INSECURE_LOCAL_CLIENT_METADATA is on: ume fetches client metadata "
            "documents over plain http from this machine's loopback addresses.",
            hint="It is for tests only; unset it on a server.",
            id="connectors.E001",
        )
    ]
