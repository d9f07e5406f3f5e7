"""Image patches: how a Vision Transformer reads a picture. The image is cut into patches, each patch
becomes a token next to a learned <cls>, and attention decides which patches inform the answer. The
page shows every step on trained models (digits, generated scenes) and Swin's shifted windows."""
from pathlib import Path

import numpy as np
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages.views import image_compare, image_gpt, image_stages, image_vit, image_why
from i18n import N_, _, ngettext
from model import checkpoints
from model.architectures.davit import DaViTConfig
from model.data.digit_check import DARK_RANGE, INK_RANGE, digit_likeness
from model.data.images import ImageError, preprocess
from model.data.patches import patchify
from viz import images as vimg
from viz.slide import caption_line

SAMPLES = Path(checkpoints.ASSETS) / "samples"
MODELS = {"vit_digits": N_("ViT · handwritten digits"), "swin_digits": N_("Swin · handwritten digits"),
          "davit_digits": N_("DaViT · handwritten digits"), "imagegpt_digits": N_("ImageGPT · completing digits"),
          "vit_scenes": N_("ViT · which shape is red?"), "swin_scenes": N_("Swin · which shape is red?")}
UPLOAD_TYPES = ["png", "jpg", "jpeg", "gif", "webp", "bmp"]
SOURCES = {"Sample": N_("Sample"), "Upload": N_("Upload"), "Draw": N_("Draw")}     # source -> its shown label
BOXES = {"Upload": N_("upload"), "Draw": N_("drawing")}                           # the box a link reopens
COLOURS = {"red": "#DB1F1F", "green": "#26A040", "blue": "#2E52E0", "black": "#1F1F1F"}
COLOUR_NAMES = {"red": N_("red"), "green": N_("green"), "blue": N_("blue"), "black": N_("black")}
TOOLS = {"rect": N_("rectangle"), "circle": N_("circle"), "polygon": N_("polygon"), "freedraw": N_("freehand")}
# the shipped models' questions and answers (their metadata, in English), translated where shown
ANSWERS = (N_("Which digit is this?"), N_("Which shape is red?"), N_("circle"), N_("square"), N_("triangle"))
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


def shown_model(name: str) -> str:
    """A model as the radio shows it (and the URL holds it), in the session's language."""
    return _(MODELS[name])


def _drawing(digits: bool) -> bytes | None:
    """PNG bytes of what was drawn on the canvas (streamlit-drawable-canvas), or None while it is blank."""
    import io

    from PIL import Image
    try:
        from streamlit_drawable_canvas import st_canvas
    except ImportError:
        st.warning(_("Drawing needs the streamlit-drawable-canvas package (see requirements.txt); "
                     "samples and uploads work without it."))
        return None
    if digits:
        colour, mode, width = "#000000", "freedraw", 22
    else:
        a, b = st.columns(2)
        _url.as_option("img_draw_colour", COLOUR_NAMES, [_(c) for c in COLOUR_NAMES.values()])
        _url.as_option("img_draw_tool", TOOLS, [_(t) for t in TOOLS.values()])
        colour = COLOURS[a.radio(_("Colour"), list(COLOURS), format_func=lambda c: _(COLOUR_NAMES[c]),
                                 horizontal=True, key="img_draw_colour", bind=BIND, persist_state=KEEP)]
        mode = b.radio(_("Tool"), list(TOOLS), format_func=lambda t: _(TOOLS[t]), horizontal=True,
                       key="img_draw_tool", bind=BIND, persist_state=KEEP,
                       help=_("polygon: click the corners, double-click to close (a triangle)."))
        width = 3
    result = st_canvas(fill_color=colour, stroke_color=colour, stroke_width=width, drawing_mode=mode,
                       background_color="#FFFFFF" if digits else "#EDEDE6", width=288, height=288,
                       return_image_data=True, key=f"img_canvas_{digits}")
    img = result.image_data
    if img is None or np.ptp(img[..., :3]) < 30:
        return None
    buf = io.BytesIO()
    Image.fromarray(img[..., :3].astype(np.uint8), "RGB").save(buf, "PNG")      # the canvas is opaque
    return buf.getvalue()


