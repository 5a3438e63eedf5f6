"""One truth: every published guide, in every language, says what its planner page,
/api/v1/guides/<slug>/ and /api/v1/cost/ say: the same fit marks (the estimate at the guide's
stated run, ``PageFigures.plans``), the same recommendations and alternatives, and the same
hours and cost per run of the guide's training budget (``PageFigures.runs``)."""

import html
import re
from decimal import Decimal
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.utils import translation

from guides.content import presentation as show
from guides.editorial import publishing
from guides.editorial.checks import guide_problems
from guides.models import FaqEntry, Guide, Recommendation
from guides.pages import selectors as guide_selectors
from guides.pages.selectors import guide_for_page
from pricing.models import Gpu, Method
from pricing.services import price_check_record
from tests.conftest import GUIDE_SLUG, TODAY
from tests.guides.test_views import sentences

LANGUAGES = [code for code, _name in settings.LANGUAGES]
PLANNER_70B = "/{}/vram/?model=llama-3.1-70b&method=qlora&seq_len=2048"


@pytest.fixture
def published(seeded) -> list[Guide]:
    """The fine-tuning guides (the serving guides' one truth:
    tests/guides/pages/test_serving_guide.py)."""
    guides = [g for g in guide_selectors.published_guides() if not g.serves]
    assert len(guides) == 5, "the seed publishes the 70B guide and four clones"
    return guides


def method_table(body: str) -> dict[str, list[str]]:
    """Method slug -> the configurations its row recommends, in order ("a100-80gb:1")."""
    table = re.search(r'<table class="methods".*?</table>', body, re.S).group(0)
    return {
        method: re.findall(r'data-config="([^"]+)"', row)
        for method, row in re.findall(r'<tr data-method="([^"]+)"[^>]*>(.*?)</tr>', table, re.S)
    }


def close_call_rows(body: str) -> set[str]:
    """The methods whose method-table row says the model could not tell the cheapest apart."""
    table = re.search(r'<table class="methods".*?</table>', body, re.S).group(0)
    return set(re.findall(r'<tr data-method="([^"]+)" data-close-call="true">', table))


def fit_table(body: str) -> dict[str, dict[str, bool]]:
    """Configuration -> method -> the page's mark (✓ True, ✗ False)."""
    table = re.search(r'<table class="fit".*?</table>', body, re.S).group(0)
    return {
        config: {
            method: mark == "yes"
            for method, mark in re.findall(r'data-method="([^"]+)" class="mark (yes|no)"', row)
        }
        for config, row in re.findall(r'<tr data-config="([^"]+)">(.*?)</tr>', table, re.S)
    }


def planner_recommendation(body: str) -> list[str]:
    shown = re.search(r'<p class="planner-recommendation">(.*?)</p>', body, re.S).group(1)
    return re.findall(r'data-config="([^"]+)"', shown)


def home_card(body: str, guide: Guide, lang: str) -> str:
    """The configuration the home page's card for ``guide`` names as its cheapest fit."""
    with translation.override(lang):
        link = f'<h3><a href="{guide.get_absolute_url()}">'
    card = body.split(link, 1)[1].split('<li class="card">', 1)[0]
    return re.search(r'<dd data-config="([^"]+)">', card).group(1)


def method_row(body: str, method: str) -> str:
    """The text of a method's row in the method table."""
    table = re.search(r'<table class="methods".*?</table>', body, re.S).group(0)
    row = re.search(rf'<tr data-method="{method}"[^>]*>(.*?)</tr>', table, re.S).group(1)
    return re.sub(r"<[^>]+>", "", row)


def rent_links(fragment: str) -> list[str]:
    """Where each rent link of ``fragment`` goes, in order."""
    return [html.unescape(u) for u in re.findall(r'<a class="rent" href="([^"]+)"', fragment)]


def rent_url(run: dict) -> str:
    return f"https://gpuwithcrypto.com/rent?gpu={run['gpu']}&count={run['count']}"


def run_row(body: str, method: str, config: str) -> str:
    """The text of a run's row in the run-cost table."""
    table = re.search(r'<table class="cost runs".*?</table>', body, re.S).group(0)
    row = re.search(
        rf'<tr data-method="{method}" data-config="{config}">(.*?)</tr>', table, re.S
    ).group(1)
    return re.sub(r"<[^>]+>", " ", row)


def run_figures(lang: str, run: dict) -> list[str]:
    """A recommended run's cost and hours as the page in ``lang`` writes them."""
    with translation.override(lang):
        return [show.usd(Decimal(str(run["usd_per_run"]))), show.number(Decimal(str(run["hours"])))]


