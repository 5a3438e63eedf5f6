"""Where a visitor rents a configuration: the house's page, by ``settings.RENT_URL_TEMPLATE``.

A leaf, so that the guides' tokens, tables and tutorials all link the same address."""

from urllib.parse import quote

from django.conf import settings


def rent_url(gpu: str, count: int) -> str:
    """The page that rents ``count`` GPUs ``gpu`` (our slug): the template filled in."""
    return settings.RENT_URL_TEMPLATE.format(gpu=quote(gpu, safe=""), count=count)
