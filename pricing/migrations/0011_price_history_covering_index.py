"""The price-history index covers the columns the charts read (a year of daily checks read
from the index alone, not from the table row by row)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("pricing", "0010_price_check_newest_first"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="price",
            name="price_provider_days",
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(condition=models.Q(("superseded", False)), fields=["provider", "checked_on", "gpu", "quoted_usd_per_hour", "gpus_in_quote"], name="price_provider_days"),
        ),
    ]
