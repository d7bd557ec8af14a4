"""Fill ``ReceiptDay`` from the receipts already stored (one pass, in chunks)."""

from collections import Counter

from django.db import migrations
from django.utils import timezone


def fill(apps, schema_editor):
    Receipt = apps.get_model("receipts", "Receipt")
    ReceiptDay = apps.get_model("receipts", "ReceiptDay")
    ReceiptDay.objects.all().delete()
    counts: Counter = Counter()
    rows = Receipt.objects.order_by().values_list("owner_id", "created_at", "outcome", "source")
    for owner_id, created_at, outcome, source in rows.iterator(chunk_size=2000):
        counts[(owner_id, timezone.localdate(created_at), outcome, source)] += 1
    ReceiptDay.objects.bulk_create(
        (
            ReceiptDay(owner_id=o, day=d, outcome=out, source=s, count=n)
            for (o, d, out, s), n in counts.items()
        ),
        batch_size=1000,
    )


def empty(apps, schema_editor):
    apps.get_model("receipts", "ReceiptDay").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("receipts", "0002_receipt_day")]

    operations = [migrations.RunPython(fill, empty)]
