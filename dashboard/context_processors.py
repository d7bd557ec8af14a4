"""Template context every dashboard page needs."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from memory.selectors import pending_count


def dashboard(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"pending_count": pending_count(user)}
