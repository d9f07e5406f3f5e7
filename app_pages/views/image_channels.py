"""The image page's view of DaViT's channel attention: in a channel block the tokens are the channels and the
"sequence" is the whole image; each group of channels gets a C_g × C_g map (beside the spatial window maps), and
a channel's row says which channels it mixes in, drawn with those channels' own activation maps on the image."""
import numpy as np
import streamlit as st

from app_pages import _export, _url
from i18n import _
from labels import layer_label
from viz import stages as vst
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP
SHOWN = 4                                  # channels drawn next to the picked one


def render(name: str, run, stage: int, picture: str | None) -> None:
    """The channel block of `stage` (the first one when the stage has several)."""
    layer = next(i for i in run.layers_of(stage) if run.channel_weights[i] is not None)
    weights = run.channel_weights[layer]                                      # (G, C_g, C_g)
    G, Cg = weights.shape[:2]
    g = run.stage_grid(stage)[0]
    st.subheader(_("Channel attention in {layer}: channels attend to channels").format(layer=layer_label(layer)))
    st.markdown(_(
        "In a **channel block** the roles flip: each of the {C} channels is a token whose \"sequence\" is its value "
        "at all {n} positions of the image. The channels are cut into {G} groups of {Cg}; inside a group, channel i "
        "takes softmax(q_iᵀ k_j / √{Cg}) of every channel j's values. One map of {Cg}×{Cg} per group, computed "
        "from the whole image at once: a global view that the windows of the spatial blocks lack.").format(
        C=G * Cg, n=g * g, G=G, Cg=Cg))
    groups = [_("group {k}").format(k=k) for k in range(G)]
    _url.stale_link(f"img_group_{name}_s{stage}", groups, _("the group"), groups[0])
    _url.as_option(f"img_group_{name}_s{stage}", range(G), groups)
    a, b = st.columns(2)
    group = a.radio(_("Channel group"), range(G), format_func=lambda k: groups[k], horizontal=True,
                    key=f"img_group_{name}_s{stage}", bind=BIND, persist_state=KEEP)
    channels = list(range(group * Cg, (group + 1) * Cg))
    labels = [f"c{c}" for c in channels]
    _url.stale_link(f"img_channel_{name}_s{stage}_g{group}", labels, _("the channel"), labels[0])
    picked = b.selectbox(_("Channel"), labels, key=f"img_channel_{name}_s{stage}_g{group}", bind=BIND,
                         persist_state=KEEP, help=_("Its row of the map: which channels of its group it mixes in."))
    i = labels.index(picked)
    left, right = st.columns([2, 3])
    _export.chart(vst.plot_channel_attention(weights[group], channels=channels, picked=i, height=420,
                                             title=_("{layer}, {group}: {n}×{n} channel attention").format(
                                                 layer=layer_label(layer), group=groups[group], n=Cg)),
                  key="channel_map", where=left, name=(name, layer_label(layer), f"group{group}"),
                  caption=caption_line(name, picture))
    row = weights[group, i]                                                   # (C_g,)
    top = np.argsort(-row)[:SHOWN]
    acts = run.inputs[layer]                                                  # (N_s, C_s): the block's input
    maps = np.stack([acts[:, channels[i]]] + [acts[:, channels[j]] for j in top]).reshape(-1, g, g)
    titles = [_("{c} itself").format(c=picked)] + [f"{labels[j]} · {row[j]:.2f}" for j in top]
    with right:
        _export.chart(vst.plot_channel_maps(maps, titles, height=250), key="channel_maps",
                      name=(name, layer_label(layer), f"{picked}_maps"), caption=caption_line(name, picture),
                      title=_("What {c} attends to: the channels with its largest weights, as maps of the image"
                              ).format(c=picked))
        st.caption(_("Each map is a channel's value at the {g}×{g} tokens of stage {s} as the block receives it "
                     "(red positive, blue negative, one scale); the number is {c}'s attention weight on it. "
                     "Its {n} weights sum to 1; the largest {k} take {share}.").format(
            g=g, s=stage, c=picked, n=Cg, k=SHOWN, share=f"{row[top].sum():.0%}"))
