"""Each episode's words as stems on its recall document (RecallDoc.words), so that a question
reads them instead of tokenising every candidate message again (docs/benchmarks.md, "Recall
on realistic questions"). Existing episodes are filled in here, a batch at a time; ``reindex``
rewrites them too."""

from django.db import migrations, models

from memory.recall.text import stem_line

BATCH = 2000


def backfill(apps, schema_editor):
    RecallDoc = apps.get_model("memory", "RecallDoc")
    Episode = apps.get_model("memory", "Episode")
    docs = RecallDoc.objects.filter(kind="episode").order_by("id")
    last = 0
    while True:
        batch = list(docs.filter(id__gt=last).only("id", "ref_id")[:BATCH])
        if not batch:
            return
        last = batch[-1].id
        texts = dict(
            Episode.objects.filter(id__in=[d.ref_id for d in batch]).values_list("id", "text")
        )
        for doc in batch:
            doc.words = stem_line(texts.get(doc.ref_id, ""))
        RecallDoc.objects.bulk_update(batch, ["words"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("memory", "0067_receipt_chain")]

    operations = [
        migrations.AddField(
            model_name="recalldoc",
            name="words",
            field=models.TextField(
                blank=True,
                default="",
                help_text="An episode's words as stems, in order (memory.recall.text.stem_line), "
                "so a question never tokenises a message again; empty for nodes and pages.",
            ),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
