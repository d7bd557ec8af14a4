from __future__ import annotations

from django.contrib import admin

from connectors.models import Connection


@admin.register(Connection)
class ConnectionAdmin(admin.ModelAdmin):
    """OAuth connections; revoke them with their access token (Memory › Access tokens)."""

    list_display = ("application", "owner", "token", "resource", "created_at")
    list_select_related = ("application", "owner", "token")
    search_fields = ("application__name", "owner__username")
    readonly_fields = ("owner", "application", "token", "resource", "created_at")

    def has_add_permission(self, request: object) -> bool:
        return False
