"""The image page's attention views for a ViT (one stage, <cls> first): where each head of a layer looks from
a token, every layer and head at once, and attention rollout across layers."""
import streamlit as st

from app_pages import _export, _present, _url
from i18n import _
from labels import file_label, head_label, head_only, layer_label
from model.analysis.attention_views import rollout
from viz import images as vimg
from viz.slide import caption_line

PRESENT_SIDE = 300        # px: each head's overlay while presenting, four across a 1280-px screen

BIND, KEEP = _url.BIND, _url.KEEP


def render(name: str, cfg, run, shown, look: str, picture: str | None, is_digits: bool) -> str:
    """Sections 5 and 6 of the page for a ViT run; returns the picked query token."""
    # ---- 5 · attention per head ------------------------------------------------------------------------------
    st.header(_("5 · Where each head looks"))
    L, grid, p = cfg.n_layers, cfg.grid, cfg.patch_size
    # one picker per model (their tokens differ): a bound widget whose options change under one key stops
    # writing the address in Streamlit 1.67
    _url.stale_link(f"img_query_{name}", run.tokens, _("the token"), run.tokens[0])
    _url.stale_link("img_layer", [layer_label(i) for i in range(L)], _("layer"), layer_label(L - 1))
    q1, q2 = st.columns(2)
    query = q1.selectbox(_("Attention from"), run.tokens, key=f"img_query_{name}", bind=BIND, persist_state=KEEP,
                         help=_("<cls> gathers what the classifier reads; a patch shows what that patch looks at."))
    # a slider over labels, so the address reads ?img_layer=L2
    layer = q2.select_slider(_("Layer"), range(L), L - 1, format_func=layer_label, key="img_layer", bind=BIND,
                             persist_state=KEEP)
    qi = run.tokens.index(query)
    attention = _("attention from {query}").format(query=query)                # the slides' caption names it
    rows = run.stacked_weights()[:, :, qi, 1:]                                # (L, H, N) weights on the patches
    to_cls = ", ".join(f"{head_only(h)}: {run.weights[layer][h, qi, 0]:.3f}" for h in range(cfg.n_heads))
    st.caption((_("Orange patches get more of {query}'s attention; hover for the exact weight. The rest of each row "
                  "goes to <cls> itself: {to_cls}.") if is_digits else
                _("Clear patches get more, veiled ones less of {query}'s attention; hover for the exact weight. The "
                  "rest of each row goes to <cls> itself: {to_cls}.")).format(query=query, to_cls=to_cls))
    top = float(rows[layer].max())                                            # one colour scale for the heads
    place = _present.main()
    if place is not None:         # presenting: the heads in one figure, each overlay as tall as the colour bar
        _export.chart(vimg.plot_head_grid(shown, rows[layer][None], grid, p, look=look, cell_height=PRESENT_SIDE,
                                          titles=[head_label(layer, h) for h in range(cfg.n_heads)]),
                      key="overlay_heads", where=place, name=(name, layer_label(layer), f"from_{query}"),
                      caption=caption_line(name, attention, picture))
    for h, col in enumerate([] if place is not None else st.columns(cfg.n_heads)):
        _export.chart(vimg.plot_overlay(shown, rows[layer, h], grid, p, title=head_label(layer, h),
                                        height=300, look=look, zmax=top), key=f"overlay_{h}", where=col,
                      name=(name, file_label(layer, h), f"from_{query}"),
                      caption=caption_line(name, attention, picture))
    st.caption(_("One colour scale for these heads, 0 to {top} (the largest weight any of them puts on a patch): a "
                 "pale head spreads its attention or sends it to <cls>; the grid below shares one scale too.").format(
        top=f"{top:.3f}"))
    if st.toggle(_("All layers × heads at once"), value=True, key="img_all_heads", bind=BIND, persist_state=KEEP):
        _export.chart(vimg.plot_head_grid(shown, rows, grid, p, look=look,
                                          title=_("Attention from {query}, every head").format(query=query)),
                      key="head_grid", name=(name, "every_head", f"from_{query}"), caption=caption_line(name, picture))

    # ---- 6 · rollout -----------------------------------------------------------------------------------------
    st.header(_("6 · Attention rollout across layers"))
    rolled = rollout(run.stacked_weights())                                   # (L, N+1, N+1)
    st.markdown(_("One layer's weights say where a token looks *in that layer's input*, which already mixes "
                  "patches. **Rollout** (Abnar & Zuidema 2020) multiplies the layers' head-averaged weights, "
                  "with ½·identity for the residual path, to trace how much each input patch reaches "
                  "{query} by layer l.").format(query=query))
    _export.chart(vimg.plot_head_grid(shown, rolled[None, :, qi, 1:], grid, p, name="rollout",
                                      titles=[_("after {layer}").format(layer=layer_label(i))
                                              for i in range(cfg.n_layers)],
                                      cell_height=260, look=look),
                  key="rollout", name=(name, "rollout", f"from_{query}"),
                  title=_("Attention rollout from {query}, layer by layer").format(query=query),
                  caption=caption_line(name, picture))
    return query
