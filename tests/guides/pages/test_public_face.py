"""The public face: comparisons editors publish, search data, brand and home, legal pages, feeds."""

import html
import json
import re
from datetime import datetime, timedelta
from decimal import Decimal as D
from xml.etree import ElementTree

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import override_settings

from guides.editorial import publishing
from guides.editorial.seeding import load_comparisons, load_legal_pages
from guides.models import ComparisonPair, Guide, LegalPage, Operator
from pricing.models import Gpu
from pricing.services import price_check_record
from tests.conftest import GUIDE_SLUG, SEED_DAY, TODAY, review_legal_pages

LANGS = ["en", "de", "ja"]
COMPARE = "/{lang}/compare/h100-vs-a100-80gb/"
# Every public page that answers 200 (the planner's queries share the bare page's title).
PUBLIC_PAGES = [
    "/{lang}/",
    f"/{{lang}}/guides/{GUIDE_SLUG}/",
    "/{lang}/gpus/",
    "/{lang}/vram/",
    COMPARE,
    "/{lang}/legal/imprint/",
    "/{lang}/legal/privacy/",
    "/{lang}/legal/commercial-transactions/",
    "/{lang}/legal/terms/",
]
ATOM = "{http://www.w3.org/2005/Atom}"

pytestmark = pytest.mark.usefixtures("seeded")


def body(response) -> str:
    """The page's HTML less the <wbr> between Japanese phrases (markup, no text)."""
    return response.content.decode().replace("<wbr>", "")


def head_value(response, pattern: str) -> str | None:
    found = re.search(pattern, body(response))
    return found.group(1) if found else None


def json_ld(response) -> list[dict]:
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', body(response), re.S)
    return [json.loads(block) for block in blocks]


def of_type(response, kind: str) -> list[dict]:
    return [block for block in json_ld(response) if block["@type"] == kind]


# --- comparisons ---------------------------------------------------------------------------


def test_seed_publishes_the_pair_the_guides_compare():
    pairs = [(p.first.slug, p.second.slug, p.published) for p in ComparisonPair.objects.all()]
    assert pairs == [("h100", "a100-80gb", True)]


@pytest.mark.parametrize(
    "path",
    [
        "/en/compare/h100-vs-h100/",  # the same GPU twice
        "/en/compare/a100-80gb-vs-h100/",  # the published pair, the other way round
        "/en/compare/h200-vs-b200/",  # two GPUs nobody published
        "/en/compare/nope-vs-h100/",
    ],
)
def test_only_published_pairs_have_a_page(client, path):
    assert client.get(path).status_code == 404


def test_an_unpublished_pair_is_a_404_and_publishing_it_makes_the_page(client):
    ComparisonPair.objects.update(published=False)
    assert client.get(COMPARE.format(lang="en")).status_code == 404
    ComparisonPair.objects.update(published=True)
    assert client.get(COMPARE.format(lang="en")).status_code == 200


