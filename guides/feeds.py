"""Atom feeds, per language: new or updated guides, and each GPU's price changes at ours."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _

from guides.content.presentation import long_date, usd
from guides.models import Guide
from guides.pages import selectors, site
from pricing import selectors as pricing_selectors
from pricing.models import Gpu, Provider

FEED_LENGTH = 50  # the newest entries; older ones are on the pages


def _midnight(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


class TextAtomFeed(Atom1Feed):
    """Atom whose entry summaries are text: Django writes them ``type="html"``, so an editor's
    or a translator's words (a guide's question) would run as markup in a feed reader. Titles
    and the subtitle are Atom text already."""

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, {**item, "description": None})
        if item["description"] is not None:
            handler.addQuickElement("summary", item["description"], {"type": "text"})


class _SiteFeed(Feed):
    feed_type = TextAtomFeed

    def __call__(self, request: HttpRequest, *args, **kwargs):
        # The URLconf's one instance serves every request, on every thread of a worker: what a
        # request sets (the request, a price feed's GPU) goes on a copy of its own.
        feed = copy.copy(self)
        feed.request = request
        return Feed.__call__(feed, request, *args, **kwargs)

    def _absolute(self, path: str) -> str:
        return site.absolute(path)

    def feed_url(self) -> str:
        return self._absolute(self.request.path)

    def author_name(self) -> str:
        return settings.SITE_NAME


@dataclass(frozen=True)
class GuideEntry:
    guide: Guide
    changed: datetime  # its last published change (selectors.last_published_changes)


class GuideFeed(_SiteFeed):
    """Guides as they are published and edited, newest published change first."""

    def title(self) -> str:
        return _("New and updated guides · %(site)s") % {"site": settings.SITE_NAME}

    def subtitle(self) -> str:
        return _("Which GPU to rent for fine-tuning: each guide as it is published or updated.")

    def link(self) -> str:
        return self._absolute(reverse("guides:index"))

    def items(self) -> list[GuideEntry]:
        guides = selectors.published_guides()
        changed = selectors.last_published_changes(guides)
        entries = [GuideEntry(guide, changed[guide.pk]) for guide in guides]
        entries.sort(key=lambda e: (e.changed, e.guide.slug), reverse=True)
        return entries[:FEED_LENGTH]

    def item_title(self, entry: GuideEntry) -> str:
        return entry.guide.title

    def item_description(self, entry: GuideEntry) -> str:
        return entry.guide.question or entry.guide.title

    def item_link(self, entry: GuideEntry) -> str:
        return self._absolute(entry.guide.get_absolute_url())

    def item_pubdate(self, entry: GuideEntry) -> datetime | None:
        published = entry.guide.published_on
        return _midnight(published) if published else None

    def item_updateddate(self, entry: GuideEntry) -> datetime:
        return entry.changed  # not the row's last save: seeding and working copies touch it


@dataclass(frozen=True)
class PriceChange:
    on: date
    usd_per_gpu_hour: Decimal
    before: Decimal | None  # None for the first price on file


def price_changes(points: list[tuple[date, Decimal]]) -> list[PriceChange]:
    """The checks at which the price moved (the first one included), newest first."""
    changes: list[PriceChange] = []
    before: Decimal | None = None
    for on, price in points:
        if price != before:
            changes.append(PriceChange(on, price, before))
            before = price
    return changes[::-1]


class PriceFeed(_SiteFeed):
    """One GPU's price per GPU-hour at ours: an entry each time it changes."""

    def get_object(self, request: HttpRequest, gpu: str) -> tuple[Gpu, Provider]:
        try:
            found = Gpu.objects.get(slug=gpu, rentable=True)
            house = pricing_selectors.house_provider()
        except (Gpu.DoesNotExist, Provider.DoesNotExist):
            raise Http404(_("No such GPU.")) from None
        return found, house

    def title(self, obj: tuple[Gpu, Provider]) -> str:
        gpu, house = obj
        return _("%(gpu)s prices at %(provider)s") % {"gpu": gpu.name, "provider": house.name}

    def subtitle(self, obj: tuple[Gpu, Provider]) -> str:
        gpu, house = obj
        return _("Each change of %(provider)s's price per GPU-hour for the %(gpu)s.") % {
            "gpu": gpu.name,
            "provider": house.name,
        }

    def link(self, obj: tuple[Gpu, Provider]) -> str:
        return self._absolute(reverse("guides:gpus")) + f"#gpu-{obj[0].slug}"

    def items(self, obj: tuple[Gpu, Provider]) -> list[PriceChange]:
        gpu, house = obj
        points = pricing_selectors.gpu_price_history(gpu_slug=gpu.slug, provider=house)
        self._gpu = gpu
        return price_changes(points)[:FEED_LENGTH]

    def item_title(self, change: PriceChange) -> str:
        values = {"gpu": self._gpu.name, "price": usd(change.usd_per_gpu_hour)}
        if change.before is None:
            return _("%(gpu)s: %(price)s per GPU-hour") % values
        return _("%(gpu)s: %(price)s per GPU-hour (was %(before)s)") % {
            **values,
            "before": usd(change.before),
        }

    def item_description(self, change: PriceChange) -> str:
        return _("Checked on %(date)s.") % {"date": long_date(change.on)}

    def item_link(self, change: PriceChange) -> str:
        path = reverse("guides:gpus") + f"?as_of={change.on.isoformat()}"
        return self._absolute(path)

    def item_guid(self, change: PriceChange) -> str:
        return f"{self._absolute(reverse('guides:gpus'))}#{self._gpu.slug}-{change.on.isoformat()}"

    def item_pubdate(self, change: PriceChange) -> datetime:
        return _midnight(change.on)

    def item_updateddate(self, change: PriceChange) -> datetime:
        return _midnight(change.on)
