"""The pricing data behind the published Llama 70B guide (29 October 2026), and its loader.

Figures come from the seed pages in shared/seeds/ and, where the seeds are silent (specs of the
L40S, H200, B200 and RTX 4090, other model sizes), from shared/reference/reference-data.md,
each with the source it cites. Loading creates what is missing and never touches what exists,
so an editor's later change survives every re-run.
"""

from datetime import date
from decimal import Decimal as D

from django.db import transaction

from pricing.models import (
    Gpu,
    HourBlock,
    LanguageModel,
    MemoryComponent,
    MemoryRule,
    Method,
    Price,
    PriceCheck,
    Provider,
    Source,
)

SEED_CHECK_DATE = date(2026, 10, 29)
REFERENCE_READ_DATE = date(2026, 11, 29)

SOURCES = [
    # key, publisher, url, read_on, {lang: title}
    (
        "qlora-paper",
        "arXiv",
        "https://arxiv.org/abs/2305.14314",
        SEED_CHECK_DATE,
        {"en": "QLoRA: Efficient Finetuning of Quantized LLMs"},
    ),
    (
        "hf-4bit-blog",
        "Hugging Face",
        "https://huggingface.co/blog/4bit-transformers-bitsandbytes",
        SEED_CHECK_DATE,
        {"en": "Making LLMs even more accessible with bitsandbytes, 4-bit quantization and QLoRA"},
    ),
    (
        "lora-paper",
        "arXiv",
        "https://arxiv.org/abs/2106.09685",
        SEED_CHECK_DATE,
        {"en": "LoRA: Low-Rank Adaptation of Large Language Models"},
    ),
    (
        "eleuther-transformer-math",
        "EleutherAI",
        "https://blog.eleuther.ai/transformer-math/",
        SEED_CHECK_DATE,
        {"en": "Transformer Math 101"},
    ),
    (
        "hf-memory-anatomy",
        "Hugging Face",
        "https://huggingface.co/docs/transformers/model_memory_anatomy",
        SEED_CHECK_DATE,
        {"en": "Model training anatomy (GPU memory)"},
    ),
    (
        "llama-3.1-70b-card",
        "Meta / Hugging Face",
        "https://huggingface.co/meta-llama/Llama-3.1-70B",
        SEED_CHECK_DATE,
        {
            "en": "Llama 3.1 70B model card",
            "de": "Llama 3.1 70B Modellkarte",
            "ja": "Llama 3.1 70B モデルカード",
        },
    ),
    (
        "trl-cli",
        "Hugging Face",
        "https://huggingface.co/docs/trl/clis",
        SEED_CHECK_DATE,
        {
            "en": "TRL command line interfaces",
            "de": "TRL-Kommandozeilenschnittstellen",
            "ja": "TRL コマンドラインインターフェース",
        },
    ),
    (
        "trl-peft",
        "Hugging Face",
        "https://huggingface.co/docs/trl/peft_integration",
        SEED_CHECK_DATE,
        {"en": "TRL PEFT integration", "de": "TRL PEFT-Integration", "ja": "TRL PEFT 統合"},
    ),
    (
        "nvidia-a100",
        "NVIDIA",
        "https://www.nvidia.com/en-us/data-center/a100/",
        SEED_CHECK_DATE,
        {
            "en": "NVIDIA A100 specifications",
            "de": "NVIDIA A100 Spezifikationen",
            "ja": "NVIDIA A100 仕様",
        },
    ),
    (
        "nvidia-h100",
        "NVIDIA",
        "https://www.nvidia.com/en-us/data-center/h100/",
        SEED_CHECK_DATE,
        {
            "en": "NVIDIA H100 specifications",
            "de": "NVIDIA H100 Spezifikationen",
            "ja": "NVIDIA H100 仕様",
        },
    ),
    (
        "massed-compute-pricing",
        "Massed Compute",
        "https://vm.massedcompute.com/pricing",
        SEED_CHECK_DATE,
        {
            "en": "Massed Compute pricing",
            "de": "Massed Compute-Preise",
            "ja": "Massed Computeの料金",
        },
    ),
    (
        "thunder-compute-pricing",
        "Thunder Compute",
        "https://www.thundercompute.com/pricing",
        SEED_CHECK_DATE,
        {
            "en": "Thunder Compute pricing",
            "de": "Thunder Compute-Preise",
            "ja": "Thunder Computeの料金",
        },
    ),
    # Not quoted on the guide; they back specs and model sizes from the reference sheet.
    (
        "ml-engineering-accelerators",
        "Stas Bekman, Machine Learning Engineering",
        "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/README.md",
        REFERENCE_READ_DATE,
        {
            "en": "Accelerators: specifications compared",
            "de": "Beschleuniger im Vergleich",
            "ja": "アクセラレータの仕様比較",
        },
    ),
    (
        "rtx-4090-specs",
        "The FPS Review",
        "https://www.thefpsreview.com/gpu-family/nvidia-geforce-rtx-4090-gpu-family-specifications",
        REFERENCE_READ_DATE,
        {
            "en": "NVIDIA GeForce RTX 4090 specifications",
            "de": "NVIDIA GeForce RTX 4090 Spezifikationen",
            "ja": "NVIDIA GeForce RTX 4090 仕様",
        },
    ),
    (
        "llama-models-sku-list",
        "Meta",
        "https://github.com/meta-llama/llama-models/blob/main/models/sku_list.py",
        REFERENCE_READ_DATE,
        {
            "en": "Llama models: architecture list",
            "de": "Llama-Modelle: Architekturliste",
            "ja": "Llamaモデル：アーキテクチャ一覧",
        },
    ),
]

