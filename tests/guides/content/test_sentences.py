"""Sentences that say what the table says, on every published guide, for every method, in every
language (issue 51, "Truth III").

Each expectation is worked out here from ``pricing.planning`` (the fit computation the fit table
and the API decide with), not read from the page's own figures:

- a requirement ("needs", "braucht", "必要な構成") names the smallest configuration that holds
  the guide's run by the estimate (fewest GPUs, then the smallest card, the cheaper on ties),
  never the recommendation, with its memory per GPU; sharded, it says why (FP32 master weights
  for full fine-tuning) and what the largest cards at the next smaller count would need;
- a recommendation says "we recommend" and names the method table's configurations;
- the yes/no answers follow the same fit computation;
- the cost gap compares what the page recommends for full fine-tuning and QLoRA, per hour and
  per run, and its conclusion follows from the figure per run.
"""

import html
import json
import re
from decimal import Decimal

import pytest
from django.utils import translation
from django.utils.translation import gettext

from guides.content import presentation as show
from guides.editorial.checks import guide_problems
from guides.models import FaqEntry, Guide
from guides.pages.selectors import guide_for_page
from pricing import planning, selectors
from pricing.domain import calculations as calc
from pricing.models import Method
from tests import test_one_truth as one_truth
from tests.conftest import GUIDE_SLUG
from tests.guides.test_views import sentences

CLONES = [
    "best-gpu-for-llama-3-1-8b-fine-tuning",
    "best-gpu-for-llama-3-1-405b-fine-tuning",
    "best-gpu-for-qwen-2-5-32b-fine-tuning",
    "best-gpu-for-mistral-7b-fine-tuning",
]
GUIDES = [GUIDE_SLUG, *CLONES]
METHODS = ["qlora", "lora", "full-8bit-adam", "full-adamw"]
RECOMMENDED_IN_PROSE = ["qlora", "lora", "full-adamw"]  # the short answer's; 8-bit Adam: its table
LANGUAGES = ["en", "de", "ja"]
NEEDS = {
    "en": "{method} needs {gpus}",
    "de": "{method} braucht {gpus}",
    "ja": "{method}に必要な構成：{gpus}",
}
NEEDS_ANY = {"en": "{method} needs ", "de": "{method} braucht ", "ja": "{method}に必要な構成："}
NEEDS_BEYOND = {
    "en": "{method} needs {beyond}",
    "de": "{method} braucht {beyond}",
    "ja": "{method}には{beyond}が必要です",
}
RECOMMEND_START = {"en": "We recommend ", "de": "Wir empfehlen ", "ja": "推奨構成は"}
YES = {"en": "Yes.", "de": "Ja.", "ja": "はい。"}
NO = {"en": "No.", "de": "Nein.", "ja": "いいえ。"}
FP32 = {"en": "FP32 master weights", "de": "FP32-Master-Gewichte", "ja": "FP32のマスター重み"}

_pages: dict[tuple[str, str], str] = {}  # the seed never changes: each page is fetched once


class Page:
    def __init__(self, body: str):
        self.body = body
        self.sentences = sentences(_Response(body))
        self.text = " ".join(self.sentences)
        faq = next(
            json.loads(block)
            for block in re.findall(
                r'<script type="application/ld\+json">(.*?)</script>', body, re.S
            )
            if '"FAQPage"' in block
        )
        self.answers = [html.unescape(q["acceptedAnswer"]["text"]) for q in faq["mainEntity"]]


class _Response:
    def __init__(self, body: str):
        self.content = body.encode()


def page(client, slug: str, lang: str) -> Page:
    if (slug, lang) not in _pages:
        response = client.get(f"/{lang}/guides/{slug}/")
        assert response.status_code == 200
        _pages[slug, lang] = response.content.decode()
    return Page(_pages[slug, lang])


def fit_plans(slug: str, method_slug: str) -> list[calc.PlannedFit]:
    """Every configuration we rent (each GPU in 1, 2, 4 and 8) against the guide's run."""
    guide = Guide.objects.get(slug=slug)
    model = guide.language_model
    method = next(m for m in selectors.method_listings() if m.slug == method_slug)
    house = selectors.house_provider()
    rented = selectors.gpu_listings_for_provider(provider=house, rentable_only=True)
    peaks = planning.peaks_by_count(model.architecture, guide.training_setup(method_slug))
    planning_gb = calc.estimate_memory(method.rule, model.params_billion).planning_gb
    return planning.planned(calc.host_configurations(g.offer for g in rented), peaks, planning_gb)


