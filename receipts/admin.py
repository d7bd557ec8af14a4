"""Receipts are a ledger: read-only in the admin."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from receipts.models import Receipt


@admin.register(Receipt)
class ReceiptAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "source", "outcome", "summary", "duration_ms", "created_at")
    list_filter = ("outcome", "source")
    search_fields = ("subject", "summary", "error")
    date_hierarchy = "created_at"

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
