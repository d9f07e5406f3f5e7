"""Image patches: how a Vision Transformer reads a picture. The image is cut into patches, each patch
becomes a token next to a learned <cls>, and attention decides which patches inform the answer. The
page shows every step on trained models (digits, generated scenes) and Swin's shifted windows."""
from pathlib import Path

import numpy as np
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from labels import file_label, head_label, head_only, layer_label
from model import checkpoints
from model.analysis.attention_views import rollout
from model.architectures import swin
from model.data.digit_check import DARK_RANGE, INK_RANGE, digit_likeness
from model.data.images import ImageError, preprocess
from model.data.patches import patchify
from viz import images as vimg
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

SAMPLES = Path(checkpoints.ASSETS) / "samples"
MODELS = {"vit_digits": "ViT · handwritten digits", "vit_scenes": "ViT · which shape is red?",
          "swin_scenes": "Swin · which shape is red?"}
UPLOAD_TYPES = ["png", "jpg", "jpeg", "gif", "webp", "bmp"]
SOURCES = ["Sample", "Upload", "Draw"]
COLOURS = {"red": "#DB1F1F", "green": "#26A040", "blue": "#2E52E0", "black": "#1F1F1F"}
TOOLS = ["rect", "circle", "polygon", "freedraw"]
BIND, KEEP = _url.BIND, _url.KEEP        # every pick is in the URL and survives a visit to another page


