"""The image page's views for hierarchical models (Swin; DaViT's spatial blocks): the stages side by side with their
windows on the image, a stage selector, where each head of a block looks from one token (inside its window, the
window outlined), the block's mask, and attention rollout through the mergings onto the pixels."""
import numpy as np
import streamlit as st

from app_pages import _export, _present, _url
from app_pages.views import image_channels
from i18n import _
from labels import file_label, head_label, layer_label
from model.analysis.hierarchical_rollout import hierarchical_rollout, pooled
from model.engine.masks import swin_window_ids
from viz import images as vimg
from viz import stages as vst
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP


def describe(cfg) -> str:
    """The caption's summary of a hierarchical config: stages, tokens, widths, windows, heads."""
    return _("{stages} stages of {grids} tokens, widths {dims}, {heads} heads, windows of {w}×{w} tokens").format(
        stages=len(cfg.depths), grids=" → ".join(f"{g}×{g}" for g in cfg.grids),
        dims=" → ".join(map(str, cfg.dims)), heads=" / ".join(map(str, cfg.heads)), w=cfg.window)


def stage_label(s: int, grid: int) -> str:
    return _("Stage {s} · {g}×{g} tokens").format(s=s, g=grid)


def window_ids(run, layer: int) -> np.ndarray:
    """(g, g) window number of each token of the layer's stage: the masks page's offset windows for the block's
    (window, shift), which tests/unit/test_swin.py checks against the model's cyclic shift and mask."""
    g = run.stage_grid(run.stages[layer])[0]
    w, shift = run.windows[layer]
    return swin_window_ids(g, g, w, shift).reshape(g, g)


def render(name: str, cfg, run, shown, look: str, picture: str | None) -> None:
    """Sections 5 and 6 of the page for a Swin or DaViT run."""
    S = run.n_stages
    grids = [run.stage_grid(s)[0] for s in range(S)]
    pixels = [run.stage_patch_size(s) for s in range(S)]
    stages_section(name, cfg, run, shown, grids, pixels, picture)
    stage, qi, layer = block_section(name, run, shown, look, grids, pixels, picture)
    rollout_section(name, run, shown, look, (stage, qi, layer), pixels[stage], picture)


def stages_section(name: str, cfg, run, shown, grids: list[int], pixels: list[int], picture: str | None):
    """Section 5's opening: how the stages read the image (windows, shifts or channels, merging), their table, and
    their tokens and windows drawn on the image; grids: tokens a side per stage, pixels: pixels a side per token."""
    S = run.n_stages
    davit = run.channel_weights is not None
    st.header(_("5 · Stages: windows, shifts and 2×2 merging") if not davit else
              _("5 · Stages: windows, channels and 2×2 merging"))
    if davit:
        st.markdown(_(
            "There is no <cls>. Each stage alternates two kinds of block. A **spatial block** lets each token "
            "attend to the tokens of its own window (not shifted). A **channel block** turns attention sideways: "
            "the channels attend to each other, each channel seen across the whole image. Between stages a **patch "
            "merging** concatenates each 2×2 group of tokens (4·C numbers) and maps it to 2·C. The classifier reads "
            "the average of the last stage's tokens."))
    else:
        st.markdown(_(
            "There is no <cls>. Each token attends only to the tokens of its own **window**; in every other block the "
            "windows move by half a window (Swin rolls the grid and masks the pairs the roll brought together, the "
            "same as these offset windows), so information crosses window borders. Between stages a **patch "
            "merging** concatenates each 2×2 group of tokens (4·C numbers) and maps it to 2·C: a quarter of the "
            "tokens, twice as wide, each covering twice the pixels a side. The last stage is one window; the "
            "classifier reads the average of its tokens."))
    rows = [{_("stage"): s, _("tokens"): f"{g}×{g} = {g * g}", _("width C"): cfg.dims[s],
             _("pixels per token"): f"{px}×{px}", _("blocks"): ", ".join(layer_label(i) for i in run.layers_of(s))}
            for s, (g, px) in enumerate(zip(grids, pixels))]
    st.table(rows)
    st.caption(_("Stages count from 0, like the blocks (L0, L1, …), the heads and the channel groups: stage 0 reads "
                 "the patches, each later stage the tokens merged from the one before."))
    first = {s: run.layers_of(s)[0] for s in range(S)}
    _export.chart(vst.plot_stages(shown, grids, pixels, [window_ids(run, first[s]) for s in range(S)],
                                  [stage_label(s, g) for s, g in enumerate(grids)]),
                  key="stages", name=(name, "stages"), caption=caption_line(name, picture),
                  title=_("Tokens and windows at each stage"))