def render():
    st.title(_("Attention over image patches"))
    _present.slot()                    # presenting: the heads' attention on the image comes first
    st.markdown(_(
        "A Vision Transformer cuts the image into square **patches**, flattens each one, multiplies it by the "
        "same matrix to get a token, adds a learned position, and puts a learned **<cls>** token in front. "
        "Self-attention then works exactly as on words; the answer is read from <cls>. **Swin** has no <cls>: it "
        "attends inside shifted windows and merges patches stage by stage. **ImageGPT** reads the pixels one by one "
        "and writes the rest of an image. Everything below is computed by the shipped models on the image you "
        "pick."))

    shipped = [n for n in MODELS if n in checkpoints.shipped()]
    if not shipped:
        st.error(_("No image model is shipped in assets/. Train them with `python -m model.train NAME`, NAME one of "
                   "{names}.").format(names=", ".join(MODELS)))
        st.stop()
    _url.stale_link("img_model", [shown_model(n) for n in shipped], _("the model"), shown_model(shipped[0]))
    _url.as_option("img_model", shipped, [shown_model(n) for n in shipped])
    name = st.radio(_("Model"), shipped, format_func=shown_model, horizontal=True, key="img_model", bind=BIND,
                    persist_state=KEEP)
    model, meta = _resources.model_or_stop(name)
    cfg, pre = model.config, meta["preprocess"]
    is_digits = bool(pre["grayscale"])            # the digits model reads grey, light ink on dark
    hierarchical, writer = hasattr(cfg, "depths"), hasattr(cfg, "levels")
    if writer:
        st.caption(_("Task: **complete a digit** from its top rows · {size}×{size} pixels, {levels} grey levels, "
                     "{layers} layers × {heads} heads, d_model {d_model}, causal attention").format(
            size=cfg.image_size, levels=cfg.levels, layers=cfg.n_layers, heads=cfg.n_heads, d_model=cfg.d_model))
    else:
        st.caption(_("Question: **{question}** · answers: {answers} · {size}×{size} pixels, {patch}×{patch} patches, "
                 "{shape}").format(
            question=_(pre["question"]), answers=_(", ").join(_(c) for c in pre["classes"]), size=cfg.image_size,
            patch=cfg.patch_size, shape=image_stages.describe(cfg) if hierarchical else _(
                "{layers} layers × {heads} heads, d_model {d_model}, global attention").format(
                layers=cfg.n_layers, heads=cfg.n_heads, d_model=cfg.d_model)))


    # ---- 1 · the image ------------------------------------------------------------------------------------
    st.header(_("1 · Pick, upload or draw an image"))
    sources = [_(s) for s in SOURCES.values()]
    _url.stale_link("img_source", sources, _("the image source"), sources[0])
    _url.as_option("img_source", SOURCES, sources)
    source = st.radio(_("Image source"), list(SOURCES), format_func=lambda s: _(SOURCES[s]), horizontal=True,
                      key="img_source", bind=BIND, persist_state=KEEP)
    kind = "digit" if is_digits else "scene"
    truth = None
    picture = {"Upload": _("uploaded image"), "Draw": _("drawn image")}.get(source)   # the slides' caption names it
    if source != "Sample":
        st.caption(_("An uploaded or drawn image stays in this browser: a copied link opens this page on the {box} "
                     "box, not on the image.").format(box=_(BOXES[source])))
    if source == "Sample":
        files = sorted(SAMPLES.glob(f"{kind}_*.png"))
        if not files:
            st.error(_("No sample images in {folder}. Recreate them with `python -m model.training.recipes._images`."
                       ).format(folder=SAMPLES))
            st.stop()
        # one picker per kind of model (their samples differ); the address names the file (?img_digit=digit_3_0)
        _url.stale_link(f"img_{kind}", [p.stem for p in files], _("the sample"), files[0].stem)
        pick = st.selectbox(_("Sample"), files, format_func=lambda p: p.stem, key=f"img_{kind}", bind=BIND,
                            persist_state=KEEP)
        data = pick.read_bytes()
        truth = pick.stem.split("_")[1]
        picture = _("sample {name}").format(name=pick.stem)
    elif source == "Draw":
        data = _drawing(is_digits)
        if data is None:
            st.info(_("Draw a digit: one thick stroke, as large as the box.") if is_digits else
                    _("Draw a few shapes, exactly one of them red: a circle, a square or a triangle."))
            st.stop()
    else:
        up = st.file_uploader(_("Upload an image (PNG, JPEG, GIF, WebP or BMP, up to 8 MB)"), type=UPLOAD_TYPES,
                              key="img_upload")
        if up is None:
            st.info(_("Upload an image: a digit, dark on light or light on dark.") if is_digits else
                    _("Upload an image: a scene with one red circle, square or triangle."))
            st.stop()
        data = up.getvalue()
    try:
        loaded = _runs.load_image_bytes(data)
    except ImageError as e:
        st.error(_("This image cannot be used. {why}").format(why=e))
        st.stop()
    for note in loaded.notes:
        st.info(str(note))                       # a cached run's Note, read in the session's language

    # ---- 2 · preprocessing -----------------------------------------------------------------------------------
    st.header(_("2 · Preprocessing"))
    fit_ink = False
    if is_digits:
        fit_ink = st.checkbox(_("Crop to the ink (training digits fill their 8×8 frame)"), value=source != "Sample",
                              key=f"img_fit_{source.lower()}", bind=BIND, persist_state=KEEP)
    prep = preprocess(loaded.image, size=cfg.image_size, grayscale=pre["grayscale"], mean=pre["mean"],
                      std=pre["std"], ink_light=is_digits, fit_ink=fit_ink)
    for note in prep.notes:
        st.caption(note)
    cols = st.columns(len(prep.stages))
    for i, (col, (title, arr)) in enumerate(zip(cols, prep.stages)):     # the last stage is the normalised array
        _export.chart(vimg.plot_image(arr, title=title, height=230, signed=i == len(prep.stages) - 1),
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
    shown = prep.stages[-2][1]                                     # the resized image in [0, 1]
    look = "heat" if is_digits else "veil"                         # light ink on black needs a glow, not a veil
    if writer:
        image_gpt.render(name, cfg, meta, shown, picture, truth)
        image_why.render(7)
        return

    # ---- 3 · patches -----------------------------------------------------------------------------------------
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

    # ---- 4 · prediction --------------------------------------------------------------------------------------
    run = _runs.run_image(name, _resources.device(), prep.x)
    probs, classes = run.probs, run.classes
    st.header(_("4 · Prediction"))
    c1, c2 = st.columns([2, 3])
    _export.chart(vimg.plot_probs(probs, [_(c) for c in classes]), key="probs", where=c1, name=(name, "prediction"),
                  title=_(pre["question"]), caption=caption_line(name, picture))
    verdict = _("The model answers **{answer}** with probability {p}.").format(answer=_(classes[int(probs.argmax())]),
                                                                              p=f"{probs.max():.1%}")
    if truth is not None:
        verdict += _(" The true answer for this sample is **{answer}**.").format(answer=_(truth))
    c2.markdown(verdict)
    if is_digits:
        looks = digit_likeness(shown)
        if not looks.typical:
            c2.warning(_("Caution: this image is not like the handwritten digits the model learned from. {dark} of "
                         "its {n} pixels are near-black background and {ink} bright ink; on the training digits these "
                         "shares run {dark_lo}–{dark_hi} and {ink_lo}–{ink_hi}. The model always answers one of 0–9: "
                         "its {p} ranks the ten digits, it does not say this is a digit.").format(
                dark=f"{looks.dark:.0%}", n=shown.size, ink=f"{looks.ink:.0%}", dark_lo=f"{DARK_RANGE[0]:.0%}",
                dark_hi=f"{DARK_RANGE[1]:.0%}", ink_lo=f"{INK_RANGE[0]:.0%}", ink_hi=f"{INK_RANGE[1]:.0%}",
                p=f"{probs.max():.1%}"))
    c2.caption(_("Held-out test accuracy of this model: {accuracy} on {n} images "
                 "(`python -m model.evaluate --json {name}`).").format(
        accuracy=f"{meta['metrics']['test_acc']:.1%}", n=meta["metrics"]["test_n"], name=name))

    # ---- 5 – 7 · attention, rollout, every model -----------------------------------------------------------
    if run.has_cls:
        image_vit.render(name, cfg, run, shown, look, picture, is_digits)
    else:
        image_stages.render(name, cfg, run, shown, look, picture)
    image_compare.render(name, "digits" if is_digits else "scenes", loaded.image, fit_ink, shown, look, picture,
                         shown_model)
    image_why.render(8)
