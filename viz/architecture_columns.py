"""The blocks of a shipped model read from its config, bottom-up, each naming the topic (and so the page) that
teaches it: input → embedding (+ positions) → N × [attention, feed-forward, each with its residual and LayerNorm
before (pre-LN) or after (post-LN) the sublayer] → output head; a second column for an encoder-decoder.
viz.architecture draws them. Config dicts only, plain values out."""
import html
import re
from dataclasses import dataclass, replace

from i18n import N_, _, ngettext

# The page (url path, relative to the app root) that teaches each topic; a page may pass its own.
PAGES = {"tokens": "tokenization", "positions": "positional", "attention": "step_by_step",
         "norm": "step_by_step", "ffn": "step_by_step", "masks": "masks", "cross_attention": "translation",
         "patches": "images", "lm_head": "generation", "translation": "translation"}
ACTIVATIONS = {"relu": "ReLU", "gelu": "GELU"}
CAUSAL = N_("causal mask: token i sees tokens ≤ i")  # a note's name (taught_on) is what comes before ":" or "："
NOTE_NAME = re.compile(r"[:：]")
POSITIONS = {"sinusoidal": N_("+ sinusoidal positions"), "learned": N_("+ learned positions"),
             "rope": N_("+ RoPE positions"), "alibi": N_("+ ALiBi positions"),
             "relative": N_("+ relative positions")}


@dataclass(frozen=True)
class Block:
    """One box. key: unique in a figure (the annotation's name); label links to the page of `topic`; kind picks
    the colour (a "norm" box is one line); lines follow the label, each (text, topic or "" for no link)."""
    key: str
    label: str
    topic: str
    kind: str
    lines: tuple = ()


@dataclass(frozen=True)
class Column:
    """One stack as drawn bottom-up: blocks before the repeated layer, the layer's blocks (units: index of
    each sublayer's first block and of its Add), blocks after it; arrows: the shapes written on the arrows."""
    before: tuple
    layer: tuple
    units: tuple
    after: tuple
    header: str
    shape_in: str
    shape_out: str
    lane: str                        # side of the residual connections: "left" | "right"


def _fmt(n) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


def _header(role: str, n, c: dict) -> str:
    """The container's title (markup; the numbers escaped): which layer, how many, where the norm sits."""
    ln = _("pre-LN") if c.get("norm", "post") == "pre" else _("post-LN")
    title = _("Decoder layer") if role == "Decoder" else _("Encoder layer")
    return f"<b>{title}</b><br>× N = {html.escape(_fmt(n))} · {ln}"


def _sublayers(prefix: str, c: dict, attn: Block, cross: Block | None, act: str) -> tuple[tuple, tuple]:
    """The layer's blocks and residual units with the LayerNorm where the config puts it."""
    d, dff = c["d_model"], c["d_ff"]
    ffn = Block(f"{prefix}.ffn", _("Feed-forward (each position)"), "ffn", "ffn",
                ((f"{d} → {dff} → {d} · {act}", ""),)) if c.get("ffn", True) else None     # attention-only: none
    pre = c.get("norm", "post") == "pre"
    blocks, units = [], []
    for name, sub in (("attn", attn), ("cross", cross), ("ffn", ffn)):
        if sub is None:
            continue
        start = len(blocks)
        if pre:
            blocks += [Block(f"{prefix}.{name}.norm", "LayerNorm", "norm", "norm", ((_("before the sublayer"), ""),)),
                       sub, Block(f"{prefix}.{name}.add", "Add", "norm", "norm", ((_("x + sublayer(LN(x))"), ""),))]
        else:
            blocks += [sub, Block(f"{prefix}.{name}.add", "Add & Norm", "norm", "norm",
                                  ((_("LN(x + sublayer(x))"), ""),))]
        units.append((start, len(blocks) - 1))
    return tuple(blocks), tuple(units)