def block_section(name: str, run, shown, look: str, grids: list[int], pixels: list[int],
                  picture: str | None) -> tuple[int, int, int]:
    """A stage, a token and a block picked; the block's windows, where each head looks from the token, DaViT's
    channel attention, and who may attend to whom. Returns (stage, token index within the stage, block)."""
    S = run.n_stages
    labels = [stage_label(s, g) for s, g in enumerate(grids)]
    _url.stale_link(f"img_stage_{name}", labels, _("the stage"), labels[0])
    _url.as_option(f"img_stage_{name}", range(S), labels)
    stage = st.radio(_("Stage"), range(S), format_func=lambda s: labels[s], horizontal=True,
                     key=f"img_stage_{name}", bind=BIND, persist_state=KEEP)
    g, px = grids[stage], pixels[stage]
    tokens, layers, query, layer = pick_token(name, run, stage, g)
    qi = tokens.index(query)
    ids = window_ids(run, layer)
    wc = st.columns(2)
    for col, lay in zip(wc, layers[:2]):
        _export.chart(vst.plot_windows_on_image(shown, window_ids(run, lay), px, picked=qi,
                                                title=_("{layer}: windows").format(layer=layer_label(lay))),
                      key=f"windows_{lay}", where=col, name=(name, layer_label(lay), "windows"),
                      caption=caption_line(name, picture))
    weights = run.weights[layer]                                               # (H, N_s, N_s)
    outside = float(weights[:, qi, ~run.masks[layer][qi]].max()) if (~run.masks[layer][qi]).any() else 0.0
    st.caption(_("Attention from {query} in {layer}: each head's weights over the {n} tokens of stage {s}, the "
                 "window outlined in amber, {query} in white. Largest weight outside the window: {outside}.").format(
        query=query, layer=layer_label(layer), n=g * g, s=stage, outside=f"{outside:g}"))
    top = float(weights[:, qi].max())
    head_cols = (_present.main() or st).columns(weights.shape[0])
    attention = _("attention from {query}").format(query=query)
    for h, col in enumerate(head_cols):
        _export.chart(vst.plot_stage_overlay(shown, weights[h, qi], g, px, ids=ids, picked=qi, look=look, zmax=top,
                                             title=head_label(layer, h), height=260),
                      key=f"overlay_{h}", where=col, name=(name, file_label(layer, h), f"from_{query}"),
                      caption=caption_line(name, attention, picture))
    if run.channel_weights is not None:
        image_channels.render(name, run, stage, picture)
    if st.toggle(_("Who may attend to whom in this block"), value=False, key="img_mask", bind=BIND,
                 persist_state=KEEP):
        _export.chart(plot_heatmap(run.masks[layer].astype(float), x_labels=list(tokens), y_labels=list(tokens),
                                   x_title=_("key"), y_title=_("query"), value_name=_("allowed"), decimals=0,
                                   colorscale="Greys", height=640,
                                   title=_("{layer}: who may attend to whom (1 = allowed)").format(
                                       layer=layer_label(layer))),
                      key="swin_mask", name=(name, layer_label(layer), "mask"),
                      caption=caption_line(name, layer_label(layer)))
    return stage, qi, layer


