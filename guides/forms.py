"""The planners' forms (/vram/, /serving/): numbers in ASCII digits only (``int()`` would take
``1_000`` and ``١٢``), a decimal comma in German, limits said as the locale writes them, and a
pasted config.json checked."""

from __future__ import annotations

import json
import re
from decimal import Decimal

from django import forms
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from gpuguide.lib import bounded_json
from guides.content import presentation
from guides.pages.planner import PlannerRequest
from pricing import selectors
from pricing.domain.serving import WEIGHT_PRECISIONS, ServingSetup
from pricing.domain.training_memory import (
    MEASURED,
    RECIPES,
    TRL,
    Architecture,
    EstimateError,
    Method,
    TrainingSetup,
)

# A real config.json is a few kilobytes, nested 2 levels (5 with a quantization_config):
# generous limits, checked before parsing so that 1,000 "[" never reach json.loads.
MAX_CONFIG_BYTES = 64 * 1024
MAX_CONFIG_DEPTH = 20
WHOLE_NUMBER = re.compile(r"[0-9]{1,9}", re.ASCII)
DECIMAL_POINT = re.compile(r"[0-9]{1,9}(\.[0-9]{1,6})?", re.ASCII)
DECIMAL_COMMA_OR_POINT = re.compile(r"[0-9]{1,9}([.,][0-9]{1,6})?", re.ASCII)
# The config.json names the estimate reads; num_key_value_heads and tie_word_embeddings have
# the defaults transformers gives them (as many KV heads as heads; untied for Llama).
CONFIG_SIZES = (
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "vocab_size",
)
CONFIG_OPTIONAL = ("head_dim", "num_local_experts", "num_experts_per_tok")
CONFIG_LIMIT = 10_000_000


class BoundedField(forms.Field):
    """An optional number within [min_value, max_value]."""

    def __init__(self, *, min_value, max_value, **kwargs) -> None:
        self.min_value, self.max_value = min_value, max_value
        super().__init__(required=False, **kwargs)

    def validate(self, value) -> None:
        if value is not None and not self.min_value <= value <= self.max_value:
            raise forms.ValidationError(
                _("Enter a number from %(low)s to %(high)s.")
                % {
                    "low": presentation.number(self.min_value),
                    "high": presentation.number(self.max_value),
                },
                code="range",
            )


class StrictIntegerField(BoundedField):
    """A whole number in ASCII digits, blank meaning ``initial``."""

    def to_python(self, value):
        value = (value or "").strip()
        if not value:
            return self.initial
        if not WHOLE_NUMBER.fullmatch(value):
            raise forms.ValidationError(
                _("Enter a whole number in digits 0–9, such as %(example)s.")
                % {"example": self.initial},
                code="invalid",
            )
        return int(value)


class LocalizedDecimalField(BoundedField):
    """A decimal in ASCII digits with a point, or the visitor's decimal comma (German)."""

    def __init__(self, *, example: str, **kwargs) -> None:
        self.example = example
        super().__init__(**kwargs)

    def to_python(self, value):
        value = (value or "").strip()
        if not value:
            return None
        comma = get_language() == "de"
        pattern = DECIMAL_COMMA_OR_POINT if comma else DECIMAL_POINT
        if not pattern.fullmatch(value):
            raise forms.ValidationError(
                _("Enter a number in digits 0–9, such as %(example)s.")
                % {"example": presentation.number(Decimal(self.example))},
                code="invalid",
            )
        return Decimal(value.replace(",", "."))  # the pattern admits only decimals


