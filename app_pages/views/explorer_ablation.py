"""The explorer's Ablation tab: remove any set of heads and see what changes: the model's output (the masked word
or the next token at the picked word, the coreference answers, the output distribution at every token) and the
attention of every later layer. Teaches that a head's pattern is a claim to test: a head matters when removing it
changes what comes after."""
import html

import pandas as pd
import streamlit as st

from app_pages import _export, _head_runs, _url
from app_pages._markup import md
from app_pages.views.explorer_state import ExplorerState
from i18n import N_, _
from labels import file_label, head_label, layer_label
from viz import ablation as viz
from viz import grid

BIND, KEEP = _url.BIND, _url.KEEP
MODES = {"zero": N_("zero (the head's output set to 0)"), "mean": N_("mean (its average output on this text)")}


def _label(piece: str) -> str:
    return piece.strip() or "␣"


def _predictions(state: ExplorerState, top, title: str):
    """A table of the best tokens before and after (TopPredictions at one position)."""
    from app_pages._resources import load_tokenizer
    tok = load_tokenizer(state.name)
    rows = [{_("rank"): r + 1, _("before"): _label(tok.piece(int(top.ids[0, r]))), _("p before"): top.probs[0, r],
             _("after"): _label(tok.piece(int(top.ids[1, r]))), _("p after"): top.probs[1, r]}
            for r in range(top.ids.shape[-1])]
    st.markdown(title)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.4f") for c in (_("p before"), _("p after"))})
    if top.ids[0, 0] != top.ids[1, 0]:
        st.caption(_("The first choice changed: “{a}” had {pa:.3f} and now has {pa2:.3f}.").format(
            a=_label(tok.piece(int(top.ids[0, 0]))), pa=top.probs[0, 0], pa2=top.cross[1]))
    else:
        st.caption(_("The first choice stayed: its probability went from {pa:.3f} to {pb:.3f}.").format(
            pa=top.probs[0, 0], pb=top.probs[1, 0]))


def _outputs(state: ExplorerState, result, heads, mode: str):
    """The model's output before and after: the question its kind answers at the picked word, then every token."""
    from app_pages._resources import load_model
    model, _meta = load_model(state.name, state.device)
    if result.sentence_cosine is not None:
        st.markdown(_("**The sentence vector**: this model has no output over words; what it gives is one vector per "
                      "text, the mean of its last layer's states. Cosine between that vector before and after the "
                      "removal: **{cos:.4f}** (1: unchanged).").format(cos=result.sentence_cosine))
        return
    word = state.picked if state.words else next((w for w, ps in enumerate(state.run.words) if state.picked in ps), 0)
    last_piece = state.run.words[word][-1] if state.run.words else state.picked
    shown = md(state.tokens[state.picked])
    if model.config.kind == "decoder":
        pos = last_piece if state.words else state.picked
        _predictions(state, _at(result.top, pos),
                     _("**The next token after “{word}”**, as the model predicts it before and after:").format(
                         word=shown))
    else:
        top = _head_runs.masked_word(state.name, state.device, state.text, word, heads, mode)
        if top is None:
            st.caption(_("Pick an ordinary word (not [CLS] or [SEP]) to see the masked-word question."))
        else:
            _predictions(state, top, _("**“{word}” hidden behind [MASK]**: the encoder's fillers before and after "
                                      "(for its first piece):").format(word=md(state.run.word_texts[word])))
    if result.answers_before:
        words = state.run.word_texts
        table = [{_("pronoun"): _url.word_labels(words)[w], _("answer before"): words[a],
                  _("answer after"): words[result.answers_after.get(w, a)],
                  _("changed"): _("yes") if result.answers_after.get(w, a) != a else _("no")}
                 for w, a in result.answers_before.items()]
        st.markdown(_("**The coreference answers** (the cloze head's pick among each pronoun's earlier content "
                      "words):"))
        st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch")
    tokens = state.run.tokens
    flipped = int(result.flipped.sum())
    _export.chart(viz.plot_output_change(result.kl, tokens, result.flipped), key="explorer_ablation_kl",
                  width="stretch", name=(state.name, "ablation", "output_change"),
                  title=_("Output change at every token"), caption=state.caption(viz.head_list(heads)))
    st.caption(_("Each bar: how far the output distribution at that piece moved (KL divergence, nats); red: its "
                 "first choice changed ({n} of {total} pieces).").format(n=flipped, total=len(tokens)))


