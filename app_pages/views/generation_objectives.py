"""The decoder page's "Objectives side by side" tab: the encoder's loss terms only where a piece is masked, the
decoder's at every piece, and the causal attention that keeps each next piece hidden."""
import numpy as np
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from app_pages._markup import md, visible
from app_pages._numbers import plain
from app_pages.views.generation_text import MEAN
from i18n import _
from labels import layer_label
from model import checkpoints
from model.checkpoints import CheckpointError
from model.data import text_input
from model.training.objectives import choose_masked
from viz.generation import plot_objectives
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

MAX_SENTENCE_CHARS = 400
DEFAULT_SENTENCE = "The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food."
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def objectives(gpt, dev, tok):
    st.markdown(_("The encoder learns by filling in a few hidden pieces (a loss term only where a piece is masked), "
                  "the decoder by predicting **every** next piece (a loss term everywhere), which is only honest "
                  "because the causal mask hides the answer."))
    sentence = _resources.clip_text(st.text_input(_("Sentence"), DEFAULT_SENTENCE, key="obj_text",
                                                  bind=_url.text_bind("obj_text"), persist_state=KEEP),
                                    MAX_SENTENCE_CHARS)
    _url.long_text_note("obj_text")
    encoder = _resources.FILL_MODEL
    try:                                              # a broken encoder leaves the decoder's row
        shared = (encoder in checkpoints.shipped()
                  and _resources.load_model(encoder, dev)[1]["tokenizer"] == checkpoints.read_meta(gpt)["tokenizer"])
    except CheckpointError as e:
        st.warning(f"The masked-LM encoder `{encoder}` is not available ({md(e)}).")
        shared = False
    gpt_len = _resources.load_model(gpt, dev)[0].config.max_len - 1                      # after [BOS]
    limit = min(gpt_len, checkpoints.read_meta(encoder)["config"]["max_len"] - 2) if shared else gpt_len
    pieces = text_input.encode(tok, sentence, "plain")
    ids, shown = pieces.ids, [visible(t) for t in pieces.tokens]
    if len(ids) > limit:
        st.warning(_("The sentence is {n} pieces long; only the first {limit} are used.").format(n=len(ids),
                                                                                                  limit=limit))
        ids, shown = ids[:limit], shown[:limit]
    if not ids:
        st.info(_("Type a sentence."))
        return
    labels = _url.word_labels(shown)                  # pieces by what they read ("␣the (2)"), never by position
    _url.stale_picks("obj_masked", labels, _("the pieces"))
    if st.session_state.get("obj_seen") != tuple(ids):                 # a new sentence: BERT's 15 % afresh
        st.session_state.obj_seen = tuple(ids)                         # (a link's own picks win on its first run)
        st.session_state.obj_masked = [labels[i] for i in choose_masked(len(ids), 0.15, np.random.default_rng(0))]
    picked = st.multiselect(_("Masked for the encoder (about 15 % of the pieces, as in BERT)"), labels,
                            key="obj_masked", bind=BIND, persist_state=KEEP, placeholder=_("Pick pieces to mask"),
                            help=_("A piece seen again is numbered: “␣the (2)”; ␣ is a space."))
    masked = tuple(sorted(labels.index(p) for p in picked if p in labels))
    losses = _runs.objective_losses(gpt, dev, tuple(ids), masked, encoder if shared else None)
    mlm, clm, dec_w = losses.mlm, losses.clm, losses.weights
    _export.chart(plot_objectives(shown, mlm, clm, title=_("Loss terms per piece (−log p of the true piece)"),
                                  unit=_("piece")),
                  key="obj_losses", main=True, name=(encoder, gpt, "objectives"),
                  caption=caption_line(encoder, gpt, text=sentence))
    m1, m2, m3 = st.columns(3)
    m1.metric(_("Encoder loss terms"), _("{k} of {n}").format(k=len(masked), n=len(ids)))
    m2.metric(_("Decoder loss terms"), _("{k} of {n}").format(k=len(ids), n=len(ids)))
    m3.metric(_("Decoder mean loss (nats)"), f"{float(np.mean(clm)):.3f}")
    st.caption(_("Encoder `{encoder}`, decoder `{decoder}`, the same BPE pieces.").format(encoder=encoder, decoder=gpt)
               if shared else
               _("The encoder `{encoder}` is not shipped with the decoder's tokenizer, so its row stays empty.").format(
                   encoder=encoder))
    dec_tokens = ["[BOS]", *shown]
    future = np.triu(np.ones(dec_w.shape[-2:], dtype=bool), 1)
    _export.chart(plot_heatmap(dec_w[0].mean(0), x_labels=dec_tokens, y_labels=dec_tokens, x_title=_("key"),
                               y_title=_("query"), value_name=_("weight"),
                               title=_("The decoder's causal attention ({layer}, mean of heads)").format(
                                   layer=layer_label(0))),
                  key="obj_mask", name=(gpt, layer_label(0), "mean", "causal_attention"),
                  caption=caption_line(gpt, f"{layer_label(0)}, {_(MEAN)}", text=sentence))
    st.caption(_("Weight on future pieces, largest over all {layers} layers and {heads} heads: {largest}. Position i "
                 "predicts piece i + 1 without seeing it.").format(layers=dec_w.shape[0], heads=dec_w.shape[1],
                                                                   largest=plain(dec_w[..., future].max())))
