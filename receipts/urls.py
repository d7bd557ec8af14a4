from __future__ import annotations

from django.urls import path

from receipts import views, views_chain, views_erase, views_export

app_name = "receipts"

urlpatterns = [
    path("", views.saves, name="list"),
    path("chain/", views_chain.chain_state, name="chain"),
    path("export/", views_export.export_download, name="export"),
    path("<int:receipt_id>/", views.receipt_detail, name="detail"),
    path("<int:receipt_id>/undo/", views_erase.undo_confirm, name="undo-confirm"),
    path("<int:receipt_id>/undo/run/", views_erase.undo, name="undo"),
    path("delete-all/", views_erase.delete_all, name="delete-all"),
    path("delete-all/<int:erasure_id>/", views_erase.erasure_progress, name="erasure"),
]