def _attention(prefix: str, c: dict, label: str, note: tuple = ()) -> Block:
    d, h = c["d_model"], c["n_heads"]
    return Block(f"{prefix}.attn", label, "attention", "attention",
                 ((_("h = {h} heads · d_k = {d} / {h} = {d_k}").format(h=h, d=d, d_k=d // h), ""),) + note)


def _positions(c: dict, rows: int) -> Block:
    kind, d = c.get("pos_encoding", "sinusoidal"), c["d_model"]
    if kind == "none":
        return Block("positions", _("No positional encoding"), "positions", "positions",
                     ((_("attention alone cannot tell word order"), ""),))
    k = c.get("max_offset", 16)
    detail = {"learned": _("a learned {rows} × {d} table, added"),
              "sinusoidal": _("fixed sine/cosine waves, {rows} × {d}, added"),
              "relative": _("a learned bias per head and offset (±{k}), added to the scores")
              }.get(kind, "").format(rows=rows, d=d, k=k)
    label = _(POSITIONS[kind]) if kind in POSITIONS else _("+ {kind} positions").format(kind=kind)
    return Block("positions", label, "positions", "positions", ((detail, ""),) if detail else ())


def _final_norm(prefix: str, c: dict) -> tuple:
    return ((Block(f"{prefix}.final_norm", _("Final LayerNorm"), "norm", "norm", ((_("after the last layer"), ""),)),)
            if c.get("norm", "post") == "pre" else ())


def _text_columns(c: dict) -> list[Column]:
    kind, d, V, T = c["kind"], c["d_model"], c["vocab_size"], c["max_len"]
    act, n = ACTIVATIONS.get(c.get("activation", "relu"), str(c.get("activation"))), c["n_layers"]
    src = "S" if kind == "encoder_decoder" else "T"
    ids = _("{side} ≤ {T} ids · vocabulary V = {V}")
    before = (Block("input", _("Source tokens") if src == "S" else _("Input tokens"), "tokens", "input",
                    ((ids.format(side=src, T=T, V=_fmt(V)), ""),)),
              Block("embed", _("Token embedding"), "tokens", "embed", ((f"V × d_model = {_fmt(V)} × {d}", ""),)),
              _positions(c, T))
    embed_norm = Block("embed_norm", "LayerNorm", "norm", "norm", ((_("on the embeddings (BERT)"), ""),))
    if c.get("type_vocab_size"):
        before += (Block("types", _("+ token type embedding"), "tokens", "embed",
                         ((_("{n} × {d}; one text is all type 0").format(n=c["type_vocab_size"], d=d), ""),)),)
    if c.get("embed_norm"):
        before += (embed_norm,)
    note = ()
    if kind == "decoder":
        note = ((_(CAUSAL), "masks"),)
    elif isinstance(c.get("sparse"), dict):
        s = c["sparse"]
        g, dil = s.get("n_global", 0), s.get("dilation", 1)
        note = ((_("sparse mask: keys within ±{width}").format(width=s.get("width"))
                 + (_(" every {n}th").format(n=dil) if dil != 1 else "")
                 + (ngettext(", {n} extra global token ([CLS] in front)", ", {n} extra global tokens (in front)",
                             g).format(n=g) if g else ""), "masks"),)
    label = _("Masked multi-head self-attention") if kind == "decoder" else _("Multi-head self-attention")
    layer, units = _sublayers("enc", c, _attention("enc", c, label, note), None, act)
    if kind != "encoder_decoder" and not c.get("lm_head", True):          # a sentence encoder: no output layer
        header = _header("Encoder", n, c)
        return [Column(before, layer, units, _final_norm("enc", c), header, f"T × {d}", f"T × {d}", "left")]
    if kind != "encoder_decoder":
        head = Block("head", _("LM head (next token)") if kind == "decoder" else _("LM head (masked tokens)"),
                     "lm_head", "head", ((_("linear {d} → V = {V}, softmax").format(d=d, V=_fmt(V)), ""),))
        header = _header("Decoder" if kind == "decoder" else "Encoder", n, c)
        return [Column(before, layer, units, _final_norm("enc", c) + (head,), header, f"T × {d}",
                       f"T × {_fmt(V)}", "left")]
    Vt, n_dec = c.get("tgt_vocab_size") or V, c.get("n_dec_layers") or n
    enc = Column(before, layer, units, _final_norm("enc", c), _header("Encoder", n, c),
                 f"S × {d}", f"S × {d}", "left")
    dec_before = (Block("tgt_input", _("Target tokens (shifted right)"), "tokens", "input",
                        ((ids.format(side="T", T=T, V=_fmt(Vt)), ""),)),
                  Block("tgt_embed", _("Token embedding"), "tokens", "embed",
                        ((f"V × d_model = {_fmt(Vt)} × {d}", ""),)),
                  replace(_positions(c, T), key="tgt_positions"))
    if c.get("embed_norm"):                              # one Embedder class for both sides
        dec_before += (replace(embed_norm, key="tgt_embed_norm"),)
    attn = _attention("dec", c, _("Masked multi-head self-attention"), ((_(CAUSAL), "masks"),))
    cross = Block("dec.cross", _("Cross-attention"), "cross_attention", "attention",
                  ((_("h = {h} heads · d_k = {d_k}").format(h=c["n_heads"], d_k=d // c["n_heads"]), ""),
                   (_("Q: decoder · K, V: encoder"), "")))
    dlayer, dunits = _sublayers("dec", c, attn, cross, act)
    head = Block("tgt_head", _("Linear + softmax"), "translation", "head",
                 ((_("{d} → V = {V} target tokens").format(d=d, V=_fmt(Vt)), ""),))
    dec = Column(dec_before, dlayer, dunits, _final_norm("dec", c) + (head,), _header("Decoder", n_dec, c),
                 f"T × {d}", f"T × {_fmt(Vt)}", "right")
    return [enc, dec]


def _image_columns(c: dict) -> list[Column]:
    """ViT / Swin (model/architectures/vit.py): patches, a learned <cls>, learned positions, GELU, pre-LN by default."""
    size, ch, p, d, n = c["image_size"], c.get("channels", 3), c["patch_size"], c["d_model"], c["n_layers"]
    N, window, classes = (size // p) ** 2, c.get("window", 0), c["n_classes"]
    pixels = ngettext("{size}×{size} pixels, {ch} channel → {n} patches of {p}×{p}",
                      "{size}×{size} pixels, {ch} channels → {n} patches of {p}×{p}", ch)
    before = (Block("input", _("Image"), "patches", "input", ((pixels.format(size=size, ch=ch, n=N, p=p), ""),)),
              Block("embed", _("Patch embedding + <cls>"), "patches", "embed",
                    ((_("linear {i} → {d} · T = {n} + 1 tokens").format(i=p * p * ch, d=d, n=N), ""),)),
              Block("positions", _(POSITIONS["learned"]), "positions", "positions",
                    ((_("a learned {rows} × {d} table, added").format(rows=N + 1, d=d), ""),)))
    note = ((_("window mask: {w}×{w} patches, shifted on odd layers").format(w=window), "masks"),) if window else ()
    label = _("Windowed multi-head self-attention") if window else _("Multi-head self-attention")
    layer, units = _sublayers("enc", c, _attention("enc", c, label, note), None, "GELU")
    head = Block("head", _("Classifier on <cls>"), "patches", "head",
                 ((_("linear {d} → {classes} classes, softmax").format(d=d, classes=classes), ""),))
    return [Column(before, layer, units, _final_norm("enc", c) + (head,), _header("Encoder", n, c),
                   f"T × {d} (T = {N + 1})", _("{classes} class probabilities").format(classes=classes), "left")]


def columns(config: dict) -> list[Column]:
    """The stacks to draw (one, or encoder and decoder); [] for a config this module does not know."""
    c = config or {}
    try:
        if c.get("kind") in ("encoder", "decoder", "encoder_decoder"):
            return _text_columns(c)
        if {"image_size", "patch_size", "n_classes"} <= set(c):
            return _image_columns(c)
    except (KeyError, TypeError, ZeroDivisionError):
        pass
    return []


def architecture_blocks(config: dict, links: dict | None = None) -> list[tuple[Block, str]]:
    """(block, page path) for every block drawn, bottom-up, encoder first; [] when not drawn."""
    pages = {**PAGES, **(links or {})}
    return [(b, pages[b.topic]) for col in columns(config) for b in col.before + col.layer + col.after]


def taught_on(config: dict, links: dict | None = None) -> dict[str, list[str]]:
    """page path -> the names of the blocks (and mask notes) it teaches, in drawing order, each once."""
    pages, out = {**PAGES, **(links or {})}, {}
    for b, page in architecture_blocks(config, links):
        for name, p in [(b.label, page)] + [(NOTE_NAME.split(t)[0], pages[topic]) for t, topic in b.lines if topic]:
            if name not in out.setdefault(p, []):
                out[p].append(name)
    return out
