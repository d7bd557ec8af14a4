"""A candidate's fold key now spells each word one way where British and American English
spell it two (memory.keys.one_spelling: "Colour Theory Society" folds as "color theory
society"), so a card stored in one spelling and one said in the other are one card. The fold
keys of existing candidates are computed again here; only the rows whose key changes are
written."""

from django.db import migrations

from memory.migrations._refold import refold



class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0075_fold_typos"),
    ]

    operations = [
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
