"""The published guide "Which GPU is best for fine-tuning Llama 70B?" in en, de and ja.

German and Japanese follow shared/seeds/; English is written from them. Every figure is a
token (see guides.tokens), so the text stays true when a price or a rule changes. Loading
creates what is missing and never overwrites an editor's later edits.
"""

from decimal import Decimal as D

from django.db import transaction

from guides.editing import translation_stamps_update
from guides.models import (
    CostScenario,
    FaqEntry,
    FitConfiguration,
    Guide,
    GuideSource,
    Recommendation,
    Section,
)
from pricing.models import Fact, Gpu, LanguageModel, Method, Source
from pricing.seed import SEED_CHECK_DATE

GUIDE_SLUG = "best-gpu-for-llama-70b-fine-tuning"

FACTS = [
    # key, value, kind, description, source key
    ("minimum-top-up", D("25"), Fact.Kind.USD, "Smallest crypto top-up we accept", None),
    (
        "lora-trainable-reduction",
        D("10000"),
        Fact.Kind.NUMBER,
        "How many times fewer trainable parameters LoRA needs than full fine-tuning (GPT-3 175B)",
        "lora-paper",
    ),
    (
        "lora-adapter-overhead",
        D("1"),
        Fact.Kind.PERCENT,
        "Memory LoRA adapters and their optimizer add to a 70B base, roughly",
        None,
    ),
    ("max-gpus-per-instance", D("8"), Fact.Kind.NUMBER, "Most GPUs one of our hosts has", None),
]

GUIDE = {
    "title": {
        "en": "Which GPU is best for fine-tuning Llama 70B?",
        "de": "Welche ist die beste GPU zum Fine-Tuning von Llama 70B?",
        "ja": "Llama 70Bをファインチューニングするのに最適なGPUはどれですか？",
    },
    "meta_description": {
        "en": "QLoRA, LoRA or full fine-tuning of Llama 70B: the memory each method needs, which "
        "GPU configurations fit, and what a run costs at our prices.",
        "de": "QLoRA, LoRA oder Full Fine-Tuning von Llama 70B: Speicherbedarf je Methode, "
        "passende GPU-Konfigurationen und Kosten eines Laufs zu unseren Preisen.",
        "ja": "Llama 70BのQLoRA、LoRA、フルファインチューニング：手法ごとの必要メモリ、"
        "収まるGPU構成、当社価格での実行コスト。",
    },
    "short_answer": {
        "en": "The best GPU for fine-tuning Llama 70B depends on the method. QLoRA needs about "
        "[[memory qlora]], so one [[smallest_gpu qlora memory]] A100 or H100. LoRA on a BF16 "
        "base needs about [[memory lora]], so one [[spec b200 memory]] B200 or two H200s. "
        "Full fine-tuning needs [[memory full-adamw range]] before activations, so "
        "[[cheapest full-adamw]]. As of [[checked_on]], GPUwithCrypto rents an A100 80GB for "
        "[[price a100-80gb]]/hour, payable in crypto.",
        "de": "Die beste GPU zum Fine-Tuning von Llama 70B hängt von der Methode ab. QLoRA braucht "
        "etwa [[memory qlora]], also eine A100 oder H100 mit [[smallest_gpu qlora memory]]. "
        "LoRA auf einer BF16-Basis braucht etwa [[memory lora]], also eine B200 mit "
        "[[spec b200 memory]] oder zwei H200. Full Fine-Tuning braucht "
        "[[memory full-adamw range]] vor den Activations, also [[cheapest full-adamw]]. "
        "Stand [[checked_on]] vermietet GPUwithCrypto eine A100 80GB für "
        "[[price a100-80gb]]/Stunde, mit Krypto bezahlbar.",
        "ja": "Llama 70Bをファインチューニングするのに最適なGPUは手法によって変わります。QLoRAは約"
        "[[memory qlora]]必要なので、[[smallest_gpu qlora memory]]のA100またはH100を1台。"
        "BF16ベースのLoRAは約[[memory lora]]必要なので、[[spec b200 memory]]のB200を1台"
        "またはH200を2台。フルファインチューニングはアクティベーションを除いて"
        "[[memory full-adamw range]]必要なので、[[cheapest full-adamw]]。[[checked_on]]時点で、"
        "GPUwithCryptoはA100 80GBを[[price a100-80gb]]/時間でレンタルしており、"
        "暗号資産で支払えます。",
    },
}