def run_ranges(lang: str, run: dict) -> list[str]:
    """A derived run's cost and hours ranges as the page in ``lang`` writes them."""

    def figure(key: str) -> Decimal:
        return Decimal(str(run[key]))

    with translation.override(lang):
        return [
            show.usd_range(figure("usd_per_run_low"), figure("usd_per_run_high")),
            show.number_range(figure("hours_low"), figure("hours_high")),
        ]


def api_recommendations(answer: dict) -> dict[str, list[str]]:
    return {
        m["method"]: [f"{r['gpu']}:{r['count']}" for r in m["recommended"]]
        for m in answer["methods"]
    }


def api_fit_table(answer: dict) -> dict[str, dict[str, bool]]:
    return {f"{c['gpu']}:{c['count']}": c["fits"] for c in answer["configurations"]}


def planner_url(lang: str, guide: Guide, method: str) -> str:
    run = {
        "model": guide.language_model.slug,
        "method": method,
        "seq_len": guide.seq_len,
        "batch_size": guide.micro_batch_size,
        "gradient_checkpointing": "on" if guide.gradient_checkpointing else "off",
        "lora_rank": guide.lora_rank,
    }
    return f"/{lang}/vram/?{urlencode(run)}"


def cost_query(guide: Guide, method: str) -> dict:
    return {
        "model": guide.language_model.slug,
        "method": method,
        "seq_len": guide.seq_len,
        "batch_size": guide.micro_batch_size,
        "gradient_checkpointing": "true" if guide.gradient_checkpointing else "false",
        "lora_rank": guide.lora_rank,
        "training_tokens": guide.training_tokens,
        "epochs": guide.epochs,
    }


def test_every_guide_page_planner_and_api_agree_in_every_language(client, published):
    for guide in published:
        answer = client.get(f"/api/v1/guides/{guide.slug}/").json()
        assert answer["run"]["training_tokens"] == guide.training_tokens
        by_method = {m["method"]: m for m in answer["methods"]}
        recommended = api_recommendations(answer)
        assert list(recommended) == ["qlora", "lora", "full-8bit-adam", "full-adamw"]
        for method in answer["methods"]:
            assert method["none_fits"] == (not method["recommended"])
        close_calls = {m["method"] for m in answer["methods"] if m["close_call"]}
        for lang in LANGUAGES:
            body = client.get(f"/{lang}/guides/{guide.slug}/").content.decode()
            where = f"{guide.slug} ({lang})"
            assert method_table(body) == recommended, where
            assert close_call_rows(body) == close_calls, where
            # a rent link for each recommendation, and the short answer's for QLoRA's first
            table = re.search(r'<table class="methods".*?</table>', body, re.S).group(0)
            assert rent_links(table) == [
                rent_url(r) for m in answer["methods"] for r in m["recommended"]
            ], where
            short = body.split('class="short-answer"', 1)[1].split("</section>", 1)[0]
            assert rent_links(short) == [rent_url(by_method["qlora"]["recommended"][0])], where
            assert fit_table(body) == api_fit_table(answer), where
            for method, configs in recommended.items():
                planner = client.get(planner_url(lang, guide, method)).content.decode()
                assert planner_recommendation(planner) == configs, f"{where}, {method}"
                # the same cost and hours per run: method table, run-cost table, planner
                for run in by_method[method]["recommended"]:
                    config = f"{run['gpu']}:{run['count']}"
                    cost, hours = run_figures(lang, run)
                    assert f"{cost}" in method_row(body, method), f"{where}, {method}"
                    assert f" {cost} " in run_row(body, method, config), f"{where}, {config}"
                    assert f" {hours} " in run_row(body, method, config), f"{where}, {config}"
                    if run["time_basis"] == "derived":
                        for shown_range in run_ranges(lang, run):
                            assert shown_range in run_row(body, method, config), where
                    shown = planner.split('class="planner-recommendation"', 1)[1].split("</p>")[0]
                    assert cost in shown, f"{where}, {method} planner"
        # /api/v1/cost/ for the guide's budget: the same speed, hours and cost per run
        for method in answer["methods"]:
            costed = client.get("/api/v1/cost/", cost_query(guide, method["method"])).json()
            rows = {f"{r['gpu']}:{r['count']}": r for r in costed["rows"]}
            # the recommendation is the cheapest run, or in a close call one whose cost lies
            # within the cheapest one's range
            priced = [r for r in rows.values() if r["usd_per_run"] is not None and r["count"] <= 8]
            if method["recommended"]:
                cheapest = min(priced, key=lambda r: (r["usd_per_run"], r["count"]))
                chosen = method["recommended"][0]
                if method["close_call"]:
                    assert chosen["usd_per_run"] <= cheapest["usd_per_run_high"], guide.slug
                else:
                    assert (chosen["gpu"], chosen["count"]) == (cheapest["gpu"], cheapest["count"])
            for run in method["recommended"]:
                row = rows[f"{run['gpu']}:{run['count']}"]
                keys = ("tokens_per_s", "hours", "usd_per_run", "time_basis", "hours_low")
                keys += ("hours_high", "usd_per_run_low", "usd_per_run_high")
                assert {k: row[k] for k in keys} == {k: run[k] for k in keys}, guide.slug
        # The home page's card: the cheapest first recommended run of any method.
        firsts = [m["recommended"][0] for m in answer["methods"] if m["recommended"]]
        cheapest = min(firsts, key=lambda r: r["usd_per_run"])
        for lang in LANGUAGES:
            home = client.get(f"/{lang}/").content.decode()
            assert home_card(home, guide, lang) == (f"{cheapest['gpu']}:{cheapest['count']}"), (
                f"{guide.slug} ({lang}) home card"
            )
            assert run_figures(lang, cheapest)[0] in home
        # Each recommended configuration is a row of the fit table, marked ✓ there.
        table = api_fit_table(answer)
        for method, configs in recommended.items():
            for config in configs:
                assert table[config][method], f"{guide.slug}: {config} for {method}"