GPUS = [
    # slug, name, memory GB, bandwidth GB/s, BF16 dense TFLOPS, form factor, rentable, source
    (
        "l40s",
        "L40S",
        D("48"),
        D("864"),
        D("362"),
        Gpu.FormFactor.PCIE,
        True,
        "ml-engineering-accelerators",
    ),
    (
        "a100-80gb",
        "A100 80GB",
        D("80"),
        D("2039"),
        D("312"),
        Gpu.FormFactor.SXM,
        True,
        "nvidia-a100",
    ),
    ("h100", "H100", D("80"), D("3350"), D("989.5"), Gpu.FormFactor.SXM, True, "nvidia-h100"),
    (
        "h200",
        "H200",
        D("141"),
        D("4800"),
        D("989.5"),
        Gpu.FormFactor.SXM,
        True,
        "ml-engineering-accelerators",
    ),
    (
        "b200",
        "B200",
        D("180"),
        D("8000"),
        D("2250"),
        Gpu.FormFactor.SXM,
        True,
        "ml-engineering-accelerators",
    ),
    (
        "rtx-4090",
        "RTX 4090",
        D("24"),
        D("1008"),
        D("165.2"),
        Gpu.FormFactor.CONSUMER,
        False,
        "rtx-4090-specs",
    ),
]

PROVIDERS = [
    # slug, name, url, is_house
    ("gpuwithcrypto", "GPUwithCrypto", "https://gpuwithcrypto.com", True),
    ("massed-compute", "Massed Compute", "https://massedcompute.com", False),
    ("thunder-compute", "Thunder Compute", "https://www.thundercompute.com", False),
]

PRICE_CHECKS = [
    # provider, date, source url, [(gpu, quoted USD per hour, GPUs in the quote)]
    (
        "gpuwithcrypto",
        SEED_CHECK_DATE,
        "",
        [
            ("l40s", D("0.82"), 1),
            ("a100-80gb", D("0.92"), 1),
            ("h100", D("2.32"), 1),
            ("h200", D("3.07"), 1),
            ("b200", D("4.61"), 1),
        ],
    ),
    (
        "massed-compute",
        SEED_CHECK_DATE,
        "https://vm.massedcompute.com/pricing",
        [("b200", D("43.46"), 8)],
    ),
    (
        "thunder-compute",
        SEED_CHECK_DATE,
        "https://www.thundercompute.com/pricing",
        [("a100-80gb", D("1.09"), 1)],
    ),
]

