"""The architecture of a shipped model drawn from its own config, in the manner of Figure 1 of Vaswani et al.
2017: input → embedding (+ positions) → N × [attention, feed-forward, each with its residual and LayerNorm
placed before (pre-LN) or after (post-LN) the sublayer] → output head. Every block names the page that teaches
it (an HTML link inside the figure; `architecture_blocks` gives the same list to a page).

Config dicts only: `ModelConfig.to_dict()` (plus "sparse" for the sliding-window encoder) or a ViT/Swin
config (image_size, patch_size, n_classes, window). Plain values in, a Plotly figure out."""
import html
import re
from dataclasses import dataclass, replace

import plotly.graph_objects as go

from i18n import N_, _, ngettext

from .grid import layout

# The page (url path, relative to the app root) that teaches each topic; a page may pass its own.
PAGES = {"tokens": "tokenization", "positions": "positional", "attention": "step_by_step",
         "norm": "step_by_step", "ffn": "step_by_step", "masks": "masks", "cross_attention": "translation",
         "patches": "images", "lm_head": "generation", "translation": "translation"}
# Figure 1 of the paper: the colour of each kind of block.
COLOURS = {"input": "#ffffff", "embed": "#fad4d8", "positions": "#e9e3f5", "attention": "#fce0b4",
           "norm": "#f2f3c1", "ffn": "#c7e8f5", "head": "#dcdff0"}
LINK_COLOUR = "#0b4f9c"
ACTIVATIONS = {"relu": "ReLU", "gelu": "GELU"}
CAUSAL = N_("causal mask: token i sees tokens ≤ i")  # a note's name (taught_on) is what comes before ":" or "："
NOTE_NAME = re.compile(r"[:：]")
POSITIONS = {"sinusoidal": N_("+ sinusoidal positions"), "learned": N_("+ learned positions"),
             "rope": N_("+ RoPE positions"), "alibi": N_("+ ALiBi positions"),
             "relative": N_("+ relative positions")}
LINE_HEIGHT, PAD, GAP, INNER_GAP, HEADER = 18, 7, 26, 16, 42     # pixels (1 y unit = 1 px)


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


# ---- drawing --------------------------------------------------------------------------------------------------
LANE, EDGE = 5.0, 1.5          # x units (percent of the width): residual lane, inner margin of the container


def _link(text: str, href: str, bold: bool = False) -> str:
    a = (f'<a href="{html.escape(href)}" target="_self" style="color:{LINK_COLOUR}">'
         f"{html.escape(text, quote=False)}</a>")
    return f"<b>{a}</b>" if bold else a


def _box_text(b: Block, pages: dict) -> str:
    lines = [_link(b.label, pages[b.topic], bold=True)]
    lines += [_link(t, pages[topic]) if topic else html.escape(t, quote=False) for t, topic in b.lines]
    return (" · " if b.kind == "norm" else "<br>").join(lines)   # norms fit one line


def _height(b: Block) -> int:
    return 2 * PAD + LINE_HEIGHT * (1 if b.kind == "norm" else 1 + len(b.lines))


class _Canvas:
    """Shapes and annotations in data units: x in percent of the width, y in pixels from the bottom."""

    def __init__(self, pages: dict):
        self.pages, self.shapes, self.notes = pages, [], []

    def box(self, b: Block, x0: float, x1: float, y: float) -> float:
        """Draws b with its bottom at y; returns its top."""
        top = y + _height(b)
        self.shapes.append(dict(type="rect", x0=x0, x1=x1, y0=y, y1=top, fillcolor=COLOURS[b.kind],
                                line=dict(color="#555", width=1.2), layer="below"))
        self.notes.append(dict(x=(x0 + x1) / 2, y=(y + top) / 2, text=_box_text(b, self.pages), showarrow=False,
                               name=b.key, align="center", font=dict(size=14, color="#222"),
                               captureevents=True))          # else the plot's drag layer takes the click
        return top

    def arrow(self, x0, y0, x1, y1, label: str = "", name: str = "", label_y: float | None = None):
        self.notes.append(dict(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="",
                               showarrow=True, arrowhead=2, arrowsize=1.2, arrowwidth=1.5, arrowcolor="#444"))
        if label:
            self.text((x0 + x1) / 2 + 0.8, (y0 + y1) / 2 if label_y is None else label_y, label, name=name,
                      xanchor="left")

    def line(self, points):
        path = "M " + " L ".join(f"{x},{y}" for x, y in points)
        self.shapes.append(dict(type="path", path=path, line=dict(color="#444", width=1.5)))

    def text(self, x, y, text: str, name: str = "", raw: bool = False, color: str = "#333", **kw):
        """raw: text is markup this module wrote; anything else is escaped."""
        self.notes.append(dict(x=x, y=y, text=text if raw else html.escape(text, quote=False), showarrow=False,
                               name=name, font=dict(size=14, color=color), **kw))