def test_recommendations_are_the_cheapest_runs_unless_a_close_call_then_the_fastest(
    client, published
):
    """Pinned (Truth III): the cheapest run of 100 million tokens unless the model cannot tell
    it from others (then the cheapest up-front block, the fewest GPUs, the time), then the
    fastest other. 15 of the 18 are close calls; 9 leave the B200."""
    answers = {g.slug: client.get(f"/api/v1/guides/{g.slug}/").json()["methods"] for g in published}
    recommended = {slug: api_recommendations({"methods": a}) for slug, a in answers.items()}
    decided = {
        slug: {m["method"]: (m["close_call"], m["decided_by"]) for m in a}
        for slug, a in answers.items()
    }
    # 70B QLoRA: one L40S is the cheapest estimate ($78.82 in 96.1 h); one B200 ($4.61, 18.5 h,
    # $85.43, between $55.19 and $127.30) and others cost about the same, and one B200's
    # 24-GPU-hour block is the cheapest up front. Eight B200s are the fastest (2.8 h, $103.16).
    assert recommended[GUIDE_SLUG] == {
        "qlora": ["b200:1", "b200:8"],
        "lora": ["b200:1", "b200:8"],
        "full-8bit-adam": ["b200:8", "h200:8"],
        "full-adamw": ["b200:8"],
    }
    assert decided[GUIDE_SLUG] == {
        "qlora": (True, "upfront"),
        "lora": (True, "gpus"),
        "full-8bit-adam": (False, "cost"),
        "full-adamw": (False, "cost"),
    }
    qlora = {f"{r['gpu']}:{r['count']}": r for r in answers[GUIDE_SLUG][0]["recommended"]}
    keys = ("tokens_per_s", "hours", "hours_low", "hours_high", "usd_per_run")
    keys += ("usd_per_run_low", "usd_per_run_high")
    assert {k: qlora["b200:1"][k] for k in keys} == {
        "tokens_per_s": 1499.0, "hours": 18.5, "hours_low": 12.0, "hours_high": 27.6,
        "usd_per_run": 85.43, "usd_per_run_low": 55.19, "usd_per_run_high": 127.30,
    }  # fmt: skip
    assert {k: qlora["b200:8"][k] for k in ("tokens_per_s", "hours", "usd_per_run")} == {
        "tokens_per_s": 9931.0, "hours": 2.8, "usd_per_run": 103.16
    }  # fmt: skip
    # 405B QLoRA: four A100s cost about the same as the cheapest estimate, and their block is
    # the cheapest up front
    assert recommended["best-gpu-for-llama-3-1-405b-fine-tuning"]["qlora"] == [
        "a100-80gb:4",
        "b200:8",
    ]
    assert recommended["best-gpu-for-llama-3-1-405b-fine-tuning"]["full-adamw"] == []
    # full fine-tuning keeps fp32 master weights (16 bytes a parameter with AdamW): two A100s
    # for Mistral 7B, four for Llama 3.1 8B
    full_on = {"mistral-7b": "a100-80gb:2", "llama-3-1-8b": "a100-80gb:4"}
    for model, a100s in full_on.items():
        slug = f"best-gpu-for-{model}-fine-tuning"
        assert recommended[slug]["qlora"] == ["l40s:1", "b200:8"]
        assert recommended[slug]["lora"] == ["l40s:1", "b200:8"]
        assert recommended[slug]["full-adamw"] == [a100s, "b200:8"]
        assert decided[slug]["full-adamw"] == (True, "upfront")
    assert recommended["best-gpu-for-qwen-2-5-32b-fine-tuning"]["full-8bit-adam"] == [
        "b200:4",
        "b200:8",
    ]
    close = [c for by_method in decided.values() for c, _ in by_method.values() if c]
    assert len(close) == 15
    firsts = [r[0] for by_method in recommended.values() for r in by_method.values() if r]
    assert sum(not first.startswith("b200") for first in firsts) == 9


