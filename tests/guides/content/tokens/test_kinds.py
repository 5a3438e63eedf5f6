"""Every token kind and option, defaults included, with its exact output in en, de and ja.

The figures are gathered once for the module from the session's seed (70 B, as of the seed
day) and never written to: a test that needs other figures makes a changed copy. Each row
renders through ``render_inline``, so what is compared is the escaped HTML a page shows;
no-break spaces are written as plain spaces here.
"""

import dataclasses
from datetime import date
from decimal import Decimal as D

import pytest
from django.utils import translation

from guides.content import presentation
from guides.content.page_figures import MissingFigure
from guides.content.tokens import kinds
from guides.content.tokens.render import MISSING, render_inline, render_plain
from guides.pages.assembly import page_figures
from pricing.domain import calculations as calc
from pricing.domain.training_memory import MEASURED, Architecture, Method, TrainingSetup
from pricing.models import Gpu, LanguageModel, Source
from pricing.selectors import ThroughputListing
from pricing.services import price_check_record
from tests.conftest import SEED_DAY, prose_html

# The guide's fit table as seed_content builds it (guides/<slug>/guide.json), in its order.
FIT_TABLE = [
    ("l40s", 1), ("a100-80gb", 1), ("h100", 1), ("h200", 1), ("b200", 1),
    ("h200", 2), ("a100-80gb", 4), ("h100", 8), ("h200", 8), ("b200", 8),
]  # fmt: skip
SCENARIO_GPU_HOURS = [D(10), D(24), D(168)]


# The 70B guide's run: 2,048 tokens, micro-batch 1, checkpointing, rank 16, the trl recipe.
GUIDE_RUN = TrainingSetup(Method.QLORA, seq_len=2048)


def architecture(slug: str) -> Architecture:
    return LanguageModel.objects.get(slug=slug).architecture


