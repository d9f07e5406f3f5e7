"""The Chinese interface (lang=zh): every page, every lazy tab, shows no English of its own. What may stay in Latin
script: the terms the Chinese course texts themselves keep in Latin (LATIN_TERMS: Transformer, token, softmax, BERT…),
model and file names, numbers and symbols, and whatever is the model's text: quoted words, the text in the page's
text boxes and its pieces. The catalogues' own checks are in tests/unit/test_catalogues.py. The same render also
checks every layer and head label the page shows (tests/app/label_rules.py: labels read alike in both languages)."""
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

import i18n
from tests.app.conftest import ROOT, switch_page
from tests.app.every_view import TAB_KEYS, VIEWS, view_id
from tests.app.label_rules import check_page

# Latin-script words of the three Chinese course texts (../shared/seeds/), kept as they keep them, and the names of
# formats, devices and libraries the app shows, and the names of cited authors (Abnar & Zuidema: rollout)
LATIN_TERMS = {w.lower() for w in """
Transformer Transformers token tokens softmax Softmax Query Key Value Encoder Decoder Attention Self-Attention
Multi-Head BERT GPT ViT Swin DaViT ImageGPT RNN LSTM MLP CNN ResNet BPE WordPiece LayerNorm BatchNorm ReLU Add Norm
Embedding PE RoPE ALiBi NLP ImageNet patch Top-k top-k Teacher Forcing one-hot Encoder-Decoder embedding
CLS SEP MASK BOS EOS PAD UNK PNG SVG CSV JSON GIF CPU GPU CUDA MPS URL Plotly PyTorch torch numpy safetensors
Attention Lab Streamlit Chromium Debian WordNet fortune fortunes rollout
Abnar Zuidema
English Language
""".split()}                                   # (the language switch names each language in its own words)
# proper names: authors the explorer cites, an activation function (named like ReLU, which the texts keep), a model
LATIN_TERMS |= {w.lower() for w in "Clark Abnar Zuidema GELU translator".split()}
LATIN_TERMS |= {"pr", "exp", "ln"}           # the textbook writes probabilities Pr(t_1, …, t_N), exp and ln in Latin
LATIN_TERMS |= {"bigbird"}                      # a model's name (Zaheer et al. 2020): the masks page's random pattern
LATIN_TERMS |= {"minilm"}                       # the pretrained model's name (MiniLM, Wang et al. 2020)
# the pronoun page's sources: Winograd schemas, Wilson's interval, the sentence-transformers library
LATIN_TERMS |= {"winograd", "wilson", "sentence-transformers"}
# a smoothing method named for its authors (Kneser and Ney 1995), kept in Latin as the literature does
LATIN_TERMS |= {"kneser", "ney"}
# cited authors (Kobayashi et al.: value norms; Michel et al.: head ablation), a tool's name (AttentionViz) and the
# Kullback–Leibler divergence, named after its authors
LATIN_TERMS |= {w.lower() for w in "Kobayashi Michel AttentionViz KL".split()}
LATIN_TERMS |= {"olsson"}                       # a cited author (Olsson et al. 2022): induction heads
LATIN_TERMS |= {"brown"}                        # a cited author (Brown et al. 2020): few-shot in-context learning
# cited authors (Press et al. 2022: ALiBi; Devlin et al. 2019: BERT), the sizes of BERT the course texts cite by
# name (12.6), and the colour model ImageGPT quantises (12.10.1: "24 位 RGB")
LATIN_TERMS |= {"press", "devlin", "bert-base", "bert-large", "rgb"}
LATIN_TERMS |= {"sigmoid"}                      # the textbook keeps it in Latin (12.6.2: "过 sigmoid")
WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
# first, HTML entities become spaces and back-to-back tags are parted, so a chip's "0·2</sub></span><span title=…>"
# reads as a number, then tags (else the number's span runs into the next tag and leaves its attributes as words)
MARKUP = re.compile(r"(?<=>)(?=<)|&[A-Za-z]+;|&#\d+;")
# spans that hold the model's text or names rather than interface text
NOT_INTERFACE = re.compile(r"“[^”]*”|‘[^’]*’|「[^」]*」|\"[^\"]*\"|`[^`]*`|\$[^$]*\$|<[^>]+>|https?://\S+|\]\([^)]*\)"
                           r"|%\{[^}]*\}|\S*[\w.]*[_\d./\\]\w*\S*|:material/\w+:|\[[A-Z]+\]")
