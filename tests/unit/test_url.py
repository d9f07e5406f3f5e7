"""app_pages._url without a page: word labels are unique, free of positions and stable under a new tokenizer's
other cuts; a text box is bound to the URL up to URL_TEXT_MAX characters and not beyond."""
from types import SimpleNamespace
from unittest import mock

import pytest

from app_pages import _url


@pytest.mark.parametrize("words,labels", [
    (["the", "cat", "the"], ["the", "cat", "the (2)"]),
    (["[CLS]", "it", "was", "it", "it", "[SEP]"], ["[CLS]", "it", "was", "it (2)", "it (3)", "[SEP]"]),
    ([" walk", "walk", "\n", " "], ["walk", "walk (2)", "␣", "␣ (2)"]),            # BPE pieces: spaces dropped
    (["it", "it", "it (2)"], ["it", "it (2)", "it (2) (2)"]),                       # a typed "it (2)" stays apart
    (["it (2)", "it", "it"], ["it (2)", "it", "it (3)"]),
])
def test_word_labels_number_repeated_words_and_stay_unique(words, labels):
    assert _url.word_labels(words) == labels
    assert len(set(_url.word_labels(words))) == len(words)


def test_word_labels_name_words_not_positions():
    """The label of a word depends on the words before it that are the same, not on how many tokens precede it:
    the same sentence cut into more pieces before the word still names it alike."""
    words = ["[CLS]", "the", "cat", "saw", "the", "dog", "[SEP]"]
    more_pieces = ["[CLS]", "the", "ca", "t", "saw", "the", "dog", "[SEP]"]
    assert _url.word_labels(words)[4] == _url.word_labels(more_pieces)[5] == "the (2)"


def test_a_very_long_word_is_cut_in_its_label():
    label, = _url.word_labels(["x" * 5_000])
    assert label == "x" * _url.LABEL_MAX + "…"


@pytest.mark.parametrize("length,bind", [(0, _url.BIND), (_url.URL_TEXT_MAX, _url.BIND),
                                         (_url.URL_TEXT_MAX + 1, None), (100_000, None)])
def test_text_bind_keeps_a_text_in_the_link_up_to_the_bound(length, bind):
    fake = SimpleNamespace(session_state={"box": "a" * length}, caption=mock.Mock())
    with mock.patch.object(_url, "st", fake):
        assert _url.text_bind("box") == bind
        _url.long_text_note("box")
    assert fake.caption.called is (bind is None)
    if bind is None:
        assert f"{length:,} characters" in fake.caption.call_args.args[0]


def test_a_box_not_drawn_yet_is_bound_so_a_link_can_fill_it():
    with mock.patch.object(_url, "st", SimpleNamespace(session_state={})):
        assert _url.text_bind("box") == _url.BIND
