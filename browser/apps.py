from __future__ import annotations

from django.apps import AppConfig


class BrowserConfig(AppConfig):
    """The memory browser: the dashboard's pages over the domain (``memory``). Its URLs keep
    the ``memory`` namespace and the ``/memory/`` paths."""

    name = "browser"
    verbose_name = "Memory browser"