SECTIONS = [
    {
        "table": Section.Table.METHODS,
        "heading": {
            "en": "Which GPU for which method?",
            "de": "Welche GPU für welche Methode?",
            "ja": "手法ごとにどのGPUを使うか？",
        },
        "caption": {
            "en": "Memory and recommended GPUs per method",
            "de": "Speicher und empfohlene GPUs je Methode",
            "ja": "手法ごとのメモリと推奨GPU",
        },
        "body": {},
        "closing": {
            "en": "Too small: one L40S with [[spec l40s memory]] misses the QLoRA estimate of "
            "[[memory qlora]], although the QLoRA authors fitted a "
            "[[reference qlora params]]B model on one [[reference qlora memory]] GPU.",
            "de": "Zu klein: Eine L40S mit [[spec l40s memory]] verfehlt die QLoRA-Schätzung von "
            "[[memory qlora]]; die QLoRA-Autoren haben ein [[reference qlora params]]B-Modell "
            "auf einer GPU mit [[reference qlora memory]] untergebracht.",
            "ja": "小さすぎる：[[spec l40s memory]]のL40Sを1台では[[memory qlora]]というQLoRAの"
            "見積もりに届きませんが、QLoRAの著者らは[[reference qlora params]]Bモデルを"
            "[[reference qlora memory]]のGPU1台に収めています。",
        },
    },
    {
        "table": Section.Table.MEMORY,
        "heading": {
            "en": "How much memory does each method need for Llama 70B?",
            "de": "Wie viel Speicher braucht jede Methode für Llama 70B?",
            "ja": "Llama 70Bでは手法ごとにどれだけのメモリが必要ですか？",
        },
        "caption": {
            "en": "Memory rules and their sources",
            "de": "Speicherregeln und Quellen",
            "ja": "メモリの計算ルールと出典",
        },
        "body": {
            "en": "- QLoRA: the base model is loaded in 4 bits and frozen; only small adapters are "
            "trained. The QLoRA paper fine-tuned a [[reference qlora params]]B model on one "
            "[[reference qlora memory]] GPU: [[breakdown qlora]] GB per billion parameters, "
            "rounded up to [[bytes qlora]]. For [[params]]B: [[params]] × [[bytes qlora]] = "
            "[[memory qlora]].\n"
            "- LoRA: the base stays in BF16 and frozen: [[params]] × [[bytes lora]] bytes = "
            "[[memory lora lower]]. Adapters and their optimizer add about "
            "[[fact lora-adapter-overhead]]; with our planning margin of [[margin lora]]: "
            "[[memory lora lower]] × [[margin lora factor]] = [[memory lora]].\n"
            "- Full fine-tuning, mixed precision with AdamW: EleutherAI counts "
            "[[breakdown full-adamw 1]] bytes per parameter (weights, optimizer with an FP32 "
            "copy, gradients): [[params]] × [[bytes full-adamw 1]] = "
            "[[memory full-adamw lower]]. Hugging Face counts [[breakdown full-adamw 2]] bytes: "
            "[[memory full-adamw upper]]. Activations come on top.\n"
            "- Full fine-tuning with 8-bit Adam: Hugging Face counts 8-bit optimizer states "
            "instead of full ones, so [[breakdown full-8bit-adam]] bytes: [[params]] × "
            "[[bytes full-8bit-adam]] = [[memory full-8bit-adam]].",
            "de": "- QLoRA: Das Basismodell wird in 4 Bit geladen und eingefroren; nur kleine Adapter "
            "werden trainiert. Das QLoRA-Paper hat ein [[reference qlora params]]B-Modell auf "
            "einer GPU mit [[reference qlora memory]] fine-getunt: [[breakdown qlora]] GB pro "
            "Milliarde Parameter, aufgerundet auf [[bytes qlora]]. Für [[params]]B: "
            "[[params]] × [[bytes qlora]] = [[memory qlora]].\n"
            "- LoRA: Die Basis bleibt in BF16 und eingefroren: [[params]] × [[bytes lora]] "
            "Byte = [[memory lora lower]]. Adapter und ihr Optimizer kommen mit etwa "
            "[[fact lora-adapter-overhead]] dazu; mit unserem Planungszuschlag von "
            "[[margin lora]]: [[memory lora lower]] × [[margin lora factor]] = [[memory lora]].\n"
            "- Full Fine-Tuning, Mixed Precision mit AdamW: EleutherAI rechnet mit "
            "[[breakdown full-adamw 1]] Byte pro Parameter (Gewichte, Optimizer mit "
            "FP32-Kopie, Gradienten): [[params]] × [[bytes full-adamw 1]] = "
            "[[memory full-adamw lower]]. Hugging Face rechnet mit [[breakdown full-adamw 2]] "
            "Byte: [[memory full-adamw upper]]. Activations kommen obendrauf.\n"
            "- Full Fine-Tuning mit 8-Bit-Adam: Hugging Face setzt 8-Bit-Optimizer-States "
            "statt voller an, also [[breakdown full-8bit-adam]] Byte: [[params]] × "
            "[[bytes full-8bit-adam]] = [[memory full-8bit-adam]].",
            "ja": "- QLoRA：ベースモデルは4ビットで読み込まれ凍結され、小さなアダプタのみを学習します。"
            "QLoRAの論文では[[reference qlora params]]Bモデルを[[reference qlora memory]]の"
            "GPU1台でファインチューニングしており、[[breakdown qlora]]（10億パラメータあたりの"
            "GB）、切り上げて[[bytes qlora]]。[[params]]Bでは[[params]] × [[bytes qlora]] = "
            "[[memory qlora]]です。\n"
            "- LoRA：ベースはBF16のまま凍結されます：[[params]] × [[bytes lora]]バイト = "
            "[[memory lora lower]]。アダプタとそのオプティマイザで約"
            "[[fact lora-adapter-overhead]]が加わり、当社の[[margin lora]]の計画マージンを"
            "加えると[[memory lora lower]] × [[margin lora factor]] = [[memory lora]]です。\n"
            "- フルファインチューニング、AdamWによる混合精度：EleutherAIはパラメータあたり"
            "[[breakdown full-adamw 1]]バイト（重み、FP32コピー付きオプティマイザ、勾配）と"
            "数えます：[[params]] × [[bytes full-adamw 1]] = [[memory full-adamw lower]]。"
            "Hugging Faceは[[breakdown full-adamw 2]]バイトと数えます："
            "[[memory full-adamw upper]]。これにアクティベーションが加わります。\n"
            "- 8ビットAdamによるフルファインチューニング：Hugging Faceは8ビットの"
            "オプティマイザ状態で数えるため、[[breakdown full-8bit-adam]]バイト："
            "[[params]] × [[bytes full-8bit-adam]] = [[memory full-8bit-adam]]です。",
        },
        "closing": {
            "en": "These are planning rules from the cited sources, not measurements. Sequence "
            "length and batch size change activation memory; gradient checkpointing reduces "
            "it. The same rules for other model sizes: [[link vram]]",
            "de": "Dies sind Planungsregeln aus den zitierten Quellen, keine Messungen. "
            "Sequenzlänge und Batch-Größe verändern den Activation-Speicher; Gradient "
            "Checkpointing reduziert ihn. Dieselben Regeln für andere Modellgrößen: "
            "[[link vram]]",
            "ja": "これらは引用元に基づく計画用の計算ルールであり、実測値ではありません。"
            "シーケンス長とバッチサイズでアクティベーションメモリは変わり、gradient "
            "checkpointingで削減できます。他のモデルサイズに対する同じルール：[[link vram]]",
        },
    },
    {
        "table": Section.Table.FIT,
        "heading": {
            "en": "How many GPUs does each method need?",
            "de": "Wie viele GPUs braucht jede Methode?",
            "ja": "手法ごとにGPUは何台必要ですか？",
        },
        "caption": {
            "en": "Which configuration fits which method",
            "de": "Welche Konfiguration passt zu welcher Methode",
            "ja": "どの構成がどの手法に収まるか",
        },
        "body": {
            "en": "✓ = the configuration's combined VRAM covers the method's estimate. Multi-GPU "
            "rows assume the model is sharded across the GPUs (FSDP or DeepSpeed ZeRO-3). "
            "Our prices per hour for the whole configuration, [[checked_on]].",
            "de": "✓ = der kombinierte VRAM der Konfiguration deckt die Schätzung der Methode ab. "
            "Multi-GPU-Zeilen setzen voraus, dass das Modell über die GPUs gesharded wird "
            "(FSDP oder DeepSpeed ZeRO-3). Unsere Preise pro Stunde für die gesamte "
            "Konfiguration, [[checked_on]].",
            "ja": "✓ = その構成の合計VRAMが手法の見積もりを満たすことを示します。複数GPUの行は、"
            "モデルがGPU間にシャーディングされる（FSDPまたはDeepSpeed ZeRO-3）ことを前提と"
            "しています。価格は構成全体の1時間あたりの当社価格、[[checked_on]]時点。",
        },
        "closing": {
            "en": "8× H200 covers the [[bytes full-adamw 1]]-byte estimate "
            "([[memory full-adamw lower]]) on paper but leaves only "
            "[[headroom 8xh200 full-adamw lower]] for activations, so it is marked ✗ for "
            "AdamW. 8× B200 leaves [[headroom 8xb200 full-adamw upper]] after the "
            "[[bytes full-adamw 2]]-byte estimate. Instances have up to "
            "[[fact max-gpus-per-instance]] GPUs depending on the host. Before you start, the "
            "dashboard shows each host's country, GPU count, form factor (SXM or PCIe) and "
            "interconnect.",
            "de": "8× H200 deckt die [[bytes full-adamw 1]]-Byte-Schätzung "
            "([[memory full-adamw lower]]) auf dem Papier ab, lässt aber nur "
            "[[headroom 8xh200 full-adamw lower]] für Aktivierungen, daher ist es für AdamW "
            "mit ✗ markiert. 8× B200 lässt nach der [[bytes full-adamw 2]]-Byte-Schätzung "
            "[[headroom 8xb200 full-adamw upper]] übrig. Instanzen haben bis zu "
            "[[fact max-gpus-per-instance]] GPUs je nach Host. Vor dem Start zeigt das "
            "Dashboard das Land, die GPU-Anzahl, den Formfaktor (SXM oder PCIe) und die "
            "Interconnect-Verbindung jedes Hosts.",
            "ja": "8× H200は[[bytes full-adamw 1]]バイト見積もり（[[memory full-adamw lower]]）を"
            "計算上は収まりますが、活性化用に[[headroom 8xh200 full-adamw lower]]しか"
            "残らないため、AdamWでは✗としています。8× B200は[[bytes full-adamw 2]]バイト"
            "見積もりの後でも[[headroom 8xb200 full-adamw upper]]残ります。インスタンスの"
            "GPU数はホストにより最大[[fact max-gpus-per-instance]]基です。開始前に、"
            "ダッシュボードに各ホストの国、GPU数、フォームファクター（SXMまたはPCIe）、"
            "インターコネクトが表示されます。",
        },
    },
    {
        "table": Section.Table.COST,
        "heading": {
            "en": "What does a fine-tuning run for Llama 70B cost?",
            "de": "Was kostet ein Fine-Tuning-Lauf für Llama 70B?",
            "ja": "Llama 70Bのファインチューニング1回のコストはいくらですか？",
        },
        "caption": {
            "en": "Run cost under assumed hours",
            "de": "Laufkostenschätzung unter angenommenen Stunden",
            "ja": "仮定の時間に基づく実行コスト見積もり",
        },
        "body": {
            "en": "Cost = GPUs × hours of run time × price per GPU-hour. The hours below are "
            "assumptions chosen for illustration, not measurements: run time depends on the "
            "number of training tokens, sequence length, batch size and software. Measure "
            "your own steps per hour in a short run before sizing a long one.\n\n"
            "The assumed hours match our blocks of [[scenario_blocks]] GPU-hours. GPU-hours "
            "are sold in blocks of [[blocks or]] hours for one GPU model at the same hourly "
            "rate; instances of that GPU draw on them by the minute, and unused hours never "
            "expire. Every block and GPU is listed under [[link gpus]].",
            "de": "Kosten = GPUs × Laufzeit in Stunden × Preis pro GPU-Stunde. Die folgenden "
            "Stunden sind zur Veranschaulichung gewählte Annahmen, keine Messungen: Die "
            "Laufzeit hängt von der Anzahl der Trainings-Tokens, der Sequenzlänge, der "
            "Batch-Größe und der Software ab. Messen Sie Ihre eigenen Schritte pro Stunde in "
            "einem kurzen Lauf, bevor Sie einen langen dimensionieren.\n\n"
            "Die angenommenen Stunden entsprechen unseren Blöcken von [[scenario_blocks]] "
            "GPU-Stunden. GPU-Stunden werden in Blöcken von [[blocks or]] Stunden für ein "
            "GPU-Modell zum selben Stundensatz verkauft; Instanzen dieser GPU beziehen sie "
            "minutengenau, und ungenutzte Stunden verfallen nie. Jeder Block und jede GPU ist "
            "unter [[link gpus]] aufgeführt.",
            "ja": "コスト = GPU数 × 実時間（時間） × GPU1時間あたりの価格。以下の時間は説明用に"
            "選んだ仮定であり、実測値ではありません：実行時間は学習トークン数、系列長、"
            "バッチサイズ、ソフトウェアによって変わります。長時間の実行を見積もる前に、"
            "短い実行で1時間あたりのステップ数を実測してください。\n\n"
            "仮定の時間は、当社の[[scenario_blocks]] GPU時間のブロックに対応しています。"
            "GPU時間は1つのGPUモデルにつき[[blocks or]]時間のブロック単位で、同じ時間単価で"
            "販売されます。そのGPUのインスタンスは分単位でこれらを消費し、未使用の時間に"
            "有効期限はありません。すべてのブロックとGPUは[[link gpus]]に掲載しています。",
        },
        "closing": {},
    },
    {
        "table": Section.Table.NONE,
        "heading": {
            "en": "How much more does full fine-tuning cost than QLoRA?",
            "de": "Wie viel mehr kostet vollständiges Fine-Tuning im Vergleich zu QLoRA?",
            "ja": "フルファインチューニングはQLoRAよりどのくらい高くつきますか？",
        },
        "caption": {},
        "body": {
            "en": "About [[price_ratio 8xb200@massed-compute a100-80gb@thunder-compute]] times "
            "more per hour of hardware. In GPUwithCrypto's price check of "
            "[[checked_on massed-compute]], the lowest self-serve on-demand price for an "
            "8× B200 instance was [[price 8xb200@massed-compute]] per hour (Massed Compute, "
            "[[price b200@massed-compute]] per GPU). An A100 80GB cost "
            "[[price a100-80gb@thunder-compute]] per hour at Thunder Compute. At our prices "
            "the ratio is [[price_ratio 8xb200 a100-80gb]]: [[price 8xb200]]/hour against "
            "[[price a100-80gb]]/hour.\n\n"
            "That gap is why most 70B projects start with QLoRA or LoRA. The LoRA paper "
            "reports results comparable to full fine-tuning on the tasks it tested, with "
            "[[fact lora-trainable-reduction]] times fewer trainable parameters.",
            "de": "Etwa [[price_ratio 8xb200@massed-compute a100-80gb@thunder-compute]]-mal mehr "
            "pro Stunde Hardware. Laut der Preisprüfung von GPUwithCrypto vom "
            "[[checked_on massed-compute]] lag der niedrigste Self-Serve-On-Demand-Preis für "
            "eine 8× B200-Instanz bei [[price 8xb200@massed-compute]] pro Stunde (Massed "
            "Compute, [[price b200@massed-compute]] pro GPU). Eine A100 80GB kostete bei "
            "Thunder Compute [[price a100-80gb@thunder-compute]] pro Stunde. Zu unseren "
            "Preisen beträgt das Verhältnis [[price_ratio 8xb200 a100-80gb]]: "
            "[[price 8xb200]]/Stunde gegenüber [[price a100-80gb]]/Stunde.\n\n"
            "Diese Lücke ist der Grund, warum die meisten 70B-Projekte mit QLoRA oder LoRA "
            "beginnen. Das LoRA-Paper berichtet von Ergebnissen, die bei den getesteten "
            "Aufgaben mit vollständigem Fine-Tuning vergleichbar sind, mit "
            "[[fact lora-trainable-reduction]]-mal weniger trainierbaren Parametern.",
            "ja": "ハードウェア1時間あたりで約"
            "[[price_ratio 8xb200@massed-compute a100-80gb@thunder-compute]]倍です。"
            "GPUwithCryptoの[[checked_on massed-compute]]の価格調査によると、8× B200"
            "インスタンスのセルフサービス・オンデマンドの最安価格は1時間"
            "[[price 8xb200@massed-compute]]でした（Massed Compute、GPU1基あたり"
            "[[price b200@massed-compute]]）。A100 80GB 1基はThunder Computeで1時間"
            "[[price a100-80gb@thunder-compute]]でした。当社の価格では比率は"
            "[[price_ratio 8xb200 a100-80gb]]倍で、[[price 8xb200]]/時間に対して"
            "[[price a100-80gb]]/時間です。\n\n"
            "この差があるため、ほとんどの70BプロジェクトはQLoRAまたはLoRAから始めます。"
            "LoRAの論文では、試験したタスクにおいて、学習可能パラメータを"
            "[[fact lora-trainable-reduction]]分の1に抑えつつフルファインチューニングと"
            "同等の結果が報告されています。",
        },
        "closing": {},
    },
    {
        "table": Section.Table.COMPARISON,
        "compare": ("h100", "a100-80gb"),
        "heading": {
            "en": "Is the H100 or the A100 better for QLoRA on 70B?",
            "de": "Ist die H100 oder die A100 besser für QLoRA auf 70B?",
            "ja": "70BのQLoRAにはH100とA100のどちらが適していますか？",
        },
        "caption": {},
        "body": {
            "en": "Both hold the [[memory qlora]] estimate in [[spec h100 memory]]. The H100 has "
            "[[spec_ratio h100 a100-80gb bf16]]× the A100's peak BF16 tensor throughput "
            "([[spec h100 bf16]] against [[spec a100-80gb bf16]] TFLOPS dense) and "
            "[[spec h100 bandwidth]] GB/s of bandwidth (SXM) against "
            "[[spec a100-80gb bandwidth]] GB/s. These are NVIDIA's peak figures; real "
            "training speed depends on the software. The A100 costs [[price a100-80gb]]/hour "
            "and the H100 [[price h100]]/hour at our prices. Pick the A100 when the budget "
            "is fixed, the H100 when the deadline is. More: [[compare_link h100 a100-80gb]].",
            "de": "Beide decken die Schätzung von [[memory qlora]] in [[spec h100 memory]] ab. Die "
            "H100 hat den [[spec_ratio h100 a100-80gb bf16]]-fachen Peak-BF16-Tensor-"
            "Durchsatz der A100 ([[spec h100 bf16]] gegenüber [[spec a100-80gb bf16]] TFLOPS "
            "dicht) und [[spec h100 bandwidth]] GB/s Bandbreite (SXM) gegenüber "
            "[[spec a100-80gb bandwidth]] GB/s. Dies sind NVIDIAs Peak-Werte; die reale "
            "Trainingsgeschwindigkeit hängt von der Software ab. Die A100 kostet "
            "[[price a100-80gb]]/Stunde und die H100 [[price h100]]/Stunde zu unseren "
            "Preisen. Wählen Sie die A100, wenn das Budget feststeht, die H100, wenn die "
            "Frist es tut. Mehr: [[compare_link h100 a100-80gb]].",
            "ja": "どちらも[[memory qlora]]の見積もりを[[spec h100 memory]]に収められます。"
            "H100はA100のピークBF16 Tensorスループットの[[spec_ratio h100 a100-80gb bf16]]倍"
            "（密で[[spec h100 bf16]]対[[spec a100-80gb bf16]] TFLOPS）、帯域幅は"
            "[[spec h100 bandwidth]] GB/s（SXM）対[[spec a100-80gb bandwidth]] GB/sです。"
            "これらはNVIDIAのピーク値であり、実際の学習速度はソフトウェアによって変わります。"
            "当社の価格ではA100が[[price a100-80gb]]/時間、H100が[[price h100]]/時間です。"
            "予算が固定ならA100、締め切りを優先するならH100を選んでください。詳細："
            "[[compare_link h100 a100-80gb]]。",
        },
        "closing": {},
    },
    {
        "table": Section.Table.NONE,
        "heading": {
            "en": "Which software runs each method?",
            "de": "Welche Software führt die jeweilige Methode aus?",
            "ja": "各手法はどのソフトウェアで実行しますか？",
        },
        "caption": {},
        "body": {
            "en": "Hugging Face TRL runs QLoRA and LoRA with one command: `--load_in_4bit "
            "--use_peft` for QLoRA, `--use_peft` alone for LoRA. Add `--dtype bfloat16`: TRL "
            "loads models in FP32 unless told otherwise. For multi-GPU LoRA and full "
            "fine-tuning, TRL ships ready Accelerate profiles such as `fsdp2` and `zero3` "
            "(DeepSpeed ZeRO-3), passed with `--accelerate_config`. The Llama 3.1 "
            "repositories on Hugging Face are gated: accept Meta's licence on the model page "
            "first.",
            "de": "Hugging Face TRL führt QLoRA und LoRA mit einem Befehl aus: `--load_in_4bit "
            "--use_peft` für QLoRA, `--use_peft` allein für LoRA. Ergänzen Sie "
            "`--dtype bfloat16`: Ohne diese Angabe lädt TRL Modelle in FP32. Für "
            "Multi-GPU-LoRA und vollständiges Fine-Tuning liefert TRL fertige "
            "Accelerate-Profile wie `fsdp2` und `zero3` (DeepSpeed ZeRO-3), übergeben mit "
            "`--accelerate_config`. Die Llama 3.1-Repositories auf Hugging Face sind gated: "
            "Akzeptieren Sie zuerst Metas Lizenz auf der Modellseite.",
            "ja": "Hugging Face TRLはQLoRAとLoRAを1つのコマンドで実行します：QLoRAには"
            "`--load_in_4bit --use_peft`、LoRAには`--use_peft`のみです。`--dtype bfloat16`も"
            "付けてください：指定しないとTRLはモデルをFP32で読み込みます。マルチGPUのLoRAと"
            "フルファインチューニングでは、TRLに`fsdp2`や`zero3`（DeepSpeed ZeRO-3）などの"
            "Accelerateプロファイルが用意されており、`--accelerate_config`で渡します。"
            "Hugging FaceのLlama 3.1リポジトリはゲート付きです：まずモデルページでMetaの"
            "ライセンスに同意してください。",
        },
        "closing": {},
    },
]