def smallest(plans: list[calc.PlannedFit]) -> calc.PlannedFit | None:
    fitting = [p for p in plans if p.fits_by_estimate]
    return min(
        fitting,
        key=lambda p: (p.configuration.count, p.configuration.gpu.memory_gb,
                       p.configuration.usd_per_hour),
        default=None,
    )  # fmt: skip


def largest_at(plans: list[calc.PlannedFit], count: int) -> calc.PlannedFit:
    at_count = [p for p in plans if p.configuration.count == count]
    return max(at_count, key=lambda p: (p.usable_gb_per_gpu, -p.configuration.usd_per_hour))


def all_gpus() -> list[selectors.GpuListing]:
    return selectors.gpu_listings_for_provider(provider=selectors.house_provider())


def plain(text: str) -> str:
    """As the page's text reads it: no-break spaces made plain."""
    return text.replace("\u00a0", " ")


def gpus(plan: calc.PlannedFit) -> str:
    return show.gpu_count(plan.configuration.count, plan.configuration.gpu.name)


def gb(value: Decimal) -> str:
    return plain(show.estimated_gigabytes(value))


def starts(prefix: str) -> re.Pattern:
    """``prefix`` where a word starts: "LoRA needs" is not found in "QLoRA needs"."""
    return re.compile(r"(?<!\w)" + re.escape(prefix))


def said_after(text: str, start: str, ends: list[str]) -> str:
    """What the page says from ``start`` up to the next of ``ends`` (or the end)."""
    found = starts(start).search(text)
    assert found, start
    rest = text[found.end() :]
    cut = min((m.start() for end in ends if (m := starts(end).search(rest))), default=len(rest))
    return rest[:cut]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("method_slug", METHODS)
