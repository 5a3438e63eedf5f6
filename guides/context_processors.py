from django.conf import settings
from django.db import DatabaseError
from django.http import HttpRequest
from django.urls import translate_url
from django.utils.functional import SimpleLazyObject

from guides.models import LegalPage, Operator
from guides.pages import reference_data, site


def public_face(request: HttpRequest) -> dict:
    """The site's name and address, contact and legal pages: what every page's frame shows.
    The legal pages are read lazily, so a page without the frame reads nothing, and with the
    database down the footer links none (the outage page still renders)."""
    return {
        "site_name": settings.SITE_NAME,
        "site_url": site.site_url(),
        "contact_email": settings.CONTACT_EMAIL,
        "legal_kinds": SimpleLazyObject(_reviewed_legal_pages),
        # (language, path) of this page in every language: the head's hreflang links and the
        # language switcher both read it, worked out once a request.
        "page_in_languages": SimpleLazyObject(lambda: _page_in_languages(request.path)),
    }


def _page_in_languages(path: str) -> list[tuple[str, str]]:
    return [(code, translate_url(path, code)) for code, _name in settings.LANGUAGES]


def _reviewed_legal_pages() -> list[tuple[str, str]]:
    try:
        reviewed = reference_data.legal_page_kinds()
    except DatabaseError:
        reviewed = []
    kinds = [*Operator.Page.choices, *LegalPage.Kind.choices]
    return [(kind, name) for kind, name in kinds if kind in reviewed]
