"""Template filters added for the GPU page, the planner and the guide's tables: flags, sources,
provider names, rules of thumb."""

from decimal import Decimal as D
from types import SimpleNamespace

import pytest
from django.template import Context, Template
from django.utils import translation

from guides.content import presentation
from guides.templatetags.figures import (
    host,
    memory_needed,
    nowrap,
    provider_name,
)
from pricing.domain.calculations import MemoryEstimate, RuleFigure


def test_flags_are_escaped_and_kept_each_on_one_line():
    template = Template(
        "{% load figures %}{% for flag, piece in recipe|flag_pieces %}{% if flag %}"
        '<span class="nowrap">{{ piece }}</span>{% else %}{{ piece }}{% endif %}{% endfor %}'
    )
    recipe = "measure_memory.py --throughput 4 (<b>, a-b) -n 2"
    assert template.render(Context({"recipe": recipe})) == (
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


def rule_of_thumb(*memory_gb: str, margin: str = "0") -> MemoryEstimate:
    figures = tuple(RuleFigure(None, D(gb)) for gb in memory_gb)
    return MemoryEstimate("qlora", D("70"), figures, D(margin))


@pytest.mark.parametrize(
    ("estimate", "said"),
    [
        (rule_of_thumb("52.5"), "≈ 52.5\xa0GB"),
        (rule_of_thumb("1120", "1260"), "1,120–1,260 GB"),
        (rule_of_thumb("40", "50", margin="0.1"), "40\xa0GB lower bound, ≈ 55\xa0GB to plan with"),
    ],
)
def test_the_memory_a_rule_of_thumb_asks_for(estimate, said):
    with translation.override("en"):
        assert memory_needed(estimate) == said


def test_a_kept_together_text_is_escaped():
    assert nowrap("8× B200 <&>") == '<span class="nowrap">8× B200 &lt;&amp;&gt;</span>'


def test_an_estimated_figure_is_shown_to_a_tenth_of_a_gigabyte():
    with translation.override("de"):
        assert presentation.estimated_gigabytes(D("50.25")) == "50,3\xa0GB"


@pytest.mark.parametrize(
    ("lang", "usd", "number"),
    [("en", "$0.31–$0.69", "18–38"), ("de", "0,31\xa0$–0,69\xa0$", "18–38"),
     ("ja", "$0.31～\u200b$0.69", "18～\u200b38")],
)  # fmt: skip
def test_a_modelled_figures_span_is_its_low_and_high_in_the_language(lang, usd, number):
    template = Template(
        "{% load figures %}{{ cost|usd_span }}|{{ ttft|number_span }}|{{ none|usd_span }}"
    )
    figures = {
        "cost": (D("0.50"), D("0.31"), D("0.69")),
        "ttft": (D(28), D(18), D(38)),
        "none": None,
    }
    with translation.override(lang):
        assert template.render(Context(figures)) == f"{usd}|{number}|"