def _draw_column(cv: _Canvas, col: Column, x0: float, x1: float, name: str) -> dict:
    """Draws one stack in [x0, x1] from the bottom. Returns at (key -> (bottom, top)), out (top of the last
    block), exit (above the container), cx and the boxes' x span."""
    left = col.lane == "left"
    bx0, bx1 = (x0 + LANE, x1 - EDGE) if left else (x0 + EDGE, x1 - LANE)
    cx, lane_x = (bx0 + bx1) / 2, (x0 + LANE / 2 if left else x1 - LANE / 2)
    at, state = {}, dict(y=8.0, below=None)

    def place(b: Block, bottom: float, label: str = "", label_y: float | None = None):
        if state["below"] is not None:
            cv.arrow(cx, state["below"], cx, bottom, label, f"{name}.shape_in" if label else "", label_y)
        top = cv.box(b, bx0, bx1, bottom)
        at[b.key] = (bottom, top)
        state.update(y=top, below=top)

    for i, b in enumerate(col.before):
        place(b, state["y"] + (GAP if i else 0))
    bottom = state["y"] + GAP                            # the container; the shape written below its edge
    for i, b in enumerate(col.layer):
        place(b, bottom + 14 if i == 0 else state["y"] + INNER_GAP, col.shape_in if i == 0 else "",
              (state["y"] + bottom) / 2)
    top = state["y"] + 8 + HEADER
    cv.shapes.insert(0, dict(type="rect", x0=x0, x1=x1, y0=bottom, y1=top, fillcolor="#f3f3f3",
                             line=dict(color="#999", width=1.5), layer="below"))
    cv.text(x0 + 1 if left else x1 - 1, top - 4, col.header, name=f"{name}.header", raw=True, color="#111",
            xanchor="left" if left else "right", yanchor="top", align="left" if left else "right")
    for start, add in col.units:                         # residual: around the sublayer into its Add
        branch = at[col.layer[start].key][0] - (INNER_GAP / 2 if start else 7)
        add_y = sum(at[col.layer[add].key]) / 2
        cv.line([(cx, branch), (lane_x, branch), (lane_x, add_y)])
        cv.arrow(lane_x, add_y, bx0 if left else bx1, add_y)
    for i, b in enumerate(col.after):
        place(b, (top + GAP * 0.7) if i == 0 else state["y"] + GAP)
    return dict(at=at, out=state["below"], exit=max(state["y"], top), cx=cx, bx=(bx0, bx1))


def _zoomed(cv: _Canvas, k: float) -> None:
    """Every height and type size of the drawing ×k (y is in pixels; x, in percent of the width, stays)."""
    for s in cv.shapes:
        for key in ("y0", "y1"):
            if key in s:
                s[key] *= k
        if s["type"] == "path":
            s["path"] = re.sub(r"(-?[\d.]+),(-?[\d.]+)", lambda m: f"{m[1]},{float(m[2]) * k:g}", s["path"])
    for n in cv.notes:
        for key in ("y", "ay"):
            if key in n and n[key] is not None:
                n[key] *= k
        if "font" in n:
            n["font"] = {**n["font"], "size": n["font"]["size"] * k}


def plot_architecture(config: dict, *, title: str | None = None, links: dict | None = None,
                      zoom: float = 1.0) -> go.Figure:
    """The model of `config` as blocks and arrows, every block's name a link to the page that teaches it.

    config: ModelConfig.to_dict() (+ "sparse") or a ViT/Swin config. links: topic -> page path, over PAGES.
    zoom: the type and every height ×zoom (presenting). A config this module does not know gives a figure saying
    so. Text is HTML-escaped (title included)."""
    pages = {**PAGES, **(links or {})}
    title = html.escape(title, quote=False) if title else None
    cols = columns(config)
    axes = dict(xaxis=dict(visible=False, range=[0, 100], fixedrange=True))
    if not cols:
        keys = ", ".join(sorted(map(str, config or {})))
        cv = _Canvas(pages)
        cv.text(50, 50, _("Not drawn for this architecture (config keys: {keys}).").format(keys=keys or _("none")),
                name="not_drawn")
        return go.Figure(layout=layout(title, 140, annotations=cv.notes, **axes,
                                       yaxis=dict(visible=False, range=[0, 100], fixedrange=True)))
    cv = _Canvas(pages)
    spans = [(12.0, 70.0)] if len(cols) == 1 else [(1.0, 43.0), (57.0, 99.0)]
    drawn = [_draw_column(cv, col, x0, x1, f"col{i}") for i, (col, (x0, x1)) in enumerate(zip(cols, spans))]
    last = drawn[-1]                                     # the stack with the output head
    cv.arrow(last["cx"], last["out"], last["cx"], last["out"] + 36, cols[-1].shape_out, "shape_out")
    top = max(d["exit"] for d in drawn) + 44
    if len(cols) == 2:                                   # the encoder's output: K and V of every cross-attention
        enc, dec = drawn
        cross_y, y_m = sum(dec["at"]["dec.cross"]) / 2, enc["exit"] + 16
        cv.line([(enc["cx"], enc["out"]), (enc["cx"], y_m), (50, y_m), (50, cross_y)])
        cv.arrow(50, cross_y, dec["bx"][0], cross_y)
        cv.text(49, y_m + 3, _("encoder output {shape} → K, V").format(shape=cols[0].shape_out), name="memory",
                xanchor="right", yanchor="bottom")
    else:
        cv.text(73, top - 10, _(LEGEND), name="legend", raw=True, xanchor="left", yanchor="top", align="left")
    if zoom != 1.0:
        _zoomed(cv, zoom)
        top *= zoom
    return go.Figure(layout=layout(title, int(top) + (50 if title else 10), shapes=cv.shapes, annotations=cv.notes,
                                   dragmode=False, margin=dict(l=10, r=10, t=50 if title else 10, b=0), **axes,
                                   yaxis=dict(visible=False, range=[0, top], fixedrange=True)))


LEGEND = N_("<b>How to read it</b><br>Each blue name opens<br>the page that teaches it.<br><br>"
            "T: tokens in the input<br>h heads, each of size<br>d_k = d_model / h<br><br>"
            "N ×: the layer repeats N<br>times, each copy with<br>its own weights")
