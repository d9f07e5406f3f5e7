"""Positional encodings, the "Word order" tab: self-attention alone cannot tell word order. The shipped encoder reads a
sentence and the same words reordered, with its positions switched off and on: without them every output vector
and attention weight is only reordered the same way (equivariance, textbook 12.3.1)."""
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from app_pages._numbers import plain
from i18n import N_, _
from labels import file_label, head_label, head_only, layer_label
from model.analysis.order import permute_run
from model.engine.errors import InputError
from viz import positional as vp
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page

ORDER_A, ORDER_B = "The woman ate the raccoon.", "The raccoon ate the woman."
MAX_ORDER_CHARS = 400
SWITCH = {"off": N_("off"), "on": N_("on")}     # positions off / on -> the shown (URL) label


def order_section():
    st.markdown(_("Self-attention without positions treats a sentence as a bag of words: it is **equivariant** to "
                  "reordering (textbook 12.3.1): reorder the words and every output vector and attention weight is "
                  "only reordered the same way. Here the shipped encoder reads both sentences twice, with its "
                  "positions switched off and on."))
    encoders = [n for n in _resources.text_models() if _resources.shipped_meta()[n]["config"]["kind"] == "encoder"]
    if not encoders:
        st.info(_("No shipped encoder in assets/ yet: `python -m model.train {name}`.").format(
            name=_resources.DEFAULT_TEXT_MODEL))
        return
    _url.stale_link("order_model", encoders, _("the encoder"), encoders[0])
    name = st.selectbox(_("Encoder"), encoders, key="order_model", bind=BIND, persist_state=KEEP)
    for key in ("order_a", "order_b"):
        _url.clipped_link_text(key, MAX_ORDER_CHARS)
    c1, c2 = st.columns(2)
    a = c1.text_input(_("Sentence"), ORDER_A, max_chars=MAX_ORDER_CHARS, key="order_a", bind=BIND,
                      persist_state=KEEP)
    b = c2.text_input(_("The same words, reordered"), ORDER_B, max_chars=MAX_ORDER_CHARS, key="order_b", bind=BIND,
                      persist_state=KEEP)
    _resources.model_or_stop(name)
    if not (a.strip() and b.strip()):
        st.info(_("Type a sentence in both boxes: the second one uses the same words in another order."))
        return
    try:
        exp = _runs.order_experiment(name, _resources.device(), a, b)
    except InputError as e:
        st.error(e.shown(_))
        return
    for notice in exp.notices:
        st.warning(str(notice))
    _differences(exp)
    _maps(name, exp, a, b)


def _differences(exp):
    """How far the two runs differ once the reordering is undone, positions off and on."""
    cols = st.columns(4)
    for col, key in zip(cols[::2], SWITCH):
        e = exp.errors[key]
        col.metric(_("Output, positions {switch}").format(switch=_(SWITCH[key])), plain(e['output']),
                   help=_("max |Δ| of the final vectors after undoing the reordering (vectors reach {scale})").format(
                       scale=f"{e['output_scale']:.2f}"))
    for col, key in zip(cols[1::2], SWITCH):
        col.metric(_("Attention, positions {switch}").format(switch=_(SWITCH[key])),
                   plain(exp.errors[key]['attention']),
                   help=_("max |Δ weight| over all layers and heads after undoing the reordering"))
    off, on = exp.errors["off"], exp.errors["on"]
    st.markdown(_("Without positions the two runs agree to **{off}** (float32 rounding): the model cannot tell who "
                  "ate whom. With positions they differ by up to **{on}**.").format(off=plain(off['output']),
                                                                                      on=f"{on['output']:.2f}"))


def _maps(name: str, exp, a: str, b: str):
    """One head's attention on both sentences (positions off or on), their difference after undoing the reordering,
    and the largest difference of every layer."""
    run_a, _run_b = exp.runs["off"]
    switches = [_(s) for s in SWITCH.values()]
    _url.stale_link("order_layer", [layer_label(i) for i in range(run_a.n_layers)], _("layer"), layer_label(0))
    _url.stale_link("order_head", [head_only(i) for i in range(run_a.n_heads)], _("head"), head_only(0))
    _url.stale_link("order_positions", switches, _("the positions switch"), switches[0])
    c1, c2, c3 = st.columns(3)
    layer = c1.selectbox(_("Layer"), list(range(run_a.n_layers)), key="order_layer", format_func=layer_label,
                         bind=BIND, persist_state=KEEP)
    head = c2.selectbox(_("Head"), list(range(run_a.n_heads)), key="order_head", format_func=head_only, bind=BIND,
                        persist_state=KEEP)
    key = c3.radio(_("Positions"), list(SWITCH), format_func=lambda k: _(SWITCH[k]), horizontal=True,
                   key="order_positions", bind=BIND, persist_state=KEEP)
    ra, rb = exp.runs[key]
    _out, wa = permute_run(ra, exp.perm)                                 # sentence's weights, reordered
    height = max(300, min(900, 34 * len(rb.tokens) + 160))
    c1, c2 = st.columns(2)
    stem, label = (name, file_label(layer, head), f"positions_{key}"), head_label(layer, head)
    switch = _(SWITCH[key])
    axes = dict(x_title=_("key"), y_title=_("query"), value_name=_("weight"), height=height)
    _export.chart(plot_heatmap(ra.weights[layer, head], x_labels=ra.tokens, y_labels=ra.tokens,
                               title=_("Sentence, positions {switch}").format(switch=switch), **axes),
                  key="order_heat_a", main=True, where=c1, name=(*stem, "sentence"),
                  caption=caption_line(name, label, text=a))
    _export.chart(plot_heatmap(rb.weights[layer, head], x_labels=rb.tokens, y_labels=rb.tokens,
                               title=_("Reordered, positions {switch}").format(switch=switch), **axes),
                  key="order_heat_b", where=c2, name=(*stem, "reordered"), caption=caption_line(name, label, text=b))
    c1, c2 = st.columns(2)
    both = caption_line(name, label, text=f"{a} / {b}")
    _export.chart(vp.plot_signed(rb.weights[layer, head] - wa[layer, head], x_labels=rb.tokens,
                                 y_labels=rb.tokens, title=_("Reordered − sentence reordered"), x_title=_("key"),
                                 y_title=_("query"), value_name=_("Δ weight"), decimals=8, zrange=1.0, height=height),
                  key="order_heat_diff", where=c1, name=(*stem, "difference"), caption=both)
    _export.chart(vp.plot_layer_errors({_("positions off"): exp.layer_errors["off"],
                                        _("positions on"): exp.layer_errors["on"]}), key="order_layers", where=c2,
                  name=(name, "order_by_layer"), title=_("Largest difference after undoing the reordering, by layer"),
                  caption=caption_line(name, text=f"{a} / {b}"))
