"""The price-check admin list, newest day first, read from an index instead of sorting every
check (the latest check of one provider keeps its unique index: see scripts/benchmark.py)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("pricing", "0009_measurements_protect_model_and_method"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="pricecheck",
            index=models.Index(fields=["-checked_on", "-id"], name="price_check_newest_first"),
        ),
    ]
