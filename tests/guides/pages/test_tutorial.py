"""A guide's tutorial (/<lang>/guides/<slug>/tutorial/): renting the recommended GPUs, the
`trl sft` command of each method built from the guide's run, and what each run takes and costs
by the guide's own figures. TRL itself checks the commands in tests/test_trl_commands.py."""

import html
import re

import pytest
from django.test import override_settings

from guides.models import Guide
from pricing.models import LanguageModel
from tests.conftest import GUIDE_SLUG

URL = f"/{{}}/guides/{GUIDE_SLUG}/tutorial/"
CLONE_8B = "best-gpu-for-llama-3-1-8b-fine-tuning"


def page(client, lang: str = "en", slug: str = GUIDE_SLUG) -> str:
    response = client.get(f"/{lang}/guides/{slug}/tutorial/")
    assert response.status_code == 200
    return response.content.decode()


def text(fragment: str) -> str:
    fragment = fragment.replace("<wbr>", "")  # between Japanese phrases: no text
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).replace("\u00a0", " ").split())


def rent_row(body: str, method: str) -> str:
    return re.search(rf'<tr data-method="{method}" data-config="[^"]+">(.*?)</tr>', body, re.S)[1]


def method_section(body: str, method: str) -> str:
    return re.search(
        rf'<section class="method-run" id="train-{method}".*?</section>', body, re.S
    ).group(0)


def commands(section: str) -> list[str]:
    """The code blocks of a method's section, as a visitor copies them."""
    return [
        html.unescape(c) for c in re.findall(r"<pre[^>]*><code>(.*?)</code></pre>", section, re.S)
    ]


def test_each_method_is_rented_and_priced_as_the_guide_recommends(client, seeded):
    """70B at the seed's prices: QLoRA and LoRA on one B200, both full methods on eight."""
    body = page(client)
    assert text(rent_row(body, "qlora")) == (
        "QLoRA (4-bit base) 1× B200 18.5 12–27.6 $85.43 $55.19–$127.30 24 GPU-hours Rent 1× B200"
    )
    assert text(rent_row(body, "full-adamw")) == (
        "Full fine-tuning, AdamW 8× B200 5 2–9.4 $185.82 $73.59–$346.38 168 GPU-hours Rent 8× B200"
    )
    assert 'href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8"' in rent_row(
        body, "full-adamw"
    )
    de = page(client, "de")
    assert text(rent_row(de, "qlora")) == (
        "QLoRA (4-Bit-Basis) 1× B200 18,5 12–27,6 85,43 $ 55,19 $–127,30 $ 24 GPU-Stunden "
        "1× B200 mieten"
    )
    assert "B200を1基" in text(rent_row(page(client, "ja"), "qlora"))


@override_settings(RENT_URL_TEMPLATE="https://rent.example.com/{count}x-{gpu}/")
def test_the_rent_link_follows_the_setting(client, seeded):
    assert 'href="https://rent.example.com/1x-b200/"' in rent_row(page(client), "lora")


