"""The image page's closing section: why Transformers on images were doubted (pixel counts and the N² cost of a
224×224 image, computed; the convolution's built-in bias for neighbourhoods), that a ViT needs much data (the
digits ViT's held-out accuracy against its training-set size, measured with its own recipe), and the textbook's
ImageNet comparison of ImageGPT, ViT, Swin and DaViT as cited numbers."""
import streamlit as st

from app_pages import _export
from i18n import N_, _
from model.analysis.image_cost import pixel_attention_cost
from model.training.recipes import _data_curve
from viz.learning_curve import plot_accuracy_curve
from viz.slide import caption_line

SIDE = 224
# ImageNet top-1 error as the textbook cites it (section 12.10), with how each model reads the image
CITED = [("ImageGPT", N_("pixels, 48×48 ImageNet, a decoder"), "27.4%"),
         ("ViT", N_("16×16 patches, pretrained on 303 million labelled images"), "11.45%"),
         ("Swin", N_("shifted windows, 2×2 merging, no <cls>"), "≈ 9.89%"),
         ("DaViT", N_("windows alternating with channel attention"), "≈ 9.60%")]


def _size(n_bytes: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:,.1f} {unit}"
    return f"{n_bytes:,.0f} B"


def render(number: int) -> None:
    """The section, numbered `number` on the page."""
    st.header(_("{n} · Why images were doubted, and what it took").format(n=number))
    pixels, patches = pixel_attention_cost(SIDE), pixel_attention_cost(SIDE, 16)
    st.markdown(_(
        "Two reasons made Transformers on images look hopeless. **Size:** a {side}×{side} photo has {n:,} pixels; "
        "read as tokens, one head of one layer scores {pairs:,} query-key pairs, a {mem} matrix of float32 "
        "scores, where a 30-word sentence needs 900. **Bias:** a convolution computes each pixel from its 3×3 "
        "neighbours with the same 9 weights everywhere, so locality and translation equivariance (shift the image, "
        "the output shifts alike) are built in; attention starts with every pixel free to weigh every other and "
        "must learn from data that neighbours matter.").format(
        side=SIDE, n=pixels["tokens"], pairs=pixels["pairs"], mem=_size(pixels["bytes"])))
    st.table([{_("read as"): _("pixels"), _("tokens N"): f"{pixels['tokens']:,}",
               _("pairs N² per head and layer"): f"{pixels['pairs']:,}", _("float32 scores"): _size(pixels["bytes"])},
              {_("read as"): _("16×16 patches + <cls> (ViT)"), _("tokens N"): f"{patches['tokens']:,}",
               _("pairs N² per head and layer"): f"{patches['pairs']:,}",
               _("float32 scores"): _size(patches["bytes"])}])
    st.caption(_("16×16 patches cut N {n}-fold and N² {pairs:,}-fold; windows (Swin) cut N² further, to "
                 "N·window².").format(n=round(pixels["tokens"] / patches["tokens"]),
                                      pairs=round(pixels["pairs"] / patches["pairs"])))

    curve = _data_curve.load()
    if curve is None:
        st.caption(_("The data-size curve is not measured yet: `python -m model.training.recipes._data_curve`."))
    else:
        left, right = st.columns([3, 2])
        _export.chart(plot_accuracy_curve(curve["sizes"], {_("ViT (the vit_digits recipe)"): curve["vit_test_acc"],
                                                           _("SVC (pixels, RBF kernel)"): curve["svc_test_acc"]}),
                      key="data_curve", where=left, name=("vit_digits", "data_curve"),
                      title=_("Held-out accuracy against training-set size"),
                      caption=caption_line("vit_digits", _("{n} held-out digits").format(n=curve["test_n"])))
        right.markdown(_(
            "**A ViT needs data.** The same recipe as the shipped digits ViT, trained on the first {small} to "
            "{large} training digits and tested on the same {n} held-out ones: {acc_small} with {small} images, "
            "{acc_large} with all. A support-vector classifier, whose kernel says that images close in pixel space "
            "are alike, reaches {svc_small} with {small}. The textbook's ViT beat the best convolutional networks "
            "only after 303 million labelled images.").format(
            small=curve["sizes"][0], large=curve["sizes"][-1], n=curve["test_n"],
            acc_small=f"{curve['vit_test_acc'][0]:.1%}", acc_large=f"{curve['vit_test_acc'][-1]:.1%}",
            svc_small=f"{curve['svc_test_acc'][0]:.1%}"))
    st.subheader(_("ImageNet, as the textbook cites it"))
    st.table([{_("model"): m, _("how it reads the image"): _(how), _("top-1 error"): err} for m, how, err in CITED])
    st.caption(_("Cited from the course textbook (section 12.10), not measured here; lower is better."))
