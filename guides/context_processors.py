from django.conf import settings
from django.http import HttpRequest

from guides.models import LegalPage
from guides.pages import site


def public_face(request: HttpRequest) -> dict:
    """The site's name and address, contact and legal pages: what every page's frame shows.

    No query: the legal pages are linked by kind (each kind is seeded).
    """
    return {
        "site_name": settings.SITE_NAME,
        "site_url": site.site_url(request),
        "contact_email": settings.CONTACT_EMAIL,
        "legal_kinds": LegalPage.Kind.choices,
    }