def test_the_api_answers_the_guides_run_and_its_figures(client, seeded):
    answer = client.get(f"/api/v1/guides/{GUIDE_SLUG}/").json()
    assert answer["run"] == {
        "seq_len": 2048,
        "batch_size": 1,
        "gradient_checkpointing": True,
        "lora_rank": 16,
        "recipe": "trl",
        "cpu_offload": False,
        "basis": "derived, not measured",
        "training_tokens": 100_000_000,
        "epochs": 1,
    }
    assert answer["as_of"] == TODAY.isoformat()
    first = answer["methods"][0]["recommended"][0]
    assert first == {
        "gpu": "b200",
        "count": 1,
        "peak_gb_per_gpu": pytest.approx(45.1, abs=0.05),
        "reserved_gb_per_gpu": pytest.approx(46.8, abs=0.05),
        "usable_gb_per_gpu": 190.99,
        "usd_per_hour": 4.61,
        "override": False,
        "tokens_per_s": 1499.0,
        "time_basis": "derived",
        "hours": 18.5,
        "hours_low": 12.0,
        "hours_high": 27.6,
        "usd_per_run": 85.43,
        "usd_per_run_low": 55.19,
        "usd_per_run_high": 127.30,
    }
    listing = client.get("/api/v1/guides/").json()["guides"]
    seventy = next(g for g in listing if g["slug"] == GUIDE_SLUG)
    assert seventy["model"] == "llama-3.1-70b"
    assert seventy["titles"]["ja"] == "Llama 3.1 70Bのファインチューニングに最適なGPUはどれですか？"


def test_the_guide_api_refuses_what_it_cannot_answer(client, seeded):
    missing = client.get("/api/v1/guides/no-such-guide/")
    assert missing.status_code == 404
    assert missing.json() == {"errors": {"slug": "no published guide 'no-such-guide'"}}
    bad_day = client.get(f"/api/v1/guides/{GUIDE_SLUG}/?as_of=2026-02-30")
    assert bad_day.status_code == 400
    assert set(bad_day.json()["errors"]) == {"as_of"}
    assert client.get(f"/api/v1/guides/{GUIDE_SLUG}/?colour=red").status_code == 400
    Guide.objects.filter(slug=GUIDE_SLUG).update(status=Guide.Status.DRAFT)
    assert client.get(f"/api/v1/guides/{GUIDE_SLUG}/").status_code == 404


def tutorial_rows(body: str) -> dict[str, tuple[str, str]]:
    """Method -> (the configuration the tutorial rents, the text of its row)."""
    table = re.search(r'<table class="tutorial-runs".*?</table>', body, re.S).group(0)
    return {
        method: (config, re.sub(r"<[^>]+>", " ", row))
        for method, config, row in re.findall(
            r'<tr data-method="([^"]+)" data-config="([^"]+)">(.*?)</tr>', table, re.S
        )
    }


