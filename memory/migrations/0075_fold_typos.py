"""A candidate's fold key now corrects a slip of the fingers in a label of two words or more
(memory.keys.mistyped: "Elcetric car" folds as "electric car"), so a card stored with a
mistyped label and one said right are one card. The fold keys of existing candidates are
computed again here; only the rows whose key changes are written."""

from django.db import migrations

from memory.migrations._refold import refold



class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0074_embeddings_serving_model"),
    ]

    operations = [
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
