"""GPUs, providers, dated price checks, language models and fine-tuning memory rules."""

from datetime import date
from decimal import Decimal
from operator import attrgetter

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from gpuguide.lib.editor_input import ONE_LINE
from pricing.domain import calculations, throughput, training_memory, trl_commands
from pricing.fields import ModelSlugField
from pricing.signals import CheckedDeletion, CheckedDeletionQuerySet

POSITIVE = MinValueValidator(Decimal("0.0001"))
AT_LEAST_ONE = MinValueValidator(1)


class NaturalKey(models.Model):
    """A row whose natural key (the fixtures') is the values of ``natural_key_fields``, lookups
    from the row. Serializers order models by their foreign keys' natural keys."""

    natural_key_fields: tuple[str, ...] = ("slug",)

    class Meta:
        abstract = True

    def natural_key(self) -> tuple:
        return tuple(attrgetter(name.replace("__", "."))(self) for name in self.natural_key_fields)


class NaturalKeyManager(models.Manager):
    def get_by_natural_key(self, *key):
        return self.get(**dict(zip(self.model.natural_key_fields, key, strict=True)))


class CurrentNaturalKeyManager(NaturalKeyManager):
    """A superseded check, and its prices, share the natural key of their correction."""

    def get_by_natural_key(self, *key):
        return self.current().get(**dict(zip(self.model.natural_key_fields, key, strict=True)))


class NamedByKey(CheckedDeletion, NaturalKey):
    """A row named by one unique field, which guides quote: asked about before it is deleted
    (``pricing.signals.deletion_requested``)."""

    objects = NaturalKeyManager.from_queryset(CheckedDeletionQuerySet)()

    class Meta:
        abstract = True


class Source(NamedByKey):
    """A cited document; rules, specs and guides point at it, so it cannot be deleted."""

    # Dots allowed, as in model slugs: the seeded "llama-3.1-70b-card" must save in the admin.
    key = ModelSlugField(_("key"), max_length=80, unique=True)
    title = models.CharField(_("title"), max_length=300, validators=ONE_LINE)
    publisher = models.CharField(_("publisher"), max_length=120, validators=ONE_LINE)
    url = models.URLField(_("URL"), max_length=500)
    read_on = models.DateField(_("read on"), help_text=_("When we last read and checked it."))

    natural_key_fields = ("key",)

    class Meta:
        ordering = ["publisher", "title"]
        verbose_name = _("source")
        verbose_name_plural = _("sources")

    def __str__(self) -> str:
        return f"{self.title} — {self.publisher}"