# units of measure printed after numbers (bytes, milliseconds), a cited author (Shaw et al., relative positions) and an
# activation function named like ReLU, which the course texts keep
LATIN_TERMS |= {w.lower() for w in "KiB MiB GiB TiB ms Shaw GELU".split()}
TEXT_ELEMENTS = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error")
WIDGETS = ("selectbox", "multiselect", "radio", "select_slider", "slider", "number_input", "text_input", "text_area",
           "checkbox", "toggle", "button", "button_group", "date_input")
LAYOUT_TEXT = ("title", "text")


def _figure_strings(node, parent=""):
    """Titles, annotations and trace names of a Plotly spec (tick labels and data are the model's)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("title", "annotations") or (key == "text" and parent in ("title", "annotations")):
                yield from _figure_strings(value, key)
            elif key in ("tickvals", "ticktext", "x", "y", "z", "customdata", "meta"):
                continue
            elif isinstance(value, (dict, list)):
                yield from _figure_strings(value, key)
            elif key in ("name", "hovertemplate", "legendgrouptitle") and isinstance(value, str) \
                    and not (key == "name" and parent == "annotations"):      # an annotation's name is not shown
                yield value
    elif isinstance(node, list):
        for item in node:
            yield from _figure_strings(item, parent)
    elif isinstance(node, str) and parent in ("title", "annotations", "text"):
        yield node


def interface_strings(at) -> tuple[list[str], str]:
    """(what the page says, the text it reads): every text element, widget label, help, option and placeholder,
    tab and expander label, and chart title, axis title, annotation, trace name and hover template; and the
    values of its text boxes."""
    out = [e.value for kind in TEXT_ELEMENTS for e in getattr(at, kind)]
    out += [e.label for e in at.expander] + [e.label for e in at.tabs]
    typed = []
    for kind in WIDGETS:
        for w in at.get(kind):
            proto = w.proto
            out += [getattr(proto, f) for f in ("label", "help", "placeholder") if getattr(proto, f, "")]
            out += [str(o) for o in getattr(w, "options", [])]
            if kind in ("text_input", "text_area"):
                typed.append(str(w.value or ""))
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        out += list(_figure_strings(spec["layout"])) + list(_figure_strings(spec["data"]))
    return [s for s in out if s], "\n".join(typed)


def english_left(strings, typed: str) -> dict[str, str]:
    """word -> the string it was found in, for the Latin words that are neither a kept term nor the model's text."""
    typed = typed.lower()
    left = {}
    for s in strings:
        for word in WORD.findall(NOT_INTERFACE.sub(" ", MARKUP.sub(" ", s))):
            parts = [p for p in word.lower().split("-") if len(p) > 1]
            if word.lower() in LATIN_TERMS or all(p in LATIN_TERMS or p in typed for p in parts):
                continue
            left.setdefault(word, s[:120])
    return left


def test_the_checker_finds_english_and_spares_terms_quotes_and_typed_text():
    shown = ["注意力头 L3 H1", "softmax 之后", "“it” 指向 “restaurant”", "模型 coref_encoder", "下载 weights.csv",
             "The heads", "查询 token %{x}", "top-k 采样", "多头 Multi-Head",
             "sliding-window", "权重 <b>bold</b>", "Head", "`model.evaluate`", "表 [CLS] 与 [SEP]",
             '<span title="编号 2">cat<sub> 0·2</sub></span><span title="编号 3">sat</span>', "图块 + &lt;cls&gt;"]
    assert english_left(shown, typed="the cat sat") == {"heads": "The heads", "Head": "Head",
                                                           "sliding-window": "sliding-window"}


@pytest.mark.parametrize("page, state", VIEWS, ids=[view_id(*v) for v in VIEWS])
def test_every_page_speaks_chinese(page, state):
    zh = i18n.catalogue("zh")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params["lang"] = "zh"
    at.run()
    for key, value in state.items():
        at.session_state[key] = zh.gettext(value) if key in TAB_KEYS else value
    switch_page(at, page).run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    strings, typed = interface_strings(at)
    sidebar, _ = interface_strings(at.sidebar)
    assert strings
    assert english_left(strings + sidebar, typed) == {}
    check_page(at, page)
