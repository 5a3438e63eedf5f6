"""Guides: translated prose with live-figure tokens, and the tables the pricing service fills."""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from modeltranslation.utils import build_localized_fieldname

from gpuguide.lib.editor_input import ONE_LINE
from guides.content.tokens.registry import syntax_errors
from pricing.domain import training_memory
from pricing.models import Gpu, LanguageModel, Method, Source


class ProseTokensMixin:
    """Checks the token syntax of prose fields in every language, like a field validator (not
    one, so that migrations never reference token code; the admin form checks the slugs)."""

    prose_fields: tuple[str, ...] = ()
    # One-line text without tokens that must not state figures either (see prose_rules).
    plain_text_fields: tuple[str, ...] = ()

    def clean_fields(self, exclude=None) -> None:
        errors: dict[str, list] = {}
        try:
            super().clean_fields(exclude)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        for base in self.prose_fields:
            for code, _name in settings.LANGUAGES:
                name = build_localized_fieldname(base, code)
                if exclude and name in exclude:
                    continue
                messages = syntax_errors(getattr(self, name, "") or "")
                if messages:
                    errors.setdefault(name, []).extend(messages)
        if errors:
            raise ValidationError(errors)


# What a save based on an older ``Guide.version`` is refused with.
EDIT_CONFLICT = _(
    "Someone else saved this guide after you opened it. Your text is still in the form: copy "
    "what you need, reload the page to see their changes, and apply yours again."
)


class GuideQuerySet(models.QuerySet):
    def published(self) -> "GuideQuerySet":
        return self.filter(status=Guide.Status.PUBLISHED)