FAQ = [
    {
        "question": {
            "en": "Can I fine-tune Llama 70B on one GPU?",
            "de": "Kann ich Llama 70B auf einer GPU fine-tunen?",
            "ja": "Llama 70Bを1基のGPUでファインチューニングできますか？",
        },
        "answer": {
            "en": "Yes, with QLoRA on an [[smallest_gpu qlora memory]] GPU: the estimate is "
            "[[memory qlora]]. LoRA on a BF16 base fits one GPU too, but only a "
            "[[smallest_gpu lora memory]] [[smallest_gpu lora]]. Full fine-tuning needs "
            "[[cheapest full-adamw]], or [[cheapest full-8bit-adam]] with an 8-bit optimizer.",
            "de": "Ja, mit QLoRA auf einer GPU mit [[smallest_gpu qlora memory]]: Die Schätzung "
            "liegt bei [[memory qlora]]. LoRA auf einer BF16-Basis passt ebenfalls auf eine "
            "GPU, aber nur auf eine [[smallest_gpu lora]] mit [[smallest_gpu lora memory]]. "
            "Vollständiges Fine-Tuning benötigt [[cheapest full-adamw]] oder "
            "[[cheapest full-8bit-adam]] mit einem 8-Bit-Optimizer.",
            "ja": "はい、[[smallest_gpu qlora memory]]のGPUでQLoRAを使えば可能です：見積もりは"
            "[[memory qlora]]です。BF16ベースのLoRAも1基のGPUに収まりますが、"
            "[[smallest_gpu lora memory]]の[[smallest_gpu lora]]のみです。フルファイン"
            "チューニングには[[cheapest full-adamw]]、または8ビットオプティマイザを使った"
            "[[cheapest full-8bit-adam]]が必要です。",
        },
    },
    {
        "question": {
            "en": "Can I fine-tune Llama 70B on an RTX 4090?",
            "de": "Kann ich Llama 70B auf einer RTX 4090 fine-tunen?",
            "ja": "Llama 70BをRTX 4090でファインチューニングできますか？",
        },
        "answer": {
            "en": "No. Even in 4-bit, the 70B weights alone take [[weights qlora]], more than the "
            "[[spec rtx-4090 memory]] of the RTX 4090. The smallest GPU we rent that holds a "
            "QLoRA run is an [[smallest_gpu qlora]] with [[smallest_gpu qlora memory]].",
            "de": "Nein. Selbst in 4-Bit nehmen allein die 70B-Gewichte [[weights qlora]] ein, mehr "
            "als die [[spec rtx-4090 memory]] der RTX 4090. Die kleinste GPU, die wir "
            "vermieten und die einen QLoRA-Lauf trägt, ist eine [[smallest_gpu qlora]] mit "
            "[[smallest_gpu qlora memory]].",
            "ja": "いいえ。4ビットでも70Bの重みだけで[[weights qlora]]を占め、RTX 4090の"
            "[[spec rtx-4090 memory]]を超えます。当社でレンタルできるGPUのうち、QLoRAの実行を"
            "収められる最小のものは[[smallest_gpu qlora memory]]の[[smallest_gpu qlora]]です。",
        },
    },
    {
        "question": {
            "en": "How much VRAM do I need to fine-tune Llama 70B with LoRA?",
            "de": "Wie viel VRAM brauche ich, um Llama 70B mit LoRA zu fine-tunen?",
            "ja": "LoRAでLlama 70BをファインチューニングするにはどのくらいのVRAMが必要ですか？",
        },
        "answer": {
            "en": "About [[memory lora lower]] for the frozen BF16 weights and about "
            "[[memory lora]] with a [[margin lora]] margin for adapters and activations. One "
            "B200 ([[vram b200]]), two H200s ([[vram 2xh200]]) or four 80 GB GPUs "
            "([[vram 4xa100-80gb]]) cover it.",
            "de": "Etwa [[memory lora lower]] für die eingefrorenen BF16-Gewichte und etwa "
            "[[memory lora]] mit [[margin lora]] Marge für Adapter und Aktivierungen. Eine "
            "B200 ([[vram b200]]), zwei H200 ([[vram 2xh200]]) oder vier 80-GB-GPUs "
            "([[vram 4xa100-80gb]]) decken das ab.",
            "ja": "凍結したBF16の重みに約[[memory lora lower]]、アダプタと活性化用に"
            "[[margin lora]]の余裕を見て約[[memory lora]]です。B200 1基（[[vram b200]]）、"
            "H200 2基（[[vram 2xh200]]）、または80 GBのGPU 4基（[[vram 4xa100-80gb]]）で"
            "収まります。",
        },
    },
    {
        "question": {
            "en": "How long does fine-tuning Llama 70B take?",
            "de": "Wie lange dauert das Fine-Tuning von Llama 70B?",
            "ja": "Llama 70Bのファインチューニングにはどのくらい時間がかかりますか？",
        },
        "answer": {
            "en": "That depends on your dataset's token count, sequence length and batch size, and "
            "we have not measured a run, so we publish no time. Start with our smallest "
            "block of GPU-hours, measure steps per hour on your data, then size the full run.",
            "de": "Das hängt von der Token-Anzahl Ihres Datensatzes, der Sequenzlänge und der "
            "Batch-Größe ab, und wir haben keinen Lauf gemessen, daher veröffentlichen wir "
            "keine Zeitangabe. Beginnen Sie mit unserem kleinsten Block GPU-Stunden, messen "
            "Sie die Schritte pro Stunde mit Ihren Daten und dimensionieren Sie dann den "
            "vollständigen Lauf.",
            "ja": "データセットのトークン数、系列長、バッチサイズによって変わり、当社では実行を"
            "実測していないため、所要時間は公開していません。まず最小のGPU時間ブロックで始め、"
            "ご自身のデータで1時間あたりのステップ数を実測してから、全体の実行を見積もって"
            "ください。",
        },
    },
    {
        "question": {
            "en": "Can I pay for the GPUs with crypto?",
            "de": "Kann ich die GPUs mit Krypto bezahlen?",
            "ja": "GPUを暗号資産で支払えますか？",
        },
        "answer": {
            "en": "Yes. GPUwithCrypto takes BTC, USDT, USDC, ETH, SOL and LTC from a "
            "[[fact minimum-top-up]] top-up, with no ID and no card. Unused GPU-hours never "
            "expire.",
            "de": "Ja. GPUwithCrypto nimmt BTC, USDT, USDC, ETH, SOL und LTC ab einem Guthaben von "
            "[[fact minimum-top-up]] an, ohne ID und ohne Karte. Ungenutzte GPU-Stunden "
            "verfallen nie.",
            "ja": "はい。GPUwithCryptoでは[[fact minimum-top-up]]のチャージからBTC、USDT、USDC、"
            "ETH、SOL、LTCで支払え、身分証明もカードも不要です。未使用のGPU時間は失効しません。",
        },
    },
]