def test_the_commands_are_the_guides_run_on_the_recommended_configuration(client, seeded):
    short, whole = commands(method_section(page(client), "qlora"))
    assert whole == (
        "trl sft \\\n"
        "  --model_name_or_path meta-llama/Llama-3.1-70B \\\n"
        "  --dataset_name ./data \\\n"
        "  --dtype bfloat16 \\\n"
        "  --bf16 true \\\n"
        "  --attn_implementation sdpa \\\n"
        "  --load_in_4bit \\\n"
        "  --bnb_4bit_quant_type nf4 \\\n"
        "  --use_bnb_nested_quant \\\n"
        "  --use_peft \\\n"
        "  --lora_r 16 \\\n"
        "  --lora_dropout 0.05 \\\n"
        "  --lora_target_modules all-linear \\\n"
        "  --learning_rate 2e-4 \\\n"
        "  --packing \\\n"
        "  --max_length 2048 \\\n"
        "  --per_device_train_batch_size 1 \\\n"
        "  --activation_checkpointing true \\\n"
        "  --num_train_epochs 1 \\\n"
        "  --save_strategy steps \\\n"
        "  --save_steps 0.1 \\\n"
        "  --save_total_limit 2 \\\n"
        "  --output_dir ./output"
    )
    assert "  --max_steps 30 \\\n  --logging_steps 10 \\\n  --save_strategy no \\\n" in short
    assert "  --learning_rate 2e-4 \\\n  --packing \\\n" in short
    assert "--save_total_limit" not in short
    sharded, merge = commands(method_section(page(client), "full-8bit-adam"))[1:]
    assert sharded.endswith(
        "  --optim adamw_bnb_8bit \\\n"
        "  --learning_rate 2e-5 \\\n"
        "  --packing \\\n"
        "  --max_length 2048 \\\n"
        "  --per_device_train_batch_size 1 \\\n"
        "  --activation_checkpointing true \\\n"
        "  --num_train_epochs 1 \\\n"
        "  --save_strategy steps \\\n"
        "  --save_steps 0.1 \\\n"
        "  --save_total_limit 2 \\\n"
        "  --output_dir ./output \\\n"
        "  --accelerate_config fsdp2 \\\n"
        "  --num_processes 8 \\\n"
        "  --fsdp_state_dict_type SHARDED_STATE_DICT"
    )
    assert merge == (
        'accelerate merge-weights "$(ls -d ./output/checkpoint-* | sort -V | tail -n 1)'
        '/pytorch_model_fsdp_0" ./output/merged'
    )


def test_what_the_short_and_the_whole_run_should_take_and_cost(client, seeded):
    section = method_section(page(client), "qlora")
    assert text(re.search(r'<p class="short-run">.*?</p>', section, re.S)[0]) == (
        "The short run: by our figures, 30 steps of 2,048 tokens take about 0.7 minutes "
        "(2,635 steps an hour) and cost $0.05."
    )
    assert text(re.search(r'<p class="whole-run">.*?</p>', section, re.S)[0]) == (
        "The whole run: by our figures about 18.5 hours, costing $85.43."
    )
    eight = method_section(page(client, "de"), "full-adamw")
    assert "30 Schritte mit je 16.384 Tokens etwa 1,5 Minuten (1.211 Schritte pro Stunde)" in text(
        eight
    )
    assert "etwa 5 Stunden, Kosten 185,82 $" in text(eight)


def test_a_clone_gets_its_own_model_and_run(client, seeded):
    body = page(client, "en", CLONE_8B)
    assert (
        "--model_name_or_path meta-llama/Llama-3.1-8B" in commands(method_section(body, "lora"))[1]
    )
    assert "meta-llama/Llama-3.1-70B" not in body
    guide = Guide.objects.get(slug=CLONE_8B)
    guide.seq_len, guide.lora_rank = 4096, 64
    guide.save()
    body = page(client, "en", CLONE_8B)
    whole = commands(method_section(body, "lora"))[1]
    assert "--max_length 4096" in whole and "--lora_r 64" in whole


def test_the_guide_links_its_tutorial_in_every_language(client, seeded):
    titles = {
        "en": "Step-by-step commands: fine-tune Llama 3.1 70B on a rented GPU",
        "de": "Schritt-für-Schritt-Befehle: Llama 3.1 70B auf einer gemieteten GPU fine-tunen",
        "ja": "手順ごとのコマンド：レンタルGPUでLlama 3.1 70Bをファインチューニング",
    }
    for lang, title in titles.items():
        guide = client.get(f"/{lang}/guides/{GUIDE_SLUG}/").content.decode()
        # Japanese phrases are joined by <wbr> (line breaks), which add no text.
        guide, tutorial = guide.replace("<wbr>", ""), page(client, lang).replace("<wbr>", "")
        assert f'<a href="/{lang}/guides/{GUIDE_SLUG}/tutorial/">{title}</a>' in guide
        assert f"<h1>{title}</h1>" in tutorial


def test_the_licence_step_names_the_repository_and_signs_in_only_where_gated(client, seeded):
    body = page(client)
    licence = re.search(r'<section id="licence".*?</section>', body, re.S)[0]
    assert 'href="https://huggingface.co/meta-llama/Llama-3.1-70B"' in licence
    assert "<code>hf auth login</code>" in licence
    qwen = page(client, "en", "best-gpu-for-qwen-2-5-32b-fine-tuning")
    licence = re.search(r'<section id="licence".*?</section>', qwen, re.S)[0]
    assert "Qwen/Qwen2.5-32B" in licence and "hf auth login" not in licence


