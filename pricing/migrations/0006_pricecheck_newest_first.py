from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0005_price_lookup_copies"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="pricecheck",
            index=models.Index(fields=["-checked_on"], name="pricecheck_newest_first"),
        ),
    ]
