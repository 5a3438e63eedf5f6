from io import StringIO

from django.core.management import call_command

from guides.models import FaqEntry, Guide, Section
from pricing.models import Gpu, Method, Price, PriceCheck, Source


def seed() -> str:
    out = StringIO()
    call_command("seed_content", stdout=out)
    return out.getvalue()


def counts() -> tuple[int, ...]:
    models = (Gpu, Method, Price, PriceCheck, Source, Guide, Section, FaqEntry)
    return tuple(model.objects.count() for model in models)


def test_seed_content_is_idempotent(empty_database):
    assert "rows created" in seed()
    first = counts()
    assert "nothing to do" in seed()
    assert counts() == first
    assert first[:2] == (6, 4)
    assert Guide.objects.get().status == Guide.Status.PUBLISHED


def test_seed_content_never_overwrites_an_editors_edit(seeded):
    Guide.objects.update(title_de="Von einer Redakteurin geändert")
    Gpu.objects.filter(slug="h100").update(name="H100 SXM")
    Section.objects.filter(position=1).delete()
    seed()
    assert Guide.objects.get().title_de == "Von einer Redakteurin geändert"
    assert Gpu.objects.get(slug="h100").name == "H100 SXM"
    assert not Section.objects.filter(position=1).exists()
