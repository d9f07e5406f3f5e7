"""Architecture: what a shipped model is made of, drawn from its own config (encoder and decoder blocks,
N, d_model, heads, d_ff, where the LayerNorm sits), its numbers, its parameters counted from the loaded
weights, and for every block the page that teaches it."""
import streamlit as st

from app_pages import _export, _pages, _present, _resources, _url
from app_pages._markup import md
from i18n import N_, _
from model import kinds
from model.analysis import published
from viz.architecture import ACTIVATIONS, LEGEND, architecture_blocks, columns, plot_architecture, taught_on
from viz.slide import caption_line

KINDS = {"encoder": N_("encoder"), "decoder": N_("decoder (GPT-style)"), "encoder_decoder": N_("encoder-decoder")}
IMAGE_NAMES = {"vit": "ViT", "swin": "Swin", "davit": "DaViT"}          # names, the same in every language
NORMS = {"pre": N_("pre-LN: x + sublayer(LN(x))"), "post": N_("post-LN: LN(x + sublayer(x))")}
POSITIONS = {"sinusoidal": N_("sinusoidal"), "learned": N_("learned"), "relative": N_("relative"), "none": N_("none")}


def kind_of(meta: dict) -> str:
    """A short name of the architecture, from the kind its checkpoint states (model.kinds)."""
    kind = meta.get("kind")
    if kind in ("encoder", "coref_encoder", "sparse_encoder", "finetuned"):
        return _(KINDS["encoder"]) + (_(" · sparse") if kind == "sparse_encoder" else "")
    if kind in KINDS:
        return _(KINDS[kind])
    if kind == "imagegpt":
        return _("ImageGPT (a decoder over pixels)")
    return IMAGE_NAMES.get(kind) or _("unknown")


def stage_numbers(c: dict, meta: dict) -> list[tuple[str, str]]:
    """(quantity, value) rows of a hierarchical image model (Swin, DaViT): one value per stage where it varies."""
    davit = meta["kind"] == "davit"
    S, g = len(c["depths"]), c["image_size"] // c["patch_size"]
    per = " / ".join
    return [(_("Architecture"), kind_of(meta)), (_("Stages"), str(S)),
            (_("Blocks per stage") if not davit else _("Spatial + channel pairs per stage"),
             per(map(str, c["depths"]))),
            (_("Heads per stage") if not davit else _("Heads (and channel groups) per stage"),
             per(map(str, c["heads"]))),
            (_("Width C per stage"), per(str(c["d_model"] << s) for s in range(S))),
            (_("Tokens per stage"), per(f"{g >> s}×{g >> s}" for s in range(S))),
            (_("Window"), _("{w}×{w} tokens").format(w=c["window"])
             + ("" if davit else _(", shifted every other block"))),
            (_("d_ff (feed-forward width)"), f"{c['mlp_ratio']} × C"), (_("Activation"), "GELU"),
            (_("Norm"), _(NORMS["pre"])),
            (_("Positions"), _("a depthwise 3×3 convolution before each block") if davit else
             _("a learned bias per head and relative offset inside each window")),
            (_("Input"), _("{size}×{size} image → {side}×{side} patches of {p}×{p}").format(
                size=c["image_size"], side=g, p=c["patch_size"])),
            (_("Classes"), str(c["n_classes"]))]


