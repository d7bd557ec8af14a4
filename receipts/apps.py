from __future__ import annotations

from django.apps import AppConfig


class ReceiptsConfig(AppConfig):
    name = "receipts"
    verbose_name = "Receipts"
    default_auto_field = "django.db.models.BigAutoField"