class Gpu(NamedByKey):
    class FormFactor(models.TextChoices):
        SXM = "sxm", "SXM"
        PCIE = "pcie", "PCIe"
        CONSUMER = "consumer", _("consumer card")

    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(_("name"), max_length=80, validators=ONE_LINE)
    vendor = models.CharField(_("vendor"), max_length=40, default="NVIDIA", validators=ONE_LINE)
    memory_gb = models.DecimalField(
        _("memory (GB)"), max_digits=7, decimal_places=1, validators=[POSITIVE]
    )
    bandwidth_gb_s = models.DecimalField(
        _("memory bandwidth (GB/s)"), max_digits=8, decimal_places=1, validators=[POSITIVE]
    )
    bf16_dense_tflops = models.DecimalField(
        _("BF16 dense TFLOPS"),
        max_digits=8,
        decimal_places=1,
        validators=[POSITIVE],
        help_text=_("Peak tensor throughput without sparsity."),
    )
    form_factor = models.CharField(_("form factor"), max_length=10, choices=FormFactor.choices)
    measured_memory_gb = models.DecimalField(
        _("memory PyTorch reports (GB)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[POSITIVE],
        help_text=_(
            "The total memory PyTorch reports on a card of this kind "
            "(torch.cuda.get_device_properties(0).total_memory / 10^9, or an out-of-memory "
            "message's total capacity in GiB × 1.073741824), e.g. 150.11 for the H200. Fits "
            "use it instead of the advertised memory; leave empty where no source reports it."
        ),
    )
    measured_memory_source = models.ForeignKey(
        Source,
        on_delete=models.PROTECT,
        related_name="gpu_memory_reports",
        verbose_name=_("source of the reported memory"),
        null=True,
        blank=True,
    )
    # What CPU offload may keep on the host (pricing.domain.calculations.PlannedFit).
    host_memory_gb_per_gpu = models.DecimalField(
        _("host memory per GPU (GB)"),
        max_digits=8,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[POSITIVE],
        help_text=_(
            "The system memory of the servers this GPU is rented in, divided by their GPUs "
            "(a DGX H100: 2 TB for eight GPUs, 250 GB). CPU offload is refused on configurations "
            "whose host holds less than the run keeps there; empty: not checked."
        ),
    )
    host_memory_source = models.ForeignKey(
        Source,
        on_delete=models.PROTECT,
        related_name="gpu_hosts",
        verbose_name=_("source of the host memory"),
        null=True,
        blank=True,
    )

    class Link(models.TextChoices):
        NVLINK = "nvlink", "NVLink"
        PCIE = "pcie", "PCIe"

    # What ZeRO-3 / FSDP moves the weights over at every step (pricing.domain.throughput).
    link = models.CharField(
        _("GPU-to-GPU link"), max_length=10, choices=Link.choices, default=Link.PCIE
    )
    link_gb_s = models.DecimalField(
        _("link bandwidth (GB/s, one direction)"),
        max_digits=7,
        decimal_places=1,
        default=Decimal(32),
        validators=[POSITIVE],
        help_text=_(
            "Per GPU, in one direction: NVLink 4 is 900 GB/s both ways, 450 here; a PCIe Gen4 "
            "x16 slot 32."
        ),
    )
    # The chip generation picks the throughput model's efficiency (pricing.domain.throughput:
    # each generation reaches its own share of the datasheet peak, fitted to public runs).
    generation = models.CharField(
        _("chip generation"),
        max_length=12,
        choices=throughput.GENERATION_CHOICES,
        default=throughput.HOPPER,
        help_text=_("Picks the throughput model's calibrated efficiency for this GPU."),
    )
    rentable = models.BooleanField(_("we rent it"), default=True)
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    spec_source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="gpus", verbose_name=_("spec source")
    )
    link_source = models.ForeignKey(
        Source,
        on_delete=models.PROTECT,
        related_name="gpu_links",
        verbose_name=_("link source"),
        null=True,
        blank=True,
        help_text=_("Where the link's figure comes from, where it is not the spec source."),
    )

    class Meta:
        ordering = ["position", "memory_gb", "slug"]
        verbose_name = _("GPU")
        verbose_name_plural = _("GPUs")
        constraints = [
            models.CheckConstraint(condition=Q(memory_gb__gt=0), name="gpu_memory_positive"),
            models.CheckConstraint(condition=Q(link_gb_s__gt=0), name="gpu_link_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class Provider(NamedByKey):
    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(_("name"), max_length=80, validators=ONE_LINE)
    url = models.URLField(_("URL"), blank=True)
    is_house = models.BooleanField(
        _("our own prices"), default=False, help_text=_("The provider whose prices guides quote.")
    )

    class Meta:
        ordering = ["-is_house", "name"]
        verbose_name = _("provider")
        verbose_name_plural = _("providers")
        constraints = [
            models.UniqueConstraint(
                fields=["is_house"], condition=Q(is_house=True), name="one_house_provider"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class PriceQuerySet(models.QuerySet):
    def as_of(self, at: date | None = None) -> "PriceQuerySet":
        return self.filter(checked_on__lte=at or timezone.localdate())

    def current(self) -> "PriceQuerySet":
        """Prices of checks not superseded by a correction (the condition of the indexes)."""
        return self.filter(superseded=False)


class PriceCheckQuerySet(models.QuerySet):
    def current(self) -> "PriceCheckQuerySet":
        """Checks not superseded by a correction: one per provider and day."""
        return self.filter(superseded_at=None)


class PriceCheck(NaturalKey):
    """Prices read from one provider on one day. Append-only: a mistake is superseded by a
    correction for the same day (``services.price_check_supersede``) and kept, marked, in the
    history; every read of prices ignores superseded checks."""

    provider = models.ForeignKey(
        Provider, on_delete=models.PROTECT, related_name="checks", verbose_name=_("provider")
    )
    checked_on = models.DateField(_("checked on"))
    source_url = models.URLField(_("where the prices were read"), max_length=500, blank=True)
    note = models.TextField(_("note"), blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        verbose_name=_("recorded by"),
    )
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now, editable=False)
    superseded_at = models.DateTimeField(_("superseded at"), null=True, blank=True, editable=False)
    superseded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("superseded by"),
    )
    superseded_reason = models.TextField(_("why it was superseded"), blank=True, editable=False)
    # Deleting a correction would leave its day without a current check: delete the mistaken
    # check first.
    correction = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        editable=False,
        related_name="corrects",
        verbose_name=_("corrected by"),
    )

    objects = CurrentNaturalKeyManager.from_queryset(PriceCheckQuerySet)()
    natural_key_fields = ("provider__slug", "checked_on")

    class Meta:
        ordering = ["-checked_on", "provider__name"]
        get_latest_by = "checked_on"
        verbose_name = _("price check")
        verbose_name_plural = _("price checks")
        constraints = [
            # Only one current check per provider and day; superseded ones stay beside it.
            models.UniqueConstraint(
                fields=["provider", "checked_on"],
                condition=Q(superseded_at=None),
                name="one_current_check_per_provider_and_day",
            ),
        ]
        indexes = [
            # The admin's list, newest day first (one provider's latest seeks the unique one).
            models.Index(fields=["-checked_on", "-id"], name="price_check_newest_first"),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.checked_on.isoformat()}"


class Price(NaturalKey):
    """One GPU's price in a check, as quoted: per GPU, or for a whole instance of N GPUs."""

    price_check = models.ForeignKey(
        PriceCheck, on_delete=models.CASCADE, related_name="prices", verbose_name=_("check")
    )
    gpu = models.ForeignKey(
        Gpu, on_delete=models.PROTECT, related_name="prices", verbose_name=_("GPU")
    )
    quoted_usd_per_hour = models.DecimalField(
        _("quoted USD per hour"), max_digits=10, decimal_places=4, validators=[POSITIVE]
    )
    gpus_in_quote = models.PositiveSmallIntegerField(
        _("GPUs in the quote"),
        default=1,
        validators=[MinValueValidator(1)],
        help_text=_("1 for a per-GPU price; 8 where a provider quotes an 8-GPU instance."),
    )
    # Copies of the check's (fill_from_check), so that a GPU's latest price at a provider as of
    # a day is one index seek however long the history.
    provider = models.ForeignKey(
        Provider, on_delete=models.PROTECT, related_name="+", editable=False, db_index=False
    )
    checked_on = models.DateField(editable=False)
    # The indexes below hold current prices only: every read filters on it (``current()``).
    superseded = models.BooleanField(default=False, editable=False)

    objects = CurrentNaturalKeyManager.from_queryset(PriceQuerySet)()
    natural_key_fields = ("price_check__provider__slug", "price_check__checked_on", "gpu__slug")

    class Meta:
        ordering = ["price_check", "gpu"]
        verbose_name = _("price")
        verbose_name_plural = _("prices")
        indexes = [
            # A GPU's latest price at a provider as of a day (the pages, the add form).
            models.Index(
                fields=["provider", "gpu", "-checked_on"],
                condition=Q(superseded=False),
                name="price_latest_per_gpu",
            ),
            # A provider's prices over a window of days (the price-history charts), with the
            # columns the charts read: a year of daily checks is read from the index alone.
            models.Index(
                fields=["provider", "checked_on", "gpu", "quoted_usd_per_hour", "gpus_in_quote"],
                condition=Q(superseded=False),
                name="price_provider_days",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["price_check", "gpu"], name="one_price_per_gpu_per_check"
            ),
            models.CheckConstraint(condition=Q(quoted_usd_per_hour__gt=0), name="price_positive"),
            models.CheckConstraint(condition=Q(gpus_in_quote__gte=1), name="quote_has_gpus"),
        ]

    def __str__(self) -> str:
        return f"{self.gpu} ${self.quoted_usd_per_hour}"

    @property
    def usd_per_gpu_hour(self) -> Decimal:
        return calculations.per_gpu_price(self.quoted_usd_per_hour, self.gpus_in_quote)

    def fill_from_check(self) -> None:
        """Copy the check's provider, day and whether it is superseded (raw saves: through
        ``pricing.signals``; bulk_create's callers set them)."""
        check = self.price_check
        self.provider_id, self.checked_on = check.provider_id, check.checked_on
        self.superseded = check.superseded_at is not None

    def save(self, *args, **kwargs) -> None:
        self.fill_from_check()
        super().save(*args, **kwargs)


class HourBlock(NamedByKey):
    """Prepaid GPU-hours sold in blocks for one GPU model at the same hourly rate."""

    hours = models.PositiveIntegerField(_("hours"), unique=True, validators=[MinValueValidator(1)])

    natural_key_fields = ("hours",)

    class Meta:
        ordering = ["hours"]
        verbose_name = _("GPU-hour block")
        verbose_name_plural = _("GPU-hour blocks")

    def __str__(self) -> str:
        return str(self.hours)


class LanguageModel(NamedByKey):
    slug = ModelSlugField(
        _("slug"),
        unique=True,
        help_text=_(
            "How guides, content files and the API name the model: its name in lowercase, "
            "hyphens for spaces, dots kept, e.g. llama-3.1-8b."
        ),
    )
    name = models.CharField(
        _("name"),
        max_length=80,
        validators=ONE_LINE,
        help_text=_("As its makers write it, e.g. Llama 3.1 8B."),
    )
    params_billion = models.DecimalField(
        _("parameters (billions)"),
        max_digits=8,
        decimal_places=2,
        validators=[POSITIVE],
        help_text=_("The nominal size the rules are applied to, e.g. 70."),
    )
    layers = models.PositiveIntegerField(
        _("layers"),
        validators=[AT_LEAST_ONE],
        help_text=_("num_hidden_layers in the model's config.json, e.g. 80 for Llama 3.1 70B."),
    )
    hidden_size = models.PositiveIntegerField(
        _("hidden size"),
        validators=[AT_LEAST_ONE],
        help_text=_("hidden_size in the model's config.json, e.g. 8192 for Llama 3.1 70B."),
    )
    attention_heads = models.PositiveIntegerField(
        _("attention heads"),
        validators=[AT_LEAST_ONE],
        help_text=_(
            "num_attention_heads in the model's config.json, e.g. 64 for Llama 3.1 70B. "
            "The hidden size must be a multiple of it."
        ),
    )
    kv_heads = models.PositiveIntegerField(
        _("KV heads"),
        validators=[AT_LEAST_ONE],
        help_text=_(
            "num_key_value_heads in the model's config.json, e.g. 8 for Llama 3.1 70B. "
            "The attention heads must be a multiple of it."
        ),
    )
    vocab_size = models.PositiveIntegerField(
        _("vocabulary size"),
        validators=[AT_LEAST_ONE],
        help_text=_("vocab_size in the model's config.json, e.g. 128256 for Llama 3.1 70B."),
    )
    intermediate_size = models.PositiveIntegerField(
        _("MLP width"),
        validators=[AT_LEAST_ONE],
        help_text=_("intermediate_size in the model's config.json, e.g. 28672 for Llama 3.1 70B."),
    )
    tie_word_embeddings = models.BooleanField(
        _("output layer tied to the embeddings"),
        default=False,
        help_text=_("tie_word_embeddings in the model's config.json."),
    )
    head_dim = models.PositiveIntegerField(
        _("head size"),
        null=True,
        blank=True,
        validators=[AT_LEAST_ONE],
        help_text=_(
            "head_dim in the model's config.json where it states one, e.g. 256 for Gemma 2 "
            "9B; empty where it is hidden size ÷ attention heads."
        ),
    )
    num_local_experts = models.PositiveIntegerField(
        _("experts per layer"),
        null=True,
        blank=True,
        validators=[AT_LEAST_ONE],
        help_text=_(
            "num_local_experts in a mixture-of-experts config.json, e.g. 8 for Mixtral 8x7B; "
            "empty for a dense model."
        ),
    )
    num_experts_per_tok = models.PositiveIntegerField(
        _("experts per token"),
        null=True,
        blank=True,
        validators=[AT_LEAST_ONE],
        help_text=_(
            "num_experts_per_tok in a mixture-of-experts config.json, e.g. 2 for Mixtral "
            "8x7B; empty for a dense model."
        ),
    )
    # What the serving planner reads (pricing.domain.serving): the longest context vLLM
    # serves the model with, and a sliding window it refuses for now.
    max_position_embeddings = models.PositiveIntegerField(
        _("context length"),
        null=True,
        blank=True,
        validators=[AT_LEAST_ONE],
        help_text=_(
            "max_position_embeddings in the model's config.json, e.g. 131072 for Llama 3.1 "
            "70B: the longest context vLLM serves it with. Empty: not checked."
        ),
    )
    sliding_window = models.PositiveIntegerField(
        _("sliding window"),
        null=True,
        blank=True,
        validators=[AT_LEAST_ONE],
        help_text=_(
            "sliding_window in the model's config.json where its layers attend only to that "
            "many recent tokens, e.g. 4096 for Mistral 7B v0.1; empty for full attention. "
            "The serving planner does not plan such models yet and says so."
        ),
    )
    repository = models.CharField(
        _("Hugging Face repository"),
        max_length=193,
        validators=[
            *ONE_LINE,
            RegexValidator(
                trl_commands.REPOSITORY,
                _("Write it as owner/name, e.g. meta-llama/Llama-3.1-70B."),
            ),
        ],
        help_text=_(
            "The base model's repository on Hugging Face, as owner/name, e.g. "
            "meta-llama/Llama-3.1-70B: the tutorial's commands download it."
        ),
    )
    gated = models.BooleanField(
        _("gated download"),
        default=False,
        help_text=_("Hugging Face asks for a licence or contact details before the download."),
    )
    licence_note = models.TextField(
        _("licence note"),
        blank=True,
        help_text=_("One sentence for readers: the licence, and what to accept before download."),
    )
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="language_models", verbose_name=_("source")
    )

    class Meta:
        ordering = ["params_billion", "name"]
        verbose_name = _("language model")
        verbose_name_plural = _("language models")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        heads, kv_heads = self.attention_heads, self.kv_heads
        experts, per_token = self.num_local_experts, self.num_experts_per_tok
        errors = {}
        if self.hidden_size and heads and self.hidden_size % heads and not self.head_dim:
            errors["hidden_size"] = _(
                "The hidden size must be a multiple of the attention heads, unless the "
                "config.json states a head size (head_dim)."
            )
        if heads and kv_heads and heads % kv_heads:
            errors["kv_heads"] = _("The attention heads must be a multiple of the KV heads.")
        if (experts is None) != (per_token is None):
            field = "num_experts_per_tok" if per_token is None else "num_local_experts"
            errors[field] = _(
                "A mixture of experts needs both: experts per layer and experts per token."
            )
        elif experts is not None and per_token > experts:
            errors["num_experts_per_tok"] = _(
                "A token cannot be routed to more experts than a layer has."
            )
        if errors:
            raise ValidationError(errors)

    @property
    def architecture(self) -> training_memory.Architecture:
        """The shape the peak-memory estimate works from, by config.json names."""
        return training_memory.Architecture(
            hidden_size=self.hidden_size,
            num_hidden_layers=self.layers,
            num_attention_heads=self.attention_heads,
            num_key_value_heads=self.kv_heads,
            intermediate_size=self.intermediate_size,
            vocab_size=self.vocab_size,
            tie_word_embeddings=self.tie_word_embeddings,
            head_dim=self.head_dim,
            num_local_experts=self.num_local_experts,
            num_experts_per_tok=self.num_experts_per_tok,
        )