def test_editors_preview_an_unpublished_pair_other_staff_do_not(client):
    ComparisonPair.objects.update(published=False)
    client.force_login(User.objects.create_user("eve", is_staff=True))  # staff, no role
    assert client.get(COMPARE.format(lang="en")).status_code == 404
    editor = User.objects.create_user("ed", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    client.force_login(editor)
    assert client.get(COMPARE.format(lang="en")).status_code == 200


def test_a_pair_of_one_gpu_is_refused():
    h100 = Gpu.objects.get(slug="h100")
    pair = ComparisonPair(first=h100, second=h100)
    with pytest.raises(Exception, match="different GPU"):
        pair.full_clean()


@pytest.mark.parametrize(
    ("lang", "title"),
    [("en", "H100 vs A100 80GB"), ("de", "H100 vs. A100 80GB"), ("ja", "H100とA100 80GBの比較")],
)
def test_comparisons_are_listed_on_the_gpu_page_and_home_with_translated_titles(
    client, lang, title
):
    link = f'<a href="/{lang}/compare/h100-vs-a100-80gb/">{title}</a>'
    assert link in body(client.get(f"/{lang}/gpus/"))
    assert link in body(client.get(f"/{lang}/"))
    page = client.get(COMPARE.format(lang=lang))
    assert f"<h1>{title}</h1>" in body(page)
    assert head_value(page, r"<title>(.*?)</title>") == f"{title} · GPU Guide"


def test_the_sitemap_lists_only_published_comparisons(client):
    ComparisonPair.objects.create(
        first=Gpu.objects.get(slug="h200"), second=Gpu.objects.get(slug="b200"), published=False
    )
    sitemap = body(client.get("/sitemap.xml"))
    assert "/en/compare/h100-vs-a100-80gb/" in sitemap
    assert "h200-vs-b200" not in sitemap


# --- search data ---------------------------------------------------------------------------


def test_every_page_has_its_own_title_and_description_in_each_language(client):
    review_legal_pages()
    titles, descriptions = {}, {}
    for lang in LANGS:
        for path in PUBLIC_PAGES:
            url = path.format(lang=lang)
            response = client.get(url)
            assert response.status_code == 200, url
            title = head_value(response, r"<title>(.*?)</title>")
            description = head_value(response, r'<meta name="description" content="(.*?)">')
            assert title and description, url
            assert title.endswith(" · GPU Guide")
            titles.setdefault(title, []).append(url)
            descriptions.setdefault(description, []).append(url)
    assert {t: urls for t, urls in titles.items() if len(urls) > 1} == {}
    assert {d: urls for d, urls in descriptions.items() if len(urls) > 1} == {}


@override_settings(SITE_NAME="Acme GPUs")
def test_the_site_name_comes_from_one_setting(client):
    page = client.get("/en/gpus/")
    assert head_value(page, r"<title>(.*?)</title>") == "GPU prices · Acme GPUs"
    assert re.search(r'class="brand"[^>]*>.*?<span>Acme GPUs</span>', body(page), re.S)
    assert "GPUwithCrypto</title>" not in body(page)


def test_x_default_is_the_english_page_in_html_and_sitemap(client):
    page = client.get("/de/gpus/")
    html_default = head_value(page, r'<link rel="alternate" hreflang="x-default" href="(.*?)">')
    assert html_default == "http://testserver/en/gpus/"
    sitemap = ElementTree.fromstring(client.get("/sitemap.xml").content)
    links = sitemap.findall(".//{http://www.w3.org/1999/xhtml}link")
    defaults = {link.get("href") for link in links if link.get("hreflang") == "x-default"}
    assert html_default in defaults
    assert all(re.match(r"http://testserver/en/", url) for url in defaults), defaults


@pytest.mark.parametrize("lang", LANGS)
def test_error_pages_have_no_canonical_or_alternates(client, lang):
    for response in (
        client.get(f"/{lang}/guides/no-such-guide/"),
        client.get(f"/{lang}/gpus/?as_of=1999-01-01"),
    ):
        assert response.status_code in (400, 404)
        assert 'rel="canonical"' not in body(response)
        assert "hreflang" not in body(response).split("</head>")[0]
        assert '<meta name="robots" content="noindex">' in body(response)


@pytest.mark.parametrize("lang", LANGS)
def test_guide_is_a_tech_article_with_a_breadcrumb_that_matches_the_visible_one(client, lang):
    guide = Guide.objects.get(slug=GUIDE_SLUG)
    response = client.get(f"/{lang}/guides/{GUIDE_SLUG}/")
    [article] = of_type(response, "TechArticle")
    url = f"http://testserver/{lang}/guides/{GUIDE_SLUG}/"
    assert article["headline"] == guide.title  # English here: the test runs in English
    assert article["url"] == url
    assert article["inLanguage"] == lang
    assert article["datePublished"] == guide.published_on.isoformat()
    # The last edit or the newest price the page quotes, whichever is later.
    assert article["dateModified"] == max(guide.updated_at.date(), SEED_DAY).isoformat()
    assert article["author"]["name"] == article["publisher"]["name"] == "GPUwithCrypto"
    assert article["image"] == f"{url}share.png?v={guide.version}"
    [trail] = of_type(response, "BreadcrumbList")
    items = [(i["name"], i["item"]) for i in trail["itemListElement"]]
    nav = re.search(r'<nav class="breadcrumb".*?</nav>', body(response), re.S).group(0)
    visible = re.findall(r'<a href="([^"]+)">([^<]+)</a>|<span aria-current="page">([^<]+)', nav)
    assert [(name or current, f"http://testserver{href}" if href else url)
            for href, name, current in visible] == items  # fmt: skip
    assert items[0] == ("GPU Guide", f"http://testserver/{lang}/")
    assert len(of_type(response, "FAQPage")) == 1


def test_a_later_price_check_moves_the_articles_date_modified(client):
    price_check_record(
        provider_slug="gpuwithcrypto",
        checked_on=TODAY,
        prices={"h100": D("2.10")},
    )
    [article] = of_type(client.get(f"/en/guides/{GUIDE_SLUG}/"), "TechArticle")
    assert article["dateModified"] == TODAY.isoformat()


def test_home_is_an_organization_and_a_website(client):
    response = client.get("/de/")
    [organization] = of_type(response, "Organization")
    assert organization["name"] == "GPUwithCrypto"
    assert organization["url"] == "https://gpuwithcrypto.com"
    [website] = of_type(response, "WebSite")
    assert (website["name"], website["url"], website["inLanguage"]) == (
        "GPU Guide",
        "http://testserver/de/",
        "de",
    )


def test_gpu_page_has_a_product_with_an_offer_per_gpu_we_rent(client):
    products = of_type(client.get("/ja/gpus/"), "Product")
    offers = {p["name"]: p["offers"] for p in products}
    assert sorted(offers) == ["A100 80GB", "B200", "H100", "H200", "L40S"]
    h100 = offers["H100"]
    assert (h100["price"], h100["priceCurrency"], h100["validFrom"]) == (
        "2.32",
        "USD",
        "2026-10-29",
    )
    assert h100["priceValidUntil"] == (TODAY + timedelta(days=30)).isoformat()
    assert h100["priceSpecification"]["unitCode"] == "HUR"


def test_a_past_days_gpu_page_offers_nothing(client):
    assert of_type(client.get("/en/gpus/?as_of=2026-10-29"), "Product") == []


@pytest.mark.parametrize("lang", LANGS)
def test_open_graph_and_twitter_tags(client, lang):
    response = client.get(f"/{lang}/guides/{GUIDE_SLUG}/")

    def meta(name: str) -> str | None:
        return head_value(response, rf'<meta (?:property|name)="{name}" content="(.*?)">')

    assert meta("og:type") == "article"
    assert meta("og:url") == f"http://testserver/{lang}/guides/{GUIDE_SLUG}/"
    assert meta("og:title") == head_value(response, r"<title>(.*?) · GPU Guide</title>")
    assert meta("og:description") == head_value(
        response, r'<meta name="description" content="(.*?)">'
    )
    assert meta("og:locale") == {"en": "en_US", "de": "de_DE", "ja": "ja_JP"}[lang]
    version = Guide.objects.get(slug=GUIDE_SLUG).version
    share = f"http://testserver/{lang}/guides/{GUIDE_SLUG}/share.png?v={version}"
    assert meta("og:image") == share
    assert meta("og:image:alt") == meta("og:title")
    site_wide = head_value(
        client.get(f"/{lang}/gpus/"), r'<meta property="og:image" content="(.*?)">'
    )
    assert site_wide.startswith("http://testserver/static/img/share")
    assert meta("twitter:card") == "summary_large_image"
    assert meta("og:type") == "article"
    assert head_value(client.get(f"/{lang}/"), r'<meta property="og:type" content="(.*?)">') == (
        "website"
    )


@override_settings(SITE_URL="https://guide.example.com")
def test_absolute_urls_come_from_site_url_when_it_is_set(client):
    response = client.get("/en/gpus/")
    assert '<link rel="canonical" href="https://guide.example.com/en/gpus/">' in body(response)
    assert 'hreflang="de" href="https://guide.example.com/de/gpus/"' in body(response)
    assert "https://guide.example.com/en/gpus/" in body(client.get("/sitemap.xml"))
    assert "testserver" not in body(client.get("/sitemap.xml"))


# --- brand, footer, legal pages -------------------------------------------------------------


def test_icons_are_linked_and_favicon_ico_answers(client):
    page = body(client.get("/en/"))
    for href in ("favicon.ico", "img/logo.svg", "img/apple-touch-icon.png"):
        assert f'href="/static/{href}"' in page
    redirect = client.get("/favicon.ico")
    assert (redirect.status_code, redirect["Location"]) == (302, "/static/favicon.ico")


@pytest.mark.parametrize(
    ("path", "cites"),
    [
        (f"/en/guides/{GUIDE_SLUG}/", True),
        ("/en/vram/", True),
        ("/en/", False),
        ("/en/gpus/", False),
        (COMPARE.format(lang="en"), False),
        ("/en/legal/terms/", False),
    ],
)
def test_cited_sources_sentence_only_where_sources_are_cited(client, path, cites):
    sentence = "Rules of thumb are from the cited sources."
    assert (sentence in body(client.get(path))) is cites


@pytest.mark.parametrize(
    ("lang", "titles"),
    [
        (
            "en",
            [
                "Imprint",
                "Privacy notice",
                "Specified Commercial Transactions Act notice",
                "Terms of use",
            ],
        ),
        (
            "de",
            [
                "Impressum",
                "Datenschutzerklärung",
                "Angaben nach dem japanischen Gesetz über bestimmte Handelsgeschäfte",
                "Nutzungsbedingungen",
            ],
        ),
        ("ja", ["運営者情報", "プライバシーポリシー", "特定商取引法に基づく表記", "利用規約"]),
    ],
)
def test_legal_pages_are_public_only_once_reviewed(client, admin_user, lang, titles):
    """The seed's terms draft and the operator's pages (no details yet) answer 404 to visitors
    and are not linked; staff read them with the draft notice; reviewed and filled in, they
    are public, linked and without it."""
    kinds = ["imprint", "privacy", "commercial-transactions", "terms"]
    footer = body(client.get(f"/{lang}/")).split('<footer class="site-footer">')[1]
    assert "/legal/" not in footer
    assert 'href="mailto:support@gpuwithcrypto.com"' in footer
    for kind in kinds:
        assert client.get(f"/{lang}/legal/{kind}/").status_code == 404
    assert "/legal/" not in body(client.get("/sitemap.xml"))
    client.force_login(admin_user)
    draft = body(client.get(f"/{lang}/legal/imprint/"))
    assert f"<h1>{titles[0]}</h1>" in draft and 'class="draft-banner"' in draft
    client.logout()
    review_legal_pages()
    footer = body(client.get(f"/{lang}/")).split('<footer class="site-footer">')[1]
    for kind, title in zip(kinds, titles, strict=True):
        assert f'href="/{lang}/legal/{kind}/"' in footer
        response = client.get(f"/{lang}/legal/{kind}/")
        assert f"<h1>{title}</h1>" in body(response)
        assert 'class="draft-banner"' not in body(response)
        assert f"/{lang}/legal/{kind}/" in body(client.get("/sitemap.xml"))


def test_the_dashboard_names_each_unreviewed_legal_page_and_empty_operator_field(seeded):
    from guides.dashboard import legal_page_warnings

    Operator.objects.create(legal_name="Beispiel GmbH")
    assert [w.message for w in legal_page_warnings()] == [
        "Before launch: the operator's details lack street_address, postcode, city, "
        "country_en, country_de, country_ja, email, phone, representatives, "
        "content_responsible, prices_en, prices_de, prices_ja, payment_methods_en, "
        "payment_methods_de, payment_methods_ja, payment_timing_en, payment_timing_de, "
        "payment_timing_ja, delivery_en, delivery_de, delivery_ja, cancellation_en, "
        "cancellation_de, cancellation_ja, privacy_authority_en, privacy_authority_de, "
        "privacy_authority_ja, hosting_provider, hosting_location_en, hosting_location_de, "
        "hosting_location_ja, log_retention_days, so visitors get a 404 for the imprint, the "
        "privacy notice and the commercial-transactions notice, and the footer does not link "
        "them.",
        "Before launch: the Terms of use has not been reviewed by the company, so visitors get "
        "a 404 and the footer does not link it.",
    ]
    Operator.objects.all().delete()
    review_legal_pages()  # the example operator's details: complete
    assert legal_page_warnings() == []


def test_a_reviewed_legal_page_drops_its_draft_note_and_escapes_editor_text(client):
    LegalPage.objects.filter(kind="terms").update(
        reviewed=True, body_en="<script>alert(1)</script>\n\nSecond paragraph."
    )
    page = body(client.get("/en/legal/terms/"))
    assert 'class="draft-banner"' not in page
    assert "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>" in page
    assert "<p>Second paragraph.</p>" in page


def test_an_unknown_legal_page_is_a_404(client):
    assert client.get("/en/legal/cookies/").status_code == 404
    review_legal_pages()
    LegalPage.objects.filter(kind="terms").delete()
    assert client.get("/en/legal/terms/").status_code == 404
    assert "/legal/terms/" not in body(client.get("/sitemap.xml"))


@pytest.mark.parametrize("lang", LANGS)
def test_home_leads_with_the_question_then_guide_cards_prices_and_a_call_to_rent(client, lang):
    response = client.get(f"/{lang}/")
    page = body(response)
    question = {
        "en": "Which GPU should I rent to fine-tune my model?",
        "de": "Welche GPU sollte ich zum Fine-Tuning meines Modells mieten?",
        "ja": "モデルのファインチューニングにはどのGPUを借りればよいですか？",
    }[lang]
    assert re.search(r"<h1[^>]*>(.*?)</h1>", page).group(1) == question
    cards = re.findall(r'<li class="card">(.*?)</li>\n', page, re.S)
    assert len(cards) == Guide.objects.published().count()
    assert 'class="cta" href="https://gpuwithcrypto.com"' in page
    assert 'table class="home-prices"' in page


def test_a_guide_card_names_the_model_methods_cheapest_fit_and_check_day(client):
    page = body(client.get("/en/"))
    card = re.search(rf'<li class="card">.*?{GUIDE_SLUG}.*?</li>\n', page, re.S).group(0)
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card)).replace("\u00a0", " ")
    assert "Model Llama 3.1 70B" in text
    assert "QLoRA" in text and "LoRA" in text
    # LoRA on one B200 (17.7 h, $81.41) is the cheapest run the guide recommends for any method;
    # QLoRA's is $85.43. One L40S runs QLoRA for less ($78.82 in 96.1 h), but in a close call the
    # guide recommends one B200, and the card says "recommended", never just "cheapest".
    assert (
        "Cheapest recommended run 1× B200 for LoRA: $81.41 for 100,000,000 training tokens "
        "($4.61 per hour)"
    ) in text
    assert "Last checked October 29, 2026" in text


