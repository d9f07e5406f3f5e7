"""The translation page's "Training vs inference" tab: teacher forcing (the shifted target in, every position
predicted in one pass) beside greedy decoding one token at a time, and the proof that they agree when the model's
own output is forced."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _runs, _url
from app_pages.views import translation_direction
from app_pages.views.translation_controls import MEAN, METHODS, too_long, which
from app_pages.views.translation_direction import EN_ZH, Direction
from i18n import N_, _
from labels import layer_label
from model.data.word_tokenizer import EOS
from model.tasks.translation import SourceError, target_ids
from viz.heatmap import plot_heatmap
from viz.slide import caption_line
from viz.translation import plot_step_probs

BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
FORCED_MAX = 80                          # characters of the target fed in training
FOUR_DIGITS = N_("p(should write)"), N_("probability")      # columns shown with four decimals


def four_digits() -> dict:
    """column_config for the columns shown with four decimals, by their shown (translated) names."""
    return {_(c): st.column_config.NumberColumn(format="%.4f") for c in FOUR_DIGITS}


def training_vs_inference(dev: str, text: str, run, layer: int, reference: str | None, about,
                          direction: Direction = EN_ZH):
    _src_tok, tgt_tok = translation_direction.tokenizers(direction)
    name = direction.model
    default = reference or run.output
    if st.session_state.get("tr_forced_for") != text:        # another sentence: its own target (a link's wins)
        st.session_state["tr_forced_for"] = text
        st.session_state["tr_forced"] = default
    too_long("tr_forced", FORCED_MAX)
    edit = (_("Edit it (say cat → dog): training always feeds the true earlier tokens, whatever the model would have "
              "written.") if direction.chinese_source else
            _("Edit it (say 餐厅 → 银行): training always feeds the true earlier tokens, whatever the model would have "
              "written."))
    forced_text = st.text_input(_("Target fed to the decoder in training (teacher forcing)"), max_chars=FORCED_MAX,
                                key="tr_forced", bind=BIND, persist_state=KEEP, help=edit)
    try:
        forced = _runs.translation_run(name, dev, text, "greedy", 1, tuple(target_ids(tgt_tok, forced_text)))
    except SourceError as e:
        st.error(str(e))
        return
    steps = _runs.translation_steps(name, dev, text)
    left, right = st.columns(2)
    with left:
        teacher_forcing(forced, tgt_tok, layer, f"{text} → {forced_text}", name)
    with right:
        written = inference(steps, tgt_tok, run, layer, about, name, " " if direction.chinese_source else "")
    own = _runs.translation_run(name, dev, text, "greedy", 1, tuple(steps.ids))
    diff = float(np.abs(own.cross_weights.transpose(2, 0, 1, 3) - steps.cross).max())
    st.info(_("Forcing the model's own greedy output gives the same cross-attention as decoding step by step: max "
              "|difference| = {diff} over every layer, head and step. Training and inference differ only in what is "
              "fed back: the true token or the model's own.").format(diff=f"{diff:.1e}"))
    _export.chart(plot_step_probs(steps.probs, tokens=written, title=_("Probability of each token written")),
                  width="stretch", key="tr_step_probs", name=(name, "greedy_steps_probabilities"),
                  caption=about(_(METHODS["greedy"])))


def teacher_forcing(forced, tgt_tok, layer: int, pair: str, name: str):
    """Training: the forced target's predictions position by position, and the layer's mean cross-attention;
    pair: "sentence → forced target" for the slides' caption."""
    st.markdown("#### " + _("Training: teacher forcing"))
    st.caption(_("The shifted target ([BOS] + target) goes in; all positions are predicted in one pass "
                 "under the causal mask, each from the *true* earlier tokens."))
    logits = forced.logits
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    want = list(forced.target_ids) + [EOS]
    best = probs.argmax(-1)
    st.dataframe(pd.DataFrame({
        _("decoder input"): forced.tokens, _("should write"): forced.written,
        _("model's top choice"): [tgt_tok.vocab[i] for i in best],
        _(FOUR_DIGITS[0]): probs[np.arange(len(want)), want]}), hide_index=True, column_config=four_digits())
    mean_title = _("Cross-attention, {layer}, mean").format(layer=layer_label(layer))
    _export.chart(plot_heatmap(forced.cross_weights[layer].mean(0), x_labels=forced.src_tokens,
                               y_labels=forced.written, x_title=_("source word"), y_title=_("target (forced)"),
                               value_name=_("weight"), title=mean_title),
                  width="stretch", key="tr_forced_cross", main=True,
                  name=(name, f"{layer_label(layer)}mean", "teacher_forcing_cross_attention"),
                  caption=caption_line(name, which(layer, MEAN), text=pair))


def inference(steps, tgt_tok, run, layer: int, about, name: str, space: str) -> list[str]:
    """Inference: greedy decoding step by step, and each step's cross-attention row; space: what separates the
    target's tokens ("" for Chinese characters, " " for English words). Returns the tokens written, [EOS] last."""
    st.markdown("#### " + _("Inference: one token at a time"))
    st.caption(_("Greedy decoding: each step feeds back the token just written; earlier keys and values "
                 "are cached, so a step computes only its own new row."))
    written = [tgt_tok.vocab[i] for i in steps.ids] + ["[EOS]"]
    st.dataframe(pd.DataFrame({
        _("step"): range(1, len(written) + 1),
        _("sees"): [space.join(["[BOS]", *written[:i]]) for i in range(len(written))],
        _("writes"): written, _(FOUR_DIGITS[1]): steps.probs}), hide_index=True, column_config=four_digits())
    _export.chart(plot_heatmap(steps.cross[:, layer].mean(1), x_labels=run.src_tokens, y_labels=written,
                               x_title=_("source word"), y_title=_("step writes"), value_name=_("weight"),
                               title=_("Cross-attention row of each step, {layer}, mean").format(
                                   layer=layer_label(layer))),
                  width="stretch", key="tr_steps_cross",
                  name=(name, f"{layer_label(layer)}mean", "greedy_steps_cross_attention"),
                  caption=about(f"{which(layer, MEAN)}, {_(METHODS['greedy'])}"))
    return written
