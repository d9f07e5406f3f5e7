"""Image patches: how a Vision Transformer reads a picture. The image is cut into patches, each patch
becomes a token next to a learned <cls>, and attention decides which patches inform the answer. The
page shows every step on trained models (digits, generated scenes) and Swin's shifted windows. The prediction is
drawn here; the other sections sit beside this file: image_source, image_patches, image_vit, image_stages (and
image_channels), image_gpt, image_compare, image_why."""
import numpy as np
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages.views import image_compare, image_gpt, image_patches, image_source, image_stages, image_vit, image_why
from i18n import N_, _
from model import checkpoints, kinds
from model.data.digit_check import DARK_RANGE, INK_RANGE, digit_likeness
from viz import images as vimg
from viz.slide import caption_line

MODELS = {"vit_digits": N_("ViT · handwritten digits"), "swin_digits": N_("Swin · handwritten digits"),
          "davit_digits": N_("DaViT · handwritten digits"), "imagegpt_digits": N_("ImageGPT · completing digits"),
          "vit_scenes": N_("ViT · which shape is red?"), "swin_scenes": N_("Swin · which shape is red?")}
# the shipped models' questions and answers (their metadata, in English), translated where shown
ANSWERS = (N_("Which digit is this?"), N_("Which shape is red?"), N_("circle"), N_("square"), N_("triangle"))
BIND, KEEP = _url.BIND, _url.KEEP        # every pick is in the URL and survives a visit to another page


def shown_model(name: str) -> str:
    """A model as the radio shows it (and the URL holds it), in the session's language."""
    return _(MODELS[name])


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
    name, model, meta = pick_model()
    cfg, pre = model.config, meta["preprocess"]
    is_digits = bool(pre["grayscale"])            # the digits model reads grey, light ink on dark
    hierarchical, writer = meta["kind"] in kinds.HIERARCHICAL, meta["kind"] == "imagegpt"
    model_caption(cfg, pre, hierarchical, writer)
    source, loaded, truth, picture = image_source.image_section(is_digits)
    prep, fit_ink = image_patches.preprocessing_section(name, cfg, pre, loaded, source, picture, writer)
    shown = prep.stages[-2][1]                                     # the resized image in [0, 1]
    look = "heat" if is_digits else "veil"                         # light ink on black needs a glow, not a veil
    if writer:
        image_gpt.render(name, cfg, meta, shown, picture, truth)
        image_why.render(7)
        return
    image_patches.patches_section(name, cfg, shown, picture, hierarchical)
    run = prediction_section(name, meta, prep, shown, picture, truth)
    # ---- 5 – 7 · attention, rollout, every model -----------------------------------------------------------
    if run.has_cls:
        image_vit.render(name, cfg, run, shown, look, picture, is_digits)
    else:
        image_stages.render(name, cfg, run, shown, look, picture)
    image_compare.render(name, "digits" if is_digits else "scenes", loaded.image, fit_ink, shown, look, picture,
                         shown_model)
    image_why.render(8)


def pick_model():
    """The model picker over the shipped image models; stops the page when none is shipped. Returns (name, model,
    meta)."""
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
    return name, model, meta


def model_caption(cfg, pre: dict, hierarchical: bool, writer: bool):
    """The model's task (or question and answers) and its shape in one line."""
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


def prediction_section(name: str, meta: dict, prep, shown: np.ndarray, picture: str | None, truth: str | None):
    """Section 4: the model's answer with its probabilities, a warning for an image unlike the training digits, and
    the held-out accuracy. Returns the run."""
    pre = meta["preprocess"]
    is_digits = bool(pre["grayscale"])
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
    return run
