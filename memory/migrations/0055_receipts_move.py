"""Receipts move from the ``receipts`` app to the domain (``memory``), tables untouched.

The state only: ``memory.Receipt`` and ``memory.ReceiptDay`` are added over the tables the
``receipts`` app created (``db_table``), every foreign key to ``receipts.Receipt`` now names
``memory.Receipt`` (same column, same constraint), and ``receipts.0004_receipts_moved`` then
drops the old models from the state. No row is copied and no table is created or dropped.
The content types follow (``receipts`` -> ``memory``), so admin log entries and permissions
keep pointing at the same rows.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


MOVED = ("receipt", "receiptday")


def _content_types(app_from, app_to):
    """Rename the content types of the moved models, where there is one to rename and the
    new name is not taken (post_migrate makes it on a database where it was missing)."""

    def rename(apps, schema_editor):
        ContentType = apps.get_model("contenttypes", "ContentType")
        rows = ContentType.objects.using(schema_editor.connection.alias)
        for model in MOVED:
            if not rows.filter(app_label=app_to, model=model).exists():
                rows.filter(app_label=app_from, model=model).update(app_label=app_to)
        ContentType.objects.clear_cache()

    return rename


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0054_node_profile_indexes'),
        ('receipts', '0003_receipt_day_fill'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Receipt',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('source', models.CharField(choices=[('upload', 'Upload'), ('command', 'Command'), ('mcp', 'MCP'), ('api', 'API'), ('review', 'Review'), ('cleanup', 'Cleanup')], max_length=16)),
                        ('outcome', models.CharField(choices=[('wrote', 'Wrote'), ('meaningful_no_write', 'meaningful no-write'), ('llm_failed', 'extractor failed'), ('db_write_failed', 'database write failed'), ('duplicate', 'Duplicate'), ('rejected_input', 'rejected input'), ('deletion_conflict', 'dropped: a deletion happened meanwhile')], max_length=24)),
                        ('extractor', models.CharField(blank=True, default='', max_length=16)),
                        ('subject', models.CharField(blank=True, default='', help_text='The file, transcript or action.', max_length=255)),
                        ('counts', models.JSONField(blank=True, default=dict)),
                        ('rejected', models.JSONField(blank=True, default=list)),
                        ('reasons', models.JSONField(blank=True, default=dict, help_text='Rejection reason -> count.')),
                        ('detail', models.JSONField(blank=True, default=dict, help_text='The plan and what it wrote.')),
                        ('summary', models.CharField(blank=True, default='', max_length=500)),
                        ('error', models.TextField(blank=True, default='')),
                        ('duration_ms', models.PositiveIntegerField(default=0)),
                        ('undone_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='receipts', to=settings.AUTH_USER_MODEL)),
                        ('token', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.accesstoken')),
                    ],
                    options={
                        'db_table': 'receipts_receipt',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['owner', '-created_at'], name='receipts_owner_created'), models.Index(fields=['owner', 'outcome', '-created_at'], name='receipts_owner_outcome')],
                    },
                ),
                migrations.AlterField(
                    model_name='candidate',
                    name='created_receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='edge',
                    name='created_receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='event',
                    name='created_receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='evidence',
                    name='receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='node',
                    name='created_receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='page',
                    name='created_receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='revision',
                    name='receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='slice',
                    name='created_receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.AlterField(
                    model_name='transcript',
                    name='receipt',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='memory.receipt'),
                ),
                migrations.CreateModel(
                    name='ReceiptDay',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('day', models.DateField()),
                        ('outcome', models.CharField(choices=[('wrote', 'Wrote'), ('meaningful_no_write', 'meaningful no-write'), ('llm_failed', 'extractor failed'), ('db_write_failed', 'database write failed'), ('duplicate', 'Duplicate'), ('rejected_input', 'rejected input'), ('deletion_conflict', 'dropped: a deletion happened meanwhile')], max_length=24)),
                        ('source', models.CharField(choices=[('upload', 'Upload'), ('command', 'Command'), ('mcp', 'MCP'), ('api', 'API'), ('review', 'Review'), ('cleanup', 'Cleanup')], max_length=16)),
                        ('count', models.IntegerField(default=0)),
                        ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'receipts_receiptday',
                        'constraints': [models.UniqueConstraint(fields=('owner', 'day', 'outcome', 'source'), name='receipts_day_unique')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(
            _content_types("receipts", "memory"), _content_types("memory", "receipts")
        ),
    ]
