"""Every existing user gets a deletion barrier row ("nothing deleted yet"), so that their first
deletion has a row to lock; new users get theirs when they are created."""

from datetime import UTC, datetime

from django.conf import settings
from django.db import migrations

NEVER = datetime(1970, 1, 1, tzinfo=UTC)


def create_rows(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    DeletionBarrier = apps.get_model("memory", "DeletionBarrier")
    have = set(DeletionBarrier.objects.values_list("owner_id", flat=True))
    DeletionBarrier.objects.bulk_create(
        [
            DeletionBarrier(owner_id=pk, barrier_at=NEVER)
            for pk in User.objects.values_list("pk", flat=True)
            if pk not in have
        ]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0002_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(create_rows, migrations.RunPython.noop)]