class Guide(ProseTokensMixin, models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        PUBLISHED = "published", _("published")

    class Kind(models.TextChoices):
        FINE_TUNING = "fine-tuning", _("fine-tuning")
        SERVING = "serving", _("serving")

    # The admin's "Training assumptions" and "Serving assumptions" (a clone copies them).
    TRAINING_FIELDS = (
        "seq_len",
        "micro_batch_size",
        "gradient_checkpointing",
        "lora_rank",
        "training_tokens",
        "epochs",
    )
    SERVING_FIELDS = ("serving_context", "prompt_tokens", "output_tokens", "tpot_target_ms")

    slug = models.SlugField(_("slug"), max_length=120, unique=True)
    title = models.CharField(_("title"), max_length=200, validators=ONE_LINE)
    question = models.CharField(_("question"), max_length=200, blank=True, validators=ONE_LINE)
    short_answer = models.TextField(_("short answer"))
    meta_description = models.CharField(_("meta description"), max_length=300, validators=ONE_LINE)
    language_model = models.ForeignKey(
        LanguageModel, on_delete=models.PROTECT, related_name="guides", verbose_name=_("model")
    )
    kind = models.CharField(
        _("kind"), max_length=12, choices=Kind.choices, default=Kind.FINE_TUNING
    )
    status = models.CharField(
        _("status"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    published_on = models.DateField(_("first published"), null=True, blank=True)
    updated_at = models.DateTimeField(_("last edited"), auto_now=True)
    # Bumped by every admin save; a save based on an older version is merged or refused.
    version = models.PositiveIntegerField(_("version"), default=0, editable=False)
    sources = models.ManyToManyField(
        Source, through="GuideSource", related_name="guides", verbose_name=_("sources")
    )
    seq_len = models.PositiveIntegerField(
        _("sequence length (tokens)"),
        default=2048,
        validators=[MinValueValidator(1), MaxValueValidator(1_048_576)],
    )
    micro_batch_size = models.PositiveSmallIntegerField(
        _("micro-batch size"), default=1, validators=[MinValueValidator(1), MaxValueValidator(1024)]
    )
    gradient_checkpointing = models.BooleanField(_("gradient checkpointing"), default=True)
    lora_rank = models.PositiveSmallIntegerField(
        _("LoRA rank"), default=16, validators=[MinValueValidator(1), MaxValueValidator(4096)]
    )
    training_tokens = models.PositiveBigIntegerField(
        _("training tokens per epoch"),
        default=100_000_000,
        validators=[MinValueValidator(1_000), MaxValueValidator(10**13)],
        help_text=_("What the run costs is priced for this many tokens times the epochs."),
    )
    epochs = models.PositiveSmallIntegerField(
        _("epochs"), default=1, validators=[MinValueValidator(1), MaxValueValidator(100)]
    )
    serving_context = models.PositiveIntegerField(
        _("context (tokens)"),
        default=8192,
        validators=[MinValueValidator(256), MaxValueValidator(1_048_576)],
        help_text=_("vLLM's --max-model-len: the longest request, prompt and answer."),
    )
    prompt_tokens = models.PositiveIntegerField(
        _("prompt tokens"), default=1000, validators=[MinValueValidator(1)]
    )
    output_tokens = models.PositiveIntegerField(
        _("answer tokens"), default=500, validators=[MinValueValidator(1)]
    )
    tpot_target_ms = models.PositiveSmallIntegerField(
        _("latency target (ms per output token)"),
        default=40,
        validators=[MinValueValidator(1), MaxValueValidator(10_000)],
    )
    # Its prose follows the source's published changes until its own text differs.
    source = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="clones",
        verbose_name=_("cloned from"),
    )

    objects = GuideQuerySet.as_manager()
    prose_fields = ("short_answer", "meta_description")
    plain_text_fields = ("title", "question")

    class Meta:
        ordering = ["title"]
        verbose_name = _("guide")
        verbose_name_plural = _("guides")
        permissions = [
            ("publish_guide", _("Can publish guides")),
            ("translate_guide_de", _("Can translate guides into German")),
            ("translate_guide_ja", _("Can translate guides into Japanese")),
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args, **kwargs) -> None:
        if self.status == self.Status.PUBLISHED and self.published_on is None:
            self.published_on = timezone.localdate()
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("guides:detail", kwargs={"slug": self.slug})

    @property
    def serves(self) -> bool:
        return self.kind == self.Kind.SERVING

    def clean(self) -> None:
        super().clean()
        if self.serves and self.prompt_tokens + self.output_tokens > self.serving_context:
            raise ValidationError(
                {"output_tokens": _("A prompt and its answer must fit in the context.")}
            )

    def training_setup(self, method: str, num_gpus: int = 1) -> training_memory.TrainingSetup:
        return training_memory.TrainingSetup(
            method=training_memory.Method(method),
            seq_len=self.seq_len,
            batch_size=self.micro_batch_size,
            gradient_checkpointing=self.gradient_checkpointing,
            lora_rank=self.lora_rank,
            num_gpus=num_gpus,
        )

    @property
    def training_budget(self) -> int:
        return self.training_tokens * self.epochs


class Section(ProseTokensMixin, models.Model):
    """A heading with prose, optionally placing one of the computed tables after the prose."""

    class Table(models.TextChoices):
        NONE = "", _("no table (prose only)")
        METHODS = "methods", _("which GPU for which method")
        MEMORY = "memory", _("memory per method")
        ESTIMATE = "estimate", _("estimated peak at the guide's training run")
        FIT = "fit", _("fit table of the configurations")
        COST = "cost", _("cost table of the scenarios")
        COMPARISON = "comparison", _("GPU comparison (specs and prices)")
        SERVING_PRECISIONS = "serving-precisions", _("serving: which GPU for which precision")
        SERVING_MEMORY = "serving-memory", _("serving: memory per precision")
        SERVING_FIT = "serving-fit", _("serving: where vLLM starts, and how many requests")
        SERVING_COST = "serving-cost", _("serving: speed and cost per million tokens")

    # The tables only a serving guide shows.
    SERVING_TABLES = frozenset(
        {
            Table.SERVING_PRECISIONS,
            Table.SERVING_MEMORY,
            Table.SERVING_FIT,
            Table.SERVING_COST,
        }
    )

    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="sections", verbose_name=_("guide")
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    heading = models.CharField(_("heading"), max_length=200, validators=ONE_LINE)
    body = models.TextField(_("text before the table"), blank=True)
    table = models.CharField(_("table"), max_length=20, choices=Table.choices, blank=True)
    table_caption = models.CharField(
        _("table caption"), max_length=200, blank=True, validators=ONE_LINE
    )
    closing = models.TextField(_("text after the table"), blank=True)
    compare_gpu = models.ForeignKey(
        Gpu,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("compare GPU"),
        help_text=_("For the comparison table: the GPU on the left."),
    )
    compare_with_gpu = models.ForeignKey(
        Gpu,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("with GPU"),
        help_text=_("For the comparison table: the GPU it is compared with."),
    )

    prose_fields = ("heading", "body", "table_caption", "closing")

    class Meta:
        ordering = ["guide", "position", "pk"]
        verbose_name = _("section")
        verbose_name_plural = _("sections")

    def __str__(self) -> str:
        return self.heading

    def clean(self) -> None:
        if self.table == self.Table.COMPARISON and not (self.compare_gpu and self.compare_with_gpu):
            raise ValidationError(_("A comparison table needs both GPUs."))


class FaqEntry(ProseTokensMixin, models.Model):
    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="faq_entries", verbose_name=_("guide")
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    question = models.CharField(_("question"), max_length=300, validators=ONE_LINE)
    answer = models.TextField(_("answer"))

    prose_fields = ("question", "answer")

    class Meta:
        ordering = ["guide", "position", "pk"]
        verbose_name = _("FAQ entry")
        verbose_name_plural = _("FAQ entries")

    def __str__(self) -> str:
        return self.question


class GuideSource(models.Model):
    guide = models.ForeignKey(Guide, on_delete=models.CASCADE, related_name="guide_sources")
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="+", verbose_name=_("source")
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["guide", "position", "pk"]
        verbose_name = _("cited source")
        verbose_name_plural = _("cited sources")
        constraints = [
            models.UniqueConstraint(fields=["guide", "source"], name="guide_cites_source_once"),
        ]

    def __str__(self) -> str:
        return str(self.source)


class GpuCountRow(models.Model):
    """A row of a guide's table that names N GPUs of one kind, in the editor's order."""

    gpu = models.ForeignKey(Gpu, on_delete=models.PROTECT, related_name="+", verbose_name=_("GPU"))
    count = models.PositiveSmallIntegerField(
        _("GPUs"), default=1, validators=[MinValueValidator(1)]
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        abstract = True
        ordering = ["guide", "position", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(count__gte=1), name="%(app_label)s_%(class)s_has_gpus"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.count}× {self.gpu}"


class FitConfiguration(GpuCountRow):
    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="configurations", verbose_name=_("guide")
    )

    class Meta(GpuCountRow.Meta):
        verbose_name = _("fit-table configuration")
        verbose_name_plural = _("fit-table configurations")
        constraints = [
            *GpuCountRow.Meta.constraints,
            models.UniqueConstraint(fields=["guide", "gpu", "count"], name="configuration_once"),
        ]


class Recommendation(GpuCountRow):
    """A configuration the method table recommends for a method."""

    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="recommendations", verbose_name=_("guide")
    )
    method = models.ForeignKey(
        Method, on_delete=models.PROTECT, related_name="+", verbose_name=_("method")
    )

    class Meta(GpuCountRow.Meta):
        verbose_name = _("recommendation")
        verbose_name_plural = _("recommendations")

    def __str__(self) -> str:
        return f"{self.method}: {super().__str__()}"


class CostScenario(GpuCountRow):
    """A row of the cost table: a method run on a configuration for an assumed number of hours."""

    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="cost_scenarios", verbose_name=_("guide")
    )
    method = models.ForeignKey(
        Method, on_delete=models.PROTECT, related_name="+", verbose_name=_("method")
    )
    hours = models.DecimalField(
        _("assumed hours"),
        max_digits=7,
        decimal_places=1,
        validators=[MinValueValidator(Decimal("0.1"))],
        help_text=_("An illustration, not a measurement: the page says so."),
    )

    class Meta(GpuCountRow.Meta):
        verbose_name = _("cost scenario")
        verbose_name_plural = _("cost scenarios")
        constraints = [
            *GpuCountRow.Meta.constraints,
            models.CheckConstraint(condition=models.Q(hours__gt=0), name="scenario_hours_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.method}: {super().__str__()}, {self.hours} h"


# A guide's own rows by the name the guide reaches them under, in the guide form's order:
# what a revision holds and restores, and where the reference index looks for uses.
CHILD_ROWS: dict[type[models.Model], str] = {
    Section: "sections",
    FaqEntry: "faq_entries",
    GuideSource: "guide_sources",
    FitConfiguration: "configurations",
    Recommendation: "recommendations",
    CostScenario: "cost_scenarios",
}


class ShareImage(models.Model):
    """A published guide's link-preview image in one language; in the database, so that every
    app server serves the same bytes."""

    guide = models.ForeignKey(Guide, on_delete=models.CASCADE, related_name="share_images")
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)
    png = models.BinaryField()
    drawn_at = models.DateTimeField(_("drawn at"))

    class Meta:
        verbose_name = _("share image")
        verbose_name_plural = _("share images")
        constraints = [
            models.UniqueConstraint(
                fields=["guide", "language"], name="one_share_image_per_language"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.guide} [{self.language}]"


class TranslationBasis(models.Model):
    """The English text a translated field was last saved against, per field and language:
    what lets the translation view and the dashboard name a field whose English changed since."""

    guide = models.ForeignKey(Guide, on_delete=models.CASCADE, related_name="translation_bases")
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)
    field_key = models.CharField(_("field"), max_length=80)  # "section.17.body"
    english = models.TextField(_("English text"), blank=True)
    saved_at = models.DateTimeField(_("saved at"), default=timezone.now)

    class Meta:
        verbose_name = _("translation basis")
        verbose_name_plural = _("translation bases")
        constraints = [
            models.UniqueConstraint(
                fields=["guide", "language", "field_key"], name="one_basis_per_field_and_language"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.guide_id} {self.field_key} [{self.language}]"


class ContentVersion(models.Model):
    """The version of one cache tag (guides/pagecache/), or the generation (tag ``*``), replaced
    by every content write in the same transaction; random and never repeated, so a page cached
    under a version shows that version's data, a restore included."""

    tag = models.CharField(max_length=64, unique=True)
    version = models.CharField(max_length=64)

    class Meta:
        verbose_name = _("content version")

    def __str__(self) -> str:
        return f"{self.tag}: {self.version}"


class ComparisonPairQuerySet(models.QuerySet):
    def published(self) -> "ComparisonPairQuerySet":
        return self.filter(published=True)


class ComparisonPair(models.Model):
    """Two GPUs whose comparison page editors publish; any other pair's page is a 404."""

    first = models.ForeignKey(
        Gpu, on_delete=models.PROTECT, related_name="+", verbose_name=_("GPU")
    )
    second = models.ForeignKey(
        Gpu, on_delete=models.PROTECT, related_name="+", verbose_name=_("compared with")
    )
    published = models.BooleanField(_("published"), default=False)

    objects = ComparisonPairQuerySet.as_manager()

    class Meta:
        ordering = ["first__position", "second__position", "pk"]
        verbose_name = _("GPU comparison")
        verbose_name_plural = _("GPU comparisons")
        constraints = [
            models.UniqueConstraint(fields=["first", "second"], name="comparison_pair_once"),
            models.CheckConstraint(
                condition=~models.Q(first=models.F("second")), name="comparison_of_two_gpus"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.first} – {self.second}"

    def clean(self) -> None:
        if self.first_id and self.first_id == self.second_id:
            raise ValidationError({"second": _("Pick a different GPU to compare with.")})

    def get_absolute_url(self) -> str:
        return reverse(
            "guides:compare", kwargs={"first": self.first.slug, "second": self.second.slug}
        )


class LegalPage(models.Model):
    """The terms of use (the imprint and the privacy notice are the ``Operator``'s)."""

    class Kind(models.TextChoices):
        TERMS = "terms", _("Terms of use")

    kind = models.CharField(_("page"), max_length=10, choices=Kind.choices, unique=True)
    title = models.CharField(_("title"), max_length=200, validators=ONE_LINE)
    body = models.TextField(_("text"), help_text=_("Plain text: a blank line starts a paragraph."))
    reviewed = models.BooleanField(
        _("reviewed by the company"),
        default=False,
        help_text=_("Until ticked, the page says that its text is still to be reviewed."),
    )
    updated_at = models.DateTimeField(_("last edited"), auto_now=True)

    class Meta:
        ordering = ["kind"]
        verbose_name = _("legal page")
        verbose_name_plural = _("legal pages")

    def __str__(self) -> str:
        return self.get_kind_display()

    def get_absolute_url(self) -> str:
        return reverse("guides:legal", kwargs={"kind": self.kind})


class GuideRevision(models.Model):
    """What this project adds to a django-reversion revision of a guide: whose it is, when it
    went live and who made it so, and its schedule. A revision newer than the one last published
    is the guide's working copy (guides.editorial.revisions)."""

    revision = models.OneToOneField(
        "reversion.Revision",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="guide_revision",
        verbose_name=_("revision"),
    )
    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="revisions", verbose_name=_("guide")
    )
    go_live_at = models.DateTimeField(_("go live at"), null=True, blank=True)
    expire_at = models.DateTimeField(_("expire at"), null=True, blank=True)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("published by"),
    )
    scheduled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("scheduled by"),
    )

    class Meta:
        ordering = ["-revision_id"]
        verbose_name = _("guide revision")
        verbose_name_plural = _("guide revisions")
        indexes = [
            models.Index(fields=["go_live_at"], name="guiderevision_go_live"),
            models.Index(fields=["expire_at"], name="guiderevision_expire"),
        ]

    def __str__(self) -> str:
        return _("Revision %(number)s") % {"number": self.pk}


