"""Editors' diffs in Japanese compare phrases, not the whole space-less paragraph
(guides.content.diff_pieces passed to gpuguide.lib.word_diff)."""

from gpuguide.lib.word_diff import inline_diff, marked_words
from guides.content.diff_pieces import diff_pieces
from guides.editorial.translating import FieldChange, TextField
from guides.models import Section

OLD_JA = "当社の推定では、このガイドのQLoRAの学習条件はGPU1基でピークに達します。"
NEW_JA = "当社の推定では、このガイドのLoRAの学習条件はGPU1基でピークに達します。"


def test_a_one_word_change_in_japanese_marks_only_its_phrase():
    old, new = marked_words(OLD_JA, NEW_JA, diff_pieces)
    assert (
        old == "当社の推定では、このガイドの<del>QLoRAの</del>学習条件はGPU1基でピークに達します。"
    )
    assert (
        new == "当社の推定では、このガイドの<ins>LoRAの</ins>学習条件はGPU1基でピークに達します。"
    )
    assert inline_diff(OLD_JA, NEW_JA, diff_pieces) == (
        "当社の推定では、このガイドの<del>QLoRAの</del><ins>LoRAの</ins>"
        "学習条件はGPU1基でピークに達します。"
    )


def test_split_by_white_space_alone_the_whole_paragraph_was_replaced():
    assert marked_words(OLD_JA, NEW_JA) == (f"<del>{OLD_JA}</del>", f"<ins>{NEW_JA}</ins>")


def test_english_and_german_are_compared_word_by_word_as_before():
    for old, new in [
        ("Unused GPU hours never expire.", "Unused GPU hours do not expire."),
        ("Ungenutzte GPU-Stunden verfallen nie.", "Ungenutzte GPU-Stunden verfallen niemals."),
    ]:
        assert diff_pieces(old) == old.replace(" ", "\x00 \x00").split("\x00")
        assert marked_words(old, new, diff_pieces) == marked_words(old, new)
    assert inline_diff("a b c", "a x c", diff_pieces) == "a <del>b</del><ins>x</ins> c"


def test_the_pieces_give_the_text_back_and_the_output_is_escaped():
    text = "表は<b>8基</b>の H100 で [[price h100]] です。\n次の段落 & more"
    assert "".join(diff_pieces(text)) == text
    assert inline_diff("<b>A</b> は速い", "<b>A</b> は遅い & 安い", diff_pieces) == (
        "&lt;b&gt;A&lt;/b&gt; は<del>速い</del><ins>遅い &amp; 安い</ins>"
    )


def test_a_translation_import_is_diffed_by_phrase():
    field = TextField("section.1.body", Section, 1, 1, "body", "Section 1", {"ja": NEW_JA})
    assert FieldChange(field, OLD_JA, NEW_JA).marked == (
        OLD_JA.replace("QLoRAの", "<del>QLoRAの</del>"),
        NEW_JA.replace("LoRAの", "<ins>LoRAの</ins>"),
    )