def _drawing(digits: bool) -> bytes | None:
    """PNG bytes of what was drawn on the canvas (streamlit-drawable-canvas), or None while it is blank."""
    import io

    from PIL import Image
    try:
        from streamlit_drawable_canvas import st_canvas
    except ImportError:
        st.warning("Drawing needs the streamlit-drawable-canvas package (see requirements.txt); "
                   "samples and uploads work without it.")
        return None
    if digits:
        colour, mode, width = "#000000", "freedraw", 22
    else:
        a, b = st.columns(2)
        colour = COLOURS[a.radio("Colour", list(COLOURS), horizontal=True, key="img_draw_colour", bind=BIND,
                                 persist_state=KEEP)]
        mode = b.radio("Tool", TOOLS, horizontal=True, key="img_draw_tool", bind=BIND, persist_state=KEEP,
                       help="polygon: click the corners, double-click to close (a triangle).")
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
    st.title("Attention over image patches")
    st.markdown(
        "A Vision Transformer cuts the image into square **patches**, flattens each one, multiplies it by the "
        "same matrix to get a token, adds a learned position, and puts a learned **<cls>** token in front. "
        "Self-attention then works exactly as on words; the answer is read from <cls>. Everything below is "
        "computed by the shipped models on the image you pick.")

    shipped = [n for n in MODELS if n in checkpoints.shipped()]
    if not shipped:
        st.error("No image model is shipped in assets/. Train them with `python -m model.train vit_digits`, "
                 "`python -m model.train vit_scenes` and `python -m model.train swin_scenes`.")
        st.stop()
    _url.stale_link("img_model", [MODELS[n] for n in shipped], "the model", MODELS[shipped[0]])
    name = st.radio("Model", shipped, format_func=MODELS.get, horizontal=True, key="img_model", bind=BIND,
                    persist_state=KEEP)
    model, meta = _resources.model_or_stop(name)
    cfg, pre = model.config, meta["preprocess"]
    is_digits = bool(pre["grayscale"])            # the digits model reads grey, light ink on dark
    st.caption(f"Question: **{pre['question']}** · answers: {', '.join(pre['classes'])} · "
               f"{cfg.image_size}×{cfg.image_size} pixels, {cfg.patch_size}×{cfg.patch_size} patches, "
               f"{cfg.n_layers} layers × {cfg.n_heads} heads, d_model {cfg.d_model}"
               + (f", windows of {cfg.window}×{cfg.window} patches" if cfg.window else ", global attention"))


    # ---- 1 · the image ------------------------------------------------------------------------------------
    st.header("1 · Pick, upload or draw an image")
    _url.stale_link("img_source", SOURCES, "the image source", SOURCES[0])
    source = st.radio("Image source", SOURCES, horizontal=True, key="img_source", bind=BIND, persist_state=KEEP)
    kind = "digit" if is_digits else "scene"
    truth = None
    picture = {"Upload": "uploaded image", "Draw": "drawn image"}.get(source)     # the slides' caption names it
    if source != "Sample":
        st.caption("An uploaded or drawn image stays in this browser: a copied link opens this page on the "
                   f"{source.lower()} box, not on the image.")
    if source == "Sample":
        files = sorted(SAMPLES.glob(f"{kind}_*.png"))
        if not files:
            st.error(f"No sample images in {SAMPLES}. Recreate them with `python -m model.training.recipes._images`.")
            st.stop()
        # one picker per kind of model (their samples differ); the address names the file (?img_digit=digit_3_0)
        _url.stale_link(f"img_{kind}", [p.stem for p in files], "the sample", files[0].stem)
        pick = st.selectbox("Sample", files, format_func=lambda p: p.stem, key=f"img_{kind}", bind=BIND,
                            persist_state=KEEP)
        data = pick.read_bytes()
        truth = pick.stem.split("_")[1]
        picture = f"sample {pick.stem}"
    elif source == "Draw":
        data = _drawing(is_digits)
        if data is None:
            st.info("Draw " + ("a digit: one thick stroke, as large as the box." if is_digits else
                               "a few shapes, exactly one of them red: a circle, a square or a triangle."))
            st.stop()
    else:
        up = st.file_uploader("Upload an image (PNG, JPEG, GIF, WebP or BMP, up to 8 MB)", type=UPLOAD_TYPES,
                              key="img_upload")
        if up is None:
            st.info("Upload an image: " + ("a digit, dark on light or light on dark." if is_digits else
                                           "a scene with one red circle, square or triangle."))
            st.stop()
        data = up.getvalue()
    try:
        loaded = _runs.load_image_bytes(data)
    except ImageError as e:
        st.error(f"This image cannot be used. {e}")
        st.stop()
    for note in loaded.notes:
        st.info(note)

    # ---- 2 · preprocessing -----------------------------------------------------------------------------------
    st.header("2 · Preprocessing")
    fit_ink = False
    if is_digits:
        fit_ink = st.checkbox("Crop to the ink (training digits fill their 8×8 frame)", value=source != "Sample",
                              key=f"img_fit_{source.lower()}", bind=BIND, persist_state=KEEP)
    prep = preprocess(loaded.image, size=cfg.image_size, grayscale=pre["grayscale"], mean=pre["mean"],
                      std=pre["std"], ink_light=is_digits, fit_ink=fit_ink)
    for note in prep.notes:
        st.caption(note)
    cols = st.columns(len(prep.stages))
    for col, (title, arr) in zip(cols, prep.stages):
        _export.chart(vimg.plot_image(arr, title=title, height=230, signed=title == "normalised"),
                      key=f"stage_{title}", where=col, name=(name, "preprocessing", title),
                      caption=caption_line(name, picture))
    st.caption(f"Loaded {loaded.format}, {loaded.original_size[0]} × {loaded.original_size[1]} pixels, mode "
               f"{loaded.original_mode}. The model reads the normalised array (x − mean) / std with mean "
               f"{np.round(pre['mean'], 3).tolist()} and std {np.round(pre['std'], 3).tolist()} of the training "
               "images.")
    shown = prep.stages[-2][1]                                     # the resized image in [0, 1]
    look = "heat" if is_digits else "veil"                         # light ink on black needs a glow, not a veil

    # ---- 3 · patches -----------------------------------------------------------------------------------------
    st.header("3 · Patches and the sequence the model reads")
    grid, p, n = cfg.grid, cfg.patch_size, cfg.n_patches
    chw = shown[None] if shown.ndim == 2 else shown.transpose(2, 0, 1)
    tiles = patchify(chw, p).reshape(n, cfg.channels, p, p).transpose(0, 2, 3, 1)     # (N, P, P, C)
    left, right = st.columns([2, 3])
    _export.chart(vimg.plot_patch_grid(shown, grid, p, title=f"{grid[0]}×{grid[1]} grid = {n} patches"),
                  key="patch_grid", where=left, name=(name, "patch_grid"), caption=caption_line(name, picture))
    _export.chart(vimg.plot_patch_sequence(tiles[..., 0] if cfg.channels == 1 else tiles), key="patch_seq",
                  where=right, name=(name, "patch_sequence"), title=f"The sequence of {n} patches the model reads",
                  caption=caption_line(name, picture))
    right.markdown(
        f"Each patch is {p}×{p}×{cfg.channels} = **{cfg.channels * p * p} numbers**, multiplied by one shared "
        f"{cfg.channels * p * p}×{cfg.d_model} matrix. With <cls> in front the model reads **{n + 1} tokens**; "
        f"learned position vectors tell it where each patch came from (the patches themselves carry no position).")

    # ---- 4 · prediction --------------------------------------------------------------------------------------
    run = _runs.run_image(name, _resources.device(), prep.x)
    probs, classes = run.probs, run.classes
    st.header("4 · Prediction")
    c1, c2 = st.columns([2, 3])
    _export.chart(vimg.plot_probs(probs, classes), key="probs", where=c1, name=(name, "prediction"),
                  title=pre["question"], caption=caption_line(name, picture))
    verdict = f"The model answers **{classes[int(probs.argmax())]}** with probability {probs.max():.1%}."
    if truth is not None:
        verdict += f" The true answer for this sample is **{truth}**."
    c2.markdown(verdict)
    if is_digits:
        looks = digit_likeness(shown)
        if not looks.typical:
            c2.warning(f"Caution: this image is not like the handwritten digits the model learned from. "
                       f"{looks.dark:.0%} of its {shown.size} pixels are near-black background and {looks.ink:.0%} "
                       f"bright ink; on the training digits these shares run {DARK_RANGE[0]:.0%}–{DARK_RANGE[1]:.0%}"
                       f" and {INK_RANGE[0]:.0%}–{INK_RANGE[1]:.0%}. The model always answers one of 0–9: its "
                       f"{probs.max():.1%} ranks the ten digits, it does not say this is a digit.")
    c2.caption(f"Held-out test accuracy of this model: {meta['metrics']['test_acc']:.1%} "
               f"on {meta['metrics']['test_n']} images (`python -m model.evaluate --json {name}`).")

    # ---- 5 · attention per head ------------------------------------------------------------------------------
    st.header("5 · Where each head looks")
    L = cfg.n_layers
    # one picker per model (their tokens differ): a bound widget whose options change under one key stops
    # writing the address in Streamlit 1.67
    _url.stale_link(f"img_query_{name}", run.tokens, "the token", run.tokens[0])
    _url.stale_link("img_layer", [layer_label(i) for i in range(L)], "layer", layer_label(L - 1))
    q1, q2 = st.columns(2)
    query = q1.selectbox("Attention from", run.tokens, key=f"img_query_{name}", bind=BIND, persist_state=KEEP,
                         help="<cls> gathers what the classifier reads; a patch shows what that patch looks at.")
    # a slider over labels, so the address reads ?img_layer=L2
    layer = q2.select_slider("Layer", range(L), L - 1, format_func=layer_label, key="img_layer", bind=BIND,
                             persist_state=KEEP)
    qi = run.tokens.index(query)
    rows = run.stacked_weights()[:, :, qi, 1:]                                # (L, H, N) weights on the patches
    st.caption(("Orange patches get more" if is_digits else "Clear patches get more, veiled ones less")
               + f" of {query}'s attention; hover for the exact weight. "
               f"The rest of each row goes to <cls> itself: "
               + ", ".join(f"{head_only(h)}: {run.weights[layer][h, qi, 0]:.3f}" for h in range(cfg.n_heads)) + ".")
    top = float(rows[layer].max())                                            # one colour scale for the heads
    head_cols = st.columns(cfg.n_heads)
    for h, col in enumerate(head_cols):
        _export.chart(vimg.plot_overlay(shown, rows[layer, h], grid, p, title=head_label(layer, h),
                                        height=300, look=look, zmax=top), key=f"overlay_{h}", where=col,
                      name=(name, file_label(layer, h), f"from_{query}"),
                      caption=caption_line(name, f"attention from {query}", picture))
    st.caption(f"One colour scale for these heads, 0 to {top:.3f} (the largest weight any of them puts on a patch): "
               "a pale head spreads its attention or sends it to <cls>; the grid below shares one scale too.")
    if st.toggle("All layers × heads at once", value=True, key="img_all_heads", bind=BIND, persist_state=KEEP):
        _export.chart(vimg.plot_head_grid(shown, rows, grid, p, title=f"Attention from {query}, every head",
                                          look=look),
                      key="head_grid", name=(name, "every_head", f"from_{query}"), caption=caption_line(name, picture))

    # ---- 6 · rollout -----------------------------------------------------------------------------------------
    st.header("6 · Attention rollout across layers")
    rolled = rollout(run.stacked_weights())                                   # (L, N+1, N+1)
    st.markdown("One layer's weights say where a token looks *in that layer's input*, which already mixes "
                "patches. **Rollout** (Abnar & Zuidema 2020) multiplies the layers' head-averaged weights, "
                "with ½·identity for the residual path, to trace how much each input patch reaches "
                f"{query} by layer l.")
    _export.chart(vimg.plot_head_grid(shown, rolled[None, :, qi, 1:], grid, p, name="rollout",
                                      titles=[f"after {layer_label(i)}" for i in range(cfg.n_layers)],
                                      cell_height=260, look=look),
                  key="rollout", name=(name, "rollout", f"from_{query}"),
                  title=f"Attention rollout from {query}, layer by layer",
                  caption=caption_line(name, picture))

    # ---- 7 · Swin ---------------------------------------------------------------------------------------------
    st.header("7 · Swin: attention inside shifted windows")
    if is_digits or "swin_scenes" not in shipped or "vit_scenes" not in shipped:
        st.info("The Swin comparison runs on the scenes: pick a scenes model above (both vit_scenes and "
                "swin_scenes must be shipped).")
        st.stop()
    swin_model, swin_meta = _resources.model_or_stop("swin_scenes")
    sc = swin_model.config
    shifts = swin.layer_shifts(sc.n_layers, sc.window)
    st.markdown(f"Each patch attends only to the patches of its own **{sc.window}×{sc.window} window**; every other "
                f"layer the windows move by {sc.window // 2} patch, so information crosses window borders. (Swin's "
                "cyclic shift with its mask is the same as these offset windows, smaller at the borders.) <cls> "
                "stays global. Cost per layer grows with N·window² instead of N².")
    picked = None if query == "<cls>" else qi - 1
    wc = st.columns(2)
    for col, s in zip(wc, sorted(set(shifts))):
        on = [i for i, x in enumerate(shifts) if x == s]
        _export.chart(vimg.plot_windows(swin.window_ids(sc.grid, sc.window, s), picked=picked,
                                        title=f"{', '.join(map(layer_label, on))}: shift {s}"), key=f"windows_{s}",
                      where=col, name=("swin_scenes", "windows", f"shift{s}"),
                      caption=caption_line("swin_scenes", f"{sc.window}×{sc.window} windows"))
    mask = swin_model.layer_masks()[layer].cpu().numpy()
    _export.chart(plot_heatmap(mask.astype(float), x_labels=run.tokens, y_labels=run.tokens,
                               title=f"{layer_label(layer)}: who may attend to whom (1 = allowed)",
                               value_name="allowed", decimals=0, colorscale="Greys", height=720), key="swin_mask",
                  name=("swin_scenes", layer_label(layer), "mask"),
                  caption=caption_line("swin_scenes", layer_label(layer)))

    st.subheader("The same image through both models")
    other = "vit_scenes" if name == "swin_scenes" else "swin_scenes"
    other_model, other_meta = _resources.model_or_stop(other)
    op = other_meta["preprocess"]
    ox = preprocess(loaded.image, size=other_model.config.image_size, grayscale=op["grayscale"], mean=op["mean"],
                    std=op["std"]).x
    runs = {name: run, other: _runs.run_image(other, _resources.device(), ox)}
    metas = {name: meta, other: other_meta}
    means = {k: r.weights[layer][:, qi, 1:].mean(0) for k, r in runs.items()}             # (N,) each
    rolled_last = {k: rollout(r.stacked_weights())[-1, qi, 1:] for k, r in runs.items()}
    top_mean, top_roll = max(float(v.max()) for v in means.values()), max(float(v.max()) for v in rolled_last.values())
    bc = st.columns(2)
    for col, key in zip(bc, ("vit_scenes", "swin_scenes")):
        r = runs[key]
        pr = r.probs
        mm = metas[key]["metrics"]
        col.markdown(f"**{MODELS[key]}** answers **{r.classes[int(pr.argmax())]}** ({pr.max():.1%}). "
                     f"On {mm['test_n']:,} test scenes: accuracy {mm['test_acc']:.1%}; share of <cls> attention on "
                     f"the red shape {mm['cls_attention_on_objects']:.1%} (all layers and heads), "
                     f"{mm['cls_attention_on_objects_layer0']:.1%} in {layer_label(0)}, against "
                     f"{mm['cls_attention_on_objects_uniform']:.1%} for uniform attention.")
        _export.chart(vimg.plot_overlay(shown, means[key], grid, p, zmax=top_mean,
                                        title=f"{key}: {layer_label(layer)}, mean of heads", height=360),
                      key=f"cmp_{key}", where=col, name=(key, layer_label(layer), "mean", f"from_{query}"),
                      caption=caption_line(key, f"attention from {query}", picture))
        _export.chart(vimg.plot_overlay(shown, rolled_last[key], grid, p, name="rollout", zmax=top_roll,
                                        title=f"{key}: rollout", height=360), key=f"cmp_roll_{key}", where=col,
                      name=(key, "rollout", f"from_{query}"),
                      caption=caption_line(key, f"attention from {query}", picture))
    st.caption("Each pair of pictures side by side shares one colour scale.")
