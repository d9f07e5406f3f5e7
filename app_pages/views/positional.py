"""Positional encodings. Teaches: self-attention alone cannot tell word order (shown live on the shipped
encoder), the sine/cosine table and its waves, similarity that depends on the offset only, the shift
identity PE(pos + k) = M_k·PE(pos), learned tables, relative schemes (RoPE, ALiBi, and a bias learned per offset
in a trained model), and what happens beyond the trained length. The tabs "Word order" and "Learned vs relative"
are drawn by positional_order.py and positional_relative.py."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _present, _resources, _url
from app_pages.views import positional_order, positional_relative
from app_pages.views.positional_order import ORDER_A
from i18n import N_, _
from model.analysis import shift
from model.data import text_input
from model.engine.positions import sinusoidal
from viz import positional as vp
from viz.slide import caption_line

WIDTHS = [16, 32, 64, 128, 256, 512]
TABS = [N_("Word order"), N_("Waves"), N_("Similarity"), N_("Shift identity"), N_("Learned vs relative"),
        N_("Beyond max_len")]
POSITION_KINDS = {"sinusoidal": N_("sinusoidal"), "rope": "RoPE", "alibi": "ALiBi"}   # config pos_encoding -> shown
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def waves_section():
    st.markdown(_("Each position gets a vector: PE(pos, 2i) = sin(pos / 10000^(2i/d)), "
                  "PE(pos, 2i+1) = cos(pos / 10000^(2i/d)). Low dimensions oscillate fast, high ones slowly."))
    _url.stale_number("pe_n", 8, 1024, _("positions"), 100)
    _url.stale_link("pe_d", list(map(str, WIDTHS)), "d_model", WIDTHS[3])
    c1, c2 = st.columns(2)
    n = c1.number_input(_("Number of positions"), 8, 1024, 100, step=10, key="pe_n", bind=BIND, persist_state=KEEP)
    d = c2.selectbox("d_model", WIDTHS, index=3, key="pe_d", bind=BIND, persist_state=KEEP)
    pe = sinusoidal(int(n), d)
    about = sinusoidal_about(n, d)
    _export.chart(vp.plot_pe_heatmap(pe), key="pe_heatmap", main=True, name=("sinusoidal_table", f"N{int(n)}", f"d{d}"),
                  title=_("The sine/cosine position table"), caption=about)
    default = [x for x in (0, 1, 10, 40) if x < d]
    dims = st.multiselect(_("Dimensions to draw as waves"), list(range(d)), default=default, max_selections=8,
                          key="pe_dims", bind=BIND, persist_state=KEEP)
    if dims:
        _export.chart(vp.plot_waves(pe, dims), key="pe_waves", name=("sinusoidal_waves", f"d{d}"),
                      title=_("Chosen dimensions as waves"), caption=about)
    _export.chart(vp.plot_wavelengths(shift.wavelengths(d)), key="pe_wavelengths",
                  name=("sinusoidal_wavelengths", f"d{d}"), title=_("Wavelength of each dimension pair"),
                  caption=about)
    _url.stale_number("pe_pos", 0, 10**9, _("position"), 7)
    _url.stale_number("pe_dim", 0, d - 1, _("dimension"), min(2, d - 1))
    c1, c2 = st.columns(2)
    pos = c1.number_input(_("Look up position"), 0, 10**9, 7, key="pe_pos", bind=BIND, persist_state=KEEP)
    dim = c2.number_input(_("dimension"), 0, d - 1, min(2, d - 1), key="pe_dim", bind=BIND, persist_state=KEEP)
    i, fn = int(dim) // 2, ("sin" if dim % 2 == 0 else "cos")
    val = (np.sin if fn == "sin" else np.cos)(pos * shift.frequencies(d)[i])
    st.code(f"PE({pos}, {dim}) = {fn}({pos} / 10000^({2 * i}/{d})) = {val:.12f}", language=None)


def sinusoidal_about(n: int, d: int) -> str:
    """A slide caption: sinusoidal positions · N positions · d_model d."""
    return caption_line(_("sinusoidal positions"), _("{n} positions").format(n=int(n)),
                        _("d_model {d}").format(d=d))


def similarity_section():
    st.markdown(_("Dot products of every pair of positions. For the sine/cosine table PE(i)·PE(j) = Σ cos((i − j)·ω): "
                  "it depends on the offset i − j only, never on where the pair sits."))
    _url.stale_number("sim_n", 16, 512, _("positions"), 64)
    _url.stale_link("sim_d", list(map(str, WIDTHS)), "d_model", WIDTHS[3])
    c1, c2 = st.columns(2)
    n = c1.slider(_("Number of positions"), 16, 512, 64, key="sim_n", bind=BIND, persist_state=KEEP)
    d = c2.selectbox("d_model", WIDTHS, index=3, key="sim_d", bind=BIND, persist_state=KEEP)
    sim = shift.similarity(sinusoidal(n, d))
    prof = shift.offset_profile(sim)
    spread = float(np.max(prof["max"] - prof["min"]))
    closed = float(np.abs(prof["mean"] - shift.closed_form_similarity(prof["offset"], d)).max())
    c1, c2 = st.columns(2)
    c1.metric(_("Largest spread among pairs with the same offset"), f"{spread:.2e}")
    c2.metric(_("Largest gap to Σ cos(δ·ω)"), f"{closed:.2e}")
    c1, c2 = st.columns(2)
    about = sinusoidal_about(n, d)
    _export.chart(vp.plot_signed(sim, title="PE(i) · PE(j)", x_title=_("position j"), y_title=_("position i"),
                                 value_name=_("dot product")), key="sim_matrix", main=True, where=c1,
                  name=("sinusoidal_similarity", f"N{n}", f"d{d}"), caption=about)
    _export.chart(vp.plot_offset_profile({_("sinusoidal"): prof}), key="sim_profile", where=c2,
                  name=("sinusoidal_similarity_by_offset", f"N{n}", f"d{d}"),
                  title=_("PE(i) · PE(j) against the offset i − j"), caption=about)


def shift_section():
    st.markdown(_("Moving k positions along is the same linear map for every position: M_k rotates each "
                  "(sin, cos) pair by the angle k·ω_i. So PE(pos + k) = M_k · PE(pos), and the model can learn "
                  "to attend “k to the left” with one matrix."))
    _url.stale_number("shift_k", -1000, 10000, _("the offset"), 5)
    _url.stale_link("shift_d", list(map(str, WIDTHS)), "d_model", WIDTHS[3])
    _url.stale_number("shift_n", 10, 5000, _("positions checked"), 1000)
    c1, c2, c3 = st.columns(3)
    k = c1.number_input(_("Offset k"), -1000, 10000, 5, key="shift_k", bind=BIND, persist_state=KEEP)
    d = c2.selectbox("d_model", WIDTHS, index=3, key="shift_d", bind=BIND, persist_state=KEEP)
    n = c3.number_input(_("Positions checked"), 10, 5000, 1000, step=100, key="shift_n", bind=BIND,
                        persist_state=KEEP)
    errors = shift.shift_errors(int(k), int(n), d)
    start = max(0, -int(k))
    worst = float(errors.max())
    st.metric(_("Largest error over positions {first}..{last} (float64)").format(first=start,
                                                                                  last=start + int(n) - 1),
              f"{worst:.2e}")
    (st.success if worst <= 1e-9 else st.error)(
        _("max |PE(pos + {k}) − M_{k}·PE(pos)| = {error} {verdict}").format(
            k=k, error=f"{worst:.3e}", verdict="≤ 1e-9" if worst <= 1e-9 else "> 1e-9"))
    _url.stale_number("shift_show", 2, d, _("dimensions shown"), min(16, d))
    show = st.slider(_("Dimensions of M_k shown"), 2, d, min(16, d), step=2, key="shift_show", bind=BIND,
                     persist_state=KEEP)
    m = shift.shift_matrix(int(k), d)[:show, :show]
    c1, c2 = st.columns(2)
    about = caption_line(_("sinusoidal positions"), _("offset k = {k}").format(k=int(k)), _("d_model {d}").format(d=d))
    _export.chart(vp.plot_signed(m, title=_("M_{k} (first {n} dimensions)").format(k=k, n=show),
                                 x_title=_("input dimension"), y_title=_("output dimension"), value_name=_("entry"),
                                 decimals=6), key="shift_matrix", main=True,
                  where=c1, name=("shift_matrix", f"k{int(k)}", f"d{d}"), caption=about)
    _export.chart(vp.plot_shift_errors(errors, start), key="shift_errors", where=c2,
                  name=("shift_errors", f"k{int(k)}", f"d{d}"),
                  title=_("|PE(pos + {k}) − M_{k}·PE(pos)| by position").format(k=k), caption=about)


def length_section():
    st.markdown(_("A formula has a value at any position; a learned table has exactly max_len rows."))
    _url.stale_number("len_pos", 0, 10**9, _("position"), 100_000)
    pos = st.number_input(_("Position"), 0, 10**9, 100_000, key="len_pos", bind=BIND, persist_state=KEEP)
    d = 128
    i = np.arange(8) // 2
    vals = np.where(np.arange(8) % 2 == 0, np.sin(pos * shift.frequencies(d)[i]), np.cos(pos * shift.frequencies(d)[i]))
    st.table(pd.DataFrame({_("formula"): [f"{'sin' if j % 2 == 0 else 'cos'}({pos} / 10000^({2 * k}/{d}))"
                                          for j, k in enumerate(i)],
                           _("value"): [f"{v:+.9f}" for v in vals]},
                          index=pd.Index(np.arange(8), name=_("dimension"))))
    for name, meta in sorted(_resources.learned_position_models().items()):
        if meta.get("modality", "text") == "image":
            c = meta["config"]
            rows = (c.get("image_size", 0) // max(1, c.get("patch_size", 1))) ** 2 + 1
            st.info(_("{name}: a learned table of {rows} rows (<cls> + {patches} patches): a larger image would "
                      "have patches with no position vector.").format(name=html.escape(name), rows=rows,
                                                                       patches=rows - 1))
            continue
        max_len = meta["config"]["max_len"]
        if pos >= max_len:
            st.warning(_("{name}: its learned table stops at max_len = {max_len} (positions 0..{last}). Position "
                         "{pos:,} has no vector; text longer than {max_len} tokens is cut to the first "
                         "{max_len}.").format(name=html.escape(name), max_len=max_len, last=max_len - 1, pos=pos))
        else:
            st.success(_("{name}: position {pos:,} is row {row} of its {max_len}-row learned table.").format(
                name=html.escape(name), pos=pos, row=pos, max_len=max_len))
    name = _resources.selected_text_model()
    if name:
        text = _resources.clip_text(st.text_area(_("Paste a long text"), " ".join([ORDER_A] * 30), key="len_text",
                                                 bind=_url.text_bind("len_text"), persist_state=KEEP))
        _url.long_text_note("len_text")
        meta = _resources.shipped_meta()[name]
        n_tokens = len(text_input.encode(_resources.load_tokenizer(name), text, _resources.text_rule(name)).ids)
        max_len, kind = meta["config"]["max_len"], meta["config"].get("pos_encoding")
        if n_tokens <= max_len:
            st.success(_("{n} tokens: within {name}'s {max_len} positions.").format(n=n_tokens, name=html.escape(name),
                                                                                    max_len=max_len))
        elif kind == "learned":
            st.warning(_("{n} tokens, but {name} has a learned table of {max_len} positions: only the first {max_len} "
                         "tokens can be read; the other {rest} have no position.").format(
                n=n_tokens, name=html.escape(name), max_len=max_len, rest=n_tokens - max_len))
        else:
            st.warning(_("{n} tokens: {name} uses {kind} positions, which exist beyond its trained {max_len}; the "
                         "model never saw them in training, so expect worse predictions.").format(
                n=n_tokens, name=html.escape(name), kind=_(POSITION_KINDS.get(kind, kind)), max_len=max_len))


def render():
    st.title(_("Positional encodings"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.caption(_("Why word order needs positions, and five ways to give them: sinusoidal, learned, RoPE, ALiBi, and "
                 "a bias learned per offset."))
    sections = [positional_order.order_section, waves_section, similarity_section, shift_section,
                positional_relative.section, length_section]
    # only the open tab runs (and sends its figures): the page stays quick on a laptop; the open tab is in the URL
    shown = [_(t) for t in TABS]
    _url.stale_link("pos_tab", shown, _("the tab"), shown[0])
    for tab, section in zip(st.tabs(shown, key="pos_tab", on_change="rerun", bind=BIND), sections):

        if tab.open:
            with tab:
                section()