def pick_token(name: str, run, stage: int, g: int) -> tuple[list[str], list[int], str, int]:
    """A token of the stage (g × g tokens; the centre one by default) and one of its spatial blocks, one picker
    per model and stage. Returns (the stage's tokens, its spatial blocks, the token, the block)."""
    spatial = [i for i, w in enumerate(run.weights) if w is not None]
    layers = [i for i in run.layers_of(stage) if i in spatial]
    tokens = run.stage_tokens(stage)
    centre = tokens[(g // 2) * g + g // 2 - 1] if g > 1 else tokens[0]
    # one picker per model and stage (their tokens and layers differ)
    qkey, lkey = f"img_query_{name}_s{stage}", f"img_layer_{name}_s{stage}"
    _url.stale_link(qkey, tokens, _("the token"), centre)
    _url.stale_link(lkey, [layer_label(i) for i in layers], _("layer"), layer_label(layers[-1]))
    q1, q2 = st.columns(2)
    query = q1.selectbox(_("Attention from"), tokens, index=tokens.index(centre), key=qkey, bind=BIND,
                         persist_state=KEEP, help=_("A token of this stage; its window is outlined in amber."))
    layer = (q2.select_slider(_("Layer"), layers, layers[-1], format_func=layer_label, key=lkey, bind=BIND,
                              persist_state=KEEP) if len(layers) > 1 else layers[0])
    return tokens, layers, query, layer


def rollout_section(name: str, run, shown, look: str, picked: tuple[int, int, int], px: int, picture: str | None):
    """Section 6: rollout through the stages onto the pixels, block by block, and from the picked token;
    picked: (stage, token index within the stage, block); px: pixels a side of a token of that stage."""
    stage, qi, layer = picked
    grids = [run.stage_grid(s)[0] for s in range(run.n_stages)]
    query = run.stage_tokens(stage)[qi]
    attention = _("attention from {query}").format(query=query)
    st.header(_("6 · Attention rollout through the stages"))
    rolled = hierarchical_rollout(list(run.weights), run.stages, grids)       # (N_s, N_1) per layer
    st.markdown(_(
        "Rollout (Abnar & Zuidema 2020) multiplies the blocks' head-averaged weights, with ½·identity for the "
        "residual path. Nobody publishes it for a hierarchical model; here a **merging** counts as each merged "
        "token taking ¼ from each of the 2×2 tokens it concatenates, so every token of every stage traces back "
        "to the first stage's patches and so to pixels. Rows always sum to 1: a token that attended only to "
        "itself would show exactly the pixels it covers."))
    n_layers = len(rolled)
    titles = [_("after {layer}").format(layer=layer_label(i)) for i in range(n_layers)]
    _export.chart(vimg.plot_head_grid(shown, np.stack([pooled(r) for r in rolled])[None], run.grid, run.patch_size,
                                      name="rollout", titles=titles, cell_height=240, look=look),
                  key="rollout", name=(name, "rollout", "pooled"),
                  title=_("Rollout of the average of all tokens (what the classifier reads), block by block"),
                  caption=caption_line(name, picture))
    one = rolled[layer][qi]                                                    # (N_1,)
    c1, c2 = st.columns(2)
    _export.chart(vimg.plot_overlay(shown, one, run.grid, run.patch_size, name="rollout", look=look, height=360,
                                    title=_("Rollout of {query} (stage {s}) after {layer}").format(
                                        query=query, s=stage, layer=layer_label(layer))),
                  key="rollout_query", where=c1, name=(name, "rollout", f"s{stage}_{query}"),
                  caption=caption_line(name, attention, picture))
    c2.markdown(_("**{query}** of stage {s} covers {px}×{px} pixels. After {layer} the rollout puts {inside} of "
                  "its weight on those pixels and {outside} on the rest of the image: what the windows (and their "
                  "shifts) let in.").format(query=query, s=stage, px=px, layer=layer_label(layer),
                                            inside=f"{_covered(one, run, stage, qi):.1%}",
                                            outside=f"{1 - _covered(one, run, stage, qi):.1%}"))


def _covered(row: np.ndarray, run, stage: int, token: int) -> float:
    """Share of a rollout row (N_1,) on the first-stage patches that token `token` of `stage` covers."""
    g1, g = run.stage_grid(0)[0], run.stage_grid(stage)[0]
    k = g1 // g
    r, c = divmod(token, g)
    cover = np.zeros((g1, g1), dtype=bool)
    cover[r * k:(r + 1) * k, c * k:(c + 1) * k] = True
    return float(row[cover.ravel()].sum())
