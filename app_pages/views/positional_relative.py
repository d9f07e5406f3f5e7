"""Positional encodings, the "Learned vs relative" tab: a learned absolute table (what a shipped model learned,
and the positions it never saw), RoPE (q and k rotated: the score sees the offset only), ALiBi (a fixed distance
penalty per head) and a bias learned per offset in a trained model."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from i18n import _
from labels import head_only
from model.analysis import relative, shift
from model.data import offset_digits
from model.engine.errors import InputError
from model.engine.positions import sinusoidal
from model.reference import softmax
from viz import positional as vp
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page

DIGITS = "31415926535897932384626"       # the row the relative-bias model reads by default
MAX_DIGIT_CHARS = 200
INIT_STD = 0.02                          # model.positional initialises learned tables with N(0, 0.02²)


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
    except InputError as e:
        st.error(e.shown(_))
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


def section():
    """The tab: the learned table, RoPE, ALiBi and the learned relative bias, one after the other."""
    learned_section()
    rope_section()
    alibi_section()
    relative_bias_section()
