"""The shipped byte-level BPE: no [UNK], lossless after NFC, specials that typed text cannot forge, readable
pieces, character spans, and pieces grouped into words."""
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.hostile_inputs import TEXTS
from model.data.bpe import (
    BOS,
    CLS,
    MASK,
    SEP,
    SPECIALS,
    UNK,
    BPETokenizer,
    display,
    group_words,
    load,
    normalize,
    train,
)

TOK = load()
TYPED_SPECIALS = ["[CLS]", "[SEP]", "[MASK]", "<mask>", "[PAD]", "[UNK]", "[BOS]", "[EOS]", "<s>", "</s>"]


def test_shipped_vocabulary_starts_with_the_specials_then_all_bytes():
    assert len(TOK) == 8192
    assert [TOK.tokenizer.id_to_token(i) for i in range(7)] == list(SPECIALS)
    singles = {bytes([b]) for b in range(256)}
    assert singles <= set(TOK._bytes)               # every byte is a base symbol: nothing needs [UNK]


def test_display_shows_whole_characters_and_hex_for_split_ones():
    assert display("猫".encode()) == "猫"
    assert display(b"\xe7\x8c") == "<0xE7><0x8C>"
    assert display(b"\xab") == "<0xAB>"
    assert display(" 🦝é".encode()) == " 🦝é"
    assert display(b"a\xff") == "a<0xFF>"


def test_normalisation_is_nfc_with_lone_surrogates_replaced():
    assert normalize("e\u0301") == "\u00e9"
    assert normalize("a\udcffb\ud83d") == "a\ufffdb\ufffd"
    assert TOK.decode(TOK.encode("a\udcffb").ids) == "a\ufffdb"


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_hostile_texts_give_no_unk_and_decode_back(name):
    text = TEXTS[name]
    enc = TOK.encode(text)
    assert UNK not in enc.ids
    assert TOK.decode(enc.ids) == normalize(text)
    assert all("\ufffd" not in p for p in enc.pieces) or "\ufffd" in normalize(text)


@pytest.mark.parametrize("typed", TYPED_SPECIALS)
def test_typed_special_spellings_are_plain_text(typed):
    enc = TOK.encode(f"a {typed} b")
    assert min(enc.ids) >= len(SPECIALS)
    assert "".join(enc.pieces) == f"a {typed} b"


def test_only_mask_spellings_become_the_mask_token_when_asked():
    enc = TOK.encode("The [MASK] pulled into <mask> [CLS]", masks=True)
    assert enc.ids.count(MASK) == 2
    assert all(i >= len(SPECIALS) for i in enc.ids if i != MASK)
    # one space before a mask belongs to it, so the word after keeps its own leading space
    assert enc.ids[:3] == TOK.encode("The").ids + [MASK] + TOK.encode("pulled").ids[:1]   # both " pull..."
    assert enc.spans[1] == (3, 10)


def test_a_first_word_is_the_same_token_as_mid_sentence():
    first, mid = TOK.encode("courage"), TOK.encode("great courage")
    assert first.ids == mid.ids[1:] and first.pieces == ["courage"] and mid.pieces[1] == " courage"
    assert first.spans == [(0, 7)]
    assert TOK.decode(first.ids) == "courage" and TOK.decode(first.ids, strip_prefix=False) == " courage"
    assert TOK.encode("我").pieces == ["我"] and TOK.decode(TOK.encode(" 我").ids) == " 我"


def test_cls_sep_and_bos_wrap_the_text_with_empty_spans():
    enc = TOK.encode("hi", add_cls_sep=True, bos=True)
    assert enc.ids[:2] == [BOS, CLS] and enc.ids[-1] == SEP
    assert enc.spans[0] == enc.spans[1] == (0, 0) and enc.spans[-1] == (2, 2)
    assert TOK.decode(enc.ids, skip_special=True) == "hi"


def test_each_cjk_character_is_covered_by_its_own_pieces():
    text = TEXTS["chinese"] + "我有一只猫"
    enc = TOK.encode(text)
    assert all(b - a == 1 for a, b in enc.spans)     # no piece spans two characters
    assert UNK not in enc.ids


def test_common_english_words_are_single_tokens():
    enc = TOK.encode("It takes great courage to let yourself appear weak.")
    assert enc.pieces == ["It", " takes", " great", " courage", " to", " let", " yourself", " appear", " weak", "."]


texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)
pieces = st.one_of(texts, st.sampled_from(TYPED_SPECIALS + ["我有一只猫", "👩‍👩‍👧‍👦", "\x00\x1b[31m", "e\u0301"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(pieces, max_size=6).map("".join))
def test_any_unicode_text_decodes_back_with_no_unk_and_no_forged_specials(text):
    enc = TOK.encode(text)
    assert TOK.decode(enc.ids) == unicodedata.normalize("NFC", text)
    assert min(enc.ids, default=len(SPECIALS)) >= len(SPECIALS)
    starts = [a for a, _ in enc.spans]
    assert starts == sorted(starts) and all(0 <= a < b <= len(enc.text) for a, b in enc.spans[1:])
    assert enc.spans[:1] != [(0, 0)] or (enc.text[0].isspace() and enc.pieces[0] == "")   # a lone dummy space
    assert all("\ufffd" not in p for p in enc.pieces) or "\ufffd" in text
    masked = TOK.encode(text, masks=True)
    n_masks = enc.text.count("[MASK]") + enc.text.count("<mask>")
    assert masked.ids.count(MASK) == n_masks and UNK not in masked.ids
    assert min([i for i in masked.ids if i != MASK], default=len(SPECIALS)) >= len(SPECIALS)


@given(texts)
def test_spans_cover_the_text_in_order(text):
    enc = TOK.encode(text)
    covered = "".join(enc.text[a:b] for k, (a, b) in enumerate(enc.spans) if k == 0 or enc.spans[k - 1] != (a, b))
    assert covered == enc.text


@pytest.mark.parametrize("text, words", [
    ("The restaurant refused, didn't it?!", ["The", "restaurant", "refused", ",", "didn't", "it", "?", "!"]),
    ("我有一只猫。", ["我", "有", "一只", "猫", "。"]),            # words by jieba's dictionary, not characters
    ("小猫没有过马路，因为它太累了。", ["小猫", "没有", "过", "马路", "，", "因为", "它", "太累", "了", "。"]),
    ("it 是我的 cat", ["it", "是", "我", "的", "cat"]),
    ("the  ré\u0300sumé \n 🦝", ["the", "ré\u0300sumé", "🦝"]),
    ("👩‍👩‍👧‍👦 ate", ["👩‍👩‍👧‍👦", "ate"]),
])
def test_words_group_pieces_by_the_text(text, words):
    enc = TOK.encode(text)
    found = group_words(enc)
    assert [w.text for w in found] == words
    for w in found:      # a word's pieces cover exactly its characters (plus the space some pieces carry)
        assert enc.text[w.start:w.end] == w.text
        assert min(enc.spans[i][0] for i in w.pieces) <= w.start and max(enc.spans[i][1] for i in w.pieces) == w.end


@pytest.mark.parametrize("typed, decoded", [
    ("The [MASK] pulled into the station.", "The [MASK] pulled into the station."),   # textbook 12.6.1
    ("The <mask> pulled", "The [MASK] pulled"), ("a [MASK] [MASK] b", "a [MASK] [MASK] b"),
    ("[MASK] pulled", "[MASK] pulled"), ("我有[MASK]猫", "我有[MASK]猫")])
def test_a_typed_mask_keeps_its_space_when_decoded(typed, decoded):
    """The space before a typed mask belongs to the mask token (lstrip); decoding writes it back."""
    assert TOK.decode(TOK.encode(typed, masks=True).ids) == decoded
    assert "The[MASK]" not in TOK.decode(TOK.encode(typed, masks=True, add_cls_sep=True).ids)


def test_special_tokens_and_masks_are_words_of_their_own():
    enc = TOK.encode("The <mask> pulled", masks=True, add_cls_sep=True)
    assert [(w.text, len(w.pieces)) for w in group_words(enc)][:3] == [("[CLS]", 1), ("The", 1), ("<mask>", 1)]
    assert group_words(enc)[-1].text == "[SEP]"


def test_round_trip_through_dict_and_file(tmp_path):
    assert BPETokenizer.from_dict(TOK.to_dict()).encode("walks").ids == TOK.encode("walks").ids
    embedded = TOK.to_dict(embed=True)
    assert embedded["type"] == "bpe" and BPETokenizer.from_dict(embedded).encode("猫").ids == TOK.encode("猫").ids
    with pytest.raises(ValueError, match="not a BPE tokenizer: type 'word'"):
        BPETokenizer.from_dict({"type": "word", "vocab": []})


def test_training_on_a_small_text_learns_its_frequent_words():
    tok = train(["walk walks walked walking talk talks talked"] * 20, vocab_size=7 + 256 + 12)
    assert len(tok) == 7 + 256 + 12
    assert tok.encode("walked").pieces == ["walked"] and tok.encode("I walked").pieces[-1] == " walked"
    assert tok.decode(tok.encode("unseen 文字").ids) == "unseen 文字"