class Method(NamedByKey):
    """A fine-tuning method and how much memory it needs (see MemoryRule)."""

    slug = models.SlugField(_("slug"), unique=True)
    name = models.CharField(_("name"), max_length=120, validators=ONE_LINE)
    short_name = models.CharField(
        _("short name"), max_length=60, validators=ONE_LINE, help_text=_("For table heads.")
    )
    prose_name = models.CharField(
        _("name in a sentence"),
        max_length=120,
        blank=True,
        validators=ONE_LINE,
        help_text=_(
            "As the subject of a sentence: “Full fine-tuning with AdamW needs …”. Empty: the name."
        ),
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    planning_margin_percent = models.DecimalField(
        _("planning margin (%)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal(0))],
        help_text=_("Added to the highest rule's figure: 20 turns 140 GB into 168 GB."),
    )
    weight_bytes_per_param = models.DecimalField(
        _("base weights, bytes per parameter"),
        max_digits=5,
        decimal_places=3,
        null=True,
        blank=True,
        help_text=_("The weights alone: 0.5 for 4-bit, 2 for BF16."),
    )

    class Meta:
        ordering = ["position", "slug"]
        verbose_name = _("fine-tuning method")
        verbose_name_plural = _("fine-tuning methods")

    def clean(self) -> None:
        """Only a method the peak-memory estimate knows: it decides every fit a guide shows."""
        known = [method.value for method in training_memory.Method]
        if self.slug and self.slug not in known:
            raise ValidationError(
                {
                    "slug": _(
                        "the peak-memory estimate, which decides every fit, knows only these "
                        "methods: %(known)s"
                    )
                    % {"known": ", ".join(known)}
                }
            )

    def __str__(self) -> str:
        return self.name


class MemoryRule(NaturalKey):
    """A cited memory rule: components in bytes per parameter, or a measured reference run."""

    method = models.ForeignKey(
        Method, on_delete=models.CASCADE, related_name="rules", verbose_name=_("method")
    )
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="memory_rules", verbose_name=_("source")
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    reference_memory_gb = models.DecimalField(
        _("reference run memory (GB)"), max_digits=7, decimal_places=2, null=True, blank=True
    )
    reference_params_billion = models.DecimalField(
        _("reference run model size (billions)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
    )
    round_up_to = models.DecimalField(
        _("round GB per billion up to"), max_digits=5, decimal_places=3, null=True, blank=True
    )

    objects = NaturalKeyManager()
    natural_key_fields = ("method__slug", "position")

    class Meta:
        ordering = ["method", "position"]
        verbose_name = _("memory rule")
        verbose_name_plural = _("memory rules")
        constraints = [
            models.CheckConstraint(
                condition=Q(reference_memory_gb__isnull=True)
                | Q(reference_memory_gb__gt=0, reference_params_billion__gt=0),
                name="measured_rule_complete",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method}: {self.source.publisher}"


class MemoryComponent(NaturalKey):
    class Part(models.TextChoices):
        WEIGHTS = "weights", _("weights")
        OPTIMIZER = "optimizer", _("optimizer state")
        GRADIENTS = "gradients", _("gradients")

    rule = models.ForeignKey(
        MemoryRule, on_delete=models.CASCADE, related_name="components", verbose_name=_("rule")
    )
    part = models.CharField(_("part"), max_length=20, choices=Part.choices)
    bytes_per_param = models.DecimalField(
        _("bytes per parameter"),
        max_digits=5,
        decimal_places=3,
        validators=[MinValueValidator(Decimal(0))],
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    objects = NaturalKeyManager()
    natural_key_fields = ("rule__method__slug", "rule__position", "part")

    class Meta:
        ordering = ["rule", "position"]
        verbose_name = _("memory component")
        verbose_name_plural = _("memory components")
        constraints = [
            models.UniqueConstraint(fields=["rule", "part"], name="one_component_per_part"),
        ]

    def __str__(self) -> str:
        return f"{self.get_part_display()}: {self.bytes_per_param}"


class ThroughputMeasurement(NaturalKey):
    """Training tokens per second measured for one recipe on one GPU (the planner marks
    anything unmeasured as an extrapolation)."""

    # Recorded evidence that pages quote: deleting its model or method must not take it along.
    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="+", verbose_name=_("GPU"))
    language_model = models.ForeignKey(
        LanguageModel, on_delete=models.PROTECT, related_name="+", verbose_name=_("model")
    )
    method = models.ForeignKey(
        Method, on_delete=models.PROTECT, related_name="+", verbose_name=_("method")
    )
    seq_len = models.PositiveIntegerField(_("sequence length (tokens)"))
    batch_size = models.PositiveSmallIntegerField(_("micro-batch size"))
    gradient_checkpointing = models.BooleanField(_("gradient checkpointing"))
    lora_rank = models.PositiveSmallIntegerField(_("LoRA rank"), null=True, blank=True)
    tokens_per_s = models.DecimalField(
        _("tokens per second"), max_digits=10, decimal_places=1, validators=[POSITIVE]
    )
    measured_on = models.DateField(_("measured on"))
    recipe = models.CharField(
        _("recipe"),
        max_length=300,
        validators=ONE_LINE,
        help_text=_("Software and script, e.g. transformers 5.17, peft 0.21, measure_memory.py."),
    )

    objects = NaturalKeyManager()
    natural_key_fields = (
        "gpu__slug",
        "language_model__slug",
        "method__slug",
        "seq_len",
        "batch_size",
        "gradient_checkpointing",
    )

    class Meta:
        ordering = ["gpu", "language_model", "method", "seq_len", "batch_size"]
        verbose_name = _("throughput measurement")
        verbose_name_plural = _("throughput measurements")
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "gpu",
                    "language_model",
                    "method",
                    "seq_len",
                    "batch_size",
                    "gradient_checkpointing",
                ],
                name="one_throughput_per_recipe",
            ),
            models.CheckConstraint(condition=Q(tokens_per_s__gt=0), name="throughput_positive"),
        ]

    def __str__(self) -> str:
        return (
            f"{self.language_model} {self.method.slug} {self.seq_len}×{self.batch_size}: {self.gpu}"
        )


class Fact(NamedByKey):
    """A cited figure that is neither a price nor a spec (a $25 minimum top-up), quoted by a
    ``[[fact KEY]]`` token so that it too is never typed into text."""

    class Kind(models.TextChoices):
        NUMBER = "number", _("number")
        USD = "usd", _("US dollars")
        PERCENT = "percent", _("percent")

    key = models.SlugField(_("key"), unique=True)
    value = models.DecimalField(_("value"), max_digits=14, decimal_places=4)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices, default=Kind.NUMBER)
    description = models.CharField(_("what it is"), max_length=200, validators=ONE_LINE)
    source = models.ForeignKey(
        Source,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="facts",
        verbose_name=_("source"),
    )

    natural_key_fields = ("key",)

    class Meta:
        ordering = ["key"]
        verbose_name = _("fact")
        verbose_name_plural = _("facts")

    def __str__(self) -> str:
        return f"{self.key} = {self.value}"