LANGUAGE_MODELS = [
    # slug, name, params (billions), layers, hidden, heads, KV heads, vocab, gated, source
    (
        "llama-3.1-8b",
        "Llama 3.1 8B",
        D("8"),
        32,
        4096,
        32,
        8,
        128256,
        True,
        "llama-models-sku-list",
    ),
    (
        "llama-3.1-70b",
        "Llama 3.1 70B",
        D("70"),
        80,
        8192,
        64,
        8,
        128256,
        True,
        "llama-3.1-70b-card",
    ),
    (
        "llama-3.1-405b",
        "Llama 3.1 405B",
        D("405"),
        126,
        16384,
        128,
        8,
        128256,
        True,
        "llama-models-sku-list",
    ),
]
LLAMA_LICENCE = {
    "en": "Gated on Hugging Face: accept Meta's Llama 3.1 licence on the model page first.",
    "de": "Auf Hugging Face gated: Akzeptieren Sie zuerst Metas Llama-3.1-Lizenz auf der Modellseite.",
    "ja": "Hugging Faceではゲート付き：まずモデルページでMetaのLlama 3.1ライセンスに同意してください。",
}

METHODS = [
    {
        "slug": "qlora",
        "position": 1,
        "margin": D("0"),
        "weight_bytes": D("0.5"),
        "name": {
            "en": "QLoRA (4-bit base)",
            "de": "QLoRA (4-Bit-Basis)",
            "ja": "QLoRA（4ビットベース）",
        },
        "short_name": {"en": "QLoRA", "de": "QLoRA", "ja": "QLoRA"},
        "rules": [{"source": "qlora-paper", "measured": (D("48"), D("65"), D("0.05"))}],
    },
    {
        "slug": "lora",
        "position": 2,
        "margin": D("20"),
        "weight_bytes": D("2"),
        "name": {"en": "LoRA (BF16 base)", "de": "LoRA (BF16-Basis)", "ja": "LoRA（BF16ベース）"},
        "short_name": {"en": "LoRA", "de": "LoRA", "ja": "LoRA"},
        "rules": [{"source": "hf-memory-anatomy", "components": [("weights", D("2"))]}],
    },
    {
        "slug": "full-8bit-adam",
        "position": 3,
        "margin": D("0"),
        "weight_bytes": D("2"),
        "name": {
            "en": "Full fine-tuning, 8-bit Adam",
            "de": "Full Fine-Tuning, 8-Bit-Adam",
            "ja": "フルファインチューニング、8ビットAdam",
        },
        "short_name": {
            "en": "Full, 8-bit Adam",
            "de": "Full, 8-Bit-Adam",
            "ja": "フル、8ビットAdam",
        },
        "rules": [
            {
                "source": "hf-memory-anatomy",
                "components": [("weights", D("6")), ("optimizer", D("2")), ("gradients", D("4"))],
            }
        ],
    },
    {
        "slug": "full-adamw",
        "position": 4,
        "margin": D("0"),
        "weight_bytes": D("2"),
        "name": {
            "en": "Full fine-tuning, AdamW",
            "de": "Full Fine-Tuning, AdamW",
            "ja": "フルファインチューニング、AdamW",
        },
        "short_name": {"en": "Full, AdamW", "de": "Full, AdamW", "ja": "フル、AdamW"},
        "rules": [
            {
                "source": "eleuther-transformer-math",
                "components": [("weights", D("2")), ("optimizer", D("12")), ("gradients", D("2"))],
            },
            {
                "source": "hf-memory-anatomy",
                "components": [("weights", D("6")), ("optimizer", D("8")), ("gradients", D("4"))],
            },
        ],
    },
]

