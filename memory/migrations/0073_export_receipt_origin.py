"""Receipt.origin_hash: the hash an imported receipt had in the chain of the ume it was
exported from (docs/export.md, "Receipts"); empty for every receipt made here.

On SQLite, adding a NOT NULL column rebuilds the table, and the rebuild drops its triggers:
the chain's SQLite triggers (migration 0067) are made again after it, and again after the
column is removed on the way back."""

import importlib

from django.db import migrations, models


def sqlite_triggers_again(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    chain = importlib.import_module("memory.migrations.0067_receipt_chain")
    chain.triggers_drop(apps, schema_editor)
    chain.triggers_add(apps, schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0072_tombstones_erased_conversations"),
    ]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, sqlite_triggers_again),
        migrations.AddField(
            model_name="receipt",
            name="origin_hash",
            field=models.CharField(
                blank=True,
                default="",
                help_text="Imported from another ume's export: the hash it had in that chain "
                "(hashed with the rest). Empty for a receipt made here.",
                max_length=64,
            ),
        ),
        migrations.RunPython(sqlite_triggers_again, migrations.RunPython.noop),
    ]
