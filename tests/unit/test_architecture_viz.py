"""viz/architecture.py draws what the config says: the LayerNorm where `norm` puts it, cross-attention only in
an encoder-decoder, the config's numbers, one link per block, escaped text; and for every shipped model the
norms drawn are the norms its loaded stacks hold."""
import re

import pytest
from torch import nn

from model import checkpoints
from viz.architecture import PAGES, architecture_blocks, columns, plot_architecture, taught_on

TEXT = dict(vocab_size=500, d_model=96, n_heads=6, n_layers=3, d_ff=384, max_len=64, pos_encoding="sinusoidal",
            norm="post", kind="encoder", n_dec_layers=0, tgt_vocab_size=0, activation="relu", dropout=0.0,
            embed_norm=False)
VIT = dict(image_size=12, channels=3, patch_size=4, n_classes=5, d_model=32, n_heads=2, n_layers=2, d_ff=64,
           norm="pre", dropout=0.0, window=0)


def config(**overrides) -> dict:
    return {**TEXT, **overrides}


def notes(fig) -> dict:
    """annotation name -> annotation (boxes are named by their block's key)."""
    return {a.name: a for a in fig.layout.annotations if a.name}


def plain(text: str) -> str:
    """An annotation's text with the markup removed and entities read back."""
    return re.sub(r"<[^>]+>", " ", text).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def layer_order(fig, prefix: str) -> list[str]:
    """Keys of one stack's layer blocks, bottom to top, by where they are drawn."""
    boxes = [a for a in fig.layout.annotations if a.name and a.name.startswith(prefix + ".")
             and not a.name.endswith(("final_norm", "shape_in", "header"))]
    return [a.name for a in sorted(boxes, key=lambda a: a.y)]


def test_post_ln_puts_add_and_norm_after_each_sublayer():
    fig = plot_architecture(config(norm="post"))
    assert layer_order(fig, "enc") == ["enc.attn", "enc.attn.add", "enc.ffn", "enc.ffn.add"]
    boxes = notes(fig)
    assert "Add & Norm" in plain(boxes["enc.attn.add"].text)
    assert "LN(x + sublayer(x))" in plain(boxes["enc.ffn.add"].text)
    assert "enc.final_norm" not in boxes and "post-LN" in plain(boxes["col0.header"].text)


def test_pre_ln_puts_the_layernorm_before_each_sublayer_and_one_after_the_stack():
    fig = plot_architecture(config(norm="pre"))
    assert layer_order(fig, "enc") == ["enc.attn.norm", "enc.attn", "enc.attn.add",
                                       "enc.ffn.norm", "enc.ffn", "enc.ffn.add"]
    boxes = notes(fig)
    assert plain(boxes["enc.attn.norm"].text).split()[0] == "LayerNorm"
    assert "x + sublayer(LN(x))" in plain(boxes["enc.attn.add"].text)
    assert boxes["enc.final_norm"].y > boxes["enc.ffn.add"].y and boxes["head"].y > boxes["enc.final_norm"].y
    assert "pre-LN" in plain(boxes["col0.header"].text)


def test_encoder_decoder_draws_cross_attention_fed_by_the_encoder():
    c = config(kind="encoder_decoder", n_dec_layers=2, tgt_vocab_size=700)
    fig = plot_architecture(c)
    boxes = notes(fig)
    assert layer_order(fig, "dec") == ["dec.attn", "dec.attn.add", "dec.cross", "dec.cross.add",
                                       "dec.ffn", "dec.ffn.add"]
    assert "Cross-attention" in plain(boxes["dec.cross"].text) and "K, V: encoder" in plain(boxes["dec.cross"].text)
    assert "Masked" in plain(boxes["dec.attn"].text) and "causal mask" in plain(boxes["dec.attn"].text)
    assert "× N = 3" in plain(boxes["col0.header"].text) and "× N = 2" in plain(boxes["col1.header"].text)
    assert "V = 700" in plain(boxes["tgt_head"].text) and "= 500 × 96" in plain(boxes["embed"].text)
    assert boxes["dec.cross"].x > 50 > boxes["enc.attn"].x          # decoder right, encoder left
    memory = boxes["memory"]
    assert "S × 96" in plain(memory.text) and "K, V" in plain(memory.text)
    # the arrow from the encoder's output ends at the cross-attention box, at its height
    assert any(a.showarrow and a.y == boxes["dec.cross"].y and a.ax == 50 for a in fig.layout.annotations)
    assert "dec.cross" not in notes(plot_architecture(config(kind="decoder")))
    both = notes(plot_architecture({**c, "embed_norm": True}))      # one Embedder class for both sides
    assert {"embed_norm", "tgt_embed_norm"} <= set(both) and "embed_norm" not in boxes


