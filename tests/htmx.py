"""What an htmx request sends, for the Django test client: ``client.get(url, **HX)``."""

from __future__ import annotations

from typing import Any

HX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}