def test_the_home_page_follows_a_new_price(client):
    price_check_record(
        provider_slug="gpuwithcrypto",
        checked_on=TODAY,
        prices={"b200": D("4.00")},
    )
    text = body(client.get("/en/")).replace("\u00a0", " ")
    # 100 million tokens at 1,573 a second: 17.66 h at $4.00
    assert "1× B200 for LoRA: $70.64 for 100,000,000 training tokens ($4.00 per hour)" in text


@pytest.mark.parametrize(
    ("lang", "stale", "fresh"),
    [
        ("en", "Our prices as last checked", "Today's prices"),
        ("de", "Unsere Preise, zuletzt geprüft", "Heutige Preise"),
        ("ja", "当社の価格（最終確認時点）", "本日の価格"),
    ],
)
def test_the_home_says_todays_prices_only_when_every_price_was_checked_today(
    client, lang, stale, fresh
):
    """The seed's prices are from October 29, a month before TODAY: not "today's"; once every
    GPU we rent is checked today, they are."""
    heading = re.compile(r'<h2 id="prices-h">(.*?)</h2>')
    assert html.unescape(heading.search(body(client.get(f"/{lang}/"))).group(1)) == stale
    rented = Gpu.objects.filter(rentable=True).values_list("slug", flat=True)
    price_check_record(
        provider_slug="gpuwithcrypto", checked_on=TODAY, prices=dict.fromkeys(rented, D("3.00"))
    )
    assert html.unescape(heading.search(body(client.get(f"/{lang}/"))).group(1)) == fresh


