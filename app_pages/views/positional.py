"""Positional encodings. Teaches: self-attention alone cannot tell word order (shown live on the shipped
encoder), the sine/cosine table and its waves, similarity that depends on the offset only, the shift
identity PE(pos + k) = M_k·PE(pos), learned tables, relative schemes (RoPE, ALiBi, and a bias learned per offset
in a trained model), and what happens beyond the trained length."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._numbers import plain
from i18n import N_, _
from labels import file_label, head_label, head_only, layer_label
from model.analysis import relative, shift
from model.analysis.order import permute_run
from model.data import offset_digits, text_input
from model.engine.errors import InputError
from model.engine.positions import sinusoidal
from model.reference import softmax
from viz import positional as vp
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

WIDTHS = [16, 32, 64, 128, 256, 512]
ORDER_A, ORDER_B = "The woman ate the raccoon.", "The raccoon ate the woman."
MAX_ORDER_CHARS = 400
DIGITS = "31415926535897932384626"       # the row the relative-bias model reads by default
MAX_DIGIT_CHARS = 200
INIT_STD = 0.02                          # model.positional initialises learned tables with N(0, 0.02²)
TABS = [N_("Word order"), N_("Waves"), N_("Similarity"), N_("Shift identity"), N_("Learned vs relative"),
        N_("Beyond max_len")]
SWITCH = {"off": N_("off"), "on": N_("on")}     # positions off / on -> the shown (URL) label
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



def learned_section():
    st.subheader(_("Learned absolute positions"))
    models = _resources.learned_position_models()
    if not models:
        st.info(_("No shipped model with a learned position table was found in assets/."))
        return
    _url.stale_link("learned_model", sorted(models), _("the model"), sorted(models)[0])
    name = st.selectbox(_("Model"), sorted(models), key="learned_model", bind=BIND, persist_state=KEEP)
    meta = models[name]
    table = _runs.learned_position_table(name)
    if table is None:
        st.warning(_("{name} has no learned position table.").format(name=html.escape(name)))
        return
    image = meta.get("modality") == "image"
    st.caption(_("{name}: {rows} rows × {dims} dimensions, {layout}").format(
        name=html.escape(name), rows=table.shape[0], dims=table.shape[1],
        layout=_("row 0 is <cls>, then the patches row by row.") if image else _("one row per token position.")))
    cos = shift.similarity(table, normalise=True)
    c1, c2 = st.columns(2)
    about = caption_line(name, _("learned positions"))
    _export.chart(vp.plot_signed(table, title=_("Learned table"), x_title=_("dimension"), y_title=_("position"),
                                 value_name=_("value")), key="learned_table", main=True, where=c1,
                  name=(name, "learned_positions"), caption=about)
    _export.chart(vp.plot_signed(cos, title=_("Cosine similarity of positions"), x_title=_("position"),
                                 y_title=_("position"), value_name=_("cosine")), key="learned_sim", where=c2,
                  name=(name, "learned_positions_cosine"), caption=about)
    if not image:
        start = INIT_STD * np.sqrt(table.shape[1])                       # E|p| of N(0, 0.02²) in C dimensions
        _export.chart(vp.plot_row_norms(np.linalg.norm(table, axis=1), start), key="learned_norms",
                      name=(name, "learned_positions_norms"), title=_("Norm of each learned position vector"),
                      caption=about)
        st.caption(_("Rows the training sentences never reached keep their small random start: a learned table "
                     "knows only the positions it was shown."))
    patches = cos[1:, 1:] if image else cos                              # offsets between patches only
    sin_cos = shift.similarity(sinusoidal(len(patches), table.shape[1]), normalise=True)
    _export.chart(vp.plot_offset_profile(
        {_("sinusoidal"): shift.offset_profile(sin_cos), name: shift.offset_profile(patches)},
        title=_("Cosine similarity against offset: the band is the spread over all pairs"), y_title=_("cosine")),
        key="learned_profile", name=(name, "learned_positions_by_offset"), caption=about)
    gh = meta["config"].get("image_size", 0) // max(1, meta["config"].get("patch_size", 1))
    if image and gh * gh == len(table) - 1:
        st.markdown(_("A ViT's positions are learned for a 2-D grid but numbered in one line: the similarity "
                      "of one patch's position with all the others shows whether it learned rows and columns."))
        _url.stale_number("learned_patch", 0, gh * gh - 1, _("patch"), gh * gh // 2 + gh // 2)
        p = st.slider(_("Patch"), 0, gh * gh - 1, gh * gh // 2 + gh // 2, key="learned_patch", bind=BIND,
                      persist_state=KEEP)
        _export.chart(vp.plot_patch_grid(cos[1 + p, 1:].reshape(gh, gh),
                                         title=_("Cosine of patch {p}'s position with every patch").format(p=p)),
                      key="learned_grid", name=(name, "learned_positions", f"patch{p}"), caption=about)



def rope_section():
    st.subheader(_("RoPE: rotate q and k"))
    st.markdown(_("RoPE turns each (q₂ᵢ, q₂ᵢ₊₁) pair of a query at position m by m·ω_i, and the key at n by n·ω_i. "
                  "(R_m q)·(R_n k) = q·R_(n−m) k: the score sees the offset only. Below, the same query and key "
                  "vectors sit at every position; only their positions differ."))
    _url.stale_link("rope_d", ["8", "16", "32", "64"], _("head dimension"), 16)
    _url.stale_number("rope_n", 8, 128, _("positions"), 32)
    _url.stale_number("rope_seed", 0, 9999, _("seed"), 0)
    c1, c2, c3 = st.columns(3)
    dh = c1.selectbox(_("Head dimension"), [8, 16, 32, 64], index=1, key="rope_d", bind=BIND, persist_state=KEEP)
    n = c2.slider(_("Number of positions"), 8, 128, 32, key="rope_n", bind=BIND, persist_state=KEEP)
    seed = c3.number_input(_("Random q, k seed"), 0, 9999, 0, key="rope_seed", bind=BIND, persist_state=KEEP)
    q, k = np.random.default_rng(int(seed)).normal(size=(2, dh))
    rope_s = relative.same_content_scores(q, k, n, "rope")
    abs_s = relative.same_content_scores(q, k, n, "absolute")
    c1, c2 = st.columns(2)
    c1.metric(_("RoPE: largest spread along a diagonal"), f"{relative.offset_spread(rope_s).max():.2e}")
    c2.metric(_("Sinusoidal added to q, k: largest spread"), f"{relative.offset_spread(abs_s).max():.2e}")
    about = caption_line(_("the same random q and k at every position"), _("head dimension {d}").format(d=dh),
                         _("seed {seed}").format(seed=int(seed)))
    stem = (f"N{n}", f"d{dh}", f"seed{int(seed)}")
    _export.chart(vp.plot_signed(rope_s, title=_("RoPE scores (constant along diagonals)"), value_name=_("score"),
                                 x_title=_("key position"), y_title=_("query position")),
                  key="rope_matrix", where=c1, name=("rope_scores", *stem), caption=about)
    _export.chart(vp.plot_signed(abs_s, title=_("Absolute sinusoidal added to q and k"), value_name=_("score"),
                                 x_title=_("key position"), y_title=_("query position")),
                  key="abs_matrix", where=c2, name=("absolute_scores", *stem), caption=about)
    starts = sorted({0, n // 4, n // 2})
    _export.chart(vp.plot_scores_by_offset(rope_s, starts, title=_("RoPE: one line per query position")),
                  key="rope_lines", where=c1, name=("rope_scores_by_offset", *stem), caption=about)
    _export.chart(vp.plot_scores_by_offset(abs_s, starts, title=_("Absolute: one line per query position")),
                  key="abs_lines", where=c2, name=("absolute_scores_by_offset", *stem), caption=about)
    offset = _("offset δ")
    table = pd.DataFrame({offset: [dlt for dlt in (0, 1, 3, 7) if dlt < n]})
    for m in starts:
        table[_("score at m = {m}").format(m=m)] = [f"{rope_s[m, m + dlt]:.12f}" if m + dlt < n else ""
                                                    for dlt in table[offset]]
    st.table(table.set_index(offset))


def alibi_section():
    st.subheader(_("ALiBi: a linear distance penalty"))
    st.markdown(_("ALiBi adds −m·|i − j| to every score, with a fixed slope per head, m_h = 2^(−8(h+1)/H) for "
                  "heads H0, H1, … counted from 0 as everywhere here (Press et al. count from 1 and write "
                  "2^(−8h/H)): far keys lose weight, steep heads look locally, gentle heads look far."))
    _url.stale_link("alibi_heads", ["4", "8", "12", "16"], _("the number of heads"), 8)
    c1, c2, c3 = st.columns(3)
    heads = c1.selectbox(_("Heads"), [4, 8, 12, 16], index=1, key="alibi_heads", bind=BIND, persist_state=KEEP)
    slopes = relative.alibi_slopes(heads)
    _url.stale_link("alibi_head", [head_only(i) for i in range(heads)], _("head"), head_only(0))
    # the label is the head alone ("H3"): the address names a head, the slope is printed below
    h = c2.selectbox(_("Head"), list(range(heads)), format_func=head_only, key="alibi_head", bind=BIND,
                     persist_state=KEEP, help=_("Each head h has its own fixed slope m_h = 2^(−8(h+1)/H), heads "
                                                "counted from H0."))
    causal = c3.checkbox(_("Causal (as in the paper's decoder)"), value=False, key="alibi_causal", bind=BIND,
                         persist_state=KEEP)
    of_heads = _("{k} of {n}").format(k=head_only(h), n=heads)
    st.caption(_("{head}: slope m = 2^(−8·{k}/{H}) = {slope}.").format(head=of_heads, k=h + 1, H=heads,
                                                                     slope=f"{slopes[h]:.5f}"))
    n = 24
    bias = relative.alibi_bias(n, slopes[h], causal=causal)
    qk = np.random.default_rng(0).normal(size=(2, n, 16))
    content = qk[0] @ qk[1].T / 4.0                                      # random content scores, (N, N)
    mask = np.isfinite(bias)
    c1, c2, c3 = st.columns(3)
    about = caption_line("ALiBi", _("{head}, slope m = {slope}").format(head=of_heads, slope=f"{slopes[h]:.5f}"),
                         _("causal") if causal else None, _("random content scores"))
    stem = (head_only(h), f"of{heads}") + (("causal",) if causal else ())
    keys, queries = _("key position"), _("query position")
    _export.chart(vp.plot_signed(np.where(mask, bias, np.nan), title=_("Bias, {head}").format(head=head_only(h)),
                                 value_name=_("bias"), x_title=keys, y_title=queries),
                  key="alibi_bias", where=c1, name=("alibi_bias", *stem), caption=about)
    _export.chart(plot_heatmap(softmax(np.where(mask, content, -np.inf)), title=_("Weights without bias"),
                               x_title=keys, y_title=queries, value_name=_("weight"), height=460), key="alibi_plain",
                  where=c2, name=("alibi_weights_without_bias", *stem), caption=about)
    _export.chart(plot_heatmap(softmax(content + bias), title=_("Weights with ALiBi"), x_title=keys,
                               y_title=queries, value_name=_("weight"), height=460), key="alibi_weights", where=c3,
                  name=("alibi_weights", *stem), caption=about)



def relative_bias_section():
    st.subheader(_("A bias learned per offset"))
    name = _resources.RELATIVE_MODEL
    if name not in _resources.shipped_meta():
        st.info(_("The model {name} is not shipped in assets/; train it (about two minutes) with "
                  "`python -m model.train {name}`.").format(name=name))
        return
    _model, meta = _resources.model_or_stop(name)
    offsets, table = _runs.relative_bias_table(name)
    st.markdown(_("The textbook's relative positions (12.3.1): a parameter learned for each offset, added to the "
                  "attention scores. Here one scalar per head for each offset δ = key − query from −{k} to +{k} "
                  "(farther keys share the end columns), as in Shaw et al. and T5, shared by every layer. Unlike "
                  "ALiBi's slopes it is trained. **{name}** is a one-layer encoder with no absolute positions at all, "
                  "trained to write at each position {rule}: the table is the only thing that can tell it where "
                  "those two digits are.").format(k=offsets[-1], name=name, rule=offset_digits.RULE))
    read = meta.get("task", {}).get("offsets", list(offset_digits.OFFSETS))
    H, K = table.shape[0], int(offsets[-1])
    about = caption_line(name, _("learned relative bias"))
    _export.chart(vp.plot_bias_table(table, offsets, marked=read,
                                     title=_("{name}: the learned table, {H} heads × {n} offsets (outlined: the "
                                             "offsets the task reads)").format(name=name, H=H, n=2 * K + 1)),
                  key="relb_table", name=(name, "relative_bias_table"), caption=about)
    alibi = -relative.alibi_slopes(H)[:, None] * np.abs(offsets)[None, :]            # (H, O)
    _export.chart(vp.plot_bias_curves(offsets, table, alibi), key="relb_curves",
                  name=(name, "relative_bias_vs_alibi"), caption=about)
    best = [f"{head_only(h)}: {int(offsets[np.argmax(row)]):+d}" for h, row in enumerate(table)]
    st.caption(_("Highest bias per head: {best}. ALiBi's slopes (for as many heads) only ever prefer the nearest "
                 "keys, on both sides alike; RoPE has no table at all: its score at an offset comes from rotating q "
                 "and k, so it depends on their content too (the lines of the RoPE section).").format(
        best=_(", ").join(best)))
    device = _resources.device()
    with_bias, without = _runs.relative_accuracy(name, device)
    c1, c2, c3 = st.columns(3)
    c1.metric(_("Accuracy on 512 fresh rows"), f"{with_bias:.1%}")
    c2.metric(_("The same weights, table left out"), f"{without:.1%}")
    c3.metric(_("Guessing"), f"{1 / offset_digits.VOCAB:.0%}")
    _url.clipped_link_text("relb_digits", MAX_DIGIT_CHARS)
    typed = st.text_input(_("A row of digits for the model"), DIGITS, max_chars=MAX_DIGIT_CHARS, key="relb_digits",
                          bind=BIND, persist_state=KEEP)
    try:
        digits = offset_digits.parse(typed)
    except ValueError as e:
        st.error(str(e))
        return
    run = _runs.relative_digit_run(name, device, tuple(int(x) for x in digits))
    _export.chart(vp.plot_head_weights(run.weights[0], [str(x) for x in digits],
                                       title=_("Its attention on this row: bands one left of and two right of the "
                                               "diagonal")), key="relb_weights", name=(name, "L0", "attention"),
                  caption=caption_line(name, "L0", text="".join(str(x) for x in digits)))
    st.markdown(_("It writes **{right}** targets right on this row (the first position and the last two have "
                  "none):").format(right=_("{k} of {n}").format(k=run.correct, n=run.scored)))
    st.dataframe(pd.DataFrame([digits, ["·" if e < 0 else str(e) for e in run.expected],
                               ["·" if e < 0 else str(p) for p, e in zip(run.predicted, run.expected)]],
                              index=[_("digit x"), _("target y"), _("model")]).astype(str))



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
        st.error(str(e))
        return
    for notice in exp.notices:
        st.warning(str(notice))
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
    sections = [order_section, waves_section, similarity_section, shift_section,
                lambda: (learned_section(), rope_section(), alibi_section(), relative_bias_section()), length_section]
    # only the open tab runs (and sends its figures): the page stays quick on a laptop; the open tab is in the URL
    shown = [_(t) for t in TABS]
    _url.stale_link("pos_tab", shown, _("the tab"), shown[0])
    for tab, section in zip(st.tabs(shown, key="pos_tab", on_change="rerun", bind=BIND), sections):

        if tab.open:
            with tab:
                section()