def numbers(c: dict, meta: dict) -> list[tuple[str, str]]:
    """(quantity, value) rows for the table, every value read from the config."""
    if meta["kind"] in kinds.HIERARCHICAL:
        return stage_numbers(c, meta)
    d, h = c.get("d_model"), c.get("n_heads")
    image = meta["kind"] in (*kinds.IMAGE_CLASSIFIERS, "imagegpt")
    rows = [(_("Architecture"), kind_of(meta))]
    if c.get("kind") == "encoder_decoder":
        rows += [(_("Encoder layers N"), c.get("n_layers")),
                 (_("Decoder layers N"), c.get("n_dec_layers") or c.get("n_layers"))]
    else:
        rows += [(_("Layers N"), c.get("n_layers"))]
    norm = NORMS.get(c.get("norm"))
    rows += [(_("Heads h"), h), ("d_model", d),
             ("d_k = d_model / h", f"{d} / {h} = {d // h}" if isinstance(d, int) and isinstance(h, int) and h else "—"),
             (_("d_ff (feed-forward width)"), c.get("d_ff")),
             (_("Activation"), "GELU" if image else ACTIVATIONS.get(c.get("activation"), str(c.get("activation")))),
             (_("Norm"), _(norm) if norm else "—")]
    if meta["kind"] == "imagegpt":
        rows += [(_("Positions"), _("learned, {n} (one per pixel)").format(n=c["image_size"] ** 2)),
                 (_("Input"), _("{size}×{size} pixels in {levels} grey levels, raster order").format(
                     size=c["image_size"], levels=c["levels"])),
                 (_("Vocabulary V"), _("{levels} levels + a start token").format(levels=c["levels"]))]
    elif image:
        side = c["image_size"] // c["patch_size"]
        rows += [(_("Positions"), _("learned, {n} (patches + <cls>)").format(n=side * side + 1)),
                 (_("Input"), _("{size}×{size} image → {side}×{side} patches of {p}×{p}").format(
                     size=c["image_size"], side=side, p=c["patch_size"])),
                 (_("Classes"), c.get("n_classes"))]
    else:
        pos = c.get("pos_encoding", "—")
        vocab = f"{c.get('vocab_size', 0):,}"
        if c.get("tgt_vocab_size"):
            vocab = _("{source} source · {target:,} target").format(source=vocab, target=c["tgt_vocab_size"])
        rows += [(_("Positions"), _("{kind}, up to {n} tokens").format(
                     kind=_(POSITIONS[pos]) if pos in POSITIONS else pos, n=c.get("max_len", "—"))),
                 (_("Vocabulary V"), vocab)]
    return [(q, "—" if v is None else str(v)) for q, v in rows]


def short_count(n: int | None) -> str:
    """110_000_000 -> "110M", 175_000_000_000 -> "175B" (None -> "—")."""
    if n is None:
        return "—"
    for size, unit in ((10**9, "B"), (10**6, "M"), (10**3, "k")):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(n)


def published_rows(name: str, c: dict, n_params: int) -> list[dict]:
    """This model beside the published ones the course texts cite (model.analysis.published), one row each."""
    def row(model, layers, d, h, d_ff, vocab, context, params, source):
        return {_("model"): model, _("layers"): layers, "d_model": f"{d:,}", _("heads h"): h,
                "d_k": f"{d // h:,}", "d_ff": "—" if d_ff is None else f"{d_ff:,}",
                _("vocabulary |V|"): "—" if vocab is None else f"{vocab:,}",
                _("context"): "—" if context is None else f"{context:,}", _("parameters"): short_count(params),
                _("cited from"): source}
    layers = str(c["n_layers"]) + (f" + {c['n_dec_layers']}" if c.get("n_dec_layers") else "")
    rows = [row(name, layers, c["d_model"], c["n_heads"], c.get("d_ff"), c.get("vocab_size"), c.get("max_len"),
                n_params, _("this model, counted"))]
    for m in published.MODELS:
        rows.append(row(_(m.name), f"{m.layers} + {m.decoder_layers}" if m.decoder_layers else str(m.layers),
                        m.d_model, m.heads, m.d_ff, m.vocab, m.context, m.params, _(m.source)))
    return rows


def published_section(name: str, c: dict, n_params: int):
    """The sizes a lecturer cites (BERT, GPT-3, the tutorial's Transformer) beside this model's."""
    if not {"n_layers", "d_model", "n_heads"} <= set(c):
        return
    st.subheader(_("Beside the models the course texts cite"))
    st.dataframe(published_rows(name, c, n_params), hide_index=True)
    checked = [(m, published.estimate_params(m)) for m in published.MODELS if m.params]
    st.caption(_("Counting the weights from the sizes alone (4·(d² + d) for attention, 2·d·d_ff for the "
                 "feed-forward network, the LayerNorms, the token table) gives {counts}: each within {most} of the "
                 "total its source states.").format(
        counts=_(", ").join(f"{_(m.name)} {short_count(n)}" for m, n in checked),
        most=f"{max(abs(n / m.params - 1) for m, n in checked):.0%}"))


