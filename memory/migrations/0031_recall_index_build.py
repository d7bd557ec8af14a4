"""Build recall's index for the memories that existed before it (recall reads nothing else).

Calls the same service as ``manage.py reindex``; it reads the rows it indexes by explicit
columns only. On a large installation ``reindex`` can also be run again at any time."""

from django.db import migrations


def build(apps, schema_editor):
    from memory.services.recall_index import recall_index_rebuild

    owners = set()
    for name in ("Node", "Page", "Episode"):
        model = apps.get_model("memory", name)
        owners |= set(model.objects.values_list("owner_id", flat=True).distinct())
    for owner_id in sorted(owners):
        recall_index_rebuild(owner_id=owner_id)


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0023_merge_recall_index"),
    ]

    operations = [
        migrations.RunPython(build, migrations.RunPython.noop),
    ]
