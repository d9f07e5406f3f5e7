"""Step by step, the lecture's example: the lecture's worked example (two tokens of width 4, d_k = 3, NumPy seeded with
42) at every step, in row and column form, why attention is non-linear without an activation, and the exercise."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _present
from app_pages._numbers import plain
from app_pages.views.step_by_step_matrices import About, downloads, show
from i18n import _
from model import reference
from viz.slide import caption_line


def lecture_about() -> About:
    return About(("worked_example",), caption_line(_("the lecture's worked example"), "np.random.seed(42)"))


def lecture_section():
    st.markdown(_("The lecture draws two token vectors of width 4 and three projections to d_k = 3, "
                  "every number rounded to 4 decimals, from NumPy's generator seeded with 42:"))
    st.code("np.random.seed(42)\nX = np.random.randn(2, 4).round(4)\n"
            "W_Q, W_K, W_V = (np.random.randn(4, 3).round(4) for _ in range(3))   # in this order", "python")
    ex = reference.worked_example()
    rows = [_("token {n}").format(n=1), _("token {n}").format(n=2)]
    lecture = lecture_about()
    for pair in (("X", "W_Q"), ("W_K", "W_V")):
        for col, name in zip(st.columns(2), pair):
            with col:
                show(ex[name], f"{name} {ex[name].shape}", lecture, name, row_labels=rows if name == "X" else None,
                     row_title=_("token") if name == "X" else _("input dimension"), row_prefix="c", share=1 / 2)
    with _present.main() or st.container():     # presenting: Q, K and V first, the tab's main figure
        for col, name in zip(st.columns(3), ("Q", "K", "V")):
            with col:
                show(ex[name], f"{name} = X·W_{name} {ex[name].shape}", lecture, name, row_labels=rows, share=1 / 3)
    titles = {"scores": _("QKᵀ"), "scaled": _("QKᵀ/√3"), "weights": _("softmax(QKᵀ/√3)"), "Z": _("Z = weights·V")}
    for pair in (("scores", "scaled"), ("weights", "Z")):
        for col, name in zip(st.columns(2), pair):
            with col:
                show(ex[name], f"{titles[name]} {ex[name].shape}", lecture, name, row_labels=rows, share=1 / 2,
                     weights=name == "weights",
                     col_labels=None if name == "Z" else rows, col_title=_("dimension") if name == "Z" else _("key"))
    w, z = ex["weights"][0], ex["Z"][0]
    st.success(_("Row 1 of the weights: [{w0}, {w1}];  row 1 of Z: [{z0}, {z1}, {z2}]: the lecture's printed "
                 "numbers.").format(w0=f"{w[0]:.4f}", w1=f"{w[1]:.4f}", z0=f"{z[0]:.4f}", z1=f"{z[1]:.4f}",
                                    z2=f"{z[2]:.4f}"))
    column = reference.attention_column_form(ex["Q"], ex["K"], ex["V"])
    st.caption(_("The textbook's column form V·Softmax[KᵀQ/√D_q] with tokens as columns gives Zᵀ: largest "
                 "|difference| {diff}.").format(diff=plain(np.abs(column.T - ex['Z']).max())))
    # 12.2.3: no activation, yet not linear: doubling X doubles Q, K, V but multiplies the scores by 4
    z2, w2 = reference.attention(2 * ex["Q"], 2 * ex["K"], 2 * ex["V"])
    st.markdown(_("**Non-linear without an activation** (textbook 12.2.3). Feed this X doubled: Q, K and V double "
                  "(each is X times a matrix), but the scores QKᵀ grow four times, so the weights move: row 1 goes "
                  "from [{w0}, {w1}] to [{v0}, {v1}], and Sa(2X) differs from 2·Sa(X) by up to **{gap}**. A linear "
                  "map would give exactly 2·Sa(X); attention does not, because its weights are computed from the "
                  "input.").format(w0=f"{w[0]:.4f}", w1=f"{w[1]:.4f}", v0=f"{w2[0, 0]:.4f}", v1=f"{w2[0, 1]:.4f}",
                                   gap=f"{np.abs(z2 - 2 * ex['Z']).max():.4f}"))
    downloads(ex, "worked_example", rows, key="lecture")

    st.subheader(_("The exercise"))
    e = reference.exercise()
    st.markdown(_("One query scores **3** and **1** against two keys, d_k = 4, with v1 = [1, 0] and v2 = [0, 1]."))
    st.dataframe(pd.DataFrame({_("key"): ["k1", "k2"], _("score q·k"): e["scores"], "÷ √4": e["scaled"],
                               "exp": e["exp"], _("weight"): e["weights"]}).style.format(precision=4),
                 hide_index=True)
    st.markdown(_("Sum of the exponentials: **{total}**; weights **{a1}** / **{a2}**; z = a1·v1 + a2·v2 = "
                  "**[{z1}, {z2}]**.").format(total=f"{e['exp'].sum():.4f}", a1=f"{e['weights'][0]:.4f}",
                                              a2=f"{e['weights'][1]:.4f}", z1=f"{e['z'][0]:.4f}",
                                              z2=f"{e['z'][1]:.4f}"))