@pytest.mark.parametrize("slug", GUIDES)
def test_a_requirement_names_the_smallest_configuration_that_fits(
    client, seeded, slug, method_slug, lang
):
    plans = fit_plans(slug, method_slug)
    needed = smallest(plans)
    recommended = method_table(client, slug, lang)[method_slug]
    with translation.override(lang):
        name = Method.objects.get(slug=method_slug).prose_name
        shown = page(client, slug, lang)
        others = [
            NEEDS_ANY[lang].format(method=Method.objects.get(slug=m).prose_name)
            for m in METHODS
            if m != method_slug
        ]
        ends = [*others, RECOMMEND_START[lang]]
        if needed is None:
            # nothing on one host holds it: said, with what eight of the largest cards would need
            eight = largest_at(plans, calc.HOST_GPU_COUNTS[-1])
            start = NEEDS_BEYOND[lang].format(method=name, beyond=plain(show.beyond_one_host(8)))
            said = said_after(shown.text, start, ends)
            assert gpus(eight) in said and gb(eight.reserved_gb_per_gpu) in said
            assert gb(eight.usable_gb_per_gpu) in said
            assert recommended == []
            return
        start = NEEDS[lang].format(method=name, gpus=gpus(needed))
        # every requirement of this method on the page names the smallest fit
        for sentence in shown.sentences:
            if starts(NEEDS_ANY[lang].format(method=name)).search(sentence):
                assert starts(start).search(sentence), sentence
        said = said_after(shown.text, start, ends)
        # its memory per GPU, with the allocator's margin, against what each card can use
        assert gb(needed.reserved_gb_per_gpu) in said, said
        assert gb(needed.peak_gb_per_gpu) in said, said
        assert gb(needed.usable_gb_per_gpu) in said, said
        if needed.configuration.count > 1:  # sharded: why, and why fewer GPUs do not do
            if method_slug.startswith("full-"):
                assert FP32[lang] in said, said
            count = needed.configuration.count
            fewer = largest_at(plans, calc.HOST_GPU_COUNTS[calc.HOST_GPU_COUNTS.index(count) - 1])
            assert not fewer.fits_by_estimate
            assert gb(fewer.reserved_gb_per_gpu) in said, said
        # the fit table marks it ✓, and no configuration with fewer GPUs ✓
        marks = one_truth.fit_table(shown.body)
        config = f"{needed.configuration.gpu.slug}:{needed.configuration.count}"
        assert marks[config][method_slug], config
        for row, by_method in marks.items():
            if int(row.split(":")[1]) < needed.configuration.count:
                assert not by_method[method_slug], row


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("method_slug", RECOMMENDED_IN_PROSE)
@pytest.mark.parametrize("slug", GUIDES)
def test_a_recommendation_says_we_recommend_what_the_method_table_recommends(
    client, seeded, slug, method_slug, lang
):
    recommended = method_table(client, slug, lang)[method_slug]
    with translation.override(lang):
        shown = page(client, slug, lang)
        if not recommended:
            assert plain(gettext("We have nothing on one host to recommend for it.")) in shown.text
            return
        configs = []
        for config in recommended:
            gpu, count = config.split(":")
            listing = next(g for g in all_gpus() if g.slug == gpu)
            configs.append(show.gpu_count(int(count), listing.name))
        listed = show.word_list(configs, "or")
        if len(configs) == 1:
            expected = gettext("We recommend %(configs)s.") % {"configs": listed}
        else:
            expected = gettext("We recommend %(configs)s (the second for a tight deadline).") % {
                "configs": listed
            }
    assert plain(expected) in shown.text


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", GUIDES)
def test_the_yes_and_no_answers_follow_the_fit_computation(client, seeded, slug, lang):
    shown = page(client, slug, lang)
    one_gpu, rtx_4090 = shown.answers[:2]
    plans = fit_plans(slug, "qlora")
    single = [p for p in plans if p.configuration.count == 1 and p.fits_by_estimate]
    assert one_gpu.startswith(YES[lang] if single else NO[lang]), one_gpu
    guide = Guide.objects.get(slug=slug)
    card = next(g for g in all_gpus() if g.slug == "rtx-4090")
    peaks = planning.peaks_by_count(
        guide.language_model.architecture, guide.training_setup("qlora")
    )
    (plan,) = planning.planned([card.configuration(1)], peaks, Decimal(0))
    assert rtx_4090.startswith(YES[lang] if plan.fits_by_estimate else NO[lang]), rtx_4090
    with translation.override(lang):
        for method_slug in ("qlora", "lora"):  # the one-GPU answer names the smallest card
            fitting = [
                p
                for p in fit_plans(slug, method_slug)
                if p.configuration.count == 1 and p.fits_by_estimate
            ]
            if fitting:
                card = min(
                    fitting,
                    key=lambda p: (p.configuration.gpu.memory_gb, p.configuration.usd_per_hour),
                )
                name = card.configuration.gpu.name
                assert re.search(rf"{re.escape(name)}(?![0-9A-Za-z])", one_gpu), (
                    method_slug,
                    one_gpu,
                )


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("slug", GUIDES)
def test_the_cost_gap_compares_what_the_page_recommends_and_concludes_from_it(
    client, seeded, slug, lang
):
    answer = client.get(f"/api/v1/guides/{slug}/").json()
    first = {m["method"]: (m["recommended"] or [None])[0] for m in answer["methods"]}
    full, qlora = first["full-adamw"], first["qlora"]
    shown = page(client, slug, lang)
    params = Guide.objects.get(slug=slug).language_model.params_billion
    with translation.override(lang):
        section = gap_section(shown, lang)
        conclusions = [
            gettext("A gap of %(ratio)s times per run at our prices is why"),
            gettext("At %(ratio)s times the cost per run at our prices"),
            gettext("At less than twice the cost per run at our prices"),
            gettext("That gap is why most %(params)sB projects start with QLoRA or LoRA."),
        ]
        if full is None:
            name = Method.objects.get(slug="full-adamw").prose_name
            beyond = plain(show.beyond_one_host(8))
            assert f"{name}" in section and beyond in section
            expected = gettext(
                "%(first)s does not fit on one host we rent, so at %(params)sB a project here "
                "starts with QLoRA or LoRA."
            ) % {"first": name, "params": show.number(params)}
            assert plain(expected) in section
            for said in conclusions:
                assert said.split("%(")[0] not in section, said
            return
        # per hour: the recommended configurations' prices; per run: their runs' costs
        hour_full, hour_qlora = (
            Decimal(str(full["usd_per_hour"])),
            Decimal(str(qlora["usd_per_hour"])),
        )
        assert plain(show.usd(hour_full)) in section and plain(show.usd(hour_qlora)) in section
        run_full, run_qlora = Decimal(str(full["usd_per_run"])), Decimal(str(qlora["usd_per_run"]))
        ratio = calc.ratio(run_full, run_qlora)
        words = {
            "ratio": show.number(ratio),
            "params": show.number(params),
            "first_cost": show.usd(run_full),
            "second_cost": show.usd(run_qlora),
        }
        if ratio >= 10:
            expected = gettext(
                "A gap of %(ratio)s times per run at our prices is why most %(params)sB projects "
                "start with QLoRA or LoRA."
            )
        elif ratio >= 2:
            expected = gettext(
                "At %(ratio)s times the cost per run at our prices (%(first_cost)s against "
                "%(second_cost)s), QLoRA or LoRA is the cheaper start at %(params)sB; "
                "full fine-tuning stays within reach where the adapters fall short."
            )
        else:
            expected = gettext(
                "At less than twice the cost per run at our prices (%(first_cost)s against "
                "%(second_cost)s), full fine-tuning is within reach at %(params)sB."
            )
        assert plain(expected % words) in section, section