def test_the_dataset_example_is_valid_json_in_every_language(client, seeded):
    import json

    for lang in ("en", "de", "ja"):
        section = re.search(r'<section id="dataset".*?</section>', page(client, lang), re.S)[0]
        (example,) = commands(section)
        rows = [json.loads(line) for line in example.splitlines()]
        assert [sorted(row) for row in rows] == [["completion", "prompt"]] * 2


def test_the_versions_checked_are_stated(client, seeded):
    assert (
        "checked against trl 1.16.0, transformers 5.24.0, peft 0.21.2, and accelerate 1.16.0"
        in text(page(client))
    )
    install = commands(re.search(r'<section id="install".*?</section>', page(client), re.S)[0])
    assert install == [
        "pip install trl==1.16.0 transformers==5.24.0 peft==0.21.2 accelerate==1.16.0 "
        "bitsandbytes==0.50.2"
    ]


def test_unknown_draft_and_repositoryless_guides_have_no_tutorial(client, seeded):
    assert client.get("/en/guides/no-such-guide/tutorial/").status_code == 404
    Guide.objects.filter(slug=CLONE_8B).update(status=Guide.Status.DRAFT)
    assert client.get(f"/en/guides/{CLONE_8B}/tutorial/").status_code == 404
    LanguageModel.objects.filter(slug="llama-3.1-70b").update(repository="not one; rm -rf /")
    assert client.get(URL.format("en")).status_code == 404  # written around the admin's check
    LanguageModel.objects.filter(slug="llama-3.1-70b").update(repository="")
    assert client.get(URL.format("de")).status_code == 404
    assert "/tutorial/" not in client.get("/sitemap.xml").content.decode().split(GUIDE_SLUG)[1]


def test_the_sitemap_lists_each_tutorial_with_its_alternates(client, seeded):
    sitemap = client.get("/sitemap.xml").content.decode()
    for lang in ("en", "de", "ja"):
        assert f"<loc>http://testserver/{lang}/guides/{GUIDE_SLUG}/tutorial/</loc>" in sitemap
        assert f"http://testserver/{lang}/guides/{CLONE_8B}/tutorial/" in sitemap
    assert sitemap.count("/tutorial/</loc>") == 3 * 9  # nine published guides, both kinds


@pytest.mark.parametrize(
    ("lang", "notice"),
    [
        ("en", "These prices may be out of date: the oldest was checked on October 29, 2026"),
        ("de", "Diese Preise sind möglicherweise veraltet"),
        ("ja", "2026年10月29日"),
    ],
)
def test_the_tutorial_says_when_its_prices_are_stale(client, seeded, lang, notice):
    """Its runs quote our prices, a month old on TODAY: the guide's stale notice, here too."""
    found = re.search(r'<p class="stale-notice" role="note">(.*?)</p>', page(client, lang), re.S)
    assert found and notice in text(found.group(1))


def test_the_tutorial_gives_the_prices_as_they_stood_on_a_day_and_refuses_a_bad_day(client, seeded):
    """?as_of= as on the guide: a day's prices with the notice that says so; anything but a
    real past day is a 400 (it was ignored: "gestern" answered the current tutorial)."""
    from decimal import Decimal

    from pricing.services import price_check_record
    from tests.conftest import TODAY

    price_check_record(
        provider_slug="gpuwithcrypto", checked_on=TODAY, prices={"b200": Decimal("9.99")}
    )
    then = client.get(f"/en/guides/{GUIDE_SLUG}/tutorial/?as_of=2026-11-01")
    assert then.status_code == 200
    body = then.content.decode()
    assert "These are the prices as they stood on November 1, 2026" in text(body)
    assert '<tr data-method="qlora" data-config="b200:1">' in body  # at $4.61, as it stood
    assert '<tr data-method="qlora" data-config="b200:1">' not in page(client)
    for bad in ("gestern", "2026-02-30", "2999-01-01"):
        assert client.get(f"/en/guides/{GUIDE_SLUG}/tutorial/?as_of={bad}").status_code == 400