def test_seeding_again_keeps_the_editors_legal_text_and_pairs(tmp_path):
    LegalPage.objects.filter(kind="terms").update(title_en="Our terms", reviewed=True)
    ComparisonPair.objects.update(published=False)
    call_command("seed_content", stdout=open("/dev/null", "w"))  # noqa: SIM115
    terms = LegalPage.objects.get(kind="terms")
    assert (terms.title_en, terms.reviewed) == ("Our terms", True)
    assert not ComparisonPair.objects.get().published


def test_content_files_with_unknown_names_are_refused(tmp_path):
    (tmp_path / "comparisons.json").write_text('[{"first": "h100", "second": "z9"}]')
    with pytest.raises(ValueError, match="unknown GPU"):
        load_comparisons(tmp_path / "comparisons.json")
    (tmp_path / "legal").mkdir()
    (tmp_path / "legal" / "cookies.json").write_text("{}")
    with pytest.raises(ValueError, match="not a legal page"):
        load_legal_pages(tmp_path / "legal")


# --- feeds ---------------------------------------------------------------------------------


def atom(response) -> ElementTree.Element:
    assert response["Content-Type"].startswith("application/atom+xml")
    return ElementTree.fromstring(response.content)


@pytest.mark.parametrize("lang", LANGS)
def test_guide_feed_lists_every_published_guide_newest_edit_first(client, lang):
    feed = atom(client.get(f"/{lang}/feeds/guides.xml"))
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == Guide.objects.published().count()
    links = [e.find(f"{ATOM}link").get("href") for e in entries]
    assert f"http://testserver/{lang}/guides/{GUIDE_SLUG}/" in links
    assert f'href="/{lang}/feeds/guides.xml"' in body(client.get(f"/{lang}/"))


