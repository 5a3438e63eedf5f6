"""The operator's details (guides.models.Operator) drawn as the imprint, the privacy notice and
the 特定商取引法に基づく表記: public only while complete, linked from every page, escaped, checked
before a launch. What each page says in each language is pinned in tests/page_text/."""

import json

import pytest
from django.core.checks import Tags, run_checks
from django.core.management import call_command
from django.test import override_settings

from guides.checks import OPERATOR_INCOMPLETE
from guides.models import Operator
from tests.conftest import GUIDE_SLUG, as_if_committed, fill_in_operator

LANGS = ["en", "de", "ja"]
KINDS = ["imprint", "privacy", "commercial-transactions"]
# Every public page that answers 200, the operator's own among them.
PUBLIC_PAGES = [
    "/{lang}/",
    f"/{{lang}}/guides/{GUIDE_SLUG}/",
    f"/{{lang}}/guides/{GUIDE_SLUG}/tutorial/",
    "/{lang}/gpus/",
    "/{lang}/vram/",
    "/{lang}/compare/h100-vs-a100-80gb/",
    *(f"/{{lang}}/legal/{kind}/" for kind in KINDS),
]
FOOTER_LINKS = {
    "en": ["Imprint", "Privacy notice", "Specified Commercial Transactions Act notice"],
    "de": [
        "Impressum",
        "Datenschutzerklärung",
        "Angaben nach dem japanischen Gesetz über bestimmte Handelsgeschäfte",
    ],
    "ja": ["運営者情報", "プライバシーポリシー", "特定商取引法に基づく表記"],
}

pytestmark = pytest.mark.usefixtures("seeded")


def body(response) -> str:
    return response.content.decode()


def footer(response) -> str:
    return body(response).split('<footer class="site-footer">')[1]


def save(**fields) -> None:
    """Change the operator's details as the admin would (a save, then the commit)."""
    operator = Operator.objects.get()
    for name, value in fields.items():
        setattr(operator, name, value)
    operator.save()
    as_if_committed()


