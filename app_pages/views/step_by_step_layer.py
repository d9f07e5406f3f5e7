"""Step by step, "The layer": a token through Add & Norm and the FFN, post-LN against pre-LN with the same weights, and
LayerNorm against BatchNorm on the activations the layer's first norm reads."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export
from app_pages._markup import md
from app_pages._numbers import plain
from app_pages.views.step_by_step_matrices import About
from i18n import _
from labels import head_label, layer_label
from model.analysis import norms, steps
from viz.norms import plot_norm_heatmaps, plot_norm_stats
from viz.slide import caption_line
from viz.steps import plot_trace


def layer_section(model, s: steps.HeadSteps, hidden, token: int, mask, about: About):
    own = model.config.norm
    st.markdown(_("Token {i} · “{token}” through {layer}. This model is **{norm}**; the other arrangement is "
                  "computed with the same weights as a what-if (the model was not trained that way).").format(
        i=token, token=md(s.tokens[token]), layer=layer_label(s.layer),
        norm=_("post-LN") if own == "post" else _("pre-LN")))
    if own == "post":
        st.caption(_("This model was trained post-LN, so the left column is the textbook's and the lecture's layer, "
                     "LayerNorm(x + Sublayer(x)), exactly as the model computes it, not a what-if."))
    if model.config.activation != "relu":
        st.caption(_("The paper's FFN uses ReLU; this model was trained with GELU, so GELU is shown."))
    cols = st.columns(2)
    for col, norm in zip(cols, ("post", "pre")):
        trace = steps.layer_trace(model, s.X, s.layer, token, mask, norm)
        with col:
            title = (_("post-LN: LN(x + Sublayer(x)), the paper") if norm == "post"
                     else _("pre-LN: x + Sublayer(LN(x))"))

            st.markdown(f"**{title}**" + (_(" (this model)") if norm == own else _(" (what-if)")))
            _export.chart(plot_trace([t.name for t in trace], [t.norm for t in trace], [t.mean for t in trace],
                                     [t.var for t in trace]), width="stretch", key=f"trace_{norm}",
                          name=(about.stem[0], layer_label(s.layer), f"token{token}", f"{norm}_LN"),
                          title=_("Token {i} through {layer}: {title}").format(i=token, layer=layer_label(s.layer),
                                                                              title=title),
                          caption=about.caption.replace(head_label(s.layer, s.head), layer_label(s.layer), 1))
            st.dataframe(pd.DataFrame({_("step"): [t.name for t in trace], _("formula"): [t.formula for t in trace],
                                       "‖v‖": [t.norm for t in trace], _("mean"): [t.mean for t in trace],
                                       _("variance"): [t.var for t in trace]}).style.format(precision=4),
                         hide_index=True)
            if norm == own:
                diff = np.abs(trace[-1].vector - hidden[s.layer + 1][token]).max()
                st.caption(_("Largest |difference| to the model's own layer output: {diff}").format(diff=plain(diff)))
    norm_comparison_section(model, s, token, mask)


def norm_comparison_section(model, s: steps.HeadSteps, token: int, mask):
    """LayerNorm against BatchNorm on the activations this layer's first LayerNorm reads."""
    x = norms.first_norm_input(model, s.X, s.layer, mask)
    c = norms.compare(x, token)
    T, C = x.shape
    what = (_("X + MultiHead(X), the sum its first Add & Norm normalises") if model.config.norm == "post"
            else _("X, which its first LayerNorm normalises before attention"))
    st.markdown("#### " + _("LayerNorm, not BatchNorm"))
    st.markdown(_("The same activations of {layer}: {what}, T = {T} tokens × C = {C} dimensions, with the tokens of "
                  "the text as the batch. **LayerNorm** standardises each row (one token over its own C dimensions, "
                  "as the textbook's 12.4 says); **BatchNorm** each column (one dimension over the batch). Only the "
                  "standardising step is drawn; each then applies its own learned γ and β.").format(
        layer=layer_label(s.layer), what=what, T=T, C=C))
    about = caption_line(layer_label(s.layer), text=" ".join(s.tokens))
    _export.chart(plot_norm_heatmaps(c.x, c.layer, c.batch, tokens=s.tokens), key="norm_heatmaps", main=True,
                  name=(layer_label(s.layer), "layernorm_vs_batchnorm"), caption=about)
    stats = {k: dict(zip(("token_mean", "token_std", "dim_mean", "dim_std"), (*c.stats(k, 1), *c.stats(k, 0))))
             for k in ("x", "layer", "batch")}
    _export.chart(plot_norm_stats(stats, tokens=s.tokens), key="norm_stats",
                  name=(layer_label(s.layer), "layernorm_vs_batchnorm_statistics"), caption=about)
    ln_mean, ln_std = c.stats("layer", 1)
    bn_mean, bn_std = c.stats("batch", 0)
    st.table(pd.DataFrame({
        "LayerNorm": [_("each token (row), over its C dimensions"), plain(np.abs(ln_mean).max()),
                      plain(np.abs(ln_std - 1).max()), plain(c.layer_alone_change)],
        "BatchNorm": [_("each dimension (column), over the T tokens"), plain(np.abs(bn_mean).max()),
                      plain(np.abs(bn_std - 1).max()), plain(c.batch_prefix_change)]},
        index=[_("standardises"), _("largest |mean| along it"), _("largest |std − 1| along it"),
               _("largest change of “{token}” with fewer tokens").format(token=s.tokens[token])]))
    st.caption(_("With fewer tokens: “{token}” normalised alone (LayerNorm), or in a batch of only the tokens up to "
                 "it (BatchNorm). Its LayerNorm is the same whatever else is in the text or the batch, so it works for "
                 "one sentence, any length, and at generation time one token at a time; its BatchNorm moves when the "
                 "other tokens change, and a batch of one token would be all zeros. (The |std − 1| left is ε at work: "
                 "√(σ² / (σ² + ε)) is a little under 1.)").format(token=md(s.tokens[token])))