CONFIGURATIONS = [
    ("l40s", 1),
    ("a100-80gb", 1),
    ("h100", 1),
    ("h200", 1),
    ("b200", 1),
    ("h200", 2),
    ("a100-80gb", 4),
    ("h100", 8),
    ("h200", 8),
    ("b200", 8),
]
RECOMMENDATIONS = [
    ("qlora", "a100-80gb", 1),
    ("qlora", "h100", 1),
    ("lora", "b200", 1),
    ("lora", "h200", 2),
    ("full-8bit-adam", "h200", 8),
    ("full-adamw", "b200", 8),
]
COST_SCENARIOS = [
    # method, GPU, count, assumed hours
    ("qlora", "a100-80gb", 1, D("10")),
    ("qlora", "h100", 1, D("10")),
    ("lora", "b200", 1, D("24")),
    ("lora", "h200", 2, D("12")),
    ("full-8bit-adam", "h200", 8, D("21")),
    ("full-adamw", "b200", 8, D("21")),
]
GUIDE_SOURCES = [
    "qlora-paper",
    "hf-4bit-blog",
    "lora-paper",
    "eleuther-transformer-math",
    "hf-memory-anatomy",
    "llama-3.1-70b-card",
    "trl-cli",
    "trl-peft",
    "nvidia-a100",
    "nvidia-h100",
    "massed-compute-pricing",
    "thunder-compute-pricing",
]


