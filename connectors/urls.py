from __future__ import annotations

from django.urls import path

from connectors import views

app_name = "connectors"

urlpatterns = [
    path("", views.connections, name="list"),
    path("<int:token_id>/revoke/", views.token_revoke, name="revoke"),
]
