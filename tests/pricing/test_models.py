"""The database itself holds the pricing invariants, whatever code writes to it."""

from decimal import Decimal as D

import pytest
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from pricing.domain.training_memory import Architecture
from pricing.models import Gpu, LanguageModel, Price, PriceCheck, Provider, Source
from tests.conftest import SEED_DAY


def _check() -> PriceCheck:
    return PriceCheck.objects.get(provider__slug="gpuwithcrypto", checked_on=SEED_DAY)


@pytest.mark.parametrize("bad_price", [D("0"), D("-0.5")])
def test_prices_must_be_positive(seeded, bad_price):
    check = PriceCheck.objects.create(provider=Provider.objects.get(slug="gpuwithcrypto"),
                                      checked_on=SEED_DAY.replace(day=30))  # fmt: skip
    with pytest.raises(IntegrityError), transaction.atomic():
        Price.objects.create(price_check=check, gpu=Gpu.objects.get(slug="h100"),
                             quoted_usd_per_hour=bad_price)  # fmt: skip


def test_one_price_per_gpu_in_a_check(seeded):
    with pytest.raises(IntegrityError), transaction.atomic():
        Price.objects.create(price_check=_check(), gpu=Gpu.objects.get(slug="h100"),
                             quoted_usd_per_hour=D("9"))  # fmt: skip


def test_one_check_per_provider_and_day(seeded):
    with pytest.raises(IntegrityError), transaction.atomic():
        PriceCheck.objects.create(provider=Provider.objects.get(slug="gpuwithcrypto"),
                                  checked_on=SEED_DAY)  # fmt: skip


def test_only_one_house_provider(seeded):
    with pytest.raises(IntegrityError), transaction.atomic():
        Provider.objects.create(slug="other", name="Other", is_house=True)


def test_a_priced_gpu_cannot_be_deleted(seeded):
    with pytest.raises(ProtectedError):
        Gpu.objects.get(slug="h100").delete()


def test_a_cited_source_cannot_be_deleted(seeded):
    with pytest.raises(ProtectedError):
        Source.objects.get(key="eleuther-transformer-math").delete()


def test_price_per_gpu_hour_divides_instance_quotes(seeded):
    price = Price.objects.get(price_check__provider__slug="massed-compute")
    assert price.usd_per_gpu_hour == D("5.4325")


def test_the_seeded_70b_architecture_is_its_config_json(seeded):
    assert LanguageModel.objects.get(slug="llama-3.1-70b").architecture == Architecture(
        hidden_size=8192,
        num_hidden_layers=80,
        num_attention_heads=64,
        num_key_value_heads=8,
        intermediate_size=28672,
        vocab_size=128256,
        tie_word_embeddings=False,
    )


@pytest.mark.parametrize(
    ("slug", "published_params"),
    [  # the published parameter counts
        ("llama-3.1-8b", 8_030_261_248),
        ("llama-3.1-70b", 70_553_706_496),
        ("llama-3.1-405b", 405_853_388_800),
    ],
)
def test_each_seeded_architecture_counts_the_published_parameters(seeded, slug, published_params):
    assert LanguageModel.objects.get(slug=slug).architecture.params == published_params
