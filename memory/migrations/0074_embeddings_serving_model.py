
from django.db import migrations, models

# The only model any vector was made with before this migration (memory.recall.embed).
WORDLLAMA = "wordllama-l2_supercat-256"


def serve_existing(apps, schema_editor):
    """Owners who already have an index are served by the model their vectors are in, so a
    deployment that configures another model keeps its recall until reindex moves it."""
    apps.get_model("memory", "RecallStats").objects.update(model=WORDLLAMA)


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0073_export_receipt_origin'),
    ]

    operations = [
        migrations.AddField(
            model_name='recalldoc',
            name='staged_model',
            field=models.CharField(blank=True, default='', help_text='The model reindex is moving this owner to (memory.services.recall_vectors).', max_length=64),
        ),
        migrations.AddField(
            model_name='recalldoc',
            name='staged_vector',
            field=models.BinaryField(blank=True, help_text='The vector of staged_model, waiting for the swap; recall never reads it.', null=True),
        ),
        migrations.AddField(
            model_name='recallstats',
            name='model',
            field=models.CharField(blank=True, default='', help_text="The embedding model serving this owner's vectors: recall embeds questions with it and compares them only with its vectors; reindex changes it (empty: the configured model, until the first write).", max_length=64),
        ),
        migrations.AlterField(
            model_name='recalldoc',
            name='vector',
            field=models.BinaryField(blank=True, help_text='int8, unit length x 127: as many bytes as the model has dimensions; NULL when the model could not be reached (reindex --missing fills it).', null=True),
        ),
        migrations.RunPython(serve_existing, migrations.RunPython.noop),
    ]
