"""Copy each price check's provider and day onto its prices, and index the lookups pages make."""

import django.db.models.deletion
from django.db import migrations, models


def copy_from_checks(apps, schema_editor):
    Price = apps.get_model("pricing", "Price")
    PriceCheck = apps.get_model("pricing", "PriceCheck")
    for check in PriceCheck.objects.only("pk", "provider_id", "checked_on").iterator():
        Price.objects.filter(price_check_id=check.pk).update(
            provider_id=check.provider_id, checked_on=check.checked_on
        )


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0006_source_key_with_dots"),
    ]

    operations = [
        migrations.AddField(
            model_name="price",
            name="provider",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="pricing.provider",
            ),
        ),
        migrations.AddField(
            model_name="price",
            name="checked_on",
            field=models.DateField(editable=False, null=True),
        ),
        migrations.RunPython(copy_from_checks, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="price",
            name="provider",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="pricing.provider",
            ),
        ),
        migrations.AlterField(
            model_name="price",
            name="checked_on",
            field=models.DateField(editable=False),
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(
                fields=["provider", "gpu", "-checked_on"], name="price_latest_per_gpu"
            ),
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(fields=["provider", "checked_on"], name="price_provider_days"),
        ),
    ]
