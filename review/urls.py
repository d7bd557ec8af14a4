from __future__ import annotations

from django.urls import path

from review import views, views_triage

app_name = "review"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("candidates/<int:candidate_id>/", views.candidate, name="candidate"),
    path(
        "candidates/<int:candidate_id>/promote/",
        views.candidate_promote,
        name="candidate-promote",
    ),
    path("candidates/<int:candidate_id>/reject/", views.candidate_reject, name="candidate-reject"),
    path(
        "candidates/<int:candidate_id>/suppress/",
        views.candidate_suppress,
        name="candidate-suppress",
    ),
    path(
        "candidates/<int:candidate_id>/merge/pick/",
        views.candidate_merge_pick,
        name="candidate-merge-pick",
    ),
    path(
        "candidates/<int:candidate_id>/merge/preview/",
        views.candidate_merge_preview,
        name="candidate-merge-preview",
    ),
    path(
        "candidates/<int:candidate_id>/merge/form/",
        views.candidate_merge_form,
        name="candidate-merge-form",
    ),
    path("candidates/<int:candidate_id>/merge/", views.candidate_merge, name="candidate-merge"),
    path("candidates/<int:candidate_id>/undo/", views.candidate_undo, name="candidate-undo"),
    path("bulk/", views_triage.bulk, name="bulk"),
    path("bulk/undo/", views_triage.bulk_undo, name="bulk-undo"),
    path("bulk/group/", views_triage.batch_group, name="batch-group"),
    path("groups/<str:by>/", views_triage.groups, name="groups"),
    path("expired/", views_triage.expired, name="expired"),
    path("expired/restore/", views_triage.restore, name="restore"),
    path("uploads/", views.uploads, name="uploads"),
    path("uploads/new/", views.upload, name="upload"),
    path("imports/<int:import_id>/", views.import_progress, name="import-progress"),
]
