"""Downloads: all weights as CSV or JSON (exact float32, 9 significant digits round-trip), one head
as a labelled SVG heatmap (small N) and a colormapped PNG (any N)."""
import csv
import html
import io
import json

import numpy as np
from PIL import Image

from i18n import _

from .grid import log_ticks, lut, palette_index, to_unit
from .theme import WEIGHT_SCALE

SVG_MAX_TOKENS = 160       # above this an SVG of N² rectangles gets too large; offer the PNG
EXACT = "%.9g"             # 9 significant digits round-trip any float32


def _rows(weights: np.ndarray) -> list[str]:
    """(L, H, N, N) -> L·H·N strings, each one query row "w0,w1,…" formatted EXACT."""
    flat = weights.reshape(-1, weights.shape[-1]).astype(np.float32)
    buf = io.StringIO()
    np.savetxt(buf, flat, fmt=EXACT, delimiter=",")
    return buf.getvalue().splitlines()


def weights_csv(weights: np.ndarray, tokens: list[str]) -> bytes:
    """One line per (layer, head, query): layer, head, query, query_token, then one column per key,
    headed "<key index>:<token>". weights (L, H, N, N)."""
    L, H, n, _ = weights.shape
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["layer", "head", "query", "query_token"] + [f"{j}:{t}" for j, t in enumerate(tokens)])
    token_cells = []
    for t in tokens:
        cell = io.StringIO()
        csv.writer(cell, lineterminator="").writerow([t])
        token_cells.append(cell.getvalue())
    for r, line in enumerate(_rows(weights)):
        layer, rest = divmod(r, H * n)
        head, query = divmod(rest, n)
        out.write(f"{layer},{head},{query},{token_cells[query]},{line}\n")
    return out.getvalue().encode()


def weights_json(weights: np.ndarray, tokens: list[str], *, model: str, notices=()) -> bytes:
    """{"model", "tokens", "shape": [L, H, N, N], "layout", "notices", "weights": nested lists}."""
    L, H, n, _ = weights.shape
    head = {"model": model, "tokens": list(tokens), "shape": [L, H, n, n],
            "layout": "weights[layer][head][query][key]; each query row sums to 1", "notices": list(notices)}
    rows = _rows(weights)
    heads = []
    for lh in range(L * H):
        heads.append("[" + ",".join(f"[{r}]" for r in rows[lh * n:(lh + 1) * n]) + "]")
    layers = ["[" + ",".join(heads[lay * H:(lay + 1) * H]) + "]" for lay in range(L)]
    text = json.dumps(head, ensure_ascii=False)[:-1] + ', "weights": [' + ",".join(layers) + "]}"
    return text.encode()


def heatmap_png(matrix: np.ndarray, *, log: bool = False, scale: int | None = None,
                colorscale: str = WEIGHT_SCALE) -> bytes:
    """(Nq, Nk) weights -> palette PNG, each weight a scale × scale block (default: ~512 px wide)."""
    m = np.asarray(matrix, dtype=np.float32)
    scale = scale or max(1, 512 // max(m.shape))
    idx = np.repeat(np.repeat(palette_index(m, log), scale, 0), scale, 1)
    img = Image.fromarray(idx, mode="P")
    img.putpalette(lut(colorscale).tobytes())
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def heatmap_svg(matrix: np.ndarray, *, q_labels, k_labels, title: str = "", log: bool = False,
                cell: int = 16, colorscale: str = WEIGHT_SCALE) -> str:
    """(Nq, Nk) weights -> a standalone SVG with token labels on both axes (every text escaped), each cell's
    exact weight as its tooltip and a colour bar (ticked by decade when log). Raises ValueError above SVG_MAX_TOKENS."""
    m = np.asarray(matrix, dtype=np.float32)
    nq, nk = m.shape
    if max(nq, nk) > SVG_MAX_TOKENS:
        raise ValueError(f"SVG export is limited to {SVG_MAX_TOKENS} tokens; this head has {max(nq, nk)}")
    pal = lut(colorscale)
    idx = palette_index(m, log)
    left, top = 140, 150 + (24 if title else 0)
    bar_x, bar_h = left + nk * cell + 24, max(nq * cell, 160)
    width, height = bar_x + 90, top + max(nq * cell, bar_h) + 20
    esc = lambda s: html.escape(str(s), quote=True)  # noqa: E731
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="Helvetica, Arial, sans-serif" font-size="{max(8, cell - 5)}">',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        parts.append(f'<text x="10" y="20" font-size="16">{esc(title)}</text>')
    for j, t in enumerate(k_labels):
        x, y = left + j * cell + cell * 0.7, top - 6
        parts.append(f'<text transform="translate({x:.1f},{y}) rotate(-60)">{esc(t)} ·{j}</text>')
    for i, t in enumerate(q_labels):
        parts.append(f'<text x="{left - 6}" y="{top + i * cell + cell * 0.75:.1f}" text-anchor="end">'
                     f'{esc(t)} ·{i}</text>')
        for j in range(nk):
            r, g, b = pal[idx[i, j]]
            parts.append(f'<rect x="{left + j * cell}" y="{top + i * cell}" width="{cell}" height="{cell}" '
                         f'fill="#{r:02x}{g:02x}{b:02x}"><title>{EXACT % m[i, j]}</title></rect>')
    parts += _colour_bar(bar_x, top, bar_h, log, pal)
    parts.append("</svg>")
    return "\n".join(parts)


def _colour_bar(x: float, top: float, height: float, log: bool, pal: np.ndarray) -> list[str]:
    """SVG elements of a vertical colour bar, weight 1 at the top: a gradient through the palette (a stop every
    1/64 of the scale, each the colour a cell at that point of the scale gets) and ticks labelled by the weight
    (each decade when log)."""
    stops = [f'<stop offset="{1 - k / 64:.6f}" stop-color="#{r:02x}{g:02x}{b:02x}"/>'
             for k in range(64, -1, -1) for r, g, b in [pal[int(np.rint(k / 64 * 254))]]]     # offsets rising
    name = _("weight (log)") if log else _("weight")
    parts = [f'<text x="{x}" y="{top - 10}" font-size="12">{html.escape(name)}</text>',
             '<defs><linearGradient id="weight_bar" x1="0" y1="0" x2="0" y2="1">' + "".join(stops) +
             '</linearGradient></defs>',
             f'<rect x="{x}" y="{top}" width="14" height="{height}" fill="url(#weight_bar)"/>']
    weights = [float(t) for t in log_ticks()["ticktext"]] if log else [0.0, 0.25, 0.5, 0.75, 1.0]
    for w in weights:
        y = top + (1 - float(to_unit(np.array([w]), log)[0])) * height
        parts.append(f'<line x1="{x + 14}" x2="{x + 18}" y1="{y:.3f}" y2="{y:.3f}" stroke="#444"/>')
        parts.append(f'<text class="tick" data-weight="{w:g}" x="{x + 21}" y="{y + 4:.3f}" font-size="11">'
                     f'{w:g}</text>')
    return parts