HOUR_BLOCKS = [10, 24, 168, 720]


def translated(field: str, texts: dict[str, str]) -> dict[str, str]:
    """{"en": "x"} -> {"title_en": "x", "title_de": "x", ...}; untranslated names stay English."""
    return {f"{field}_{lang}": texts.get(lang, texts["en"]) for lang in ("en", "de", "ja")}


@transaction.atomic
def load_pricing() -> int:
    """Create whatever of the seed pricing data is missing; return how many rows were created."""
    created = 0

    def make(model, defaults=None, **lookup):
        nonlocal created
        obj, was_created = model.objects.get_or_create(defaults=defaults or {}, **lookup)
        created += was_created
        return obj

    sources = {}
    for key, publisher, url, read_on, titles in SOURCES:
        sources[key] = make(
            Source,
            key=key,
            defaults={
                "publisher": publisher,
                "url": url,
                "read_on": read_on,
                **translated("title", titles),
            },
        )
    gpus = {}
    for position, (slug, name, memory, bandwidth, tflops, form, rentable, source) in enumerate(
        GPUS, start=1
    ):
        gpus[slug] = make(
            Gpu,
            slug=slug,
            defaults={
                "name": name,
                "memory_gb": memory,
                "bandwidth_gb_s": bandwidth,
                "bf16_dense_tflops": tflops,
                "form_factor": form,
                "rentable": rentable,
                "position": position,
                "spec_source": sources[source],
            },
        )
    providers = {
        slug: make(Provider, slug=slug, defaults={"name": name, "url": url, "is_house": house})
        for slug, name, url, house in PROVIDERS
    }
    for provider, checked_on, url, prices in PRICE_CHECKS:
        check, was_created = PriceCheck.objects.get_or_create(
            provider=providers[provider], checked_on=checked_on, defaults={"source_url": url}
        )
        if was_created:
            created += 1 + len(prices)
            Price.objects.bulk_create(
                Price(
                    price_check=check,
                    gpu=gpus[gpu],
                    quoted_usd_per_hour=quoted,
                    gpus_in_quote=count,
                )
                for gpu, quoted, count in prices
            )
    for slug, name, params, layers, hidden, heads, kv, vocab, gated, source in LANGUAGE_MODELS:
        make(
            LanguageModel,
            slug=slug,
            defaults={
                "name": name,
                "params_billion": params,
                "layers": layers,
                "hidden_size": hidden,
                "attention_heads": heads,
                "kv_heads": kv,
                "vocab_size": vocab,
                "gated": gated,
                "source": sources[source],
                **translated("licence_note", LLAMA_LICENCE),
            },
        )
    for spec in METHODS:
        method, was_created = Method.objects.get_or_create(
            slug=spec["slug"],
            defaults={
                "position": spec["position"],
                "planning_margin_percent": spec["margin"],
                "weight_bytes_per_param": spec["weight_bytes"],
                **translated("name", spec["name"]),
                **translated("short_name", spec["short_name"]),
            },
        )
        if not was_created:
            continue  # its rules are the editors' now
        created += 1
        for position, rule_spec in enumerate(spec["rules"], start=1):
            memory, params, step = rule_spec.get("measured", (None, None, None))
            rule = MemoryRule.objects.create(
                method=method,
                source=sources[rule_spec["source"]],
                position=position,
                reference_memory_gb=memory,
                reference_params_billion=params,
                round_up_to=step,
            )
            created += 1
            for part_position, (part, size) in enumerate(rule_spec.get("components", []), 1):
                MemoryComponent.objects.create(
                    rule=rule, part=part, bytes_per_param=size, position=part_position
                )
                created += 1
    for hours in HOUR_BLOCKS:
        make(HourBlock, hours=hours)
    return created
