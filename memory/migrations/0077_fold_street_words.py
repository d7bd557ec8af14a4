"""A candidate's fold key now says a short street word at its end in full
(memory.keys.fold_key: "Gallowtree Rd" folds as "gallowtree road"), so a card stored with one
form and one said with the other are one card. The fold keys of existing candidates are
computed again here; only the rows whose key changes are written."""

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
        ("memory", "0076_fold_spellings"),
    ]

    operations = [
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