def parts(model) -> list[tuple[str, str, str]]:
    """(top-level module, parameters, share) of the loaded model, largest first."""
    counts: dict[str, int] = {}
    for name, p in model.named_parameters():
        counts[name.split(".")[0]] = counts.get(name.split(".")[0], 0) + p.numel()
    total = sum(counts.values()) or 1
    return [(k, f"{n:,}", f"{n / total:.1%}") for k, n in sorted(counts.items(), key=lambda kv: -kv[1])]


def legend_markdown() -> str:
    """The diagram's "How to read it" (viz.architecture.LEGEND, markup of this app's own) as Markdown."""
    return _(LEGEND).replace("<b>", "**").replace("</b>", "**").replace("<br>", "  \n")


def diagram_section(name: str, meta: dict) -> None:
    """The model's diagram drawn from its config (its legend beside a single stack), or why none is drawn."""
    config = meta["config"]
    if architecture_blocks(config):
        zoom = _present.SCALE if _present.mode() else 1.0        # presenting: the boxes' type grows with the page's
        fit = _present.MAP_HEIGHT if _present.mode() else None           # and the whole diagram fits the screen
        place = _present.main() or st.container()      # presenting: the page's first place
        single = len(columns(config)) == 1             # one stack: the legend beside it, under it on a phone
        if single:
            with place:
                place, legend = st.columns([2.6, 1])
        _export.chart(plot_architecture(config, zoom=zoom, fit=fit, legend=False), key="arch_diagram",
                      main=True, where=place,
                      config={"displayModeBar": False}, name=(name, "architecture"),
                      title=_("{name}: the architecture, drawn from its config").format(name=name),
                      caption=caption_line(name, kind_of(meta)))
        if single:
            legend.markdown(legend_markdown())
        st.caption(_("Each blue name is a link to the page that teaches that block. Shapes on the arrows: T tokens "
                     "(S in the source of an encoder-decoder), each a vector of d_model numbers."))
    else:
        st.info(_("The diagram is not drawn for this architecture ({arch}); its numbers are below.").format(
            arch=md(meta.get("arch", _("unknown")))))


def render():
    st.title(_("Architecture"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.markdown(_(
        "Every shipped model drawn from its **own config**, the way Figure 1 of *Attention Is All You Need* draws "
        "the Transformer: tokens (or patches) become vectors of width d_model, positions are added, then the "
        "same layer repeats N times (attention, then a feed-forward network, each wrapped in a residual "
        "connection and a LayerNorm), and a head turns the last vectors into probabilities. Where the LayerNorm "
        "sits (before the sublayer, **pre-LN**, or after the residual sum, **post-LN**) is read from the config too."))

    metas = _resources.shipped_meta()
    if not metas:
        st.error(_("No model is shipped in assets/. Train one with `python -m model.train <name>`."))
        st.stop()
    names = sorted(metas)
    _url.stale_link("arch_model", names, _("the model"), names[0])
    # the plain name, not a formatted label: bind puts the label in the address (?arch_model=translator)
    name = st.selectbox(_("Model"), names, key="arch_model", bind=_url.BIND, persist_state=_url.KEEP,
                        help=_("Any shipped model, text or image; the page's address keeps the choice."))
    model, meta = _resources.model_or_stop(name)
    config = meta["config"]
    st.caption(_("**{name}**: {kind}, drawn from `{file}`.").format(name=md(name), kind=md(kind_of(meta)),
                                                                    file=f"assets/{name}.json"))
    diagram_section(name, meta)

    n_params = sum(p.numel() for p in model.parameters())
    left, right = st.columns([3, 2])
    with left:
        st.subheader(_("Its numbers"))
        st.metric(_("Parameters (counted from the loaded weights)"), f"{n_params:,}")
        st.table(dict(zip((_("quantity"), _("value")), map(list, zip(*numbers(config, meta))))))
        with st.expander(_("Where the parameters are (top-level modules of the loaded model)")):
            rows = parts(model)
            st.table(dict(zip((_("module"), _("parameters"), _("share")), map(list, zip(*rows)))))
    with right:
        st.subheader(_("Where each block is taught"))
        for page, blocks in taught_on(config).items():
            if page not in _pages.BY_NAME:
                continue
            _name, title, icon, _blurb = _pages.BY_NAME[page]
            st.page_link(_pages.page(page), label=f"**{_(title)}**", icon=icon)
            st.caption(md(", ".join(blocks)))
    published_section(name, config, n_params)
