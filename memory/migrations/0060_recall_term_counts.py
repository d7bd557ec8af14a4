"""Recall's document frequencies kept as rows (RecallTermCount), counted once here from the
postings already indexed; and the postings' per-document index made covering."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0055_receipts_move'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='RecallTermCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('node', 'node'), ('page', 'page'), ('episode', 'episode')], max_length=8)),
                ('term', models.CharField(max_length=64)),
                ('docs', models.IntegerField()),
            ],
        ),
        migrations.AddIndex(
            model_name='recallterm',
            index=models.Index(fields=['owner', 'kind', 'ref_id', 'term', 'tf', 'length'], name='memory_recallterm_doc'),
        ),
        migrations.RemoveIndex(
            model_name='recallterm',
            name='memory_recallterm_owner_ref',
        ),
        migrations.AddField(
            model_name='recalltermcount',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name='recalltermcount',
            constraint=models.UniqueConstraint(fields=('owner', 'term', 'kind'), name='memory_recalltermcount_unique'),
        ),
        migrations.RunSQL(
            "INSERT INTO memory_recalltermcount (owner_id, kind, term, docs) "
            "SELECT owner_id, kind, term, COUNT(*) FROM memory_recallterm "
            "GROUP BY owner_id, kind, term",
            reverse_sql=migrations.RunSQL.noop,
        ),
    ]