class Review(models.Model):
    """A working copy submitted for review, which a reviewer publishes or sends back; a later
    submission replaces a guide's pending one."""

    class State(models.TextChoices):
        PENDING = "pending", _("waiting for review")
        APPROVED = "approved", _("approved and published")
        SENT_BACK = "sent_back", _("sent back")
        REPLACED = "replaced", _("replaced by a later submission")
        OVERTAKEN = "overtaken", _("closed: a later revision was published")

    guide = models.ForeignKey(
        Guide, on_delete=models.CASCADE, related_name="reviews", verbose_name=_("guide")
    )
    revision = models.ForeignKey(
        GuideRevision, on_delete=models.CASCADE, related_name="reviews", verbose_name=_("revision")
    )
    state = models.CharField(
        _("state"), max_length=16, choices=State.choices, default=State.PENDING
    )
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("submitted by"),
    )
    submitted_at = models.DateTimeField(_("submitted at"), default=timezone.now)
    comment = models.TextField(_("comment"), blank=True, max_length=2000)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decided by"),
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decision_comment = models.TextField(_("reviewer's comment"), blank=True, max_length=2000)

    class Meta:
        ordering = ["-submitted_at", "-pk"]
        verbose_name = _("review")
        verbose_name_plural = _("reviews")
        constraints = [
            models.UniqueConstraint(
                fields=["guide"],
                condition=models.Q(state="pending"),
                name="review_one_pending_per_guide",
            )
        ]
        indexes = [models.Index(fields=["state", "submitted_at"], name="review_state")]

    def __str__(self) -> str:
        return _("Review of revision %(number)s") % {"number": self.revision_id}


