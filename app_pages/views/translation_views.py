"""The translation page's attention tabs: cross-attention (every head, then one), alignment lines between the
source read and the target written, and the encoder's and the decoder's masked self-attention, with the causal
mask drawn as the tutorial draws it for 我有一只猫 → "[BOS] i have a cat" (§5.1)."""
import html

import numpy as np
import streamlit as st

from app_pages import _export, _url
from app_pages.views.translation_controls import TRANSLATOR, file_part, pick, which
from i18n import _
from labels import layer_label
from model.engine import masks
from viz.heatmap import plot_heatmap
from viz.masks import plot_mask
from viz.translation import plot_alignment, plot_head_grid

BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def cross_section(run, layer: int, head: int | str, about, name: str = TRANSLATOR):
    src, written = run.src_tokens, run.written
    if name == TRANSLATOR:
        st.markdown(_("Each row is one decoding step; it shows how that step spread its attention over the "
                      "English words. Queries come from the decoder, keys and values from the encoder output."))
    else:
        st.markdown(_("Each row is one decoding step; it shows how that step spread its attention over the "
                      "Chinese characters. Queries come from the decoder, keys and values from the encoder output."))
    x_title, y_title = _("source word (key)"), _("target written (query)")
    every = _("{layer}, every head").format(layer=layer_label(layer))
    _export.chart(plot_head_grid(run.cross_weights[layer], x_labels=src, y_labels=written,
                                 x_title=x_title, y_title=y_title,
                                 title=_("Cross-attention, {layer}, every head").format(layer=layer_label(layer))),
                  width="stretch", key="tr_cross_grid", main=True,
                  name=(name, layer_label(layer), "cross_attention_every_head"), caption=about(every))
    _export.chart(plot_heatmap(pick(run.cross_weights, layer, head), x_labels=src, y_labels=written,
                               x_title=x_title, y_title=y_title, value_name=_("weight"),
                               title=_("Cross-attention, {head}").format(head=which(layer, head))), width="stretch",
                  key="tr_cross_one", name=(name, file_part(layer, head), "cross_attention"),
                  caption=about(which(layer, head)))


def alignment_section(run, layer: int, head: int | str, about, name: str = TRANSLATOR):
    _url.stale_number("tr_threshold", 0.05, 0.9, _("the line threshold"), 0.2)
    threshold = st.slider(_("Draw lines for weights of at least"), 0.05, 0.9, 0.2, 0.05, key="tr_threshold",
                          bind=BIND, persist_state=KEEP)
    w = pick(run.cross_weights, layer, head)
    _export.chart(plot_alignment(w, src_tokens=run.src_tokens, tgt_tokens=run.written, threshold=threshold,
                                 title=_("Alignment, {head}").format(head=which(layer, head))),
                  width="stretch", key="tr_alignment", main=True,
                  name=(name, file_part(layer, head), "alignment"),
                  caption=about(which(layer, head)))
    top = w.argmax(axis=1)
    st.caption(_("Strongest source word per target token: {pairs}").format(pairs=", ".join(
        f"{html.escape(t)} → {html.escape(run.src_tokens[s])}" for t, s in zip(run.written, top))))


def self_section(run, layer: int, which: str, about, name: str = TRANSLATOR):
    every = _("{layer}, every head").format(layer=layer_label(layer))
    if which == "encoder":
        st.markdown(_("The encoder reads the whole English sentence; every word may look at every other.")
                    if name == TRANSLATOR else
                    _("The encoder reads the whole Chinese sentence; every character may look at every other."))
        _export.chart(plot_head_grid(run.enc_weights[layer], x_labels=run.src_tokens, y_labels=run.src_tokens,
                                     title=_("Encoder self-attention, {layer}").format(layer=layer_label(layer))),
                      width="stretch", key="tr_enc_grid", main=True,
                      name=(name, layer_label(layer), "encoder_self_attention"), caption=about(every))
        return
    st.markdown(_("The decoder's first attention is masked: the step that writes token *t* sees only "
                  "[BOS] and the tokens already written, never later ones (the upper triangle is zero)."))
    causal_mask(run, about, name)
    _export.chart(plot_head_grid(run.weights[layer], x_labels=run.tokens, y_labels=run.tokens,
                                 x_title=_("decoder input (key)"), y_title=_("decoder input (query)"),
                                 title=_("Decoder masked self-attention, {layer}").format(layer=layer_label(layer))),
                  width="stretch", key="tr_dec_grid", main=True,
                  name=(name, layer_label(layer), "decoder_self_attention"), caption=about(every))


def causal_mask(run, about, name: str):
    """The decoder input's causal mask, (T, T) True = may attend (model.engine.masks), as the tutorial draws it for
    its example: 我有一只猫 → "[BOS] i have a cat", 5 × 5."""
    T = len(run.tokens)
    allowed = masks.causal(T)
    st.markdown(_("The mask itself, {T} × {T}, as the tutorial draws it for 我有一只猫 → “I have a cat” (§5.1): the "
                  "decoder reads “[BOS]” and the tokens written so far and predicts the next one; row *i* may attend "
                  "to keys 0…*i*, and the masked scores become −∞ before the softmax.").format(T=T))
    fig = plot_mask(allowed, labels=list(run.tokens), title=_("Decoder causal mask ({T} × {T})").format(T=T),
                    height=max(460, 30 * T + 160))
    if T > 6:                  # "[BOS] ·0", "have ·2", …: side by side they overlap beyond a few columns
        fig.update_xaxes(tickangle=-90)
    _export.chart(fig, width="stretch", key="tr_dec_mask", name=(name, "decoder_causal_mask"),
                  caption=about(_("causal mask")))
    st.caption(_("Predicted from each row: {pairs}. {allowed} of the {cells} cells may attend.").format(
        pairs=", ".join(f"{html.escape(q)} → {html.escape(w)}" for q, w in zip(run.tokens, run.written)),
        allowed=int(np.sum(allowed)), cells=T * T))
