from __future__ import annotations

from django.apps import AppConfig


class ReceiptsConfig(AppConfig):
    """The Saves page. The receipts themselves are the domain's (``memory.models.Receipt``);
    this app keeps its migrations, which created their tables (docs/architecture.md)."""

    name = "receipts"
    verbose_name = "Receipts"
    default_auto_field = "django.db.models.BigAutoField"