def test_numbers_come_from_the_config():
    boxes = notes(plot_architecture(config(d_model=96, n_heads=6, d_ff=384, activation="gelu", pos_encoding="learned")))
    assert "h = 6 heads · d_k = 96 / 6 = 16" in plain(boxes["enc.attn"].text)
    assert "96 → 384 → 96 · GELU" in plain(boxes["enc.ffn"].text)
    assert "learned positions" in plain(boxes["positions"].text) and "64 × 96" in plain(boxes["positions"].text)
    assert "500 × 96" in plain(boxes["embed"].text) and "× N = 3" in plain(boxes["col0.header"].text)
    assert plain(boxes["col0.shape_in"].text) == "T × 96" and plain(boxes["shape_out"].text) == "T × 500"


@pytest.mark.parametrize("c, note", [
    (config(kind="decoder"), "causal mask: token i sees tokens ≤ i"),
    (config(norm="pre", sparse=dict(width=8, n_global=1, dilation=1)),
     "sparse mask: keys within ±8, 1 extra global token ([CLS] in front)"),
    (VIT, None),
])
def test_the_attention_box_notes_its_mask(c, note):
    text = plain(notes(plot_architecture(c))["enc.attn"].text)
    if note:
        assert note in text
    else:
        assert "mask" not in text


def test_vit_and_swin_draw_patches_cls_and_classifier():
    vit = notes(plot_architecture(VIT))
    assert "9 patches of 4×4" in plain(vit["input"].text) and "<cls>" in plain(vit["embed"].text)
    assert "10 × 32" in plain(vit["positions"].text)                      # 9 patches + <cls>
    assert "5 classes" in plain(vit["head"].text) and "d_k = 32 / 2 = 16" in plain(vit["enc.attn"].text)
    swin = notes(plot_architecture({**VIT, "image_size": 24, "window": 3}))
    assert "window mask: 3×3 patches" in plain(swin["enc.attn"].text)


@pytest.mark.parametrize("c", [config(), config(norm="pre", embed_norm=True), config(kind="decoder"),
                               config(kind="encoder_decoder", norm="pre"), VIT, {**VIT, "window": 0}])
def test_every_block_links_to_the_page_that_teaches_it(c):
    blocks = architecture_blocks(c)
    assert blocks
    boxes = notes(plot_architecture(c))
    for block, page in blocks:
        assert page == PAGES[block.topic]
        assert f'<a href="{page}"' in boxes[block.key].text, block.key
        assert boxes[block.key].captureevents       # else the plot's drag layer swallows the click
    topics = {b.topic for b, _ in blocks}
    assert {"attention", "positions", "ffn", "norm"} <= topics
    assert ("patches" in topics) == ("patch_size" in c) and ("tokens" in topics) == ("kind" in c)


def test_links_can_be_pointed_elsewhere_and_pages_list_what_they_teach():
    c = config(kind="encoder_decoder")
    assert PAGES["cross_attention"] == "translation" and PAGES["masks"] == "masks"
    fig = plot_architecture(c, links={"cross_attention": "elsewhere"})
    assert '<a href="elsewhere"' in notes(fig)["dec.cross"].text
    taught = taught_on(c)
    assert taught["translation"] == ["Cross-attention", "Linear + softmax"] and taught["masks"] == ["causal mask"]
    assert taught["positional"] == ["+ sinusoidal positions"]


