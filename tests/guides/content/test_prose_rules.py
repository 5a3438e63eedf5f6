"""A requirement worded around a token that names a recommendation: refused, in three languages."""

import pytest

from guides.content.prose_rules import requirement_names_recommendation


@pytest.mark.parametrize(
    ("kind", "before", "after", "refused"),
    [
        ("recommend", "Full fine-tuning needs ", ".", True),
        ("recommend", "QLoRA requires ", ".", True),
        ("cheapest", "Vollständiges Fine-Tuning braucht ", ".", True),
        ("rent", "LoRA benötigt ", ".", True),
        ("recommend", "フルファインチューニングに必要な構成は", "です。", True),
        ("recommend", "フルファインチューニングには", "が必要です。", True),
        # a recommendation said as one
        ("recommend", "We recommend ", ".", False),
        ("recommend", "Wir empfehlen ", ".", False),
        ("recommend", "推奨構成は", "です。", False),
        ("recommend", "As of [[checked_on]], GPUwithCrypto rents ", ", payable in crypto", False),
        # a requirement token after "needs" is what it should be
        ("needs", "Full fine-tuning needs ", ".", False),
        ("memory", "Full fine-tuning needs ", " by the rules of thumb", False),
        # "needs" earlier in the sentence, not right before the token
        ("recommend", "It needs care; we recommend ", ".", False),
    ],
)
def test_a_requirement_may_not_name_the_recommendation(kind, before, after, refused):
    assert requirement_names_recommendation(kind, before, after) is refused
