"""The words of every node's canonical key, for the gate's "may belong to" hints (an index
lookup instead of a LIKE scan); filled here for the nodes that exist."""

from __future__ import annotations

from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

CHUNK = 2000


def fill(apps: Any, schema_editor: Any) -> None:
    Node = apps.get_model("memory", "Node")
    NodeKeyWord = apps.get_model("memory", "NodeKeyWord")
    rows = []
    for node_id, owner_id, key in (
        Node.objects.order_by("id").values_list("id", "owner_id", "canonical_key").iterator(CHUNK)
    ):
        rows += [
            NodeKeyWord(owner_id=owner_id, node_id=node_id, word=word)
            for word in sorted(set(key.split()))
        ]
        if len(rows) >= CHUNK:
            NodeKeyWord.objects.bulk_create(rows, batch_size=1000)
            rows = []
    NodeKeyWord.objects.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0041_history_baseline"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="NodeKeyWord",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("word", models.CharField(max_length=200)),
                (
                    "node",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="memory.node",
                    ),
                ),
                (
                    "owner",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["owner", "word", "node"], name="memory_nodekeyword_word")
                ],
            },
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
