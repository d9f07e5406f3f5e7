"""The image page for ImageGPT: a digit read as a sequence of quantised pixels in raster order, its lower part
completed pixel by pixel (greedy and sampled, side by side, with the shipped ViT's verdict on each), where one
pixel looks among the pixels before it, and the next-pixel distribution at every step of the generation."""
import numpy as np
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from app_pages._numbers import spoken
from i18n import _
from labels import head_label, layer_label
from model import checkpoints
from model.analysis import published
from model.architectures.imagegpt import dequantise, quantise
from viz import completion as vcomp
from viz import images as vimg
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP
JUDGE = "vit_digits"                   # the shipped classifier that judges completions


def _verdicts(images: np.ndarray) -> list[str]:
    """"ViT: 3 (97%)" for each (S, S) image, or nothing when the ViT is not shipped."""
    if JUDGE not in checkpoints.shipped():
        return [""] * len(images)
    probs = _runs.classify_images(JUDGE, _resources.device(), images.astype(np.float32))
    return [_("ViT: {digit} ({p})").format(digit=int(p.argmax()), p=f"{p.max():.0%}") for p in probs]


def render(name: str, cfg, meta: dict, shown: np.ndarray, picture: str | None, truth: str | None) -> None:
    """Sections 3 to 6 of the page for ImageGPT on the preprocessed digit `shown` (S, S) in [0, 1]."""
    S, L = cfg.image_size, cfg.levels
    pixels = quantise(shown, L).reshape(-1)                                    # (N,) raster order
    grey = dequantise(pixels, L).reshape(S, S)
    m = meta["metrics"]
    sequence_section(name, cfg, m, grey, picture)
    greedy, given = completion_section(name, cfg, m, pixels, grey, picture, truth)
    done = greedy.pixels[0]
    attention_section(name, cfg, done, given, picture)
    distribution_section(name, cfg, greedy, done, given, picture)


def sequence_section(name: str, cfg, m: dict, grey: np.ndarray, picture: str | None):
    """Section 3: the digit as S × S quantised pixels read in raster order, the held-out bits per pixel, and the
    textbook's ImageGPT beside this one; grey: (S, S) the quantised image; m: the model's metrics."""
    S, L = cfg.image_size, cfg.levels
    st.header(_("3 · Pixels as a sequence"))
    left, right = st.columns([2, 3])
    _export.chart(vimg.plot_patch_grid(grey, (S, S), 1, title=_("{n} pixels in {levels} grey levels").format(
        n=S * S, levels=L)), key="gpt_pixels", where=left, name=(name, "pixels"), caption=caption_line(name, picture))
    right.markdown(_(
        "ImageGPT reads no patches and no <cls>: each pixel is one token, its grey value cut to **{levels} "
        "levels**, and the image is read **row by row, left to right** (p0 … p{last}), like a sentence. A causal "
        "decoder, the same as GPT's, predicts each pixel from a start token and every pixel before it: the ones "
        "to its left and all the rows above. Trained only to predict the next pixel, it can then *write* the rest "
        "of an image.").format(levels=L, last=S * S - 1))
    right.caption(_("On the {n} held-out digits: {bits} bits per pixel, against {base} for a per-position guess "
                    "(each pixel's own level frequencies); an uncompressed pixel of {levels} levels is {raw} bits."
                    ).format(n=m["test_n"], bits=f"{m['bits_per_pixel_heldout']:.3f}",
                             base=f"{m['bits_per_pixel_baseline']:.3f}", levels=L, raw=f"{np.log2(L):.0f}"))
    model, _meta = _resources.model_or_stop(name)
    right.caption(_(
        "The textbook's ImageGPT (12.10.1) is the same kind of model, an autoregressive decoder over pixels with "
        "a learned 1D position per pixel, at another scale: its largest has {params} parameters and still reads "
        "only {side}×{side} images, each pixel one of {colours} colours (24-bit RGB cut to 9 bits). Its features "
        "also classify: the final embeddings of all pixels are **averaged**, then a linear layer and a softmax "
        "give the class ({error} top-1 error on {test}×{test} ImageNet). This one: {own:,} parameters, {S}×{S} "
        "pixels, {L} grey levels.").format(
        params=spoken(published.IMAGEGPT_PARAMS), side=published.IMAGEGPT_SIDE,
        colours=published.IMAGEGPT_COLOURS, error=f"{published.IMAGEGPT_TOP1_ERROR:.1%}",
        test=published.IMAGEGPT_TEST_SIDE, own=sum(p.numel() for p in model.parameters()), S=S, L=L))


