from django.db import migrations, models

import pricing.domain.trl_commands
from django.core import validators

# The base models' repositories of the language models content/reference.json seeds, for
# databases made before the field (an editor fills in any other model's).
KNOWN = {
    "llama-3.1-8b": "meta-llama/Llama-3.1-8B",
    "llama-3.1-70b": "meta-llama/Llama-3.1-70B",
    "llama-3.1-405b": "meta-llama/Llama-3.1-405B",
    "llama-3.2-1b": "meta-llama/Llama-3.2-1B",
    "llama-3.2-3b": "meta-llama/Llama-3.2-3B",
    "mistral-7b": "mistralai/Mistral-7B-v0.1",
    "qwen-2.5-7b": "Qwen/Qwen2.5-7B",
    "qwen-2.5-32b": "Qwen/Qwen2.5-32B",
    "qwen-2.5-72b": "Qwen/Qwen2.5-72B",
}


def fill_known(apps, schema_editor):
    LanguageModel = apps.get_model("pricing", "LanguageModel")
    for slug, repository in KNOWN.items():
        LanguageModel.objects.filter(slug=slug, repository="").update(repository=repository)


class Migration(migrations.Migration):
    dependencies = [
        ("pricing", "0013_gpu_links"),
    ]

    operations = [
        migrations.AddField(
            model_name="languagemodel",
            name="repository",
            field=models.CharField(
                default="",
                help_text="The base model's repository on Hugging Face, as owner/name, e.g. meta-llama/Llama-3.1-70B: the tutorial's commands download it.",
                max_length=193,
                validators=[
                    validators.RegexValidator(
                        pricing.domain.trl_commands.REPOSITORY,
                        "Write it as owner/name, e.g. meta-llama/Llama-3.1-70B.",
                    )
                ],
                verbose_name="Hugging Face repository",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fill_known, migrations.RunPython.noop),
    ]