def gap_section(shown: Page, lang: str) -> str:
    """The text of the section that compares full fine-tuning with QLoRA."""
    heading = {
        "en": "How much more does full fine-tuning cost than QLoRA?",
        "de": "Wie viel mehr kostet vollständiges Fine-Tuning als QLoRA?",
        "ja": "フルファインチューニングはQLoRAよりどのくらい高くつきますか？",
    }[lang]
    last = max(
        i for i, sentence in enumerate(shown.sentences) if sentence == heading
    )  # not the TOC
    after = shown.sentences[last + 1 :]
    return ("" if lang == "ja" else " ").join(after[:12])  # as each language joins sentences


def method_table(client, slug: str, lang: str) -> dict[str, list[str]]:
    return one_truth.method_table(page(client, slug, lang).body)


def test_the_parameters_are_every_published_fine_tuning_guide(seeded):
    """(The serving guides' sentences: tests/guides/pages/test_serving_guide.py.)"""
    published = Guide.objects.published().filter(kind=Guide.Kind.FINE_TUNING)
    assert sorted(published.values_list("slug", flat=True)) == sorted(GUIDES)


def test_the_guide_check_refuses_a_requirement_that_names_the_recommendation(seeded):
    """ "Full fine-tuning needs [[recommend full-adamw first plain]]": the recommendation is not
    what the run needs; [[needs full-adamw]] is."""
    entry = FaqEntry.objects.filter(guide__slug=GUIDE_SLUG).order_by("position").first()
    entry.answer_en = "Full fine-tuning needs [[recommend full-adamw first plain]]."
    entry.answer_de = "Vollständiges Fine-Tuning braucht [[cheapest full-adamw]]."
    entry.answer_ja = "フルファインチューニングには[[recommend full-adamw first plain]]が必要です。"
    entry.save()
    guide = guide_for_page(slug=GUIDE_SLUG, include_drafts=True)
    problems = [str(p) for p in guide_problems(guide) if "names what we recommend" in str(p)]
    assert len(problems) == 3, problems
    assert problems[0] == (
        "FAQ entry 1, answer (English): [[recommend full-adamw first plain]] names what we "
        "recommend, not what the run needs: write [[needs METHOD]] for the smallest "
        "configuration that holds it — “Full fine-tuning needs [[recommend full-adamw first "
        "plain]].”"
    )
    entry.answer_en = "[[needs full-adamw]] [[we_recommend full-adamw]]"
    entry.answer_de = "[[needs full-adamw]] [[we_recommend full-adamw]]"
    entry.answer_ja = "[[needs full-adamw]][[we_recommend full-adamw]]"
    entry.save()
    guide = guide_for_page(slug=GUIDE_SLUG, include_drafts=True)
    assert [str(p) for p in guide_problems(guide)] == []