def _at(top, pos: int):
    """TopPredictions of every position -> the one at `pos`."""
    return type(top)(top.ids[pos], top.probs[pos], top.cross[pos])


def render(state: ExplorerState):
    L, H, N = state.shape
    heads = [head_label(lay, h) for lay in range(L) for h in range(H)]
    _url.stale_picks("explorer_ablate", heads, _("the head"))
    picked = st.session_state.get("explorer_ablate")
    if picked is not None and any(h not in heads for h in picked):
        st.session_state["explorer_ablate"] = [h for h in picked if h in heads]
    c1, c2 = st.columns([2, 1.4])
    chosen = c1.multiselect(_("Heads to remove"), heads, [head_label(state.layer, state.head)], key="explorer_ablate",
                            bind=BIND, persist_state=KEEP,
                            help=_("Their outputs are replaced before the output projection W_O; their own "
                                   "weights stay as they were."))
    shown = {k: _(v) for k, v in MODES.items()}
    _url.as_option("explorer_ablate_mode", list(MODES), list(shown.values()))
    mode = c2.radio(_("How to remove"), list(MODES), key="explorer_ablate_mode", format_func=shown.get, bind=BIND,
                    persist_state=KEEP, horizontal=True,
                    help=_("Zero ablation (Michel et al. 2019) removes what the head sends; mean ablation keeps its "
                           "average contribution and removes only what depends on the text."))
    if not chosen:
        st.info(_("Pick one or more heads to remove."))
        return
    cells = tuple(sorted((heads.index(h) // H, heads.index(h) % H) for h in chosen))
    st.markdown(_("**Removed:** {heads} · **{mode}** ablation: each removed head's output z = softmax(q·kᵀ/√d_k)·v "
                  "is replaced by {what} before W_O, at every token.").format(
        heads=html.escape(viz.head_list(cells)), mode=_("zero") if mode == "zero" else _("mean"),
        what=_("zeros") if mode == "zero" else _("its mean over this text's tokens")))
    result = _head_runs.ablation(state.name, state.device, state.text, cells, mode)
    _outputs(state, result, cells, mode)
    _later_layers(state, result, cells)


def _later_layers(state: ExplorerState, result, cells: tuple[tuple[int, int], ...]):
    """How much every head's attention changed, and one later head before and after the removal of `cells`."""
    L, H, _N = state.shape
    first = min(lay for lay, _h in cells)
    st.subheader(_("Attention of the later layers"))
    _export.chart(viz.plot_attention_change(result.change, removed=cells), key="explorer_ablation_change",
                  width="stretch", name=(state.name, "ablation", "attention_change"),
                  title=_("How much each head's attention changed"), caption=state.caption(viz.head_list(cells)))
    st.caption(_("Each cell: half the summed absolute change of a head's rows, averaged over its queries (0: the "
                 "same weights, 1: none in common). Layers up to {layer} cannot change: removing a head changes "
                 "only what comes after it.").format(layer=layer_label(first)))
    later = [(lay, h) for lay in range(first + 1, L) for h in range(H)]
    if not later:
        st.caption(_("No layer comes after {layer}, so no attention can change.").format(layer=layer_label(first)))
        return
    names = [head_label(*c) for c in later]
    biggest = names[max(range(len(later)), key=lambda k: result.change[later[k]])]
    _url.stale_link("explorer_ablate_look", names, _("head"), biggest)
    if st.session_state.get("explorer_ablate_look") not in (None, *names):
        del st.session_state["explorer_ablate_look"]
    name = st.selectbox(_("A later head to compare"), names, names.index(biggest), key="explorer_ablate_look",
                        bind=BIND, help=_("Offered first: the head whose attention changed most."))
    layer, head = later[names.index(name)]
    after = state.shown(result.weights[layer, head])
    left, right = st.columns(2)
    with left:
        title = _("{head} after the ablation").format(head=name)
        _export.chart(grid.plot_zoom(after, q_labels=state.tokens, k_labels=state.tokens, log=state.log, title=title),
                      key="explorer_ablation_zoom", width="stretch",
                      name=(state.name, file_label(layer, head), "ablated"), caption=state.caption(name))
    with right:
        title = _("{head}: after − before").format(head=name)
        _export.chart(viz.plot_difference(after - state.weights[layer, head], q_labels=state.tokens,
                                          k_labels=state.tokens, title=title),
                      key="explorer_ablation_diff", width="stretch",
                      name=(state.name, file_label(layer, head), "ablation_difference"), caption=state.caption(name))
