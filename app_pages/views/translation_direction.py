"""The translation page's two directions, English → Chinese (the translator) and Chinese → English
(translator_zh_en): the model of each, the keys of its sentence box and example picker (each direction keeps its
own sentence), its first sentence, and the picker between them."""
from dataclasses import dataclass

import streamlit as st

from app_pages import _resources, _url
from i18n import N_, _
from model.data import translation_corpus_possession as possession

BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


@dataclass(frozen=True)
class Direction:
    """chinese_source: the source is Chinese, read one character at a time, and the target English words."""
    label: str           # English, marked for translation; the picker's option
    model: str
    text_key: str
    example_key: str
    default: str
    chinese_source: bool

    def normalised(self, text: str) -> str:
        """A typed sentence as the examples are keyed: Chinese without spaces, English lower case, single spaces."""
        return "".join(text.split()) if self.chinese_source else " ".join(text.lower().split())


EN_ZH = Direction(N_("English → Chinese"), _resources.TRANSLATOR, "tr_text", "tr_example",
                  "the teacher likes the restaurant near the station .", False)
ZH_EN = Direction(N_("Chinese → English"), "translator_zh_en", "tr_zh_text", "tr_zh_example", possession.TUTORIAL[0],
                  True)
DIRECTIONS = {d.label: d for d in (EN_ZH, ZH_EN)}


def tokenizers(direction: Direction):
    """(source tokenizer, target tokenizer) of the direction's model on the sidebar's device."""
    h = _resources.loaded(direction.model, _resources.device())
    return h.tokenizer, h.target_tokenizer


def picker() -> Direction:
    """The direction radio (in the URL as its shown label)."""
    labels = [_(k) for k in DIRECTIONS]
    _url.stale_link("tr_dir", labels, _("the direction"), labels[0])
    _url.as_option("tr_dir", DIRECTIONS, labels)
    key = st.radio(_("Direction"), list(DIRECTIONS), format_func=_, horizontal=True, key="tr_dir", bind=BIND,
                   persist_state=KEEP,
                   help=_("Two models of the same size: one reads English words and writes Chinese characters, the "
                          "other reads Chinese characters and writes English words."))
    return DIRECTIONS[key]
