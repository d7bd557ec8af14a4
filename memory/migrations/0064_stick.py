"""Suppressions keep the core key of their label (memory.keys.core_key), so a spelling of a
suppressed name ("Moonbeam" for "Project Moonbeam") is found by an index; existing rows get
theirs here."""

from django.db import migrations, models


def fill_core_keys(apps, schema_editor):  # type: ignore[no-untyped-def]
    from memory.keys import core_key

    Suppression = apps.get_model("memory", "Suppression")
    rows = list(Suppression.objects.only("pk", "canonical_key").iterator(chunk_size=2000))
    for row in rows:
        row.core_key = core_key(row.canonical_key)
    Suppression.objects.bulk_update(rows, ["core_key"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0063_bounds"),
    ]

    operations = [
        migrations.AddField(
            model_name="suppression",
            name="core_key",
            field=models.CharField(
                blank=True,
                default="",
                help_text="memory.keys.core_key of the canonical key: what every spelling of the name shares (set with it, never typed).",
                max_length=200,
            ),
        ),
        migrations.AddIndex(
            model_name="suppression",
            index=models.Index(fields=["owner", "core_key"], name="memory_supp_owner_core"),
        ),
        migrations.RunPython(fill_core_keys, migrations.RunPython.noop),
    ]
