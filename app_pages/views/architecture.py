"""Architecture: what a shipped model is made of, drawn from its own config (encoder and decoder blocks,
N, d_model, heads, d_ff, where the LayerNorm sits), its numbers, its parameters counted from the loaded
weights, and for every block the page that teaches it."""
import streamlit as st

from app_pages import _export, _pages, _resources, _url
from app_pages._markup import md
from viz.architecture import ACTIVATIONS, architecture_blocks, plot_architecture, taught_on
from viz.slide import caption_line

KINDS = {"encoder": "encoder", "decoder": "decoder (GPT-style)", "encoder_decoder": "encoder-decoder"}
NORMS = {"pre": "pre-LN: x + sublayer(LN(x))", "post": "post-LN: LN(x + sublayer(x))"}


def kind_of(meta: dict) -> str:
    """A short name of the architecture: the text kind, or ViT / Swin for image models."""
    c = meta.get("config", {})
    if c.get("kind") in KINDS:
        return KINDS[c["kind"]] + (" · sparse" if isinstance(c.get("sparse"), dict) else "")
    if "patch_size" in c:
        return "Swin (windowed ViT)" if c.get("window") else "ViT"
    return str(meta.get("arch", "unknown"))


def numbers(c: dict, meta: dict) -> list[tuple[str, str]]:
    """(quantity, value) rows for the table, every value read from the config."""
    d, h = c.get("d_model"), c.get("n_heads")
    image = "patch_size" in c
    rows = [("Architecture", kind_of(meta))]
    if c.get("kind") == "encoder_decoder":
        rows += [("Encoder layers N", c.get("n_layers")),
                 ("Decoder layers N", c.get("n_dec_layers") or c.get("n_layers"))]
    else:
        rows += [("Layers N", c.get("n_layers"))]
    rows += [("Heads h", h), ("d_model", d),
             ("d_k = d_model / h", f"{d} / {h} = {d // h}" if isinstance(d, int) and isinstance(h, int) and h else "—"),
             ("d_ff (feed-forward width)", c.get("d_ff")),
             ("Activation", "GELU" if image else ACTIVATIONS.get(c.get("activation"), str(c.get("activation")))),
             ("Norm", NORMS.get(c.get("norm"), "—"))]
    if image:
        side = c["image_size"] // c["patch_size"]
        rows += [("Positions", f"learned, {side * side + 1} (patches + <cls>)"),
                 ("Input", f"{c['image_size']}×{c['image_size']} image → {side}×{side} patches of "
                           f"{c['patch_size']}×{c['patch_size']}"),
                 ("Classes", c.get("n_classes"))]
    else:
        rows += [("Positions", f"{c.get('pos_encoding', '—')}, up to {c.get('max_len', '—')} tokens"),
                 ("Vocabulary V", f"{c.get('vocab_size', 0):,}" + (f" source · {c['tgt_vocab_size']:,} target"
                                                                  if c.get("tgt_vocab_size") else ""))]
    return [(q, "—" if v is None else str(v)) for q, v in rows]


def parts(model) -> list[tuple[str, str, str]]:
    """(top-level module, parameters, share) of the loaded model, largest first."""
    counts: dict[str, int] = {}
    for name, p in model.named_parameters():
        counts[name.split(".")[0]] = counts.get(name.split(".")[0], 0) + p.numel()
    total = sum(counts.values()) or 1
    return [(k, f"{n:,}", f"{n / total:.1%}") for k, n in sorted(counts.items(), key=lambda kv: -kv[1])]


def render():
    st.title("Architecture")
    st.markdown(
        "Every shipped model drawn from its **own config**, the way Figure 1 of *Attention Is All You Need* draws "
        "the Transformer: tokens (or patches) become vectors of width d_model, positions are added, then the "
        "same layer repeats N times (attention, then a feed-forward network, each wrapped in a residual "
        "connection and a LayerNorm), and a head turns the last vectors into probabilities. Where the LayerNorm "
        "sits (before the sublayer, **pre-LN**, or after the residual sum, **post-LN**) is read from the config too.")

    metas = _resources.shipped_meta()
    if not metas:
        st.error("No model is shipped in assets/. Train one with `python -m model.train <name>`.")
        st.stop()
    names = sorted(metas)
    _url.stale_link("arch_model", names, "the model", names[0])
    # the plain name, not a formatted label: bind puts the label in the address (?arch_model=translator)
    name = st.selectbox("Model", names, key="arch_model", bind=_url.BIND, persist_state=_url.KEEP,
                        help="Any shipped model, text or image; the page's address keeps the choice.")
    model, meta = _resources.model_or_stop(name)
    config = meta["config"]
    st.caption(f"**{md(name)}**: {md(kind_of(meta))}, drawn from `assets/{name}.json`.")
    links = {p[0].removesuffix(".py"): p for p in _pages.available()}

    if architecture_blocks(config):
        _export.chart(plot_architecture(config), key="arch_diagram", config={"displayModeBar": False},
                      name=(name, "architecture"), title=f"{name}: the architecture, drawn from its config",
                      caption=caption_line(name, kind_of(meta)))
        st.caption("Each blue name is a link to the page that teaches that block. Shapes on the arrows: T tokens "
                   "(S in the source of an encoder-decoder), each a vector of d_model numbers.")
    else:
        st.info(f"The diagram is not drawn for this architecture ({md(meta.get('arch', 'unknown'))}); "
                "its numbers are below.")

    n_params = sum(p.numel() for p in model.parameters())
    left, right = st.columns([3, 2])
    with left:
        st.subheader("Its numbers")
        st.metric("Parameters (counted from the loaded weights)", f"{n_params:,}")
        st.table(dict(zip(("quantity", "value"), map(list, zip(*numbers(config, meta))))))
        with st.expander("Where the parameters are (top-level modules of the loaded model)"):
            rows = parts(model)
            st.table(dict(zip(("module", "parameters", "share"), map(list, zip(*rows)))))
    with right:
        st.subheader("Where each block is taught")
        for page, blocks in taught_on(config).items():
            if page not in links:
                continue
            file, title, icon, _ = links[page]
            st.page_link(f"app_pages/{file}", label=f"**{title}**", icon=icon)
            st.caption(md(", ".join(blocks)))
