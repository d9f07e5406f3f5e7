"""Downloads: all weights as CSV or JSON (exact float32, 9 significant digits round-trip), one head
as a labelled SVG heatmap (small N) and a colormapped PNG (any N)."""
import csv
import html
import io
import json

import numpy as np
from PIL import Image

from .grid import lut, palette_index
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
    """(Nq, Nk) weights -> a standalone SVG with token labels on both axes (every text escaped) and
    each cell's exact weight as its tooltip. Raises ValueError above SVG_MAX_TOKENS."""
    m = np.asarray(matrix, dtype=np.float32)
    nq, nk = m.shape
    if max(nq, nk) > SVG_MAX_TOKENS:
        raise ValueError(f"SVG export is limited to {SVG_MAX_TOKENS} tokens; this head has {max(nq, nk)}")
    pal = lut(colorscale)
    idx = palette_index(m, log)
    left, top = 140, 150 + (24 if title else 0)
    width, height = left + nk * cell + 20, top + nq * cell + 20
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
    parts.append("</svg>")
    return "\n".join(parts)