def test_text_is_escaped_title_included():
    fig = plot_architecture(VIT, title="<script>alert(1)</script> & <b>x</b>")
    assert fig.layout.title.text == "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;x&lt;/b&gt;"
    assert "Patch embedding + &lt;cls&gt;" in notes(fig)["embed"].text
    odd = notes(plot_architecture(config(pos_encoding="<img src=x>", n_layers="<i>3</i>")))
    assert "<img" not in odd["positions"].text and "&lt;img src=x&gt;" in odd["positions"].text
    assert "<i>" not in odd["col0.header"].text


def test_an_unknown_config_says_it_is_not_drawn():
    fig = plot_architecture({"hidden": 8, "<x>": 1})
    assert architecture_blocks({"hidden": 8}) == []
    text = notes(fig)["not_drawn"].text
    assert text.startswith("Not drawn for this architecture") and "&lt;x&gt;" in text
    assert not fig.layout.shapes


def test_font_is_readable_and_the_figure_is_static():
    fig = plot_architecture(config(kind="encoder_decoder"))
    assert all(a.font.size is None or a.font.size >= 14 for a in fig.layout.annotations)
    assert fig.layout.font.size >= 14 and fig.layout.xaxis.fixedrange and fig.layout.yaxis.fixedrange
    assert fig.layout.height == pytest.approx(fig.layout.yaxis.range[1] + 10, abs=1)   # 1 y unit = 1 px


@pytest.mark.parametrize("name", checkpoints.shipped())
def test_the_norms_drawn_are_the_norms_each_shipped_model_has(name):
    """An outside check on the drawing: count the LayerNorms inside each loaded stack."""
    model, meta = checkpoints.load(name)
    if not hasattr(model, "encoder"):      # Swin, DaViT, ImageGPT: the page lists their numbers, draws no stack
        assert columns(meta["config"]) == []
        return
    stacks = [model.encoder] + ([model.decoder] if hasattr(model, "decoder") else [])
    cols = columns(meta["config"])
    assert len(cols) == len(stacks)
    for col, stack in zip(cols, stacks):
        per_layer = sum(b.label in ("LayerNorm", "Add & Norm") for b in col.layer)
        final = sum(b.key.endswith("final_norm") for b in col.after)
        assert sum(isinstance(m, nn.LayerNorm) for m in stack.modules()) == len(stack.layers) * per_layer + final
        assert isinstance(stack.final_norm, nn.LayerNorm) == bool(final)


def test_zoom_scales_every_height_and_type_size_and_keeps_the_widths():
    """Presenting zooms the drawing: boxes, arrows, lines and type ×1.6, each x where it was."""
    plain_fig, big = plot_architecture(config(norm="pre")), plot_architecture(config(norm="pre"), zoom=1.6)
    assert big.layout.height - 10 == pytest.approx((plain_fig.layout.height - 10) * 1.6, abs=1)
    assert big.layout.yaxis.range[1] == pytest.approx(plain_fig.layout.yaxis.range[1] * 1.6)
    for a, b in zip(plain_fig.layout.annotations, big.layout.annotations):
        assert (b.x, b.ax) == (a.x, a.ax) and b.y == pytest.approx(a.y * 1.6)
        assert b.ay is None and a.ay is None or b.ay == pytest.approx(a.ay * 1.6)
        assert a.font.size is None or b.font.size == pytest.approx(a.font.size * 1.6)
    for a, b in zip(plain_fig.layout.shapes, big.layout.shapes):
        if a.type == "rect":
            assert (b.x0, b.x1, b.y0, b.y1) == pytest.approx((a.x0, a.x1, a.y0 * 1.6, a.y1 * 1.6))
        else:
            pa = [float(v) for p in re.findall(r"[\d.-]+,[\d.-]+", a.path) for v in p.split(",")]
            pb = [float(v) for p in re.findall(r"[\d.-]+,[\d.-]+", b.path) for v in p.split(",")]
            assert pb[0::2] == pa[0::2] and pb[1::2] == pytest.approx([y * 1.6 for y in pa[1::2]], rel=1e-5)
