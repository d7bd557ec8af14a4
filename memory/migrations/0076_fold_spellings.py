"""A candidate's fold key now spells each word one way where British and American English
spell it two (memory.keys.one_spelling: "Colour Theory Society" folds as "color theory
society"), so a card stored in one spelling and one said in the other are one card. The fold
keys of existing candidates are computed again here; only the rows whose key changes are
written."""

from django.db import migrations


def refold(apps, schema_editor):  # type: ignore[no-untyped-def]
    from memory.keys import fold_key

    Candidate = apps.get_model("memory", "Candidate")
    changed = []
    for row in Candidate.objects.only("pk", "canonical_key", "fold_key").iterator(chunk_size=2000):
        key = fold_key(row.canonical_key)
        if key != row.fold_key:
            row.fold_key = key
            changed.append(row)
    Candidate.objects.bulk_update(changed, ["fold_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0075_fold_typos"),
    ]

    operations = [
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
