"""Attention explorer: type text and see what every head of a trained model attends to. All heads
at once (one image), one head zoomed with exact weights, lines between tokens, per-head statistics
with automatic labels and their rules, attention rollout across layers, and downloads. This module reads the
controls into one ExplorerState (explorer_state.py); the figures (explorer_figures.py) and the tabs
(explorer_tabs.py) are drawn from it."""
import html

import streamlit as st

from app_pages import _present, _resources, _runs, _state, _url
from app_pages.views import explorer_figures, explorer_tabs
from app_pages.views.explorer_state import ExplorerState
from i18n import _, ngettext
from labels import head_only, layer_label
from model import checkpoints
from model.analysis import head_roles, head_stats
from model.data import course_world as corpus
from model.tasks import coreference
from model.tasks.results import TextRun
from runtime import first_view

CHIPS_OPEN_MAX = 24        # longer texts start with the token chips folded, so the maps fit a projector's screen
KEEP = _url.KEEP             # the picks survive an emptied text box and a visit to another page
BIND = _url.BIND             # and every pick is in the URL: a copied link opens this view


def token_chips(tokens, ids, unknown) -> str:
    """Escaped HTML chips: token, id and position; out-of-vocabulary pieces outlined in red."""
    chips = []
    for i, (t, k, unk) in enumerate(zip(tokens, ids, unknown)):
        style = "border:2px dashed #d62728;" if unk else "border:1px solid #c6dbef;"
        tip = _("not in the vocabulary: read as [UNK]") if unk else _("id {id}").format(id=k)
        chips.append(f'<span title="{html.escape(tip)}" style="{style}border-radius:6px;padding:1px 5px;'
                     f'margin:2px;display:inline-block;background:#f7fbff">{html.escape(t)}'
                     f'<sub style="color:#666"> {i}·{k}</sub></span>')
    return '<div style="line-height:2.1">' + "".join(chips) + "</div>"


def measured_roles(name: str, layers: int, heads: int) -> dict | None:
    """The roles of a shipped model's heads measured on held-out real text (`python -m model.head_roles NAME
    --write`), when stored for a model of this shape; None for a model this session trained."""
    if _resources.assets_of(name) is not None:
        return None
    data = head_roles.load(name, checkpoints.ASSETS)
    return data if data is not None and len(data["heads"]) == layers * heads else None


def _model_and_text() -> tuple[str, str, TextRun]:
    """The sidebar's text model, the text typed (clipped), and the model's run on it; stops with a note when
    there is no model or no text."""
    name = _resources.selected_text_model(session=True)     # the models this session trained too
    if name is None:
        st.info(_("No shipped text model was found in assets/. Train one, e.g. "
                  "`python -m model.train coref_encoder`."))
        st.stop()
    model, meta = _resources.model_or_stop(name)
    max_len = model.config.max_len
    text = st.text_area(_("Text"), corpus.PARAGRAPH, key="explorer_text", height=110,
                        bind=_url.text_bind("explorer_text"), persist_state=KEEP,
                        help=_("Up to {chars:,} characters; the model reads at most {max_len} tokens.").format(
                            chars=_resources.MAX_TEXT_CHARS, max_len=max_len))
    _url.long_text_note("explorer_text")
    text = _resources.clip_text(text)
    if not text.strip():
        st.warning(_("Type some text to see its attention."))
        st.stop()
    name = _resources.model_for_text(name, text)
    max_len = _resources.model_or_stop(name)[0].config.max_len
    run = _runs.explorer_run(name, _resources.device(), text)
    for notice in run.notices:
        st.warning(notice)
    _token_summary(name, run, max_len)
    return name, text, run


def _token_summary(name: str, run: TextRun, max_len: int):
    """A fold with the text's tokens as chips, titled with their count and the model's shape."""
    L, H, N = run.weights.shape[0], run.weights.shape[1], run.weights.shape[-1]
    n_unknown = sum(run.unknown)
    summary = ngettext("{n} token (model **{name}**, {layers} layers × {heads} heads, max {max_len} tokens)",
                       "{n} tokens (model **{name}**, {layers} layers × {heads} heads, max {max_len} tokens)",
                       N).format(n=N, name=name, layers=L, heads=H, max_len=max_len)
    if n_unknown:
        summary += _(" · {n} not in the vocabulary").format(n=n_unknown)
    with st.expander(summary, expanded=N <= CHIPS_OPEN_MAX):
        st.markdown(token_chips(run.tokens, run.ids, run.unknown), unsafe_allow_html=True)
        st.caption(_("Each chip: token, then position · id. Dashed red: not in the model's vocabulary "
                     "(read as [UNK])."))


