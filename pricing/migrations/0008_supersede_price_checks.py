"""Same-day corrections: a check can be superseded (kept, marked) by a correction for its day.

The unique (provider, day) becomes "one *current* check per provider and day", and the price
indexes hold current prices only, so every read stays one index seek and never sees a
superseded price.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0007_price_lookup_copies"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="pricecheck",
            name="one_check_per_provider_and_day",
        ),
        migrations.RemoveIndex(
            model_name="price",
            name="price_latest_per_gpu",
        ),
        migrations.RemoveIndex(
            model_name="price",
            name="price_provider_days",
        ),
        migrations.AddField(
            model_name="price",
            name="superseded",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.AddField(
            model_name="pricecheck",
            name="correction",
            field=models.OneToOneField(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="corrects",
                to="pricing.pricecheck",
                verbose_name="corrected by",
            ),
        ),
        migrations.AddField(
            model_name="pricecheck",
            name="superseded_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="superseded at"
            ),
        ),
        migrations.AddField(
            model_name="pricecheck",
            name="superseded_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="superseded by",
            ),
        ),
        migrations.AddField(
            model_name="pricecheck",
            name="superseded_reason",
            field=models.TextField(
                blank=True, editable=False, verbose_name="why it was superseded"
            ),
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(
                condition=models.Q(("superseded", False)),
                fields=["provider", "gpu", "-checked_on"],
                name="price_latest_per_gpu",
            ),
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(
                condition=models.Q(("superseded", False)),
                fields=["provider", "checked_on"],
                name="price_provider_days",
            ),
        ),
        migrations.AddConstraint(
            model_name="pricecheck",
            constraint=models.UniqueConstraint(
                condition=models.Q(("superseded_at", None)),
                fields=("provider", "checked_on"),
                name="one_current_check_per_provider_and_day",
            ),
        ),
    ]