def completion_section(name: str, cfg, m: dict, pixels: np.ndarray, grey: np.ndarray, picture: str | None,
                       truth: str | None):
    """Section 4: the top rows given, the rest written greedily and sampled, each judged by the shipped ViT;
    pixels: (N,) the quantised levels in raster order. Returns (the completion, the number of pixels given)."""
    S, L = cfg.image_size, cfg.levels
    st.header(_("4 · Completing the lower part"))
    c1, c2, c3, c4 = st.columns(4)
    _url.stale_number("img_gpt_rows", 1, S - 1, _("rows given"), S // 2)
    rows = c1.slider(_("Rows given"), 1, S - 1, S // 2, key="img_gpt_rows", bind=BIND, persist_state=KEEP)
    _url.stale_number("img_gpt_samples", 1, 6, _("samples"), 4)
    samples = c2.slider(_("Samples"), 1, 6, 4, key="img_gpt_samples", bind=BIND, persist_state=KEEP)
    _url.stale_number("img_gpt_temp", 0.3, 2.0, _("temperature"), 1.0)
    temperature = c3.slider(_("Temperature"), 0.3, 2.0, 1.0, step=0.1, key="img_gpt_temp", bind=BIND,
                            persist_state=KEEP, help=_("Below 1 the samples stay close to the likeliest pixels, "
                                                       "above 1 they wander."))
    _url.stale_number("img_gpt_seed", 0, 9999, _("seed"), 0)
    seed = int(c4.number_input(_("Seed"), 0, 9999, 0, key="img_gpt_seed", bind=BIND, persist_state=KEEP))
    given = rows * S
    greedy, sampled = _runs.complete_image(name, _resources.device(), tuple(int(p) for p in pixels), given, samples,
                                           float(temperature), seed)
    images = np.stack([grey, *(dequantise(p, L).reshape(S, S) for p in (greedy.pixels[0], *sampled.pixels))])
    shown_given = vcomp.with_unknown(images[0], np.broadcast_to(np.arange(S)[:, None] < rows, (S, S)))
    verdicts = _verdicts(images)
    names = [_("original"), _("greedy")] + [_("sample {k}").format(k=k + 1) for k in range(samples)]
    labelled = [f"{t}<br>{v}" if v else t for t, v in zip(names, verdicts)]
    titles = [labelled[0], _("given")] + labelled[1:]
    _export.chart(vcomp.plot_completions([images[0], shown_given, *images[1:]], titles, rows, height=240),
                  key="gpt_completions", name=(name, "completions"), caption=caption_line(name, picture), main=True,
                  title=_("The top {rows} rows given, the rest written by the model").format(rows=rows))
    st.caption(_("Greedy takes the likeliest level at every pixel; each sample draws from the distribution (at "
                 "temperature {t}, seed {seed}). Above each picture: what the shipped ViT (vit_digits) reads in it. "
                 "Held out, with the top half given: the completed digit keeps its class for {kept} of {n} digits "
                 "(an SVC trained on the training split decides), against {mode} when each missing pixel gets its "
                 "most common level and {blank} when it stays black.").format(
        t=temperature, seed=seed, kept=f"{m['completion_class_kept']:.0%}", n=m["test_n"],
        mode=f"{m['completion_class_kept_mode_fill']:.0%}", blank=f"{m['completion_class_kept_blank']:.0%}")
        + (_(" The true digit of this sample is {digit}.").format(digit=truth) if truth is not None else ""))
    return greedy, given


def attention_section(name: str, cfg, done: np.ndarray, given: int, picture: str | None):
    """Section 5: where one pixel of the greedy completion (N,) looks among the pixels before it, head by head."""
    S, L = cfg.image_size, cfg.levels
    st.header(_("5 · Where a pixel looks"))
    weights = _runs.pixel_attention(name, _resources.device(), tuple(int(p) for p in done))   # (L, H, N, N)
    n_layers, n_heads = weights.shape[:2]
    p1, p2 = st.columns(2)
    _url.stale_number("img_gpt_pixel", 1, S * S - 1, _("pixel"), given + 3)
    pixel = p1.slider(_("Pixel"), 1, S * S - 1, min(given + 3, S * S - 1), key="img_gpt_pixel", bind=BIND,
                      persist_state=KEEP, help=_("Raster order: pixel r·{S} + c is row r, column c.").format(S=S))
    _url.stale_link("img_gpt_layer", [layer_label(i) for i in range(n_layers)], _("layer"),
                    layer_label(n_layers - 1))
    layer = p2.select_slider(_("Layer"), range(n_layers), n_layers - 1, format_func=layer_label,
                             key="img_gpt_layer", bind=BIND, persist_state=KEEP)
    # position `pixel` predicts that pixel; it reads the start token (position 0) and pixels 0 … pixel−1
    row = weights[layer, :, pixel]                                             # (H, N) over positions
    on_pixels = np.zeros((n_heads, S * S))
    on_pixels[:, :pixel] = row[:, 1:pixel + 1]
    top = float(on_pixels.max())
    st.caption(_("Pixel {pixel} (row {r}, column {c}) of the greedy completion, predicted from the start token and "
                 "the {pixel} pixels before it; later pixels are grey: it cannot see them. Share on the start "
                 "token: {start}.").format(pixel=pixel, r=pixel // S, c=pixel % S, start=", ".join(
                     f"{row[h, 0]:.2f}" for h in range(n_heads))))
    cols = st.columns(n_heads)
    for h, col in enumerate(cols):
        _export.chart(vcomp.plot_pixel_attention(dequantise(done, L).reshape(S, S), on_pixels[h], pixel, zmax=top,
                                                 title=head_label(layer, h), height=260),
                      key=f"gpt_attention_{h}", where=col, name=(name, head_label(layer, h), f"pixel{pixel}"),
                      caption=caption_line(name, picture))


def distribution_section(name: str, cfg, greedy, done: np.ndarray, given: int, picture: str | None):
    """Section 6: the next-pixel distribution at one generated pixel of the greedy completion, and its entropy."""
    S, L = cfg.image_size, cfg.levels
    st.header(_("6 · The next-pixel distribution as it generates"))
    _url.stale_number("img_gpt_step", given, S * S - 1, _("pixel"), given)
    step = st.slider(_("Generated pixel"), given, S * S - 1, given, key="img_gpt_step", bind=BIND,
                     persist_state=KEEP)
    probs = greedy.probs[0, step - given]                                      # (levels,)
    partial = vcomp.with_unknown(dequantise(done, L).reshape(S, S), (np.arange(S * S) <= step).reshape(S, S))
    d1, d2 = st.columns([1, 2])
    _export.chart(vimg.plot_image(partial, title=_("Written so far: pixels 0 … {step}").format(step=step),
                                  height=260), key="gpt_partial", where=d1, name=(name, f"step{step}", "image"),
                  caption=caption_line(name, picture))
    _export.chart(vcomp.plot_next_pixel(probs, int(done[step]), title=_(
        "p(pixel {step} | pixels before it): greedy takes level {level}").format(step=step, level=int(done[step]))),
                  key="gpt_next", where=d2, name=(name, f"step{step}", "distribution"),
                  caption=caption_line(name, picture))
    entropy = float(-(probs * np.log2(np.clip(probs, 1e-12, 1))).sum())
    st.caption(_("Uncertainty of this pixel: {bits} bits (0 = certain, {top} = every level alike).").format(
        bits=f"{entropy:.2f}", top=f"{np.log2(L):.0f}"))
