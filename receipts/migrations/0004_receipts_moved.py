"""The receipt models now live in ``memory`` (``memory.0055_receipts_move``): drop them from this
app's state only. Their tables stay, and keep their names, under ``memory.Receipt`` and
``memory.ReceiptDay``."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('receipts', '0003_receipt_day_fill'),
        ('memory', '0055_receipts_move'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='ReceiptDay'),
                migrations.DeleteModel(name='Receipt'),
            ],
            database_operations=[],
        ),
    ]
