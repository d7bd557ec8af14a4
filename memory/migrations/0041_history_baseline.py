"""Every node, slice, event, alias, edge and page that exists when history starts gets its
first revision (``created``, by ``system``), so its first change has a parent to show and to
roll back to. The fields are those of ``memory.services.history.FIELDS`` as they were then."""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.db import migrations

FIELDS = {
    "node": ("label", "category", "state", "summary"),
    "slice": ("node_id", "text", "kind", "is_current"),
    "event": (
        "node_id",
        "action",
        "text",
        "importance",
        "happened_at",
        "happened_at_precision",
        "happened_at_source",
    ),
    "alias": ("node_id", "alias"),
    "edge": ("from_node_id", "to_node_id", "type"),
    "page": ("node_id", "title", "topic", "summary", "body"),
}
MODELS = {
    "node": "Node",
    "slice": "Slice",
    "event": "Event",
    "alias": "Alias",
    "edge": "Edge",
    "page": "Page",
}


def _plain(value):  # type: ignore[no-untyped-def]
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def baseline(apps, schema_editor):  # type: ignore[no-untyped-def]
    revision = apps.get_model("memory", "Revision")
    for kind, name in MODELS.items():
        model = apps.get_model("memory", name)
        batch = []
        for row in model.objects.order_by("pk").iterator(chunk_size=2000):
            node_id = (
                row.pk if kind == "node" else row.from_node_id if kind == "edge" else row.node_id
            )
            batch.append(
                revision(
                    owner_id=row.owner_id,
                    kind=kind,
                    object_id=row.pk,
                    node_id=node_id,
                    number=row.revision,
                    parent=None,
                    action="created",
                    actor="system",
                    actor_name="ume",
                    reason="as it was when its history started",
                    snapshot={f: _plain(getattr(row, f)) for f in FIELDS[kind]},
                    created_at=getattr(row, "updated_at", None) or row.created_at,
                )
            )
            if len(batch) >= 2000:
                revision.objects.bulk_create(batch)
                batch = []
        revision.objects.bulk_create(batch)


class Migration(migrations.Migration):
    dependencies = [("memory", "0040_history")]

    operations = [migrations.RunPython(baseline, migrations.RunPython.noop)]