def _words_or_pieces(name: str, text: str, run: TextRun):
    """(whole words?, the tokens shown, their weights (L, H, N, N)): whole words when a word has several pieces
    and the toggle is on."""
    if any(len(w) > 1 for w in run.words) and st.toggle(
            _("Whole words"), True, key="explorer_words", bind=BIND, persist_state=KEEP,
            help=_("Attention to a word is the sum over its pieces; from a word, the mean of its pieces' rows "
                   "(Clark et al. 2019). Off: every piece on its own.")):
        tokens = run.word_texts
        st.caption(_("Shown as {words} whole words made of {pieces} pieces.").format(words=len(tokens),
                                                                                       pieces=len(run.tokens)))
        return True, tokens, _runs.explorer_word_weights(name, _resources.device(), text)
    return False, run.tokens, run.weights


def _valid_picks(tokens, L: int, H: int):
    """Keep the picks in the session within this run's layers, heads and tokens (a link from another model or a
    new text names others); the token starts on the first pronoun."""
    N = len(tokens)
    pronoun = next((i for i, t in enumerate(tokens) if t.strip().lower() in coreference.PRONOUNS), 0)
    words = _url.word_labels(tokens)              # the token is picked by word: a link survives a new tokenizer
    _url.stale_link("explorer_layer", [layer_label(i) for i in range(L)], _("layer"), layer_label(0))
    _url.stale_link("explorer_head", [head_only(i) for i in range(H)], _("head"), head_only(0))
    _url.stale_link("explorer_token", words, _("the word"), words[pronoun])
    _state.clamp_index("explorer_layer", L)
    _state.clamp_index("explorer_head", H)
    _state.clamp_index("explorer_token", N, pronoun)
    if st.session_state.get("explorer_token_tokens") != tokens:   # new text: the old index names another word
        st.session_state["explorer_token_tokens"] = tokens
        st.session_state["explorer_token"] = pronoun
    if any(not isinstance(h, int) or h >= H for h in st.session_state.get("explorer_heads", [])):
        del st.session_state["explorer_heads"]


def _picks(tokens, L: int, H: int) -> tuple[int, int, int, bool, bool]:
    """(layer, head, token, log colour, hide special tokens) from the row of controls above the figures."""
    _valid_picks(tokens, L, H)
    words = _url.word_labels(tokens)
    # wide enough for the toggles' labels at 1280 px, in presentation mode's larger type too
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1.5, 1.4, 1.8] if _present.mode() else [1, 1, 1.7, 1.1, 1.6])
    layer = c1.selectbox(_("Layer"), range(L), key="explorer_layer", format_func=layer_label, bind=BIND,
                         persist_state=KEEP)
    head = c2.selectbox(_("Head"), range(H), key="explorer_head", format_func=head_only, bind=BIND, persist_state=KEEP)
    picked = c3.selectbox(_("Token"), range(len(tokens)), key="explorer_token", format_func=words.__getitem__,
                          bind=BIND, help=_("The query token for the head view, the bars and rollout (a word seen "
                                            "again is numbered: “it (2)”)."))
    log = c4.toggle(_("Log colour"), key="explorer_log", bind=BIND, persist_state=KEEP,
                    help=_("Colour by log10(weight) from 1e-4 to 1; hover stays exact."))
    hide = c5.toggle(_("Hide special tokens"), key="explorer_hide", bind=BIND, persist_state=KEEP,
                     help=_("Drop [CLS], [SEP], [PAD], [BOS], [EOS] rows and columns in the zoom and renormalise "
                            "each row."))
    return layer, head, picked, log, hide


def explorer_state() -> ExplorerState:
    """Draw the controls and read them, once per run, into the state every section draws from."""
    name, text, run = _model_and_text()
    words, tokens, weights = _words_or_pieces(name, text, run)
    L, H = weights.shape[0], weights.shape[1]
    layer, head, picked, log, hide = _picks(tokens, L, H)
    stats = head_stats.head_stats(weights, tokens)
    labels = head_stats.label_heads(stats, pronouns=head_stats.pronoun_count(tokens))
    return ExplorerState(name=name, device=_resources.device(), text=text, run=run, words=words, tokens=tokens,
                         weights=weights, layer=layer, head=head, picked=picked, log=log, hide=hide,
                         tab=explorer_tabs.open_tab(), stats=stats, labels=labels,
                         measured=measured_roles(name, L, H),
                         visit=first_view.count("explorer"))    # a class's first visit draws images (first_view)


def render():
    st.title(_("Attention explorer"))
    top = _present.slot()                       # presenting: the zoomed head first, full width
    st.caption(_("Type text; every head of a trained model shows what each token attends to. Rows are queries "
                 "(the token that looks), columns keys (the token looked at); each row sums to 1."))
    state = explorer_state()
    left, right = st.columns([1, 1])
    with left:
        grid_img = explorer_figures.grid_section(state)
    with top if top is not None else right:
        explorer_figures.zoom_section(state)
    explorer_tabs.tabs(state, grid_img)