def test_a_price_change_reaches_the_tutorial(client, seeded):
    from decimal import Decimal

    from pricing.services import price_check_record
    from tests.conftest import TODAY

    before = page(client)
    price_check_record(
        provider_slug="gpuwithcrypto", checked_on=TODAY, prices={"b200": Decimal("9.99")}
    )
    after = page(client)
    assert '<tr data-method="qlora" data-config="b200:1">' in before
    assert text(rent_row(after, "qlora")).startswith(
        "QLoRA (4-bit base) 1× L40S 96.1 62.1–143.2 $78.82 $50.92–$117.45 168 GPU-hours"
    )


def test_the_api_names_the_models_repository(client, seeded):
    answer = client.get(f"/api/v1/guides/{CLONE_8B}/").json()
    assert answer["model_repository"] == "meta-llama/Llama-3.1-8B"


@pytest.mark.parametrize("bad", ["llama", "meta-llama/Llama 3", "a/b/c"])
def test_the_admin_refuses_a_repository_that_is_not_owner_and_name(seeded, bad):
    from django.core.exceptions import ValidationError

    model = LanguageModel.objects.get(slug="llama-3.1-8b")
    model.repository = bad
    with pytest.raises(ValidationError) as refused:
        model.full_clean()
    assert refused.value.message_dict["repository"] == [
        "Write it as owner/name, e.g. meta-llama/Llama-3.1-70B."
    ]


def test_the_lede_states_the_guides_run_in_each_language(client, seeded):
    expected = {
        "en": "sequences of 2,048 tokens, a batch of 1 per GPU, LoRA rank 16, gradient "
        "checkpointing on, 100,000,000 training tokens for 1 epoch.",
        "de": "Sequenzen von 2.048 Tokens, eine Batch-Größe von 1 pro GPU, LoRA-Rang 16, Gradient "
        "Checkpointing an, 100.000.000 Trainings-Tokens für 1 Epoche.",
        "ja": "シーケンス長2,048トークン、GPUあたりのバッチ1、LoRAランク16、"
        "勾配チェックポイント：オン、学習トークン100,000,000（1エポック）。",
    }
    for lang, run in expected.items():
        lede = text(re.search(r'<p class="lede">.*?</p>', page(client, lang), re.S)[0])
        assert lede.endswith(run), lang
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    guide.epochs, guide.gradient_checkpointing = 3, False
    guide.save()
    lede = text(re.search(r'<p class="lede">.*?</p>', page(client), re.S)[0])
    assert lede.endswith(
        "gradient checkpointing off, 100,000,000 training tokens per epoch for 3 epochs."
    )


def test_each_language_shows_the_commands_with_their_learning_rate_and_saving(client, seeded):
    """The commands are the same text in every language; what is said around them is not."""
    for lang in ("de", "ja"):
        for method, rate in (("qlora", "2e-4"), ("lora", "2e-4"), ("full-adamw", "2e-5")):
            short, whole = commands(method_section(page(client, lang), method))[:2]
            assert f"  --learning_rate {rate} \\\n  --packing \\\n" in short, (lang, method)
            assert f"  --learning_rate {rate} \\\n  --packing \\\n" in whole, (lang, method)
            assert "  --save_steps 0.1 \\\n  --save_total_limit 2 \\\n" in whole, (lang, method)
    ja = page(client, "ja")
    install = commands(re.search(r'<section id="install".*?</section>', ja, re.S)[0])
    assert install[0].endswith(" bitsandbytes==0.50.2")


def train_text(body: str, css: str) -> str:
    return text(re.search(rf'<p class="{css}">.*?</p>', body, re.S)[0])


def rate_sources(body: str) -> str:
    return text(re.search(r'<ul class="learning-rate-sources">.*?</ul>', body, re.S)[0])