def database_checks(*, deploy: bool = True) -> list:
    return [
        message
        for message in run_checks(
            tags=[Tags.database], include_deployment_checks=deploy, databases=["default"]
        )
        if message.id == OPERATOR_INCOMPLETE
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_without_the_operators_details_the_pages_are_404_and_not_linked(client, lang):
    for kind in KINDS:
        assert client.get(f"/{lang}/legal/{kind}/").status_code == 404
    assert "/legal/" not in footer(client.get(f"/{lang}/"))
    assert "/legal/" not in body(client.get("/sitemap.xml"))


@pytest.mark.parametrize("lang", LANGS)
def test_one_empty_field_in_one_language_keeps_all_three_pages_404(client, admin_user, lang):
    fill_in_operator()
    save(cancellation_ja="")
    for kind in KINDS:
        assert client.get(f"/{lang}/legal/{kind}/").status_code == 404
    assert "/legal/" not in footer(client.get(f"/{lang}/"))
    # Whoever may change the details reads the pages, told what is missing.
    client.force_login(admin_user)
    page = body(client.get(f"/{lang}/legal/imprint/"))
    assert 'class="draft-banner"' in page
    assert "<code>cancellation_ja</code>" in page


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", PUBLIC_PAGES)
def test_every_public_page_links_the_three_pages_once_complete(client, lang, path):
    fill_in_operator()
    as_if_committed()
    response = client.get(path.format(lang=lang))
    assert response.status_code == 200
    links = [
        f'<li><a href="/{lang}/legal/{kind}/">{label}</a></li>'
        for kind, label in zip(KINDS, FOOTER_LINKS[lang], strict=True)
    ]
    assert all(link in footer(response) for link in links), footer(response)


def test_the_sitemap_lists_the_pages_once_complete(client):
    fill_in_operator()
    as_if_committed()
    sitemap = body(client.get("/sitemap.xml"))
    assert all(f"/en/legal/{kind}/" in sitemap for kind in KINDS)


def test_the_editors_text_is_escaped(client):
    fill_in_operator()
    save(
        legal_name="<script>alert(1)</script> GmbH",
        cancellation_en="<b>No</b> refunds.\n\nAsk us & we'll see.",
        phone='+49 30 1" onclick="x',
    )
    imprint = body(client.get("/en/legal/imprint/"))
    assert "<script>alert(1)</script>" not in imprint
    assert "&lt;script&gt;alert(1)&lt;/script&gt; GmbH" in imprint
    assert 'href="tel:+49301&quot;onclick=&quot;x"' in imprint
    notice = body(client.get("/en/legal/commercial-transactions/"))
    assert "<p>&lt;b&gt;No&lt;/b&gt; refunds.</p>\n\n<p>Ask us &amp; we&#x27;ll see.</p>" in notice


@override_settings(SESSION_COOKIE_NAME="gg_session", SESSION_COOKIE_AGE=2 * 24 * 3600)
def test_the_privacy_notice_says_what_the_settings_do(client):
    fill_in_operator()
    save(log_retention_days=1)
    notice = body(client.get("/en/legal/privacy/"))
    assert (
        "<code>gg_session</code>: keeps the staff member signed in, until they sign out or for "
        "at most 2 days;"
    ) in notice
    assert "They are deleted after 1 day.</p>" in notice


def test_the_deploy_check_names_each_empty_required_field():
    assert [(m.level, m.msg) for m in database_checks()] == [
        (40, "The operator's details are not filled in.")
    ]
    fill_in_operator()
    assert database_checks() == []
    save(phone="", prices_de="", log_retention_days=None)
    assert [m.msg for m in database_checks()] == [
        "The operator's details lack “phone”.",
        "The operator's details lack “prices_de”.",
        "The operator's details lack “log_retention_days”.",
    ]


def test_only_check_deploy_with_a_database_reads_the_operator():
    """migrate runs the database checks without --deploy: an empty operator must not stop it."""
    assert database_checks(deploy=False) == []
    assert [
        m for m in run_checks(include_deployment_checks=True) if m.id == OPERATOR_INCOMPLETE
    ] == []


def test_seed_content_loads_the_example_operator_with_debug_on_only():
    call_command("seed_content", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert not Operator.objects.exists()
    with override_settings(DEBUG=True):
        call_command("seed_content", stdout=open("/dev/null", "w"))  # noqa: SIM115
        assert Operator.objects.get().legal_name == "Beispiel GmbH (example data)"
        save(legal_name="Real GmbH")
        call_command("seed_content", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert Operator.objects.get().legal_name == "Real GmbH"  # never overwritten


def test_the_admin_edits_the_one_record_in_place(client, admin_user):
    client.force_login(admin_user)
    listing = client.get("/en/admin/guides/operator/")
    assert (listing.status_code, listing["Location"]) == (
        302,
        "/en/admin/guides/operator/1/change/",
    )
    form = client.get("/en/admin/guides/operator/1/change/")
    assert form.status_code == 200
    assert 'name="prices_ja"' in body(form)
    assert client.get("/en/admin/guides/operator/add/").status_code == 403
    assert client.get("/en/admin/guides/operator/2/change/").status_code == 302  # no such one


def test_the_admins_first_save_creates_the_record_and_the_pages_go_public(client, admin_user):
    from guides.editorial.seeding import CONTENT_DIR, EXAMPLE_OPERATOR_FILE

    fields = json.loads((CONTENT_DIR / EXAMPLE_OPERATOR_FILE).read_text(encoding="utf-8"))
    fields.pop("_comment")
    client.force_login(admin_user)
    assert client.get("/de/legal/imprint/").status_code == 200  # staff: the preview
    saved = client.post("/en/admin/guides/operator/1/change/", {**fields, "legal_name": "A GmbH"})
    assert saved.status_code == 302, body(saved)
    as_if_committed()
    assert Operator.objects.get().legal_name == "A GmbH"
    client.logout()
    assert "A GmbH" in body(client.get("/de/legal/imprint/"))


def test_the_policy_keeps_the_notices_promise_that_nothing_loads_from_other_sites(settings):
    """The privacy notice says the pages load nothing from other sites: the Content Security
    Policy is what makes browsers refuse anything else."""
    fetches = {
        name: sources
        for name, sources in settings.CONTENT_SECURITY_POLICY["DIRECTIVES"].items()
        if name.endswith("-src")
    }
    assert {source for sources in fetches.values() for source in sources} == {
        "'self'",
        "'none'",
        "data:",
    }
    assert fetches["default-src"] == ["'self'"]