def test_every_tutorial_rents_and_prices_what_its_guide_recommends(client, published):
    """The tutorial's configuration per method is the guide's recommendation, with the same
    hours and cost per run, and its commands are for that configuration's GPU count."""
    for guide in published:
        answer = client.get(f"/api/v1/guides/{guide.slug}/").json()
        firsts = {m["method"]: m["recommended"][0] for m in answer["methods"] if m["recommended"]}
        for lang in LANGUAGES:
            body = client.get(f"/{lang}/guides/{guide.slug}/tutorial/").content.decode()
            where = f"{guide.slug} ({lang}) tutorial"
            rows = tutorial_rows(body)
            assert {m: config for m, (config, _row) in rows.items()} == {
                m: f"{r['gpu']}:{r['count']}" for m, r in firsts.items()
            }, where
            for method, run in firsts.items():
                cost, hours = run_figures(lang, run)
                assert f" {cost} " in rows[method][1] and f" {hours} " in rows[method][1], where
                section = body.split(f'id="train-{method}"', 1)[1].split("</section>", 1)[0]
                assert cost in section and hours in section, f"{where}, {method}"
                processes = re.findall(r"--num_processes (\d+)", section)
                assert processes == ([str(run["count"])] * 2 if run["count"] > 1 else []), where


def test_a_price_change_moves_page_and_api_together(client, seeded):
    """The B200 at $9.99: one L40S becomes the 70B QLoRA recommendation (a close call among
    the runs on Ampere, Ada and Hopper cards), eight B200s stay the fastest; page and API move
    at once."""
    price_check_record(
        provider_slug="gpuwithcrypto", checked_on=TODAY, prices={"b200": Decimal("9.99")}
    )
    answer = client.get(f"/api/v1/guides/{GUIDE_SLUG}/").json()
    assert api_recommendations(answer)["qlora"] == ["l40s:1", "b200:8"]
    qlora = answer["methods"][0]
    assert (qlora["recommended"][0]["usd_per_run"], qlora["close_call"]) == (78.82, True)
    for lang in LANGUAGES:
        body = client.get(f"/{lang}/guides/{GUIDE_SLUG}/").content.decode()
        assert method_table(body)["qlora"] == ["l40s:1", "b200:8"]


def test_an_editors_override_is_marked_on_the_page_and_in_the_api(client, seeded):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    Recommendation.objects.create(
        guide=guide, method=Method.objects.get(slug="qlora"), gpu=Gpu.objects.get(slug="h100")
    )
    answer = client.get(f"/api/v1/guides/{GUIDE_SLUG}/").json()
    (override,) = answer["methods"][0]["recommended"]
    assert (override["gpu"], override["override"], override["usd_per_run"]) == ("h100", True, 99.91)
    body = client.get(f"/en/guides/{GUIDE_SLUG}/").content.decode()
    assert method_row(body, "qlora").strip().endswith("(our editors’ choice)")
    assert "(our editors’ choice)" not in method_row(body, "lora")


def test_no_english_title_on_a_german_or_japanese_page(client, published):
    for guide in published:
        assert guide.title_de != guide.title_en and guide.title_ja != guide.title_en
        for lang in ("de", "ja"):
            # <wbr> (Japanese phrases) adds no text: the visitor reads the title as stored.
            body = client.get(f"/{lang}/guides/{guide.slug}/").content.decode()
            body = body.replace("<wbr>", "")
            title = getattr(guide, f"title_{lang}")
            assert f"<h1>{title}</h1>" in body or f">{title}</h1>" in body, guide.slug
            assert guide.title_en not in body, f"{guide.slug} ({lang})"


def test_publishing_refuses_an_override_the_estimate_does_not_fit(seeded):
    """An editor may override a recommendation, but not with one the run does not fit."""
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    editor = User.objects.create_user("erika", password="pw-for-tests-only", is_staff=True)
    editor.groups.add(Group.objects.get(name="Reviewers"))
    Recommendation.objects.create(  # 70B LoRA on one L40S: 149.3 GB needed, 47.2 usable
        guide=guide, method=Method.objects.get(slug="lora"), gpu=Gpu.objects.get(slug="l40s")
    )
    outcome = publishing.publish_rows(guide, user=editor, comment="one L40S for LoRA")
    first, *then = [str(p) for p in outcome.problems]
    assert first == (
        "recommendation 0: LoRA, 1× L40S: by the estimate, the guide's run needs "
        "149.3\u00a0GB per GPU here, more than the 47.2\u00a0GB each card can use"
    )
    # the guide's text says nothing else of a LoRA run on the override
    assert then == []


def stale_notice(body: str) -> str | None:
    """The notice's text, no-break spaces (dates keep together) made plain."""
    found = re.search(r'<p class="stale-notice" role="note">(.*?)</p>', body, re.S)
    return found and found.group(1).replace("\u00a0", " ")