class Operator(models.Model):
    """Who runs the site: one row, rendered as the imprint (§ 5 DDG), the privacy notice
    (Art. 13 GDPR) and the 特定商取引法に基づく表記, which answer 404 while a field of ``REQUIRED``
    is empty in any language."""

    class Page(models.TextChoices):
        IMPRINT = "imprint", _("Imprint")
        PRIVACY = "privacy", _("Privacy notice")
        COMMERCE = "commercial-transactions", _("Specified Commercial Transactions Act notice")

    legal_name = models.CharField(
        _("legal name"),
        max_length=200,
        blank=True,
        validators=ONE_LINE,
        help_text=_("The company's registered name, legal form included (e.g. “… GmbH”)."),
    )
    legal_form = models.CharField(
        _("legal form"),
        max_length=100,
        blank=True,
        validators=ONE_LINE,
        help_text=_("Only where the name does not say it already."),
    )
    street_address = models.CharField(
        _("street and number"), max_length=200, blank=True, validators=ONE_LINE
    )
    postcode = models.CharField(_("postcode"), max_length=20, blank=True, validators=ONE_LINE)
    city = models.CharField(_("city"), max_length=100, blank=True, validators=ONE_LINE)
    country = models.CharField(_("country"), max_length=100, blank=True, validators=ONE_LINE)
    email = models.EmailField(_("email address"), blank=True, validators=ONE_LINE)
    phone = models.CharField(
        _("telephone"),
        max_length=50,
        blank=True,
        validators=ONE_LINE,
        help_text=_("With the country code, e.g. +49 30 1234567."),
    )
    representatives = models.CharField(
        _("represented by"),
        max_length=300,
        blank=True,
        validators=ONE_LINE,
        help_text=_("The managing directors (or owner), by name."),
    )
    register_court = models.CharField(
        _("register court"),
        max_length=200,
        blank=True,
        validators=ONE_LINE,
        help_text=_("E.g. Amtsgericht Berlin-Charlottenburg; empty if not registered."),
    )
    register_number = models.CharField(
        _("register number"),
        max_length=50,
        blank=True,
        validators=ONE_LINE,
        help_text=_("E.g. HRB 123456 B."),
    )
    vat_id = models.CharField(
        _("VAT identification number"),
        max_length=30,
        blank=True,
        validators=ONE_LINE,
        help_text=_("Under § 27a UStG, e.g. DE123456789; empty if there is none."),
    )
    content_responsible = models.CharField(
        _("responsible for the content"),
        max_length=300,
        blank=True,
        validators=ONE_LINE,
        help_text=_("Under § 18 (2) MStV: a person's name and address."),
    )
    supervisory_authority = models.CharField(
        _("supervisory authority"),
        max_length=300,
        blank=True,
        validators=ONE_LINE,
        help_text=_("Only for an activity that needs a licence; empty otherwise."),
    )
    prices = models.TextField(
        _("prices"),
        blank=True,
        help_text=_("What a rental costs and what else is charged (taxes, fees). Plain text."),
    )
    payment_methods = models.TextField(
        _("payment methods"),
        blank=True,
        help_text=_("Each way to pay, cryptocurrencies included, by name. Plain text."),
    )
    payment_timing = models.TextField(
        _("when payment is due"), blank=True, help_text=_("Plain text.")
    )
    delivery = models.TextField(
        _("delivery of the service"),
        blank=True,
        help_text=_("When and how a rented GPU is available to the customer. Plain text."),
    )
    cancellation = models.TextField(
        _("cancellation and refunds"),
        blank=True,
        help_text=_("Whether and how an order can be cancelled or refunded. Plain text."),
    )
    privacy_contact = models.CharField(
        _("data protection contact"),
        max_length=300,
        blank=True,
        validators=ONE_LINE,
        help_text=_(
            "The data protection officer's name and address, where the company has one; "
            "empty: questions go to the email address above."
        ),
    )
    privacy_authority = models.CharField(
        _("data protection authority"),
        max_length=300,
        blank=True,
        validators=ONE_LINE,
        help_text=_("The supervisory authority competent for the company, by name."),
    )
    hosting_provider = models.CharField(
        _("hosting provider"),
        max_length=200,
        blank=True,
        validators=ONE_LINE,
        help_text=_("Who runs the servers and so processes the server logs for the company."),
    )
    hosting_location = models.CharField(
        _("hosting location"),
        max_length=200,
        blank=True,
        validators=ONE_LINE,
        help_text=_("Where the servers stand, e.g. “Frankfurt am Main, Germany”."),
    )
    log_retention_days = models.PositiveSmallIntegerField(
        _("server logs kept for (days)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(365)],
        help_text=_("After this many days the web server's logs are deleted."),
    )
    updated_at = models.DateTimeField(_("last edited"), auto_now=True)

    REQUIRED = (
        "legal_name",
        "street_address",
        "postcode",
        "city",
        "country",
        "email",
        "phone",
        "representatives",
        "content_responsible",
        "prices",
        "payment_methods",
        "payment_timing",
        "delivery",
        "cancellation",
        "privacy_authority",
        "hosting_provider",
        "hosting_location",
        "log_retention_days",
    )
    TRANSLATED = (
        "country",
        "supervisory_authority",
        "prices",
        "payment_methods",
        "payment_timing",
        "delivery",
        "cancellation",
        "privacy_authority",
        "hosting_location",
    )

    class Meta:
        verbose_name = _("operator")
        verbose_name_plural = _("operator")
        constraints = [models.CheckConstraint(condition=models.Q(pk=1), name="one_operator")]

    def __str__(self) -> str:
        return self.legal_name or str(_("operator"))

    ONLY_PK = 1

    def save(self, *args, **kwargs) -> None:
        self.pk = self.ONLY_PK  # one row: the admin edits it, never adds another
        super().save(*args, **kwargs)

    def missing_fields(self) -> list[str]:
        names = []
        for name in self.REQUIRED:
            if name in self.TRANSLATED:
                names += [
                    build_localized_fieldname(name, code)
                    for code, _name in settings.LANGUAGES
                    if not getattr(self, build_localized_fieldname(name, code))
                ]
            elif getattr(self, name) in ("", None):
                names.append(name)
        return names

    def get_absolute_url(self) -> str:
        return reverse("guides:legal", kwargs={"kind": self.Page.IMPRINT})