def test_the_learning_rates_saving_and_timing_are_said_in_each_language(client, seeded):
    en = page(client)
    assert train_text(en, "learning-rates") == (
        "The adapter methods (LoRA, QLoRA) train at a learning rate of 2e-4 , the rate of TRL’s "
        "PEFT documentation; full fine-tuning at 2e-5 , TRL’s default for supervised "
        "fine-tuning."
    )
    assert rate_sources(en) == (
        "TRL PEFT integration: a learning rate of 2e-4 for LoRA — Hugging Face "
        "(read December 6, 2026) TRL SFT Trainer: SFTConfig's learning rate defaults to 2e-5 "
        "— Hugging Face (read December 6, 2026)"
    )
    assert 'href="https://huggingface.co/docs/trl/peft_integration"' in en
    assert 'href="https://huggingface.co/docs/trl/sft_trainer"' in en
    assert train_text(en, "saving") == (
        "The whole run saves a checkpoint after every 10% of its steps and deletes all but the "
        "newest 2, so a failure loses little of the run and checkpoints do not fill the disk."
    )
    assert train_text(en, "timing") == (
        "Before a long run, time a short one: the first command of each method stops after 30 "
        "steps and saves nothing. With --packing , TRL packs your examples into full sequences "
        "of the guide’s length, so every step trains the tokens stated below, as long as your "
        "dataset holds at least that many. At its end TRL prints train_steps_per_second ; "
        "times 3,600 that is your steps per hour."
    )
    assert train_text(en, "timing-check").startswith(
        "If your steps per hour are much lower than ours, your set-up is slower than the one we "
        "assume: check with nvidia-smi that"
    )
    de = page(client, "de")
    assert train_text(de, "learning-rates").startswith(
        "Die Adapter-Methoden (LoRA, QLoRA) trainieren mit einer Lernrate von 2e-4 ,"
    )
    assert rate_sources(de).startswith("PEFT-Integration in TRL: Lernrate 2e-4 für LoRA")
    assert train_text(de, "saving").startswith(
        "Der ganze Lauf speichert nach jeweils 10 % seiner Schritte einen Checkpoint und löscht "
        "alle bis auf die neuesten 2:"
    )
    assert "mal 3.600 sind das Ihre Schritte pro Stunde." in train_text(de, "timing")
    assert train_text(de, "timing-check").startswith("Liegen Ihre Schritte pro Stunde deutlich")
    ja = page(client, "ja")
    assert train_text(ja, "learning-rates").startswith(
        "アダプター手法（LoRA、QLoRA）は学習率 2e-4 で"
    )
    assert rate_sources(ja).startswith("TRL PEFT 統合：LoRA の学習率 2e-4")
    assert "ステップの10%ごとにチェックポイントを保存し、最新の2個だけを残します。" in train_text(
        ja, "saving"
    )
    assert "3,600を掛けると1時間あたりのステップ数です。" in train_text(ja, "timing")


def test_only_full_fine_tuning_on_several_gpus_is_merged_from_shards(client, seeded):
    for lang, said in (
        ("en", "Each GPU saves its own shard of the weights and optimizer states"),
        ("de", "Jede GPU speichert ihren eigenen Shard der Gewichte"),
        ("ja", "各GPUは重みとオプティマイザ状態の自分のシャードを保存します"),
    ):
        body = page(client, lang)
        for method in ("full-8bit-adam", "full-adamw"):  # eight B200s each
            section = method_section(body, method)
            assert text(re.search(r'<p class="merge">.*?</p>', section, re.S)[0]).startswith(said)
            assert commands(section)[2].startswith("accelerate merge-weights ")
        for method in ("qlora", "lora"):  # one B200
            assert '<p class="merge">' not in method_section(body, method)
            assert len(commands(method_section(body, method))) == 2


