"""The logit lens as one map (nostalgebraist 2020): rows are the residual stream after the embeddings and after each
layer, columns the prompt's positions; each cell names the top next token read there through the final norm and the
unembedding, coloured by its probability. numpy + labels in, Plotly out."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _, ngettext

from .theme import WEIGHT_SCALE, style

ROW_PX = 62                  # height of one row of cells
CELL_CHARS_PX = 7.2          # about how wide one character of the cell text is at font size 12
DARK_CELL = 0.55             # from this probability on, a cell of the blue scale is dark enough for light text
LIGHT_TEXT, DARK_TEXT = "white", "#222222"


def _esc(t) -> str:
    return html.escape(str(t), quote=False)


def column_labels(tokens, positions) -> list[str]:
    """The x labels: each token with its position ("␣cat ·3"), escaped, so a repeated token keeps its own column."""
    return [f"{_esc(t)} ·{int(p)}" for t, p in zip(tokens, positions)]


def cell_font(texts, n_columns: int, width_px: float = 700.0) -> int:
    """A font size (9–13) at which the longest cell text about fits its cell when the map is width_px wide."""
    longest = max((len(str(t)) for row in texts for t in row), default=1)
    fits = (width_px / max(n_columns, 1)) / max(longest, 1) / CELL_CHARS_PX * 12
    return int(np.clip(np.floor(fits), 9, 13))


def plot_logit_lens(prob: np.ndarray, *, top_tokens, final_rank: np.ndarray, row_labels, tokens, final_tokens,
                    positions=None, title: str | None = None, marked=None) -> go.Figure:
    """prob: (R, T) the top next token's probability in each row (the embeddings, then after each layer) and
    position, the heatmap (trace 0); top_tokens: R rows of T strings, written in the cells by a text trace (trace 1,
    its customdata row by row); final_rank: (R, T) the rank in that row of the
    token the model finally predicts (0 = top); row_labels: R strings; tokens: T strings, the prompt's tokens along
    the bottom; final_tokens: T strings, the model's final prediction at each position; positions: T ints (default
    0 … T − 1); marked: (row, column) cells outlined (e.g. where a copied token first appears)."""
    p = np.asarray(prob, dtype=np.float64)
    R, T = p.shape
    positions = list(range(T)) if positions is None else [int(i) for i in positions]
    xs = column_labels(tokens, positions)
    ys = [_esc(r) for r in row_labels]
    hover = [[_("{row} · position {i} “{token}”<br>top next token: “{top}”, p = {p}<br>{rank}").format(
        row=ys[r], i=positions[t], token=_esc(tokens[t]), top=_esc(top_tokens[r][t]), p=f"{p[r, t]:.3f}",
        rank=(_("the final prediction “{final}” is top-1 here") if final_rank[r, t] == 0 else
              ngettext("the final prediction “{final}”: {rank:,} token ranks above it here",
                       "the final prediction “{final}”: {rank:,} tokens rank above it here", int(final_rank[r, t])))
        .format(final=_esc(final_tokens[t]), rank=int(final_rank[r, t])))
        for t in range(T)] for r in range(R)]
    fig = go.Figure(go.Heatmap(
        z=p, x=xs, y=ys, zmin=0.0, zmax=1.0, colorscale=WEIGHT_SCALE, customdata=hover,
        hovertemplate="%{customdata}<extra></extra>", xgap=1, ygap=1,
        colorbar=dict(title=dict(text=_("probability")), thickness=14)))
    # the tokens are the model's text, written by a text trace from its customdata (a heatmap's own cell text reads
    # only `text`); light on dark cells
    fig.add_trace(go.Scatter(
        x=xs * R, y=[y for y in ys for _t in range(T)], mode="text", texttemplate="%{customdata}",
        customdata=[_esc(t) for row in top_tokens for t in row], hoverinfo="skip", showlegend=False,
        textfont=dict(size=cell_font(top_tokens, T),
                      color=[LIGHT_TEXT if v >= DARK_CELL else DARK_TEXT for v in p.ravel()])))
    for r, t in marked or ():
        fig.add_shape(type="rect", x0=t - 0.5, x1=t + 0.5, y0=r - 0.5, y1=r + 0.5, xref="x", yref="y",
                      line=dict(color="#e6550d", width=3))
    longest = max((len(str(t)) for t in tokens), default=1)
    fig.update_xaxes(title=_("position in the prompt (the token read there)"),
                     tickangle=-45 if T > 12 or longest > 8 else 0, tickfont=dict(size=12), type="category",
                     range=[-0.5, T - 0.5], showgrid=False, zeroline=False)
    # fixed ranges: the text trace would otherwise pad the axes; the embeddings row on top
    fig.update_yaxes(title=_("residual stream read after"), type="category", range=[R - 0.5, -0.5], showgrid=False,
                     zeroline=False)
    return style(fig, title, height=ROW_PX * R + 190)