def test_guide_feed_dates_each_guide_by_its_last_published_change(client):
    """Issue 54: every entry said the day the seed was loaded (the rows' last save). The seed's
    guide is dated as its content was published; an edit published later dates it anew."""
    from tests.conftest import as_if_committed

    def updated() -> list[tuple[str, str]]:
        feed = atom(client.get("/en/feeds/guides.xml"))
        return [
            (e.find(f"{ATOM}link").get("href").split("/")[-2], e.find(f"{ATOM}updated").text)
            for e in feed.findall(f"{ATOM}entry")
        ]

    guide = Guide.objects.get(slug=GUIDE_SLUG)
    assert guide.updated_at.date() == TODAY  # saved by the seed, today
    before = dict(updated())
    assert before.pop(GUIDE_SLUG) == "2026-10-29T00:00:00+00:00"  # its content as published
    # clones and the serving guides: made today
    assert set(before.values()) == {f"{TODAY.isoformat()}T00:00:00+00:00"}
    editor = User.objects.create_user("erika", password="pw-for-tests-only", is_staff=True)
    editor.groups.add(Group.objects.get(name="Reviewers"))
    guide.question_en = "Which GPU do I rent for Llama 3.1 70B?"
    guide.save()
    assert not publishing.publish_rows(guide, user=editor, comment="a question").problems
    as_if_committed()
    after = dict(updated())
    # The guide and its clones, which follow its published changes, are dated anew; the
    # serving guides (another family) are not.
    family = {GUIDE_SLUG, *Guide.objects.filter(source=guide).values_list("slug", flat=True)}
    assert len(family) == 5
    noon = datetime.fromisoformat(f"{TODAY.isoformat()}T12:00:00+00:00")  # the pinned clock
    assert all(datetime.fromisoformat(after[slug]) >= noon for slug in family)
    others = {slug: day for slug, day in before.items() if slug not in family}
    assert {slug: day for slug, day in after.items() if slug not in family} == others


