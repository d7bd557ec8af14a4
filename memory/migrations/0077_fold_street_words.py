"""A candidate's fold key now says a short street word at its end in full
(memory.keys.fold_key: "Gallowtree Rd" folds as "gallowtree road"), so a card stored with one
form and one said with the other are one card. The fold keys of existing candidates are
computed again here; only the rows whose key changes are written."""

from django.db import migrations

from memory.migrations._refold import refold



class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0076_fold_spellings"),
    ]

    operations = [
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
