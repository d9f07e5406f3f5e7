"""Sections 2 and 3 of the image page: the image resized and normalised as the model was trained, then cut into
patches, the sequence of tokens the model reads, and what tells it where each patch came from."""
import numpy as np
import streamlit as st

from app_pages import _export, _url
from i18n import _, ngettext
from model.architectures.davit import DaViTConfig
from model.data.images import preprocess
from model.data.patches import patchify
from viz import images as vimg
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP        # every pick is in the URL and survives a visit to another page


def patch_sentence(p: int, channels: int, d_model: int) -> str:
    """How many numbers one patch is and the matrix that makes it a token; a 1×1 patch of one channel is said to
    be one pixel's value."""
    numbers = p * p * channels
    if numbers == 1:
        return _("Each patch is a single pixel: **1 number**, its grey value, multiplied by one shared 1×{d_model} "
                 "matrix (a row of {d_model} weights), plus a bias.").format(d_model=d_model)
    return ngettext("Each patch is {p}×{p}×{c} = **{numbers} number**, multiplied by one shared {numbers}×{d_model} "
                    "matrix.", "Each patch is {p}×{p}×{c} = **{numbers} numbers**, multiplied by one shared "
                    "{numbers}×{d_model} matrix.", numbers).format(p=p, c=channels, numbers=numbers, d_model=d_model)


def preprocessing_section(name: str, cfg, pre: dict, loaded, source: str, picture: str | None, writer: bool):
    """Section 2: the loaded image resized (cropped to the ink, for digits) and normalised, stage by stage.
    Returns (the preprocessed image, whether it was cropped to the ink)."""
    is_digits = bool(pre["grayscale"])
    st.header(_("2 · Preprocessing"))
    fit_ink = False
    if is_digits:
        fit_ink = st.checkbox(_("Crop to the ink (training digits fill their 8×8 frame)"), value=source != "Sample",
                              key=f"img_fit_{source.lower()}", bind=BIND, persist_state=KEEP)
    prep = preprocess(loaded.image, size=cfg.image_size, grayscale=pre["grayscale"], mean=pre["mean"],
                      std=pre["std"], ink_light=is_digits, fit_ink=fit_ink)
    for note in prep.notes:
        st.caption(note.shown(_))
    cols = st.columns(len(prep.stages))
    for i, (col, (title, arr)) in enumerate(zip(cols, prep.stages)):     # the last stage is the normalised array
        _export.chart(vimg.plot_image(arr, title=title.shown(_), height=230, signed=i == len(prep.stages) - 1),
                      key=f"stage_{i}", where=col, name=(name, "preprocessing", f"stage{i + 1}"),
                      caption=caption_line(name, picture))
    if writer:
        st.caption(_("Loaded {format}, {w} × {h} pixels, mode {mode}. ImageGPT reads the resized image, each pixel "
                     "cut to one of {levels} grey levels (next section).").format(
            format=loaded.format, w=loaded.original_size[0], h=loaded.original_size[1], mode=loaded.original_mode,
            levels=cfg.levels))
    else:
        st.caption(_("Loaded {format}, {w} × {h} pixels, mode {mode}. The model reads the normalised array "
                     "(x − mean) / std with mean {mean} and std {std} of the training images.").format(
            format=loaded.format, w=loaded.original_size[0], h=loaded.original_size[1], mode=loaded.original_mode,
            mean=np.round(pre["mean"], 3).tolist(), std=np.round(pre["std"], 3).tolist()))
    return prep, fit_ink


def patches_section(name: str, cfg, shown: np.ndarray, picture: str | None, hierarchical: bool):
    """Section 3: the image cut into patches, the sequence the model reads, and what stands in for positions."""
    st.header(_("3 · Patches and the sequence the model reads"))
    grid, p, n = cfg.grid, cfg.patch_size, cfg.n_patches
    chw = shown[None] if shown.ndim == 2 else shown.transpose(2, 0, 1)
    tiles = patchify(chw, p).reshape(n, cfg.channels, p, p).transpose(0, 2, 3, 1)     # (N, P, P, C)
    left, right = st.columns([2, 3])
    _export.chart(vimg.plot_patch_grid(shown, grid, p, title=_("{rows}×{cols} grid = {n} patches").format(
        rows=grid[0], cols=grid[1], n=n)),
                  key="patch_grid", where=left, name=(name, "patch_grid"), caption=caption_line(name, picture))
    _export.chart(vimg.plot_patch_sequence(tiles[..., 0] if cfg.channels == 1 else tiles, cls=not hierarchical),
                  key="patch_seq",
                  where=right, name=(name, "patch_sequence"),
                  title=_("The sequence of {n} patches the model reads").format(n=n),
                  caption=caption_line(name, picture))
    if hierarchical and isinstance(cfg, DaViTConfig):
        where = _("There is no <cls> and no position vector, and no learned position bias either: the model reads "
                  "**{tokens} tokens**, and before each block a depthwise 3×3 convolution adds to every token a "
                  "learned mix of its 3×3 neighbourhood (DaViT's convolutional position encoding), so a token's "
                  "vector depends on what surrounds it and, through the zero padding, on the image's edges.").format(
            tokens=n)
    elif hierarchical:
        where = _("There is no <cls> and no position vector: the model reads **{tokens} tokens**, and inside each "
                  "window a learned bias per head and relative offset (Δrow, Δcolumn) tells a token where the others "
                  "are.").format(tokens=n)
    else:
        where = _("With <cls> in front the model reads **{tokens} tokens**; learned position vectors tell it where "
                  "each patch came from (the patches themselves carry no position).").format(tokens=n + 1)
    right.markdown(patch_sentence(p, cfg.channels, cfg.d_model) + " " + where)