def test_prices_older_than_the_limit_carry_a_notice_with_their_date(client, seeded, settings):
    """The seed's checks are of October 29; "today" is November 29: 31 days."""
    expected = (
        "These prices may be out of date: the oldest was checked on October 29, 2026, more "
        "than 30 days ago. Check the current price before you rent."
    )
    for url in ("/en/", f"/en/guides/{GUIDE_SLUG}/", "/en/gpus/", "/en/compare/h100-vs-a100-80gb/"):
        assert stale_notice(client.get(url).content.decode()) == expected, url
    assert "2026年10月29日" in stale_notice(client.get("/ja/").content.decode())
    settings.PRICE_STALE_AFTER_DAYS = 31  # exactly 31 days old is not yet older
    assert stale_notice(client.get("/de/").content.decode()) is None


def test_a_fresh_check_of_our_prices_lifts_the_notice_where_only_ours_are_quoted(client, seeded):
    prices = {"l40s": "0.82", "a100-80gb": "0.92", "h100": "2.32", "h200": "3.07", "b200": "4.61"}
    price_check_record(
        provider_slug="gpuwithcrypto",
        checked_on=TODAY,
        prices={gpu: Decimal(price) for gpu, price in prices.items()},
    )
    assert stale_notice(client.get("/en/").content.decode()) is None  # our prices only
    # the guide still quotes the other providers' checks of October 29
    assert "October 29, 2026" in stale_notice(
        client.get(f"/en/guides/{GUIDE_SLUG}/").content.decode()
    )


def test_no_english_sentence_on_a_german_or_japanese_page(client, published):
    """Every sentence of four words or more that the English page says is said otherwise on
    the German and Japanese pages: every published guide, the home page, the GPU prices, a
    comparison and the planner with a result (table captions included)."""
    pages = ["/{}/", "/{}/gpus/", "/{}/compare/h100-vs-a100-80gb/", PLANNER_70B]
    pages += [f"/{{}}/guides/{guide.slug}/" for guide in published]
    pages += [f"/{{}}/guides/{guide.slug}/tutorial/" for guide in published]
    for page in pages:
        english = {s for s in prose(client, page.format("en")) if len(s.split()) >= 4}
        assert english, page
        for lang in ("de", "ja"):
            left = [s for s in prose(client, page.format(lang)) if s in english]
            assert left == [], page.format(lang)


def prose(client, url: str) -> list[str]:
    """The page's sentences, code (command lines, versions) left out: it reads the same in
    every language."""
    response = client.get(url)
    response.content = re.sub(r"<code\b.*?</code>", " ", response.content.decode(), flags=re.S)
    return sentences(response)


def test_the_guide_check_refuses_a_typed_answer_its_token_contradicts(seeded):
    """ "Nein." before a sentence that QLoRA fits on one GPU; "Yes." before the RTX 4090's no."""
    first, second = FaqEntry.objects.filter(guide__slug=GUIDE_SLUG).order_by("position")[:2]
    first.answer_de = "Nein. [[single_gpu qlora]]"
    first.save()
    second.answer_en = "Yes, [[verdict qlora rtx-4090]]"
    second.save()
    problems = [
        str(p) for p in guide_problems(guide_for_page(slug=GUIDE_SLUG, include_drafts=True))
    ]
    assert [p for p in problems if "answers" in p] == [
        "FAQ entry 2, answer (English): the text answers yes, but [[verdict qlora rtx-4090]] "
        "answers no by the estimate — “Yes, [[verdict qlora rtx-4090]]”",
        "FAQ entry 1, answer (German): the text answers no, but [[single_gpu qlora]] answers "
        "yes by the estimate — “Nein. [[single_gpu qlora]]”",
    ]
    first.answer_de = "Ja. [[single_gpu qlora]]"  # agrees: no problem
    first.save()
    problems = [
        str(p) for p in guide_problems(guide_for_page(slug=GUIDE_SLUG, include_drafts=True))
    ]
    assert [p for p in problems if "German" in p] == []


def test_a_method_the_estimate_does_not_know_cannot_be_saved(seeded):
    """Every fit is the estimate's: a method it cannot estimate would leave a guide's column
    undecided, so the admin refuses it."""
    new = Method(slug="dora", name="DoRA", short_name="DoRA")
    with pytest.raises(ValidationError) as refused:
        new.full_clean()
    assert refused.value.message_dict["slug"] == [
        "the peak-memory estimate, which decides every fit, knows only these methods: qlora, "
        "lora, full-8bit-adam, full-adamw"
    ]
    Method.objects.get(slug="qlora").full_clean()  # the seeded ones pass