@pytest.mark.parametrize(
    "hostile",
    ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">', "]]><b>bold</b>"],
)
def test_feed_summaries_are_text_whatever_an_editor_writes(client, hostile):
    """A guide's question (editor and translator text) is the entry's summary: Atom text, so a
    feed reader shows the characters and runs no markup; every title is text as well."""
    Guide.objects.filter(slug=GUIDE_SLUG).update(question_en=hostile, title_en=hostile)
    response = client.get("/en/feeds/guides.xml")
    feed = atom(response)
    entry = next(
        e for e in feed.findall(f"{ATOM}entry") if GUIDE_SLUG in e.find(f"{ATOM}link").get("href")
    )
    summary, title = entry.find(f"{ATOM}summary"), entry.find(f"{ATOM}title")
    assert (summary.get("type"), summary.text) == ("text", hostile)
    assert title.get("type") in (None, "text") and title.text == hostile
    assert 'type="html"' not in response.content.decode()
    assert "<script>" not in response.content.decode()


def test_price_feed_has_an_entry_per_price_change(client):
    for day, price in [(SEED_DAY + timedelta(days=5), "2.32"), (TODAY, "2.10")]:
        price_check_record(provider_slug="gpuwithcrypto", checked_on=day, prices={"h100": D(price)})
    feed = atom(client.get("/en/feeds/prices/h100.xml"))
    titles = [e.find(f"{ATOM}title").text for e in feed.findall(f"{ATOM}entry")]
    assert titles == ["H100: $2.10 per GPU-hour (was $2.32)", "H100: $2.32 per GPU-hour"]
    assert 'href="/en/feeds/prices/h100.xml"' in body(client.get("/en/gpus/"))


def test_price_feed_titles_follow_the_language(client):
    feed = atom(client.get("/de/feeds/prices/h100.xml"))
    [entry] = feed.findall(f"{ATOM}entry")
    assert entry.find(f"{ATOM}title").text == "H100: 2,32\u00a0$ pro GPU-Stunde"


