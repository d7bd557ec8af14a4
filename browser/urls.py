"""The memory browser (dashboard pages; the /v1/ API has its own routes)."""

from __future__ import annotations

from django.urls import path

from browser import views, views_details, views_history

# The namespace and paths are the ones the browser had inside the memory app: every
# {% url 'memory:...' %} and reverse("memory:...") stays as it was.
app_name = "memory"

urlpatterns = [
    path("", views.nodes, name="nodes"),
    path("nodes/<int:node_id>/", views.node, name="node"),
    path("nodes/<int:node_id>/history/", views_history.node_history, name="node-history"),
    path(
        "nodes/<int:node_id>/history/restore/",
        views_history.node_restore,
        name="node-restore",
    ),
    path("nodes/<int:node_id>/evidence/", views.node_evidence, name="node-evidence"),
    path("nodes/<int:node_id>/edit/", views.node_edit, name="node-edit"),
    path("nodes/<int:node_id>/aliases/", views.alias_add, name="alias-add"),
    path("aliases/<int:alias_id>/remove/", views_details.alias_remove, name="alias-remove"),
    path("nodes/<int:node_id>/delete/", views.node_delete_confirm, name="node-delete-confirm"),
    path("nodes/<int:node_id>/delete/confirm/", views.node_delete, name="node-delete"),
    path("details/<str:kind>/<int:row_id>/edit/", views_details.detail_edit, name="detail-edit"),
    path("details/<str:kind>/<int:row_id>/form/", views_details.detail_form, name="detail-form"),
    path(
        "details/<str:kind>/<int:row_id>/delete/",
        views_details.detail_delete,
        name="detail-delete",
    ),
    path("changes/<int:receipt_id>/undo/", views_details.detail_undo, name="detail-undo"),
    path("graph/", views.graph, name="graph"),
    path("suppressions/", views.suppressions, name="suppressions"),
    path(
        "suppressions/<int:suppression_id>/lift/",
        views.suppression_lift,
        name="suppression-lift",
    ),
]