def test_the_copy_button_comes_from_a_static_script_with_translated_labels(client, seeded):
    """No inline script (the CSP allows our own files only): static/js/copy-command.js adds
    the buttons, so without script the commands are plain, selectable text."""
    from pathlib import Path

    labels = {
        "en": ("Copy", "Copied"),
        "de": ("Kopieren", "Kopiert"),
        "ja": ("コピー", "コピーしました"),
    }
    for lang, (copy, copied) in labels.items():
        response = client.get(URL.format(lang))
        body = response.content.decode()
        assert f'data-copy-label="{copy}" data-copied-label="{copied}"' in body
        assert re.search(r'<script src="/static/js/copy-command\.[^"]*js" defer></script>', body)
        inline = re.findall(r"<script(?![^>]*\bsrc=)([^>]*)>", body)
        assert all("application/ld+json" in attributes for attributes in inline)
        assert "<button" not in body.split('<article class="wrap tutorial"')[1]
        assert "script-src 'self'" in response["Content-Security-Policy"]
    root = Path(__file__).resolve().parents[3]
    script = (root / "static" / "js" / "copy-command.js").read_text()
    assert "navigator.clipboard" in script and "data-copy-label" in script


def needs(section: str) -> str:
    return text(re.search(r'<p class="needs">.*?</p>', section, re.S)[0])


def test_each_run_says_its_download_disk_and_host_memory(client, seeded):
    """70B: 141.1 GB of bf16 weights, at least 5 minutes at 0.5 GB/s. QLoRA on one B200: bf16
    adapters and their states, 1.2 GB a checkpoint; the 4-bit model loads onto the GPU. Full
    fine-tuning on eight B200s: 12 bytes a parameter a checkpoint (846.6 GB), the fp32 result
    (282.2 GB), the bf16 model loaded once on the first process's host (141.1 GB)."""
    body = page(client)
    assert needs(method_section(body, "qlora")) == (
        "Besides the GPUs: the model is a 141.1 GB download (at least 5 minutes, billed like "
        "the run and not in its cost); the disk holds 144 GB at most: the download, 2 "
        "checkpoints of 1.2 GB and the trained weights, 0.4 GB. The 4-bit model loads straight "
        "onto the GPU."
    )
    assert needs(method_section(body, "full-adamw")) == (
        "Besides the GPUs: the model is a 141.1 GB download (at least 5 minutes, billed like "
        "the run and not in its cost); the disk holds 2,116.6 GB at most: the download, 2 "
        "checkpoints of 846.6 GB and the trained weights, 282.2 GB. The host needs 141.1 GB of "
        "memory to load the model."
    )
    german = needs(method_section(page(client, "de"), "full-adamw"))
    assert "höchstens 2.116,6 GB: der Download, 2 Checkpoints zu je 846,6 GB" in german
    japanese = needs(method_section(page(client, "ja"), "qlora"))
    assert "モデルのダウンロードは141.1 GBです（少なくとも5分。" in japanese


def test_the_guide_and_the_tutorial_say_the_same_needs(client, seeded):
    """One computation (assembly.run_needs): each method's row of the guide's table against
    the tutorial's sentence for the same recommended configuration, in every published guide
    with a tutorial and every language (fine-tuning guides: a serving guide needs no training
    run; tests/guides/pages/test_serving_guide.py holds its tutorial to its page)."""
    slugs = [
        g.slug
        for g in Guide.objects.filter(status=Guide.Status.PUBLISHED, kind=Guide.Kind.FINE_TUNING)
    ]
    compared = set()
    for slug in slugs:
        for lang in ("en", "de", "ja"):
            guide = client.get(f"/{lang}/guides/{slug}/").content.decode()
            table = re.search(r'<table class="needs">.*?</table>', guide, re.S)
            tutorial = client.get(f"/{lang}/guides/{slug}/tutorial/")
            if table is None or tutorial.status_code != 200:
                continue
            rows = re.findall(r'<tr data-method="([^"]+)">(.*?)</tr>', table[0], re.S)
            assert rows, (slug, lang)
            for method, row in rows:
                cells = [text(c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
                said = needs(method_section(tutorial.content.decode(), method))
                assert cells[2] in said and cells[3] in said, (slug, lang, method)
                compared.add((slug, lang))
    assert len(compared) == 3 * len(slugs) >= 15  # every guide has both, in every language
    english = client.get(f"/en/guides/{GUIDE_SLUG}/").content.decode()
    note = text(re.search(r'<p class="note" id="needs-note">.*?</p>', english, re.S)[0])
    assert note.startswith(
        "The download takes at least 5 minutes, billed like the run and left out of its cost "
        "above: Python’s downloader tops out near 0.5 GB a second."
    )
