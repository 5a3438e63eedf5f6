"""Template filters added for the GPU page and the planner: flags, sources, provider names."""

from types import SimpleNamespace

import pytest
from django.utils import translation

from guides.templatetags.figures import host, provider_name, whole_flags


def test_whole_flags_escapes_and_keeps_each_flag_on_one_line():
    assert whole_flags("measure_memory.py --throughput 4 (<b>, a-b) -n 2") == (
        'measure_memory.py <span class="nowrap">--throughput</span> 4 (&lt;b&gt;, a-b) '
        '<span class="nowrap">-n</span> 2'
    )


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://vm.massedcompute.com/pricing", "vm.massedcompute.com"),
        ("https://gpuwithcrypto.com", "gpuwithcrypto.com"),
        ("", ""),
    ],
)
def test_a_source_is_shown_by_its_host(url, shown):
    assert host(url) == shown


@pytest.mark.parametrize(
    ("lang", "ours"),
    [
        ("en", "GPUwithCrypto (ours)"),
        ("de", "GPUwithCrypto (wir)"),
        ("ja", "GPUwithCrypto（当社）"),
    ],
)
def test_our_provider_is_marked_as_ours_in_each_language(lang, ours):
    with translation.override(lang):
        assert provider_name(SimpleNamespace(provider="GPUwithCrypto", house=True)) == ours
        assert provider_name(SimpleNamespace(provider="Thunder Compute", house=False)) == (
            "Thunder Compute"
        )