def _parsed_config(text: str):
    """The pasted JSON, or a ValidationError: not JSON, or too large or deep to parse."""
    try:
        return bounded_json.loads(text, max_bytes=MAX_CONFIG_BYTES, max_depth=MAX_CONFIG_DEPTH)
    except json.JSONDecodeError as exc:
        raise forms.ValidationError(
            _("This is not valid JSON (line %(line)s: %(problem)s).")
            % {"line": exc.lineno, "problem": exc.msg},
            code="json",
        ) from None
    except bounded_json.JSONTooLarge:
        raise forms.ValidationError(
            _("This config.json is larger than %(limit)s kB; a real one is a few kB.")
            % {"limit": presentation.number(MAX_CONFIG_BYTES // 1024)},
            code="too_large",
        ) from None
    except bounded_json.JSONTooDeep:
        raise forms.ValidationError(
            _("This config.json is nested deeper than %(limit)s levels; a real one has a few.")
            % {"limit": MAX_CONFIG_DEPTH},
            code="too_deep",
        ) from None
    except bounded_json.JSONRefused:  # an integer of thousands of digits
        raise forms.ValidationError(
            _("This config.json holds a number too long to be a size."), code="json"
        ) from None


def architecture_from_config(text: str) -> Architecture:
    """A decoder's shape from its pasted config.json, or a ValidationError saying what it is."""
    config = _parsed_config(text)
    if not isinstance(config, dict):
        raise forms.ValidationError(_("A config.json is a JSON object { … }."), code="json")
    if "text_config" in config:
        raise forms.ValidationError(
            _("This is a multimodal model's config: paste the config of its text model."),
            code="multimodal",
        )
    if config.get("is_encoder_decoder"):
        raise forms.ValidationError(
            _("This is an encoder-decoder config; the planner covers decoder-only models."),
            code="not_decoder",
        )
    architectures = config.get("architectures") or []
    if isinstance(architectures, str):  # a single name where a list belongs
        architectures = [architectures]
    if architectures and not any(str(a).endswith("ForCausalLM") for a in architectures):
        raise forms.ValidationError(
            _("This is not a causal language model (architectures: %(names)s).")
            % {"names": ", ".join(map(str, architectures))},
            code="not_decoder",
        )
    if any(key in config for key in ("num_experts", "n_routed_experts", "moe_intermediate_size")):
        raise forms.ValidationError(
            _(
                "Mixtures of experts with their own expert width or shared experts (Qwen-MoE, "
                "DeepSeek) are not covered yet; Mixtral-style configs (num_local_experts) are."
            ),
            code="moe",
        )
    missing = [key for key in CONFIG_SIZES if key not in config]
    if missing:
        raise forms.ValidationError(
            _("This config lacks %(keys)s, so it does not describe a decoder the planner knows.")
            % {"keys": ", ".join(missing)},
            code="missing",
        )
    values = {key: config[key] for key in CONFIG_SIZES}
    # Absent or null: one KV head per attention head; 0 is a value, and out of range.
    kv_heads = config.get("num_key_value_heads")
    values["num_key_value_heads"] = config["num_attention_heads"] if kv_heads is None else kv_heads
    # Optional keys, absent or null in a dense model with head_dim = hidden / heads.
    values |= {key: config[key] for key in CONFIG_OPTIONAL if config.get(key) is not None}
    bad = [
        key
        for key, value in values.items()
        if type(value) is not int or not 1 <= value <= CONFIG_LIMIT
    ]
    if bad:
        raise forms.ValidationError(
            _("%(keys)s must be whole numbers from 1 to %(high)s.")
            % {"keys": ", ".join(bad), "high": presentation.number(CONFIG_LIMIT)},
            code="range",
        )
    tied = config.get("tie_word_embeddings", False)
    if not isinstance(tied, bool):
        raise forms.ValidationError(_("tie_word_embeddings must be true or false."), code="tied")
    try:
        return Architecture(**values, tie_word_embeddings=tied)
    except EstimateError as exc:
        raise forms.ValidationError(str(exc), code="inconsistent") from None


def _billions(params: int) -> Decimal:
    """A parameter count in billions to two decimals (70.55), or exact where that rounds to 0."""
    billions = Decimal(params) / 10**9
    return billions.quantize(Decimal("0.01")) or billions.normalize()


class PlannerForm(forms.Form):
    """Everything the /vram/ page takes; every field optional, defaults the guide's."""

    params = LocalizedDecimalField(
        label=_("Model size (billions of parameters)"),
        min_value=Decimal("0.1"),
        max_value=Decimal("10000"),
        example="70",
    )
    model = forms.ChoiceField(label=_("Model on file"), required=False)
    config_json = forms.CharField(
        label=_("…or paste its config.json"),
        required=False,
        max_length=MAX_CONFIG_BYTES,  # characters: never fewer than bytes
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false"}),
    )
    method = forms.ChoiceField(label=_("Method"), required=False)
    seq_len = StrictIntegerField(
        label=_("Sequence length (tokens)"), min_value=1, max_value=1_048_576, initial=2048
    )
    batch_size = StrictIntegerField(
        label=_("Micro-batch size"), min_value=1, max_value=1024, initial=1
    )
    gradient_checkpointing = forms.ChoiceField(
        label=_("Gradient checkpointing"),
        choices=[("on", _("on")), ("off", _("off"))],
        required=False,
    )
    lora_rank = StrictIntegerField(label=_("LoRA rank"), min_value=1, max_value=4096, initial=16)
    recipe = forms.ChoiceField(
        label=_("Recipe"),
        choices=[
            (TRL.slug, _("trl sft: bf16 mixed precision, fused attention (derived)")),
            (MEASURED.slug, _("as measured on the H200: QLoRA in fp32 (measured)")),
        ],
        required=False,
    )
    cpu_offload = forms.ChoiceField(
        label=_("CPU offload"),
        choices=[("off", _("off")), ("on", _("on"))],
        required=False,
    )
    tokens_millions = LocalizedDecimalField(
        label=_("Training tokens (millions, per epoch)"),
        min_value=Decimal("0.001"),
        max_value=Decimal("1000000"),
        example="50",
    )
    epochs = StrictIntegerField(label=_("Epochs"), min_value=1, max_value=100, initial=1)
    hours = LocalizedDecimalField(
        label=_("Or an assumed run length (hours)"),
        min_value=Decimal("0.1"),
        max_value=Decimal("10000"),
        example="10",
    )

    def __init__(self, *args, language_models=None, methods=None, **kwargs) -> None:
        """``language_models`` and ``methods``: the page's own reads, where it has them."""
        super().__init__(*args, **kwargs)
        models = selectors.language_models() if language_models is None else language_models
        self.language_models = {m.slug: m for m in models}
        self.fields["model"].choices = [("", "—")] + [
            (slug, m.name) for slug, m in self.language_models.items()
        ]
        methods = selectors.method_listings() if methods is None else methods
        self.fields["method"].choices = [(m.slug, m.name) for m in methods if m.slug in set(Method)]

    def clean_config_json(self) -> Architecture | None:
        text = self.cleaned_data.get("config_json", "").strip()
        return architecture_from_config(text) if text else None

    def clean(self):
        data = super().clean()
        if data.get("model") and data.get("config_json"):
            self.add_error(
                "config_json", _("Choose a model on file or paste a config.json, not both.")
            )
        return data

    @property
    def wants_estimate(self) -> bool:
        return bool(self.cleaned_data.get("model") or self.cleaned_data.get("config_json"))

    def planner_request(self) -> PlannerRequest:
        """The valid form as the planner's input (call after ``is_valid()``)."""
        data = self.cleaned_data
        setup = TrainingSetup(
            method=Method(data.get("method") or Method.QLORA),
            seq_len=data["seq_len"],
            batch_size=data["batch_size"],
            gradient_checkpointing=data.get("gradient_checkpointing") != "off",
            lora_rank=data["lora_rank"],
            recipe=RECIPES[data.get("recipe") or TRL.slug],
            cpu_offload=data.get("cpu_offload") == "on",
        )
        tokens = None
        if data.get("tokens_millions"):
            tokens = int(data["tokens_millions"] * 1_000_000) * data["epochs"]
        common = {"setup": setup, "training_tokens": tokens}
        if data.get("hours"):
            common["assumed_hours"] = data["hours"]
        if data.get("model"):
            model = self.language_models[data["model"]]
            return PlannerRequest(
                architecture=model.architecture,
                model_name=model.name,
                language_model_slug=model.slug,
                params_billion=model.params_billion,
                **common,
            )
        architecture = data["config_json"]
        return PlannerRequest(
            architecture=architecture,
            model_name=str(_("your config.json")),
            language_model_slug=None,
            params_billion=_billions(architecture.params),
            **common,
        )


class ServingForm(forms.Form):
    """Everything the /serving/ page takes: a model on file and how to serve it."""

    model = forms.ChoiceField(label=_("Model on file"))
    weight_precision = forms.ChoiceField(
        label=_("Weights"),
        choices=[
            ("bf16", _("bf16, as published")),
            ("fp8", _("fp8, converted as vLLM loads them")),
            ("awq", _("4-bit AWQ checkpoint")),
            ("gptq", _("4-bit GPTQ checkpoint")),
        ],
        required=False,
    )
    kv_precision = forms.ChoiceField(
        label=_("KV cache"), choices=[("bf16", "bf16"), ("fp8", "fp8")], required=False
    )
    context = StrictIntegerField(
        label=_("Context per request (tokens)"), min_value=1, max_value=1_048_576, initial=8192
    )
    concurrency = StrictIntegerField(
        label=_("Requests at once, each at the full context"),
        min_value=1,
        max_value=4096,
        initial=1,
    )

    def __init__(self, *args, language_models=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        models = selectors.language_models() if language_models is None else language_models
        self.language_models = {m.slug: m for m in models}
        self.fields["model"].choices = [(m.slug, m.name) for m in models]

    def clean(self):
        """What vLLM or this planner cannot serve the chosen model with, said in the page's
        language (``serving_plans.refuse_unplannable`` says the same to the API)."""
        data = super().clean()
        model = self.language_models.get(data.get("model"))
        if model is None:
            return data
        if model.sliding_window:
            self.add_error(
                "model",
                _(
                    "%(model)s attends only to the last %(window)s tokens in its layers "
                    "(a sliding window); vLLM sizes such a cache by the window, which this "
                    "planner does not model yet."
                )
                % {"model": model.name, "window": presentation.number(model.sliding_window)},
            )
        longest = model.max_position_embeddings
        if longest and data.get("context") and data["context"] > longest:
            self.add_error(
                "context",
                _("%(model)s takes at most %(tokens)s tokens per request.")
                % {"model": model.name, "tokens": presentation.number(longest)},
            )
        return data

    def serving_setup(self) -> ServingSetup:
        """The valid form as the computation's input (call after ``is_valid()``)."""
        data = self.cleaned_data
        return ServingSetup(
            weights=WEIGHT_PRECISIONS[data.get("weight_precision") or "bf16"],
            kv_cache_dtype="fp8" if data.get("kv_precision") == "fp8" else "auto",
            context=data["context"],
        )