def translated(field: str, texts: dict[str, str]) -> dict[str, str]:
    return {f"{field}_{lang}": texts.get(lang, "") for lang in ("en", "de", "ja")}


@transaction.atomic
def load_guides() -> int:
    """Create the facts and the seed guide if missing; return how many rows were created."""
    created = 0
    sources = {s.key: s for s in Source.objects.all()}
    for key, value, kind, description, source in FACTS:
        _fact, was_created = Fact.objects.get_or_create(
            key=key,
            defaults={
                "value": value,
                "kind": kind,
                "description": description,
                "source": sources.get(source),
            },
        )
        created += was_created
    if Guide.objects.filter(slug=GUIDE_SLUG).exists():
        return created  # the guide belongs to the editors now

    gpus = {g.slug: g for g in Gpu.objects.all()}
    methods = {m.slug: m for m in Method.objects.all()}
    guide = Guide.objects.create(
        slug=GUIDE_SLUG,
        language_model=LanguageModel.objects.get(slug="llama-3.1-70b"),
        status=Guide.Status.PUBLISHED,
        published_on=SEED_CHECK_DATE,
        **translated("title", GUIDE["title"]),
        **translated("meta_description", GUIDE["meta_description"]),
        **translated("short_answer", GUIDE["short_answer"]),
    )
    for position, spec in enumerate(SECTIONS, start=1):
        first, second = spec.get("compare", (None, None))
        Section.objects.create(
            guide=guide,
            position=position,
            table=spec["table"],
            compare_gpu=gpus.get(first),
            compare_with_gpu=gpus.get(second),
            **translated("heading", spec["heading"]),
            **translated("table_caption", spec["caption"]),
            **translated("body", spec["body"]),
            **translated("closing", spec["closing"]),
        )
    for position, spec in enumerate(FAQ, start=1):
        FaqEntry.objects.create(
            guide=guide,
            position=position,
            **translated("question", spec["question"]),
            **translated("answer", spec["answer"]),
        )
    FitConfiguration.objects.bulk_create(
        FitConfiguration(guide=guide, gpu=gpus[gpu], count=count, position=position)
        for position, (gpu, count) in enumerate(CONFIGURATIONS, start=1)
    )
    Recommendation.objects.bulk_create(
        Recommendation(
            guide=guide, method=methods[method], gpu=gpus[gpu], count=count, position=position
        )
        for position, (method, gpu, count) in enumerate(RECOMMENDATIONS, start=1)
    )
    CostScenario.objects.bulk_create(
        CostScenario(
            guide=guide,
            method=methods[method],
            gpu=gpus[gpu],
            count=count,
            hours=hours,
            position=position,
        )
        for position, (method, gpu, count, hours) in enumerate(COST_SCENARIOS, start=1)
    )
    GuideSource.objects.bulk_create(
        GuideSource(guide=guide, source=sources[key], position=position)
        for position, key in enumerate(GUIDE_SOURCES, start=1)
    )
    translation_stamps_update(guide)
    return (
        created
        + 1
        + len(SECTIONS)
        + len(FAQ)
        + len(CONFIGURATIONS)
        + len(RECOMMENDATIONS)
        + len(COST_SCENARIOS)
        + len(GUIDE_SOURCES)
    )
