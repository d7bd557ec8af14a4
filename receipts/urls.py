from __future__ import annotations

from django.urls import path

from receipts import views

app_name = "receipts"

urlpatterns = [
    path("", views.saves, name="list"),
    path("<int:receipt_id>/", views.receipt_detail, name="detail"),
]
