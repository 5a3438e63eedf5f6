"""One random version token per cache tag instead of one counter for every page."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("guides", "0005_estimate_table"),
    ]

    operations = [
        # The old counter's rows mean nothing to the new cache: start from no tokens.
        migrations.RunSQL("DELETE FROM guides_contentversion", migrations.RunSQL.noop),
        migrations.RemoveField(model_name="contentversion", name="value"),
        migrations.AddField(
            model_name="contentversion",
            name="tag",
            field=models.CharField(max_length=64, unique=True, default=""),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="contentversion",
            name="token",
            field=models.CharField(max_length=64, default=""),
            preserve_default=False,
        ),
    ]