@pytest.fixture(scope="module")
def figures(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        gathered = page_figures(
            params_billion=D(70),
            at=SEED_DAY,
            configurations=FIT_TABLE,
            architecture=architecture("llama-3.1-70b"),
            training=GUIDE_RUN,
        )
    gathered.scenario_gpu_hours = SCENARIO_GPU_HOURS
    return gathered


def rendered(token: str, figures, lang: str) -> str:
    with translation.override(lang):
        return str(render_inline(token, figures)).replace("\u00a0", " ")


def assert_renders(figures, token: str, en: str, de: str, ja: str) -> None:
    got = {lang: rendered(token, figures, lang) for lang in ("en", "de", "ja")}
    assert got == {"en": en, "de": de, "ja": ja}, token


SAME = object()  # the English text, in every language


KINDS = [
    # params
    ("[[params]]", "70", SAME, SAME),
    # memory: planning by default, lower, upper, range (a single figure where the rules agree)
    ("[[memory lora]]", "168 GB", SAME, SAME),
    ("[[memory lora planning]]", "168 GB", SAME, SAME),
    ("[[memory lora lower]]", "140 GB", SAME, SAME),
    ("[[memory lora upper]]", "140 GB", SAME, SAME),
    ("[[memory full-adamw]]", "1,260 GB", "1.260 GB", "1,260 GB"),
    ("[[memory full-adamw lower]]", "1,120 GB", "1.120 GB", "1,120 GB"),
    ("[[memory full-adamw upper]]", "1,260 GB", "1.260 GB", "1,260 GB"),
    ("[[memory full-adamw range]]", "1,120–1,260 GB", "1.120–1.260 GB", "1,120〜1,260 GB"),
    ("[[memory qlora range]]", "52.5 GB", "52,5 GB", "52.5 GB"),
    ("[[memory lora range]]", "140 GB", SAME, SAME),  # the rule's figure, not the planning one
    # bytes: rule 1 by default; rule 2 is the 18-byte one; a measured rule gives its GB/billion
    ("[[bytes full-adamw]]", "16", SAME, SAME),
    ("[[bytes full-adamw 1]]", "16", SAME, SAME),
    ("[[bytes full-adamw 2]]", "18", SAME, SAME),
    ("[[bytes full-adamw 3]]", MISSING, SAME, SAME),
    ("[[bytes qlora]]", "0.75", "0,75", "0.75"),
    ("[[bytes full-8bit-adam]]", "12", SAME, SAME),
    # breakdown
    ("[[breakdown full-adamw]]", "2 + 12 + 2 = 16", SAME, SAME),
    ("[[breakdown full-adamw 1]]", "2 + 12 + 2 = 16", SAME, SAME),
    ("[[breakdown full-adamw 2]]", "6 + 8 + 4 = 18", SAME, SAME),
    ("[[breakdown full-8bit-adam]]", "6 + 2 + 4 = 12", SAME, SAME),
    ("[[breakdown lora]]", "2 = 2", SAME, SAME),
    ("[[breakdown qlora]]", "48 ÷ 65 = 0.74", "48 ÷ 65 = 0,74", "48 ÷ 65 = 0.74"),
    ("[[breakdown qlora 2]]", MISSING, SAME, SAME),
    # reference: only measured rules have one
    ("[[reference qlora memory]]", "48 GB", SAME, SAME),
    ("[[reference qlora params]]", "65", SAME, SAME),
    ("[[reference lora memory]]", MISSING, SAME, SAME),
    # margin: percent by default, or the factor
    ("[[margin lora]]", "20%", "20 %", "20%"),
    ("[[margin lora percent]]", "20%", "20 %", "20%"),
    ("[[margin lora factor]]", "1.2", "1,2", "1.2"),
    ("[[margin qlora]]", "0%", "0 %", "0%"),
    ("[[margin qlora factor]]", "1", SAME, SAME),
    # weights
    ("[[weights qlora]]", "35 GB", SAME, SAME),
    ("[[weights lora]]", "140 GB", SAME, SAME),
    # vram: one GPU by default; a provider's GPU has the same memory
    ("[[vram h100]]", "80 GB", SAME, SAME),
    ("[[vram 8xh200]]", "1,128 GB", "1.128 GB", "1,128 GB"),
    ("[[vram 2xb200@massed-compute]]", "360 GB", SAME, SAME),
    # headroom: after the planning figure by default
    ("[[headroom 8xh200 full-adamw]]", "-132 GB", SAME, SAME),
    ("[[headroom 8xh200 full-adamw planning]]", "-132 GB", SAME, SAME),
    ("[[headroom 8xh200 full-adamw range]]", "-132 GB", SAME, SAME),  # a range: the plan
    ("[[headroom 8xh200 full-adamw lower]]", "8 GB", SAME, SAME),
    ("[[headroom 8xb200 full-adamw upper]]", "180 GB", SAME, SAME),
    ("[[headroom h100 qlora]]", "27.5 GB", "27,5 GB", "27.5 GB"),
    ("[[headroom 8xh200 lora]]", "960 GB", SAME, SAME),
    # price: ours unless @provider; N GPUs cost N times one
    ("[[price a100-80gb]]", "$0.92", "0,92 $", "$0.92"),
    ("[[price 8xh200]]", "$24.56", "24,56 $", "$24.56"),
    ("[[price b200@massed-compute]]", "$5.4325", "5,4325 $", "$5.4325"),
    ("[[price 8xb200@massed-compute]]", "$43.46", "43,46 $", "$43.46"),
    ("[[price rtx-4090]]", MISSING, SAME, SAME),  # never priced
    # price_ratio: rounded half-up to a whole number (2.32 / 0.92 = 2.52 -> 3)
    ("[[price_ratio 8xb200 a100-80gb]]", "40", SAME, SAME),
    ("[[price_ratio h100 a100-80gb]]", "3", SAME, SAME),
    ("[[price_ratio 8xb200@massed-compute a100-80gb@thunder-compute]]", "40", SAME, SAME),
    # spec: each field; memory in GB
    ("[[spec h100 bf16]]", "989.5", "989,5", "989.5"),
    ("[[spec h100 bandwidth]]", "3,350", "3.350", "3,350"),
    ("[[spec h100 memory]]", "80 GB", SAME, SAME),
    # spec_ratio: to a tenth, half-up
    ("[[spec_ratio h100 a100-80gb bf16]]", "3.2", "3,2", "3.2"),
    ("[[spec_ratio h100 a100-80gb bandwidth]]", "1.6", "1,6", "1.6"),
    ("[[spec_ratio h200 h100 memory]]", "1.8", "1,8", "1.8"),
    # checked_on: ours by default (see also test_checked_on_reads_the_named_provider)
    ("[[checked_on]]", "October 29, 2026", "29. Oktober 2026", "2026年10月29日"),
    # smallest_gpu: the name by default, or its memory
    ("[[smallest_gpu qlora]]", "L40S", SAME, SAME),
    ("[[smallest_gpu qlora name]]", "L40S", SAME, SAME),
    ("[[smallest_gpu qlora memory]]", "48 GB", SAME, SAME),
    ("[[smallest_gpu lora]]", "H200", SAME, SAME),
    ("[[smallest_gpu lora memory]]", "141 GB", SAME, SAME),
    ("[[smallest_gpu full-adamw]]", MISSING, SAME, SAME),  # no single card holds 1,260 GB
    # cheapest: the cheapest estimate of the budget (100 million tokens) that holds the
    # method; for QLoRA one L40S ($78.82 in 96.1 h) before one B200 ($85.43 in 18.5 h)
    ("[[cheapest qlora]]", "1× L40S", SAME, "L40Sを1基"),
    ("[[cheapest lora]]", "1× B200", SAME, "B200を1基"),
    ("[[cheapest full-8bit-adam]]", "8× B200", SAME, "B200を8基"),
    ("[[cheapest full-adamw]]", "8× B200", SAME, "B200を8基"),
    # blocks: "and" by default
    ("[[blocks]]", "10, 24, 168, and 720", "10, 24, 168 und 720", "10、24、168、720"),
    ("[[blocks and]]", "10, 24, 168, and 720", "10, 24, 168 und 720", "10、24、168、720"),
    ("[[blocks or]]", "10, 24, 168, or 720", "10, 24, 168 oder 720", "10、24、168、または720"),
    ("[[scenario_blocks]]", "10, 24, and 168", "10, 24 und 168", "10、24、168"),
    # fact, by its kind: usd keeps its $, percent is stored as 1 for 1 % (not x100)
    ("[[fact minimum-top-up]]", "$25.00", "25,00 $", "$25.00"),
    ("[[fact lora-adapter-overhead]]", "1%", "1 %", "1%"),
    ("[[fact lora-trainable-reduction]]", "10,000", "10.000", "10,000"),
    ("[[fact max-gpus-per-instance]]", "8", SAME, SAME),
    # links: the exact href and text
    (
        "[[link vram]]",
        '<a href="/en/vram/">How much VRAM do I need?</a>',
        '<a href="/de/vram/">Wie viel VRAM brauche ich?</a>',
        '<a href="/ja/vram/">VRAMはどれくらい必要ですか？</a>',
    ),
    (
        "[[link gpus]]",
        '<a href="/en/gpus/">GPU prices</a>',
        '<a href="/de/gpus/">GPU-Preise</a>',
        '<a href="/ja/gpus/">GPU料金</a>',
    ),
    (
        "[[compare_link h100 a100-80gb]]",
        '<a href="/en/compare/h100-vs-a100-80gb/">H100 vs A100 80GB</a>',
        '<a href="/de/compare/h100-vs-a100-80gb/">H100 vs. A100 80GB</a>',
        '<a href="/ja/compare/h100-vs-a100-80gb/">H100とA100 80GBの比較</a>',
    ),
    (
        "[[compare_link b200 h200]]",
        '<a href="/en/compare/b200-vs-h200/">B200 vs H200</a>',
        '<a href="/de/compare/b200-vs-h200/">B200 vs. H200</a>',
        '<a href="/ja/compare/b200-vs-h200/">B200とH200の比較</a>',
    ),
    ("[[compare_link h100 h999]]", MISSING, SAME, SAME),
    ("[[tutorial_link]]", MISSING, SAME, SAME),  # off a guide page: no guide to link
    # rent: the recommendation (or its alternative) at RENT_URL_TEMPLATE, saying what it rents
    (
        "[[rent qlora]]",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=1">'
        "Rent 1× B200</a>",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=1">'
        "1× B200 mieten</a>",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=1">'
        "B200 1基をレンタル</a>",
    ),
    (
        "[[rent full-adamw first]]",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8">'
        "Rent 8× B200</a>",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8">'
        "8× B200 mieten</a>",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8">'
        "B200 8基をレンタル</a>",
    ),
    (
        "[[rent lora alternative]]",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8">'
        "Rent 8× B200</a>",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8">'
        "8× B200 mieten</a>",
        '<a class="rent" href="https://gpuwithcrypto.com/rent?gpu=b200&amp;count=8">'
        "B200 8基をレンタル</a>",
    ),
    ("[[rent full-adamw alternative]]", MISSING, SAME, SAME),  # nothing else holds it
    # longest_sequence: each recommendation at the guide's micro-batch
    (
        "[[longest_sequence qlora]]",
        "1× B200 up to 60,416 tokens and 8× B200 up to 72,192 tokens",
        "1× B200 bis 60.416 Tokens und 8× B200 bis 72.192 Tokens",
        "B200 1基は60,416トークンまで、B200 8基は72,192トークンまで",
    ),
    # estimate: the guide's run on one GPU, its peak or its peak with the allocator's margin
    ("[[estimate qlora]]", "45.1 GB", "45,1 GB", SAME),
    ("[[estimate qlora peak]]", "45.1 GB", "45,1 GB", SAME),
    ("[[estimate lora reserved]]", "149.3 GB", "149,3 GB", SAME),
    # yes_no_one_gpu: QLoRA fits one A100 80GB; full fine-tuning fits no single card
    ("[[yes_no_one_gpu qlora]]", "Yes.", "Ja.", "はい。"),
    ("[[yes_no_one_gpu full-adamw]]", "No.", "Nein.", "いいえ。"),
    (
        "[[full_needs]]",  # each method's fewest GPUs, then smallest card
        "Full fine-tuning with AdamW needs eight B200s, the fewest GPUs we rent that hold this "
        "guide&#x27;s "
        "run. Sharded, FSDP keeps FP32 master weights and gradients and splits them and the "
        "optimizer states across the GPUs: 184.5 GB per GPU with the memory allocator&#x27;s "
        "margin (an estimated peak of 147.5 GB), within the 189.4 GB each B200 can use. On four "
        "B200s it would need 360.5 GB on each, more than the 189.4 GB each can use. Full "
        "fine-tuning with 8-bit "
        "Adam needs eight H200s, the fewest GPUs we rent that hold this guide&#x27;s run. "
        "Sharded, FSDP keeps FP32 master weights and gradients and splits them and the "
        "optimizer states across the GPUs: 114.5 GB per GPU with the memory allocator&#x27;s "
        "margin (an estimated peak of 94.8 GB), within the 148 GB each H200 can use. On four "
        "B200s it would need 220.5 GB on each, more than the 189.4 GB each can use.",
        "Full fine-tuning with AdamW braucht acht B200, die wenigsten GPUs in unserem Angebot, die "
        "den Lauf "
        "dieses Ratgebers fassen. Verteilt hält FSDP FP32-Master-Gewichte und -Gradienten und "
        "teilt sie mit den Optimizer-Zuständen auf die GPUs auf: 184,5 GB pro GPU mit der "
        "Reserve des Speicher-Allokators (die geschätzte Spitze von 147,5 GB), innerhalb der "
        "189,4 GB, die jede B200 nutzen kann. Auf vier B200 bräuchte der Lauf 360,5 GB pro GPU, "
        "mehr als die 189,4 GB, die jede nutzen kann. Full fine-tuning with 8-bit Adam braucht "
        "acht H200, die "
        "wenigsten GPUs in unserem Angebot, die den Lauf dieses Ratgebers fassen. Verteilt hält "
        "FSDP FP32-Master-Gewichte und -Gradienten und teilt sie mit den Optimizer-Zuständen "
        "auf die GPUs auf: 114,5 GB pro GPU mit der Reserve des Speicher-Allokators (die "
        "geschätzte Spitze von 94,8 GB), innerhalb der 148 GB, die jede H200 nutzen kann. Auf "
        "vier B200 bräuchte der Lauf 220,5 GB pro GPU, mehr als die 189,4 GB, die jede nutzen "
        "kann.",
        "Full fine-tuning with AdamWに必要な構成：B200を8基。このガイドの学習条件を収める、当社で最"
        "も少ないGPU数"
        "です。シャーディングすると、FSDPはFP32のマスター重みと勾配を持ち、それらとオプティマイ"
        "ザ状態をGPU間で分割します：1基あたりメモリアロケータの余裕分を含めて184.5 GB（推定ピー"
        "ク147.5 GB）で、各B200で使用可能な189.4 GBに収まります。B200を4基にしても1基あたり360.5"
        " GBが必要で、各GPUで使用可能な189.4 GBを超えます。Full fine-tuning with 8-bit Adamに必要な"
        "構成：H200を8"
        "基。このガイドの学習条件を収める、当社で最も少ないGPU数です。シャーディングすると、FSDP"
        "はFP32のマスター重みと勾配を持ち、それらとオプティマイザ状態をGPU間で分割します：1基あ"
        "たりメモリアロケータの余裕分を含めて114.5 GB（推定ピーク94.8 GB）で、各H200で使用可能な"
        "148 GBに収まります。B200を4基にしても1基あたり220.5 GBが必要で、各GPUで使用可能な189.4 "
        "GBを超えます。",
    ),
    (
        "[[gap_conclusion full-adamw qlora]]",  # per run: $185.82 / $85.43 = 2.2
        "At 2.2 times the cost per run at our prices ($185.82 against $85.43), QLoRA or LoRA is "
        "the cheaper start at 70B; full fine-tuning stays within reach where the "
        "adapters fall short.",
        "Beim 2,2-Fachen pro Lauf zu unseren Preisen (185,82 $ gegenüber 85,43 $) ist QLoRA oder "
        "LoRA der günstigere Einstieg für ein 70B-Projekt; vollständiges Fine-Tuning bleibt in "
        "Reichweite, wo die Adapter nicht genügen.",
        "当社の価格で実行1回あたり2.2倍（$85.43に対して$185.82）のため、70"
        "BのプロジェクトはQLoRAまたはLoRAから始めるほうが安価です。アダプタで足"
        "りない場合は、フルファインチューニングも選択肢に残ります。",
    ),
    # needs: the smallest configuration that holds the run (a table's ✓), never the
    # recommendation; sharded, with the memory per GPU and why fewer GPUs do not do
    (
        "[[needs qlora]]",  # one B200 recommended; one A100 80GB suffices
        "QLoRA needs one L40S, the smallest card we rent that holds this guide&#x27;s run: 46.8 "
        "GB with the memory allocator&#x27;s margin (an estimated peak of 45.1 GB), within the "
        "47.2 GB it can use.",
        "QLoRA braucht eine L40S, die kleinste Karte in unserem Angebot, die den Lauf dieses "
        "Ratgebers fasst: 46,8 GB mit der Reserve des Speicher-Allokators (die geschätzte "
        "Spitze von 45,1 GB), innerhalb der 47,2 GB, die sie nutzen kann.",
        "QLoRAに必要な構成：L40Sを1基。このガイドの学習条件を収める、当社で最も小さいカードです"
        "：メモリアロケータの余裕分を含めて46.8 GB（推定ピーク45.1 GB）で、使用可能な47.2 GBに収"
        "まります。",
    ),
    (
        "[[needs full-adamw]]",
        "Full fine-tuning with AdamW needs eight B200s, the fewest GPUs we rent that hold this "
        "guide&#x27;s "
        "run. Sharded, FSDP keeps FP32 master weights and gradients and splits them and the "
        "optimizer states across the GPUs: 184.5 GB per GPU with the memory allocator&#x27;s "
        "margin (an estimated peak of 147.5 GB), within the 189.4 GB each B200 can use. On four "
        "B200s it would need 360.5 GB on each, more than the 189.4 GB each can use.",
        "Full fine-tuning with AdamW braucht acht B200, die wenigsten GPUs in unserem Angebot, die "
        "den Lauf "
        "dieses Ratgebers fassen. Verteilt hält FSDP FP32-Master-Gewichte und -Gradienten und "
        "teilt sie mit den Optimizer-Zuständen auf die GPUs auf: 184,5 GB pro GPU mit der "
        "Reserve des Speicher-Allokators (die geschätzte Spitze von 147,5 GB), innerhalb der "
        "189,4 GB, die jede B200 nutzen kann. Auf vier B200 bräuchte der Lauf 360,5 GB pro GPU, "
        "mehr als die 189,4 GB, die jede nutzen kann.",
        "Full fine-tuning with AdamWに必要な構成：B200を8基。このガイドの学習条件を収める、当社で最"
        "も少ないGPU数"
        "です。シャーディングすると、FSDPはFP32のマスター重みと勾配を持ち、それらとオプティマイ"
        "ザ状態をGPU間で分割します：1基あたりメモリアロケータの余裕分を含めて184.5 GB（推定ピー"
        "ク147.5 GB）で、各B200で使用可能な189.4 GBに収まります。B200を4基にしても1基あたり360.5"
        " GBが必要で、各GPUで使用可能な189.4 GBを超えます。",
    ),
    (
        "[[we_recommend qlora]]",
        "We recommend one B200 or eight B200s (the second for a tight deadline).",
        "Wir empfehlen eine B200 oder acht B200 (die zweite für einen knappen Termin).",
        "推奨構成はB200を1基またはB200を8基です（後者は納期が厳しい場合）。",
    ),
    (
        "[[we_recommend full-adamw]]",
        "We recommend eight B200s.",
        "Wir empfehlen acht B200.",
        "推奨構成はB200を8基です。",
    ),
    # throughput: the speed on the recommended configuration, derived for trl's recipe
    (
        "[[throughput qlora]]",
        "1,499 tokens per second on one B200 (derived)",
        "1.499 Tokens pro Sekunde (eine B200, abgeleitet)",
        "B200を1基で毎秒1,499トークン（導出値）",
    ),
    (
        "[[budget]]",
        "100,000,000 training tokens in one epoch",
        "100.000.000 Trainings-Tokens in einer Epoche",
        "1エポックで100,000,000学習トークン",
    ),
    # run_choice: one H100 runs the budget in 43.1 h for $99.91, one A100 in 104.4 h, $96.07
    (
        "[[run_choice qlora h100 a100-80gb]]",
        "For 100,000,000 training tokens in one epoch the A100 80GB costs less ($96.07 in 104.4 "
        "hours), the H100 finishes sooner (43.1 hours for $99.91): pick the A100 80GB when the "
        "budget is fixed, the H100 when the deadline is.",
        "Für 100.000.000 Trainings-Tokens in einer Epoche ist die A100 80GB günstiger (96,07 $ "
        "in 104,4 Stunden), die H100 schneller fertig (43,1 Stunden für 99,91 $): Wählen Sie die "
        "A100 80GB, wenn das Budget feststeht, die H100, wenn der Termin feststeht.",
        "1エポックで100,000,000学習トークンの場合、A100 80GBのほうが安く（104.4時間で$96.07）、"
        "H100のほうが早く終わります（43.1時間で$99.91）。予算が決まっているならA100 80GB、"
        "納期が決まっているならH100を選んでください。",
    ),
    (
        "[[run_choice qlora l40s rtx-4090]]",
        "For 100,000,000 training tokens in one epoch the L40S takes 96.1 hours for $78.82.",
        "Für 100.000.000 Trainings-Tokens in einer Epoche braucht die L40S 96,1 Stunden für "
        "78,82 $.",
        "1エポックで100,000,000学習トークンの場合、L40Sでは96.1時間、$78.82かかります。",
    ),  # the L40S holds it (the RTX 4090, not rented, is not said)
    ("[[scenario_note]]", "", SAME, SAME),  # no assumed-hours table off a guide
    # model and licence: only on a guide page (see SENTENCES for a guide's)
    ("[[model]]", MISSING, SAME, SAME),
    ("[[licence]]", MISSING, SAME, SAME),
    # part_bytes: one component of a rule; a measured rule has none
    ("[[part_bytes full-8bit-adam optimizer]]", "2", SAME, SAME),
    ("[[part_bytes full-adamw optimizer 2]]", "8", SAME, SAME),
    ("[[part_bytes full-adamw weights]]", "2", SAME, SAME),
    ("[[part_bytes full-adamw gradients 1]]", "2", SAME, SAME),
    ("[[part_bytes qlora weights]]", MISSING, SAME, SAME),
    ("[[smallest_block]]", "10", SAME, SAME),
    # recommend: QLoRA is a close call (several runs cost about the same within the model's
    # error), so the run with the cheapest up-front block (one B200's 24 GPU-hours), then the
    # fastest other (eight B200s, 2.8 h)
    (
        "[[recommend qlora]]",
        "one B200 ($4.61/hour) or eight B200s ($36.88/hour)",
        "eine B200 (4,61 $/Stunde) oder acht B200 (36,88 $/Stunde)",
        "B200を1基（$4.61/時間）またはB200を8基（$36.88/時間）",
    ),
    (
        "[[recommend lora both]]",
        "one B200 ($4.61/hour) or eight B200s ($36.88/hour)",
        "eine B200 (4,61 $/Stunde) oder acht B200 (36,88 $/Stunde)",
        "B200を1基（$4.61/時間）またはB200を8基（$36.88/時間）",
    ),
    (
        "[[recommend lora first]]",
        "one B200 ($4.61/hour)",
        "eine B200 (4,61 $/Stunde)",
        "B200を1基（$4.61/時間）",
    ),
    (
        "[[recommend lora alternative]]",
        "eight B200s ($36.88/hour)",
        "acht B200 (36,88 $/Stunde)",
        "B200を8基（$36.88/時間）",
    ),
    ("[[recommend full-adamw alternative]]", MISSING, SAME, SAME),  # only 8x B200 holds it
    (
        "[[recommend lora both plain]]",
        "one B200 or eight B200s",
        "eine B200 oder acht B200",
        "B200を1基またはB200を8基",
    ),
    (
        "[[recommend lora both memory]]",
        "one B200 (180 GB) or eight B200s (1,440 GB)",
        "eine B200 (180 GB) oder acht B200 (1.440 GB)",
        "B200を1基（180 GB）またはB200を8基（1,440 GB）",
    ),
    (  # eight H200s cost less an hour ($24.56) but more a run ($224.27 against $158.24)
        "[[recommend full-8bit-adam both price]]",
        "eight B200s ($36.88/hour) or eight H200s ($24.56/hour)",
        "acht B200 (36,88 $/Stunde) oder acht H200 (24,56 $/Stunde)",
        "B200を8基（$36.88/時間）またはH200を8基（$24.56/時間）",
    ),
    ("[[recommend_ratio full-adamw qlora]]", "8", SAME, SAME),  # 36.88 / 4.61 = 8.0
    ("[[config 8xb200]]", "8× B200", SAME, "B200 8基"),
    # weights_gpu: the weights alone, not the run: LoRA's 140 GB of BF16 weights fit an H200
    ("[[weights_gpu lora]]", "H200", SAME, SAME),
    ("[[weights_gpu lora name]]", "H200", SAME, SAME),
    ("[[weights_gpu lora memory]]", "141 GB", SAME, SAME),
    ("[[weights_gpu qlora]]", "L40S", SAME, SAME),  # 35 GB in 4 bits
    ("[[weights_gpu full-adamw]]", "H200", SAME, SAME),  # its BF16 weights alone: 140 GB
    ("[[config h100@massed-compute]]", "1× H100", SAME, "H100 1基"),
    # verdict: the weights alone, or the whole estimate, against one card
    (
        "[[verdict qlora rtx-4090]]",
        "No. Even at 4 bits, the weights alone take 35 GB, more than the 24 GB of the RTX 4090. "
        "The smallest GPU we rent that holds it is the L40S.",
        "Nein. Selbst in 4 Bit nehmen allein die Gewichte 35 GB ein, mehr als die 24 GB der RTX "
        "4090. Die kleinste GPU in unserem Angebot, die den Lauf fasst, ist die L40S.",
        "いいえ。4ビットでも重みだけで35 GBを占め、RTX 4090の24 GBを超えます。この学習条件を収め"
        "られる当社の最小のGPUはL40Sです。",
    ),
    (
        "[[verdict lora h100]]",
        "No. Even at 16 bits, the weights alone take 140 GB, more than the 80 GB of the H100. "
        "The smallest GPU we rent that holds it is the H200.",
        "Nein. Selbst in 16 Bit nehmen allein die Gewichte 140 GB ein, mehr als die 80 GB der "
        "H100. Die kleinste GPU in unserem Angebot, die den Lauf fasst, ist die H200.",
        "いいえ。16ビットでも重みだけで140 GBを占め、H100の80 GBを超えます。この学習条件を収めら"
        "れる当社の最小のGPUはH200です。",
    ),
]

# Sentences that name methods: rendered with figures gathered in each language, as a page is.
SENTENCES = [
    (
        "[[tutorial_link]]",
        '<a href="/en/guides/best-gpu-for-llama-70b-fine-tuning/tutorial/">Step-by-step '
        "commands: fine-tune Llama 3.1 70B on a rented GPU</a>",
        '<a href="/de/guides/best-gpu-for-llama-70b-fine-tuning/tutorial/">'
        "Schritt-für-Schritt-Befehle: Llama 3.1 70B auf einer gemieteten GPU fine-tunen</a>",
        '<a href="/ja/guides/best-gpu-for-llama-70b-fine-tuning/tutorial/">'
        "手順ごとのコマンド：レンタルGPUでLlama 3.1 70Bをファインチューニング</a>",
    ),
    (  # 100 million tokens at 1,499 a second: 18.5 h (18.53 GPU-hours: the 24-hour block)
        "[[run_cost qlora]]",
        "$85.43 for 18.5 hours on one B200, within a 24 GPU-hour block",
        "85,43 $: eine B200, 18,5 Stunden lang, innerhalb eines Blocks von 24 GPU-Stunden",
        "B200を1基で18.5時間、$85.43（24 GPU時間のブロック内）",
    ),
    (
        "[[run_cost full-adamw]]",  # 8 x 5.04 = 40.3 GPU-hours: the 168-hour block
        "$185.82 for 5 hours on eight B200s, within a 168 GPU-hour block",
        "185,82 $: acht B200, 5 Stunden lang, innerhalb eines Blocks von 168 GPU-Stunden",
        "B200を8基で5時間、$185.82（168 GPU時間のブロック内）",
    ),
    (
        "[[run_cost lora]]",
        "$81.41 for 17.7 hours on one B200, within a 24 GPU-hour block",
        "81,41 $: eine B200, 17,7 Stunden lang, innerhalb eines Blocks von 24 GPU-Stunden",
        "B200を1基で17.7時間、$81.41（24 GPU時間のブロック内）",
    ),
    ("[[model]]", "Llama 3.1 70B", SAME, SAME),
    ("[[licence]]", "Gated.", "Zugangsbeschränkt.", "ゲート付き。"),
    (
        "[[cost_gap full-adamw qlora]]",  # per hour 36.88 / 4.61 = 8; per run 185.82 / 85.43 = 2.2
        "At our prices, about 8 times as much per hour of hardware: eight B200s ($36.88/hour) "
        "against one B200 ($4.61/hour). Per run of 100,000,000 training tokens in one epoch, 2.2 "
        "times as much: $185.82 against $85.43.",
        "Zu unseren Preisen etwa das 8-Fache pro Stunde Hardware; empfohlen sind acht B200 "
        "(36,88 $/Stunde) und eine B200 (4,61 $/Stunde). Pro Lauf mit 100.000.000 "
        "Trainings-Tokens in einer Epoche das 2,2-Fache: 185,82 $ gegenüber 85,43 $.",
        "当社の価格では、ハードウェア1時間あたり約8倍です：B200を1基（$4.61/時間）に対してB200を"
        "8基（$36.88/時間）。1エポックで100,000,000学習トークンの実行1回あたりでは2.2倍です：$85.43"
        "に対して$185.82。",
    ),
    (
        "[[cost_gap lora qlora]]",  # per run 81.41 / 85.43 = 0.95: within a tenth of the same
        "At our prices, nothing more per hour of hardware: both run on one B200 ($4.61/hour). "
        "Per run of 100,000,000 training tokens in one epoch, about as much: $81.41 against "
        "$85.43.",
        "Zu unseren Preisen kostet die Hardware pro Stunde nicht mehr: Beide nutzen eine B200 "
        "(4,61 $/Stunde). Pro Lauf mit 100.000.000 Trainings-Tokens in einer Epoche etwa "
        "gleich viel: 81,41 $ gegenüber 85,43 $.",
        "当社の価格では、ハードウェア1時間あたりの費用は変わりません：どちらもB200を1基（$4.61/時間）"
        "使って実行します。1エポックで100,000,000学習トークンの実行1回あたりでは、ほぼ同額です："
        "$85.43に対して$81.41。",
    ),
    (
        "[[too_small qlora]]",
        "By the estimate, every configuration compared here holds this guide&#x27;s QLoRA run.",
        "Nach der Schätzung fasst jede hier verglichene Konfiguration den QLoRA-Lauf "
        "dieses Ratgebers.",
        "推定では、このガイドで比較するどの構成も、このガイドのQLoRAの学習条件を収められます。",
    ),
    (
        "[[too_small lora]]",
        "Too small: one A100 80GB. This guide&#x27;s LoRA run needs 149.3 GB on it (an "
        "estimated peak of 147.5 GB plus the memory allocator&#x27;s margin); the A100 80GB can "
        "use 84.5 GB.",
        "Zu klein: eine A100 80GB. Der LoRA-Lauf dieses Ratgebers braucht darauf 149,3 GB (der "
        "geschätzte Spitzenwert von 147,5 GB plus die Reserve des Speicher-Allokators); die A100 "
        "80GB kann 84,5 GB nutzen.",
        "A100 80GBを1基使う構成では足りません：このガイドのLoRAの学習条件では149.3 GB（推定ピー"
        "ク147.5 GBにメモリアロケータの余裕分を加えた値）が必要ですが、A100 80GBで使用可能なのは"
        "84.5 GBです。",
    ),
    (
        "[[fit_note full-adamw]]",
        "8× H200 covers the 16-byte rule of thumb (1,120 GB) on paper with only 8 GB to spare. "
        "The estimate decides: sharded over its GPUs, this run needs 184.5 GB on each, more "
        "than the 148 GB each can use, so it is marked ✗ in the Full, AdamW column. 8× B200 "
        "leaves 4.9 GB per GPU beyond the estimate.",
        "8× H200 deckt die 16-Byte-Faustregel (1.120 GB) rechnerisch ab, mit nur 8 GB "
        "Spielraum. Entscheidend ist die Schätzung: Auf die GPUs verteilt braucht dieser Lauf "
        "184,5 GB pro GPU, mehr als die 148 GB, die jede nutzen kann; deshalb steht in der "
        "Spalte „Vollständig, AdamW“ ein ✗. 8× B200 lässt über die Schätzung hinaus 4,9 GB pro "
        "GPU frei.",
        "H200 8基は16バイトの目安（1,120 GB）を計算上は満たしますが、残りは8 GBしかありません。"
        "判定は推定によります：GPU間でシャーディングすると、この学習条件では1基あたり184.5 GB必"
        "要で、各GPUで使用可能な148 GBを超えるため、フル（AdamW）の列は✗です。B200 8基なら、推定を"
        "差し引いてもGPU1基あたり4.9 GBの余裕が残ります。",
    ),
    (
        "[[fit_note lora]]",
        "1× H200 covers the 2-byte rule of thumb (140 GB) on paper with only 1 GB to spare. The "
        "estimate decides: this run needs 149.3 GB on it, within the 149.6 GB it can use, so it "
        "is marked ✓ in the LoRA column. 1× B200 leaves 41.7 GB per GPU beyond the estimate.",
        "1× H200 deckt die 2-Byte-Faustregel (140 GB) rechnerisch ab, mit nur 1 GB Spielraum. "
        "Entscheidend ist die Schätzung: Dieser Lauf braucht darauf 149,3 GB, innerhalb der "
        "149,6 GB, die sie nutzen kann; deshalb steht in der Spalte „LoRA“ ein ✓. 1× B200 lässt "
        "über die Schätzung hinaus 41,7 GB pro GPU frei.",
        "H200 1基は2バイトの目安（140 GB）を計算上は満たしますが、残りは1 GBしかありません。判定"
        "は推定によります：この学習条件ではこの構成に149.3 GB必要で、使用可能な149.6 GBに収まる"
        "ため、LoRAの列は✓です。B200 1基なら、推定を差し引いてもGPU1基あたり41.7 GBの余裕が残り"
        "ます。",
    ),
    (
        "[[single_gpu qlora]]",
        "QLoRA fits on one GPU: the smallest we rent that holds this guide&#x27;s run (an "
        "estimated peak of 45.1 GB) is the L40S with 48 GB.",
        "QLoRA passt auf eine GPU: Die kleinste in unserem Angebot, die den Lauf dieses "
        "Ratgebers fasst (geschätzte Spitze: 45,1 GB), ist die L40S mit 48 GB.",
        "QLoRAはGPU1基に収まります：このガイドの学習条件（推定ピーク45.1 GB）を収められる当社の"
        "最小のGPUは48 GBのL40Sです。",
    ),
    (
        "[[single_gpu lora]]",
        "LoRA fits on one GPU: the smallest we rent that holds this guide&#x27;s run (an "
        "estimated peak of 147.5 GB) is the H200 with 141 GB.",
        "LoRA passt auf eine GPU: Die kleinste in unserem Angebot, die den Lauf dieses "
        "Ratgebers fasst (geschätzte Spitze: 147,5 GB), ist die H200 mit 141 GB.",
        "LoRAはGPU1基に収まります：このガイドの学習条件（推定ピーク147.5 GB）を収められる当社の"
        "最小のGPUは141 GBのH200です。",
    ),
    (
        "[[single_gpu full-adamw]]",
        "Full fine-tuning with AdamW does not fit on one GPU we rent: on one card this "
        "guide&#x27;s run would "
        "peak at 1,128.9 GB. Full fine-tuning with AdamW needs eight B200s, the fewest GPUs we "
        "rent that hold "
        "this guide&#x27;s run. Sharded, FSDP keeps FP32 master weights and gradients and "
        "splits them and the optimizer states across the GPUs: 184.5 GB per GPU with the memory "
        "allocator&#x27;s margin (an estimated peak of 147.5 GB), within the 189.4 GB each B200 "
        "can use. On four B200s it would need 360.5 GB on each, more than the 189.4 GB each can "
        "use.",
        "Vollständiges Fine-Tuning mit AdamW passt auf keine einzelne GPU in unserem Angebot: Auf "
        "einer Karte läge die Spitze des Laufs dieses Ratgebers bei 1.128,9 GB. Vollständiges "
        "Fine-Tuning mit AdamW braucht "
        "acht B200, die wenigsten GPUs in unserem Angebot, die den Lauf dieses Ratgebers "
        "fassen. Verteilt hält FSDP FP32-Master-Gewichte und -Gradienten und teilt sie mit den "
        "Optimizer-Zuständen auf die GPUs auf: 184,5 GB pro GPU mit der Reserve des "
        "Speicher-Allokators (die geschätzte Spitze von 147,5 GB), innerhalb der 189,4 GB, die "
        "jede B200 nutzen kann. Auf vier B200 bräuchte der Lauf 360,5 GB pro GPU, mehr als die "
        "189,4 GB, die jede nutzen kann.",
        "AdamWによるフルファインチューニングは当社のGPU1基には収まりません：1基ではこのガイドの"
        "学習条件のピークが1,128.9 GBに達します。AdamWによるフルファインチューニングに必要な構成：B"
        "200を8基。このガイドの学習条件を収める、当社で"
        "最も少ないGPU数です。シャーディングすると、FSDPはFP32のマスター重みと勾配を持ち、それら"
        "とオプティマイザ状態をGPU間で分割します：1基あたりメモリアロケータの余裕分を含めて184.5"
        " GB（推定ピーク147.5 GB）で、各B200で使用可能な189.4 GBに収まります。B200を4基にしても1"
        "基あたり360.5 GBが必要で、各GPUで使用可能な189.4 GBを超えます。",
    ),
    (
        "[[verdict qlora h100]]",
        "Yes. This guide&#x27;s QLoRA run needs 46.8 GB on one GPU (an estimated peak of 45.1 "
        "GB plus the memory allocator&#x27;s margin), and the H100 can use 84.4 GB.",
        "Ja. Der QLoRA-Lauf dieses Ratgebers braucht auf einer GPU 46,8 GB (die geschätzte "
        "Spitze von 45,1 GB plus die Reserve des Speicher-Allokators), und die H100 kann 84,4 "
        "GB nutzen.",
        "はい。このガイドのQLoRAの学習条件ではGPU1基に46.8 GB（推定ピーク45.1 GBにメモリアロケー"
        "タの余裕分を加えた値）が必要で、H100では84.4 GBを使用できます。",
    ),
    (
        "[[verdict lora h200]]",
        "Yes. This guide&#x27;s LoRA run needs 149.3 GB on one GPU (an estimated peak of 147.5 "
        "GB plus the memory allocator&#x27;s margin), and the H200 can use 149.6 GB.",
        "Ja. Der LoRA-Lauf dieses Ratgebers braucht auf einer GPU 149,3 GB (die geschätzte "
        "Spitze von 147,5 GB plus die Reserve des Speicher-Allokators), und die H200 kann 149,6 "
        "GB nutzen.",
        "はい。このガイドのLoRAの学習条件ではGPU1基に149.3 GB（推定ピーク147.5 GBにメモリアロケ"
        "ータの余裕分を加えた値）が必要で、H200では149.6 GBを使用できます。",
    ),
    (
        "[[holds qlora h100 a100-80gb]]",
        "Both hold this guide&#x27;s QLoRA run on one card: it needs 46.8 GB with the memory "
        "allocator&#x27;s margin; the H100 can use 84.4 GB, the A100 80GB 84.5 GB.",
        "Beide fassen den QLoRA-Lauf dieses Ratgebers auf einer einzelnen Karte: Er braucht mit "
        "der Reserve des Speicher-Allokators 46,8 GB; die H100 kann 84,4 GB nutzen, die A100 "
        "80GB 84,5 GB.",
        "どちらも1基でこのガイドのQLoRAの学習条件を収められます：メモリアロケータの余裕分を含め"
        "て46.8 GB必要で、使用可能なメモリはH100が84.4 GB、A100 80GBが84.5 GBです。",
    ),
    (
        "[[holds qlora h200 h100]]",
        "Both hold this guide&#x27;s QLoRA run on one card: it needs 46.8 GB with the memory "
        "allocator&#x27;s margin; the H200 can use 149.6 GB, the H100 84.4 GB.",
        "Beide fassen den QLoRA-Lauf dieses Ratgebers auf einer einzelnen Karte: Er braucht mit "
        "der Reserve des Speicher-Allokators 46,8 GB; die H200 kann 149,6 GB nutzen, die H100 "
        "84,4 GB.",
        "どちらも1基でこのガイドのQLoRAの学習条件を収められます：メモリアロケータの余裕分を含め"
        "て46.8 GB必要で、使用可能なメモリはH200が149.6 GB、H100が84.4 GBです。",
    ),
    (
        "[[holds lora b200 h200]]",
        "Both hold this guide&#x27;s LoRA run on one card: it needs 149.3 GB with the memory "
        "allocator&#x27;s margin; the B200 can use 191 GB, the H200 149.6 GB.",
        "Beide fassen den LoRA-Lauf dieses Ratgebers auf einer einzelnen Karte: Er braucht mit "
        "der Reserve des Speicher-Allokators 149,3 GB; die B200 kann 191 GB nutzen, die H200 "
        "149,6 GB.",
        "どちらも1基でこのガイドのLoRAの学習条件を収められます：メモリアロケータの余裕分を含めて"
        "149.3 GB必要で、使用可能なメモリはB200が191 GB、H200が149.6 GBです。",
    ),
    (
        "[[holds lora h200 b200]]",
        "Both hold this guide&#x27;s LoRA run on one card: it needs 149.3 GB with the memory "
        "allocator&#x27;s margin; the H200 can use 149.6 GB, the B200 191 GB.",
        "Beide fassen den LoRA-Lauf dieses Ratgebers auf einer einzelnen Karte: Er braucht mit "
        "der Reserve des Speicher-Allokators 149,3 GB; die H200 kann 149,6 GB nutzen, die B200 "
        "191 GB.",
        "どちらも1基でこのガイドのLoRAの学習条件を収められます：メモリアロケータの余裕分を含めて"
        "149.3 GB必要で、使用可能なメモリはH200が149.6 GB、B200が191 GBです。",
    ),
    (
        "[[holds full-adamw h100 a100-80gb]]",
        "Neither holds this guide&#x27;s Full, AdamW run on one card: it needs 1,408.3 GB with "
        "the memory allocator&#x27;s margin; the H100 can use 84.4 GB, the A100 80GB 84.5 GB. "
        "Both need several cards.",
        "Keine der beiden fasst den Vollständig, AdamW-Lauf dieses Ratgebers auf einer "
        "einzelnen Karte: Er braucht mit der Reserve des Speicher-Allokators 1.408,3 GB; die "
        "H100 kann 84,4 GB nutzen, die A100 80GB 84,5 GB. Beide brauchen mehrere Karten.",
        "どちらも1基ではこのガイドのフル（AdamW）の学習条件を収められません：メモリアロケータの余"
        "裕分を含めて1,408.3 GB必要ですが、使用可能なメモリはH100が84.4 GB、A100 80GBが84.5 GBで"
        "す。どちらも複数基が必要です。",
    ),
    (
        "[[speed qlora]]",  # trl's recipe was never timed: derived
        "For 100,000,000 training tokens in one epoch, QLoRA on one B200 runs at about 1,499 "
        "tokens per second: 18.5 hours, $85.43 at our prices. That speed is derived, not "
        "measured: a model of compute, memory traffic and the links between GPUs, calibrated on "
        "training steps we timed on one H200. Data loading and evaluation make a real run "
        "slower.",
        "Für 100.000.000 Trainings-Tokens in einer Epoche läuft QLoRA auf der empfohlenen "
        "Konfiguration (eine B200) mit etwa 1.499 Tokens pro Sekunde: 18,5 Stunden, 85,43 $ zu "
        "unseren Preisen. Diese Geschwindigkeit ist abgeleitet, nicht gemessen: aus einem "
        "Modell der Rechenleistung, des Speicherverkehrs und der Verbindungen zwischen den GPUs, "
        "kalibriert an Trainingsschritten, die wir auf einer H200 gemessen haben. Datenladen und "
        "Evaluation machen einen echten Lauf langsamer.",
        "1エポックで100,000,000学習トークンの場合、QLoRAはB200を1基で毎秒約1,499トークンの速度で"
        "実行でき、所要時間は18.5時間、費用は当社の価格で$85.43です。この速度は実測ではなく導出値"
        "です：演算、メモリ転送、GPU間接続のモデルを、当社がH200 1基で計測した学習ステップで較正"
        "して求めています。データの読み込みや評価の分だけ、実際の実行は遅くなります。",
    ),
]


@pytest.fixture(scope="module")
def figures_by_language(django_db_setup, django_db_blocker):
    """The seed's figures as a guide page gathers them in each language."""
    gathered = {}
    with django_db_blocker.unblock():
        for lang in ("en", "de", "ja"):
            with translation.override(lang):
                figures = page_figures(
                    params_billion=D(70),
                    at=SEED_DAY,
                    configurations=FIT_TABLE,
                    architecture=architecture("llama-3.1-70b"),
                    training=GUIDE_RUN,
                )
                gathered[lang] = dataclasses.replace(
                    figures,
                    scenarios=[  # two of the seed guide's cost scenarios
                        calc.CostScenario("qlora", figures.configuration("a100-80gb"), D(10)),
                        calc.CostScenario("full-adamw", figures.configuration("b200", 8), D(21)),
                    ],
                    model_name="Llama 3.1 70B",
                    model_repository="meta-llama/Llama-3.1-70B",
                    guide_slug="best-gpu-for-llama-70b-fine-tuning",
                    licence_notes={
                        "en": "Gated.",
                        "de": "Zugangsbeschränkt.",
                        "ja": "ゲート付き。",
                    },
                )
    return gathered


@pytest.mark.parametrize(("token", "en", "de", "ja"), SENTENCES, ids=[r[0] for r in SENTENCES])
def test_each_sentence_kind_in_each_language(figures_by_language, token, en, de, ja):
    got = {lang: rendered(token, figures_by_language[lang], lang) for lang in ("en", "de", "ja")}
    expected = {"en": en, "de": en if de is SAME else de, "ja": en if ja is SAME else ja}
    assert got == expected, token


@pytest.mark.parametrize(("token", "en", "de", "ja"), KINDS, ids=[row[0] for row in KINDS])
def test_each_kind_and_option_in_each_language(figures, token, en, de, ja):
    assert_renders(figures, token, en, en if de is SAME else de, en if ja is SAME else ja)


def test_the_table_covers_every_kind_and_every_choice():
    from guides.content.tokens.registry import Choice, registry
    from tests.guides.content.tokens.test_serving_kinds import SERVING_KINDS

    used = [row[0][2:-2].split() for row in KINDS + SENTENCES + SERVING_KINDS]
    for kind in registry:
        words = [w for w in used if w[0] == kind.name]
        assert words, kind.name
        for position, arg in enumerate(kind.required + kind.optional, start=1):
            if isinstance(arg, Choice):
                seen = {w[position] for w in words if len(w) > position}
                assert seen == set(arg.options), (kind.name, arg.options)
        if kind.optional:
            assert any(len(w) == 1 + len(kind.required) for w in words), f"{kind.name} default"


def test_longest_sequence_lists_each_recommendation_in_each_language(figures):
    """The 70B guide's run (2,048 tokens, batch 1, checkpointing, rank 16) on the trl recipe:
    an A100 80GB (84.47 GB usable) holds 17,152 tokens of QLoRA; the 48 GB L40S (47.18 GB
    usable, 44.42 GiB as PyTorch reports it less the CUDA context) 2,048."""
    guide_run = dataclasses.replace(
        figures,
        architecture=Architecture(8192, 80, 64, 8, 28672, 128256),
        training=TrainingSetup(Method.QLORA, seq_len=2048),
        recommendations={
            "qlora": [figures.configuration("a100-80gb"), figures.configuration("l40s")],
            "lora": [figures.configuration("h200", 2)],
            "full-adamw": [figures.configuration("l40s")],
        },
    )
    assert_renders(
        guide_run,
        "[[longest_sequence qlora]]",
        "1× A100 80GB up to 17,152 tokens and 1× L40S up to 2,048 tokens",
        "1× A100 80GB bis 17.152 Tokens und 1× L40S bis 2.048 Tokens",
        "A100 80GB 1基は17,152トークンまで、L40S 1基は2,048トークンまで",
    )
    # two H200s shard LoRA's bf16 weights: 28,416 tokens
    assert_renders(
        guide_run,
        "[[longest_sequence lora]]",
        "2× H200 up to 28,416 tokens",
        "2× H200 bis 28.416 Tokens",
        "H200 2基は28,416トークンまで",
    )
    assert_renders(
        guide_run,
        "[[longest_sequence full-adamw]]",
        "1× L40S: not even 256 tokens",
        "1× L40S: nicht einmal 256 Tokens",
        "L40S 1基では256トークンも扱えません",
    )
    # no override for 8-bit Adam: the computed recommendations, the cheapest run first
    assert_renders(
        guide_run,
        "[[longest_sequence full-8bit-adam]]",
        "8× B200 up to 52,480 tokens and 8× H200 up to 34,304 tokens",
        "8× B200 bis 52.480 Tokens und 8× H200 bis 34.304 Tokens",
        "B200 8基は52,480トークンまで、H200 8基は34,304トークンまで",
    )


def test_where_nothing_on_one_host_holds_a_method_the_tokens_say_so(figures, django_db_blocker):
    """405 B: full fine-tuning peaks at 528 GB (8-bit Adam) and 831 GB (AdamW) per GPU even
    sharded over eight, more than any card holds."""
    with django_db_blocker.unblock():
        big_model = architecture("llama-3.1-405b")
    big = dataclasses.replace(figures, params_billion=D(405), architecture=big_model)
    beyond = (
        "more than one 8-GPU host, which we do not offer",
        "mehr GPUs, als ein Host mit 8 GPUs hat (mehrere Hosts vermieten wir nicht)",
        "GPU8基のホスト1台を超える構成（当社では提供していません）",
    )
    for token in ("[[recommend full-adamw]]", "[[recommend full-8bit-adam first plain]]"):
        assert_renders(big, token, *beyond)
    assert_renders(
        big,
        "[[fit_note full-adamw]]",
        "By the estimate, no configuration on one host holds this Full, AdamW run.",
        "Nach der Schätzung fasst keine Konfiguration auf einem Host diesen Lauf (Full, AdamW).",
        "推定では、1台のホスト上のどの構成にもこの学習条件（Full, AdamW）は収まりません。",
    )
    # and QLoRA still has configurations that hold it: four A100s (a close call decided by the
    # cheaper up-front block), eight B200s the fastest
    assert_renders(
        big,
        "[[recommend qlora both plain]]",
        "four A100 80GB GPUs or eight B200s",
        "vier A100 80GB oder acht B200",
        "A100 80GBを4基またはB200を8基",
    )
    # two H200s hold QLoRA's 137.8 GB per GPU within the 148 GB each can use (the reported
    # 150.11 GB less the CUDA context and NCCL's buffers)
    assert_renders(
        big,
        "[[needs qlora]]",
        "QLoRA needs two H200s, the fewest GPUs we rent that hold this guide&#x27;s run. "
        "Sharded, the weights are split across the GPUs, while each keeps the layers being "
        "gathered and its own activations: 137.8 GB per GPU with the memory allocator&#x27;s "
        "margin (an estimated peak of 130.5 GB), within the 148 GB each H200 can use. On one "
        "B200 it would need 236.7 GB, more than the 191 GB it can use.",
        "QLoRA braucht zwei H200, die wenigsten GPUs in unserem Angebot, die den Lauf dieses "
        "Ratgebers fassen. Verteilt werden die Gewichte auf die GPUs aufgeteilt, doch jede hält "
        "die gerade gesammelten Schichten und ihre eigenen Aktivierungen: 137,8 GB pro GPU mit "
        "der Reserve des Speicher-Allokators (die geschätzte Spitze von 130,5 GB), innerhalb "
        "der 148 GB, die jede H200 nutzen kann. Auf einer B200 bräuchte der Lauf 236,7 GB, mehr "
        "als die 191 GB, die sie nutzen kann.",
        "QLoRAに必要な構成：H200を2基。このガイドの学習条件を収める、当社で最も少ないGPU数です。"
        "シャーディングすると重みはGPU間で分割されますが、各GPUは収集中の層と自身のアクティベー"
        "ションを保持します：1基あたりメモリアロケータの余裕分を含めて137.8 GB（推定ピーク130.5 "
        "GB）で、各H200で使用可能な148 GBに収まります。B200 1基では236.7 GBが必要で、使用可能な1"
        "91 GBを超えます。",
    )
    assert_renders(
        big,
        "[[needs full-adamw]]",
        "Full fine-tuning with AdamW needs more than one 8-GPU host, which we do not offer: on "
        "eight B200s, the "
        "most we rent on one host, this guide&#x27;s run would need 1,038.1 GB on each with the "
        "memory allocator&#x27;s margin, more than the 189.4 GB each can use.",
        "Full fine-tuning with AdamW braucht mehr GPUs, als ein Host mit 8 GPUs hat (mehrere Hosts "
        "vermieten wir "
        "nicht): Auf acht "
        "B200, dem Größten, was wir auf einem Host vermieten, bräuchte der Lauf dieses "
        "Ratgebers mit der Reserve des Speicher-Allokators 1.038,1 GB pro GPU, mehr als die "
        "189,4 GB, die jede nutzen kann.",
        "Full fine-tuning with AdamWにはGPU8基のホスト1台を超える構成（当社では提供していません）が"
        "必要です：1ホ"
        "ストで当社が貸し出す最大の構成（B200を8基）でも、このガイドの学習条件はメモリアロケータ"
        "の余裕分を含めて1基あたり1,038.1 GBを要し、各GPUで使用可能な189.4 GBを超えます。",
    )
    assert_renders(
        big,
        "[[we_recommend full-adamw]]",
        "We have nothing on one host to recommend for it.",
        "Auf einem Host können wir dafür nichts empfehlen.",
        "1ホストで推奨できる構成はありません。",
    )
    # no gap to speak of where the first method cannot be priced
    assert_renders(
        big,
        "[[gap_conclusion full-adamw qlora]]",
        "Full fine-tuning with AdamW does not fit on one host we rent, so at 405B a project here "
        "starts with QLoRA "
        "or LoRA.",
        "Full fine-tuning with AdamW passt auf keinen Host in unserem Angebot; ein 405B-Projekt "
        "beginnt hier "
        "also mit QLoRA oder LoRA.",
        "Full fine-tuning with AdamWは当社の1ホストに収まらないため、405Bのプロジェクトは"
        "ここではQLoRAまたはLoRAから始めます。",
    )
    assert_renders(
        big,
        "[[cost_gap full-adamw qlora]]",
        *(
            f"{start}{b}{end}"
            for start, b, end in zip(
                (
                    "We cannot price it: Full fine-tuning with AdamW needs ",
                    "Einen Preis können wir nicht nennen: Full fine-tuning with AdamW braucht ",
                    "価格は示せません：Full fine-tuning with AdamWには",
                ),
                beyond,
                (".", ".", "が必要です。"),
                strict=True,
            )
        ),
    )


def test_a_gpu_we_do_not_rent_is_never_recommended_but_can_be_judged(figures, django_db_blocker):
    """8 B: QLoRA needs 11.5 GB of the RTX 4090's 25.8 GB usable; we do not rent it."""
    with django_db_blocker.unblock():
        small_model = architecture("llama-3.1-8b")
    small = dataclasses.replace(figures, params_billion=D(8), architecture=small_model)
    assert_renders(
        small,
        "[[verdict qlora rtx-4090]]",
        "Yes. This guide&#x27;s QLoRA run needs 7.7 GB on one GPU (an estimated peak of 7.2 GB "
        "plus the memory allocator&#x27;s margin), and the RTX 4090 can use 24.9 GB. We do not "
        "rent the RTX 4090, though.",
        "Ja. Der QLoRA-Lauf dieses Ratgebers braucht auf einer GPU 7,7 GB (die geschätzte "
        "Spitze von 7,2 GB plus die Reserve des Speicher-Allokators), und die RTX 4090 kann "
        "24,9 GB nutzen. Die RTX 4090 vermieten wir allerdings nicht.",
        "はい。このガイドのQLoRAの学習条件ではGPU1基に7.7 GB（推定ピーク7.2 GBにメモリアロケータ"
        "の余裕分を加えた値）が必要で、RTX 4090では24.9 GBを使用できます。ただし、当社ではRTX 40"
        "90をレンタルしていません。",
    )
    with_4090 = dataclasses.replace(
        small, configurations=[figures.configuration("rtx-4090"), *small.configurations]
    )
    assert_renders(
        with_4090,
        "[[recommend qlora]]",  # never the RTX 4090, though it holds the run
        "one L40S ($0.82/hour) or eight B200s ($36.88/hour)",
        "eine L40S (0,82 $/Stunde) oder acht B200 (36,88 $/Stunde)",
        "L40Sを1基（$0.82/時間）またはB200を8基（$36.88/時間）",
    )
    assert_renders(
        with_4090,
        "[[too_small qlora]]",
        "By the estimate, every configuration compared here holds this guide&#x27;s QLoRA run.",
        "Nach der Schätzung fasst jede hier verglichene Konfiguration den QLoRA-Lauf "
        "dieses Ratgebers.",
        "推定では、このガイドで比較するどの構成も、このガイドのQLoRAの学習条件を収められます。",
    )


def test_throughput_is_measured_only_for_the_recipe_and_gpu_that_were_timed(figures):
    """The 70B QLoRA run was timed on one H200 with the measured recipe: on that card and
    recipe the token quotes the measurement; trl's recipe on the same card is derived."""
    measured = ThroughputListing(
        gpu_slug="h200",
        gpu_name="H200",
        tokens_per_s=D("508.2"),
        measured_on=date(2026, 11, 29),
        recipe="measure_memory.py",
    )
    on_h200 = {"qlora": [figures.configuration("h200")]}  # an editor's override
    timed = dataclasses.replace(
        figures,
        throughputs={"qlora": measured},
        recommendations=on_h200,
        training=dataclasses.replace(GUIDE_RUN, recipe=MEASURED),
    )
    assert_renders(
        timed,
        "[[throughput qlora]]",
        "508.2 tokens per second on one H200 (measured)",
        "508,2 Tokens pro Sekunde (eine H200, gemessen)",
        "H200を1基で毎秒508.2トークン（実測）",
    )
    trl = dataclasses.replace(figures, throughputs={"qlora": measured}, recommendations=on_h200)
    assert_renders(
        trl,
        "[[throughput qlora]]",
        "662 tokens per second on one H200 (derived)",
        "662 Tokens pro Sekunde (eine H200, abgeleitet)",
        "H200を1基で毎秒662トークン（導出値）",
    )


def test_checked_on_reads_the_named_provider(figures):
    later = dataclasses.replace(
        figures, check_dates={**figures.check_dates, "massed-compute": date(2026, 11, 3)}
    )
    assert_renders(
        later, "[[checked_on]]", "October 29, 2026", "29. Oktober 2026", "2026年10月29日"
    )
    assert_renders(
        later,
        "[[checked_on massed-compute]]",
        "November 3, 2026",
        "3. November 2026",
        "2026年11月3日",
    )
    assert_renders(later, "[[checked_on nobody]]", MISSING, MISSING, MISSING)


def test_checked_on_a_gpu_dates_that_gpus_price_not_the_providers_latest_check(figures):
    """A competitor checked on December 6 for one card still quotes its B200 from November 3:
    a sentence quoting the B200 dates it November 3 (issue 53)."""
    theirs = figures.listings["massed-compute"]
    b200 = dataclasses.replace(theirs["b200"], checked_on=date(2026, 11, 3))
    later = dataclasses.replace(
        figures,
        listings={**figures.listings, "massed-compute": {**theirs, "b200": b200}},
        check_dates={**figures.check_dates, "massed-compute": date(2026, 12, 6)},
    )
    assert_renders(
        later, "[[checked_on massed-compute]]", "December 6, 2026", "6. Dezember 2026",
        "2026年12月6日",
    )  # fmt: skip
    assert_renders(
        later, "[[checked_on massed-compute b200]]", "November 3, 2026", "3. November 2026",
        "2026年11月3日",
    )  # fmt: skip
    assert_renders(later, "[[checked_on massed-compute rtx-4090]]", MISSING, MISSING, MISSING)


def test_without_a_model_size_memory_figures_are_a_dash(figures, caplog):
    # estimate_memory refuses 0 parameters; the page shows a dash and logs why.
    nothing = dataclasses.replace(figures, params_billion=D(0))
    assert_renders(nothing, "[[memory qlora]]", MISSING, MISSING, MISSING)
    assert "cannot fill [[memory qlora]]: a model needs a positive number of parameters" in (
        caplog.text
    )


@pytest.mark.parametrize(
    "token", ["[[nothing]]", "[[memory]]", "[[memory qlora sideways]]", "[[]]", "[[ ]]"]
)
def test_a_malformed_token_on_a_page_is_a_dash(figures, token, caplog):
    assert rendered(token, figures, "en") == MISSING
    assert f"cannot fill {token}" in caplog.text


@pytest.fixture
def bold_gpu(seeded):
    """A rentable GPU named ``<b>``: 48 GB like the L40S (no report on file: 48 GiB, which holds
    QLoRA's estimate), cheaper, so the smallest on the tie; as fast as an H100 and cheaper than
    the A100: the cheapest run."""
    Gpu.objects.create(
        slug="bold", name="<b>", memory_gb=D(48), bandwidth_gb_s=D(1000),
        bf16_dense_tflops=D(1000), form_factor="sxm", spec_source=Source.objects.first(),
    )  # fmt: skip
    price_check_record(
        provider_slug="gpuwithcrypto", checked_on=date(2026, 11, 1), prices={"bold": D("0.50")}
    )
    return page_figures(
        params_billion=D(70),
        at=date(2026, 11, 1),
        configurations=[*FIT_TABLE, ("bold", 1)],
        architecture=architecture("llama-3.1-70b"),
        training=GUIDE_RUN,
    )


def test_a_gpu_name_is_escaped_wherever_a_token_shows_it(bold_gpu):
    assert_renders(bold_gpu, "[[smallest_gpu qlora]]", "&lt;b&gt;", "&lt;b&gt;", "&lt;b&gt;")
    assert_renders(bold_gpu, "[[cheapest qlora]]", "1× &lt;b&gt;", "1× &lt;b&gt;", "&lt;b&gt;を1基")
    link = '<a href="/{}/compare/bold-vs-h100/">{}</a>'
    assert_renders(
        bold_gpu,
        "[[compare_link bold h100]]",
        link.format("en", "&lt;b&gt; vs H100"),
        link.format("de", "&lt;b&gt; vs. H100"),
        link.format("ja", "&lt;b&gt;とH100の比較"),
    )
    html = prose_html("Try the [[smallest_gpu qlora]].", bold_gpu)
    assert html == "<p>Try the &lt;b&gt;.</p>"


def test_render_plain_leaves_no_tags(figures):
    text = "See [[link vram]] or [[compare_link h100 a100-80gb]]: `--use_peft` & more"
    with translation.override("de"):
        plain = render_plain(text, figures)
    assert plain == "See Wie viel VRAM brauche ich? or H100 vs. A100 80GB: --use_peft & more"
    assert "<a" not in plain and "<code>" not in plain


def test_render_plain_gives_the_raw_name(bold_gpu):
    # Meta descriptions and JSON-LD escape on output themselves: no double escaping here.
    assert render_plain("[[smallest_gpu qlora]] & [[cheapest qlora]]", bold_gpu) == "<b> & 1× <b>"


# --- the helpers behind the estimate's sentences, branch by branch --------------------------


@pytest.mark.parametrize(
    ("count", "reserved", "expected"),
    [
        (1, "85.3", "The estimate decides: this run needs %(need)s on it, within the %(usable)s "
         "it can use, so it is marked ✓ in the %(method)s column."),
        (1, "85.4", "The estimate decides: this run needs %(need)s on it, more than the "
         "%(usable)s it can use, so it is marked ✗ in the %(method)s column."),
        (2, "83.7", "The estimate decides: sharded over its GPUs, this run needs %(need)s on "
         "each, within the %(usable)s each can use, so it is marked ✓ in the %(method)s column."),
        (2, "83.8", "The estimate decides: sharded over its GPUs, this run needs %(need)s on "
         "each, more than the %(usable)s each can use, so it is marked ✗ in the %(method)s "
         "column."),
    ],
)  # fmt: skip
def test_what_the_estimate_decides_says_of_one_card_and_of_several(count, reserved, expected):
    # 80 GiB = 85.9 GB: 85.39 usable alone (less the CUDA context), 83.77 on each of several
    # (less NCCL's buffers too)
    card = calc.GpuOffer("a100", "A100", D(80), D("0.92"))
    plan = calc.PlannedFit(calc.Configuration(card, count), D(0), D(reserved), D(reserved))
    with translation.override("en"):
        assert kinds._estimate_decides(plan, count) == expected


def test_estimates_are_shown_to_a_tenth_rounded_half_up():
    with translation.override("en"):
        shown = presentation.estimated_gigabytes
        assert shown(D("50.25")).replace("\u00a0", " ") == "50.3 GB"  # half-even: 50.2
        assert shown(D("50.249")).replace("\u00a0", " ") == "50.2 GB"


def test_a_name_that_says_its_memory_with_a_space_is_recognised():
    assert kinds._names_its_memory("RTX A6000 48 GB", D(48))
    assert kinds._names_its_memory("A100 80GB", D(80))
    assert not kinds._names_its_memory("B200", D(180))


def test_an_unpriced_recommendation_is_named_and_cannot_be_compared(figures):
    not_rented = dataclasses.replace(
        figures, recommendations={"qlora": [figures.configuration("rtx-4090")]}
    )
    assert_renders(
        not_rented,
        "[[recommend qlora]]",
        "one RTX 4090 (not rented)",
        "eine RTX 4090 (nicht im Angebot)",
        "RTX 4090を1基（レンタル対象外）",
    )
    with pytest.raises(MissingFigure) as missing:
        kinds._priced(figures.configuration("rtx-4090"), "qlora")
    assert missing.value.args == ("a price for the configuration recommended for qlora",)


def test_the_cost_gap_compares_the_recommended_runs_of_both_methods(figures, django_db_blocker):
    """8 B: one L40S runs QLoRA ($8.48); full fine-tuning keeps fp32 masters (128.6 GB at
    its peak on one card), and four A100s run it cheapest ($18.61): about 4 times per hour,
    2.2 times per run."""
    with django_db_blocker.unblock():
        small_model = architecture("llama-3.1-8b")
    small = dataclasses.replace(figures, params_billion=D(8), architecture=small_model)
    assert_renders(
        small,
        "[[cost_gap full-adamw qlora]]",
        "At our prices, about 4 times as much per hour of hardware: four A100 80GB GPUs "
        "($3.68/hour) against one L40S ($0.82/hour). Per run of 100,000,000 training tokens in "
        "one epoch, 2.2 times as much: $18.61 against $8.48.",
        "Zu unseren Preisen etwa das 4-Fache pro Stunde Hardware; empfohlen sind vier A100 80GB "
        "(3,68 $/Stunde) und eine L40S (0,82 $/Stunde). Pro Lauf mit 100.000.000 "
        "Trainings-Tokens in einer Epoche das 2,2-Fache: 18,61 $ gegenüber 8,48 $.",
        "当社の価格では、ハードウェア1時間あたり約4倍です：L40Sを1基（$0.82/時間）に対してA100 "
        "80GBを4基（$3.68/時間）。1エポックで100,000,000学習トークンの実行1回あたりでは2.2倍で"
        "す：$8.48に対して$18.61。",
    )
    assert_renders(
        small,
        "[[gap_conclusion full-adamw qlora]]",
        "At 2.2 times the cost per run at our prices ($18.61 against $8.48), QLoRA or LoRA is "
        "the cheaper start at 8B; full fine-tuning stays within reach where the "
        "adapters fall short.",
        "Beim 2,2-Fachen pro Lauf zu unseren Preisen (18,61 $ gegenüber 8,48 $) ist QLoRA oder "
        "LoRA der günstigere Einstieg für ein 8B-Projekt; vollständiges Fine-Tuning bleibt in "
        "Reichweite, wo die Adapter nicht genügen.",
        "当社の価格で実行1回あたり2.2倍（$8.48に対して$18.61）のため、8Bのプロジェクトは"
        "QLoRAまたはLoRAから始めるほうが安価です。アダプタで足りない場合は、フルファインチューニン"
        "グ"
        "も選択肢に残ります。",
    )
    # one B200 is the smallest card that holds it, though four A100s are recommended
    assert_renders(
        small,
        "[[needs full-adamw]]",
        "Full fine-tuning with AdamW needs one B200, the smallest card we rent that holds this "
        "guide&#x27;s "
        "run: 160.4 GB with the memory allocator&#x27;s margin (an estimated peak of 128.6 GB), "
        "within the 191 GB it can use.",
        "Full fine-tuning with AdamW braucht eine B200, die kleinste Karte in unserem Angebot, die "
        "den Lauf "
        "dieses Ratgebers fasst: 160,4 GB mit der Reserve des Speicher-Allokators (die "
        "geschätzte Spitze von 128,6 GB), innerhalb der 191 GB, die sie nutzen kann.",
        "Full fine-tuning with AdamWに必要な構成：B200を1基。このガイドの学習条件を収める、当社で最"
        "も小さいカード"
        "です：メモリアロケータの余裕分を含めて160.4 GB（推定ピーク128.6 GB）で、使用可能な191 GB"
        "に収まります。",
    )
    # the other two wordings of the hourly gap, with an editor's choices: full fine-tuning on
    # two H200s ($6.14) against QLoRA on one B200 ($4.61), not even twice; both on one B200
    chosen = dataclasses.replace(
        small,
        recommendations={
            "full-adamw": [small.configuration("h200", 2)],
            "qlora": [small.configuration("b200")],
        },
    )
    hourly = rendered("[[cost_gap full-adamw qlora]]", chosen, "en").split(". Per run")[0]
    assert hourly == (
        "At our prices, not even twice as much per hour of hardware: two H200s ($6.14/hour) "
        "against one B200 ($4.61/hour)"
    )
    same = dataclasses.replace(
        chosen, recommendations={m: [small.configuration("b200")] for m in ("full-adamw", "qlora")}
    )
    both = rendered("[[cost_gap full-adamw qlora]]", same, "en").split(". ")[0]
    assert both == (
        "At our prices, nothing more per hour of hardware: both run on one B200 ($4.61/hour)"
    )
