"""Step by step, "Why √d_k": predict first what the real scores of the live model give without the scaling, then
random q and k of any d_k: without ÷√d_k the scores spread as d_k grows, softmax saturates and its gradient vanishes."""
import numpy as np
import streamlit as st

from app_pages import _export, _predict, _runs, _url
from app_pages._markup import esc, md
from i18n import N_, _
from labels import head_label, head_only, layer_label
from model.analysis import steps
from viz.slide import caption_line
from viz.steps import plot_saturation, plot_softmax_bars

BIND, KEEP = _url.BIND, _url.KEEP     # every input is in the URL and survives a visit to another page

D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
N_KEYS = 8
CHANGE_LABELS = {"flatter": N_("Flatter (closer to uniform)"), "about the same": N_("About the same"),
                 "more peaked": N_("More peaked (closer to one-hot)")}


def predict_scaling(model, s: steps.HeadSteps, token: int, mask) -> bool:
    """Predict first: what softmax gives the real scores of the query token without the ÷√d_k, in the head of the
    live layer that spreads that token's weights the most (a one-hot row has no room to sharpen); once revealed,
    both weight rows side by side. True when the answer may be shown."""
    heads = [steps.head_steps(model, s.X, s.layer, h, mask, s.tokens) for h in range(model.config.n_heads)]
    s = min(heads, key=lambda one: one.weights[token].max())
    D = s.d_k
    row = np.where(np.isfinite(s.scaled[token]), s.scores[token], -np.inf)  # (T,) q·k, −inf where masked
    ex = steps.without_scaling(row, D)
    label = _url.word_labels(s.tokens)[token]                             # "it", not the BPE piece " it"
    name, word = head_label(s.layer, s.head), md(label)
    question = _("Of the {n} heads of **{layer}**, **{head}** spreads the query **{word}** the most: it scores q·k "
                 "against {keys} keys, divides by √d_k = √{D} ≈ {root}, and its largest weight after the softmax is "
                 "**{top}**. Without the division, what would softmax(q·k) give?").format(
        n=len(heads), layer=layer_label(s.layer), head=head_only(s.head), word=word, keys=int(np.isfinite(row).sum()),
        D=D, root=f"{np.sqrt(D):.2f}", top=f"{ex['max_scaled']:.3f}")
    explain = _("Largest weight **{scaled}** with ÷√{D}, **{unscaled}** without; entropy {h_scaled} vs {h_unscaled} "
                "nats. Without the division the scores are {root} times further apart, and softmax turns larger gaps "
                "into a sharper peak (“more peaked”: the largest weight grows by more than {within})").format(
        scaled=f"{ex['max_scaled']:.3f}", D=D, unscaled=f"{ex['max_unscaled']:.3f}",
        h_scaled=f"{ex['entropy_scaled']:.3f}", h_unscaled=f"{ex['entropy_unscaled']:.3f}", root=f"{np.sqrt(D):.2f}",
        within=steps.SAME_WITHIN)
    explain += (_(": this row is already almost one-hot, with little room left.") if ex["max_scaled"] > 0.95 else
                _("."))
    if not _predict.predict("steps_predict", question, steps.CHANGES, ex["change"], explain,
                            format_func=lambda change: _(CHANGE_LABELS[change])):
        return False
    _export.chart(plot_softmax_bars({_("scaled: softmax(q·k/√{D})").format(D=D): ex["weights_scaled"],
                                     _("no scaling: softmax(q·k)"): ex["weights_unscaled"]}, keys=s.tokens,
                                    title=_("{head}, query “{word}”: the real scores, with and without "
                                            "÷√d_k").format(head=name, word=esc(label))),
                  width="stretch", key="steps_predict_bars", name=(name, "softmax_with_and_without_scaling"),
                  caption=caption_line(name, text=label))
    return True


def scaling_section(live=None):
    """live: (model, HeadSteps, query token, mask) of the sidebar's model, asked about first; None without one."""
    if live is not None and not predict_scaling(*live):
        return
    st.markdown(_("For random q and k with unit-variance entries, q·k has variance d_k. Without the scaling "
                  "the scores spread out as d_k grows, softmax puts almost all weight on one key, and its "
                  "gradient vanishes. Dividing by √d_k keeps the variance at 1."))
    left, right = st.columns([3, 1])
    d_k = left.select_slider("d_k", D_KS, value=64, key="steps_dk", bind=BIND, persist_state=KEEP)
    unscaled = right.toggle(_("No scaling"), key="steps_no_scaling", bind=BIND, persist_state=KEEP,
                            help=_("Feed softmax q·k instead of q·k/√d_k."))
    seed = right.number_input(_("Seed"), 0, 9999, 0, key="steps_seed", bind=BIND, persist_state=KEEP)
    ex = steps.softmax_example(d_k, scaled=not unscaled, n_keys=N_KEYS, seed=int(seed))
    a, b, c = st.columns(3)
    a.metric(_("largest weight"), f"{ex['max_weight']:.4f}")
    b.metric(_("‖∂softmax/∂scores‖"), f"{ex['grad_norm']:.4f}")
    c.metric(_("spread of the scores fed to softmax (std)"), f"{ex['logits'].std():.4f}")
    label = _("no scaling: softmax(q·k)") if unscaled else _("scaled: softmax(q·k/√d_k)")
    about = caption_line(f"d_k = {d_k}", _("no scaling") if unscaled else _("scaled by 1/√d_k"),
                         _("seed {seed}").format(seed=int(seed)))
    _export.chart(plot_softmax_bars({label: ex["weights"]},
                                    title=_("one random query against {n} random keys, d_k = {d_k}").format(
                                        n=N_KEYS, d_k=d_k)),
                  width="stretch", name=("softmax_weights", f"dk{d_k}", "unscaled" if unscaled else "scaled"),
                  caption=about, main=True)
    curves = _runs.softmax_saturation(D_KS, N_KEYS, int(seed))
    _export.chart(plot_saturation(**curves, current=d_k, n_keys=N_KEYS), width="stretch",
                  name="softmax_saturation_against_dk", title=_("Why √d_k: softmax saturates as d_k grows"),
                  caption=caption_line(_("{n} random keys").format(n=N_KEYS), _("seed {seed}").format(seed=int(seed))))
