from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("guides", "0017_guide_source"),
    ]

    operations = [
        migrations.RenameField(model_name="contentversion", old_name="token", new_name="version"),
    ]