def test_a_price_feed_keeps_its_gpu_while_another_is_served(client, monkeypatch):
    """The URLconf's one feed object serves every thread of a worker: another visitor's feed,
    served while this one renders (here, from inside it), must not change this one's GPU."""
    from guides import feeds

    others = []

    def with_another_visitor(points):
        if not others:
            others.append("asked")  # once: the other visitor's feed comes through here too
            others.append(client.get("/en/feeds/prices/a100-80gb.xml").status_code)
        return feeds_price_changes(points)

    feeds_price_changes = feeds.price_changes
    monkeypatch.setattr(feeds, "price_changes", with_another_visitor)
    feed = atom(client.get("/en/feeds/prices/h100.xml"))
    [entry] = feed.findall(f"{ATOM}entry")
    assert others == ["asked", 200]
    assert entry.find(f"{ATOM}title").text == "H100: $2.32 per GPU-hour"
    assert entry.find(f"{ATOM}id").text.endswith("#h100-2026-10-29")


@pytest.mark.parametrize("path", ["/en/feeds/prices/nope.xml", "/en/feeds/prices/rtx-4090.xml"])
def test_price_feed_of_a_gpu_we_do_not_rent_is_a_404(client, path):
    Gpu.objects.filter(slug="rtx-4090").update(rentable=False)
    assert client.get(path).status_code == 404


# --- admin ---------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["comparisonpair", "legalpage"])
def test_admin_lists_and_edits_the_new_models(client, model):
    client.force_login(User.objects.create_superuser("root", password="x"))
    assert client.get(f"/en/admin/guides/{model}/").status_code == 200
    obj = ComparisonPair.objects.get() if model == "comparisonpair" else LegalPage.objects.first()
    assert client.get(f"/en/admin/guides/{model}/{obj.pk}/change/").status_code == 200


def test_editors_may_publish_comparisons(client):
    from django.contrib.auth.models import Group

    editor = User.objects.create_user("erika", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    assert editor.has_perm("guides.change_comparisonpair")
    assert not editor.has_perm("guides.change_legalpage")


def test_a_guide_linking_to_an_unpublished_comparison_fails_its_check():
    from guides.editorial.checks import guide_problems
    from guides.pages.selectors import guide_for_page

    assert guide_problems(guide_for_page(slug=GUIDE_SLUG)) == []
    ComparisonPair.objects.update(published=False)
    problems = [str(p) for p in guide_problems(guide_for_page(slug=GUIDE_SLUG))]
    assert len(problems) == 3  # the link, in each language
    assert "the comparison of h100 and a100-80gb is not published" in problems[0]


@pytest.mark.parametrize("path", ["/en/feeds/guides.xml", "/en/feeds/prices/h100.xml"])
def test_feeds_answer_get_and_head_only(client, path):
    assert client.head(path).status_code == 200
    assert client.post(path).status_code == 405


def test_the_comparison_page_weighs_price_per_compute_and_what_each_holds(client):
    """H100 $2.32 an hour for 989.5 TFLOPS: $0.2345 per 100; A100 $0.92 for 312: $0.2949;
    0.2345 / 0.2949 = 0.8. What each holds is the guides' own estimate: 70B QLoRA on one of
    either (45.1 GB), LoRA on two (sharded), full fine-tuning on no one host of 80 GB cards."""
    from tests.guides.test_views import table_rows

    response = client.get("/de/compare/h100-vs-a100-80gb/")
    assert table_rows(response, "comparison")[-1] == [
        "Unser Preis pro Stunde für 100 TFLOPS (BF16, dicht)", "0,23 $", "0,29 $", "0,8×"
    ]  # fmt: skip
    fits = {(row[0], row[1]): row[2:] for row in table_rows(response, "model-fits")[1:]}
    assert fits[("Llama 3.1 70B", "QLoRA (4-Bit-Basis)")] == ["1 GPU", "1 GPU"]
    assert fits[("Llama 3.1 70B", "LoRA (BF16-Basis)")] == ["2 GPUs", "2 GPUs"]
    assert fits[("Llama 3.1 70B", "Vollständiges Fine-Tuning, AdamW")] == [
        "mehr als ein Host", "mehr als ein Host"
    ]  # fmt: skip
    assert len(fits) == 5 * 4  # every published guide, every method
