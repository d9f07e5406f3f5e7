"""Figures of the mask lab: a mask, two masks' difference, the reach of k layers, allowed pairs and
measured cost against N. numpy and plain values in, Plotly figures out."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import N_, _, ngettext

from .heatmap import safe_labels
from .theme import HEAD_COLOURS, style

ALLOWED, BLOCKED = "#1f4e99", "#f1f3f6"
# neither, only A, only B, both: Okabe–Ito orange and blue for the two sides (told apart with any colour vision),
# their grey for both, the blocked colour for neither
DIFF_COLOURS = (BLOCKED, "#E69F00", "#0072B2", "#999999")
DIFF_NAMES = (N_("neither"), N_("only A"), N_("only B"), N_("both"))


def token_names(n: int, added: int = 0) -> list[str]:
    """Axis names of a mask whose first `added` tokens were put in front of the text's: "G0", "G1", … then the
    text's tokens "0", "1", … counted from 0 as without them."""
    return [f"G{k}" for k in range(added)] + [str(i) for i in range(n - added)]


def _axis_labels(n: int, labels, added: int = 0):
    if labels is not None:
        return safe_labels(labels)
    return token_names(n, added) if added else list(range(n))


def _grid(fig: go.Figure, n: int, height: int | None, added: int = 0):
    fig.update_yaxes(autorange="reversed", title=_("query i"), scaleanchor="x", constrain="domain")
    fig.update_xaxes(title=_("key j"), constrain="domain", tickangle=0)
    if added:                                           # "G0", "0", "1", …: names, not numbers to place
        fig.update_xaxes(type="category")
        fig.update_yaxes(type="category")
    return fig.update_layout(height=height or 460)


def _size_ticks(fig: go.Figure, sizes):
    """Log x axis ticked at the measured sizes (256, 1k, …, 16k); log y axis ticked at powers of 10."""
    sizes = sorted(set(sizes))
    fig.update_xaxes(type="log", title=_("sequence length N"), tickvals=sizes,
                     ticktext=[f"{n // 1024}k" if n >= 1024 else str(n) for n in sizes])
    fig.update_yaxes(type="log", dtick=1, exponentformat="SI")
    return fig


def plot_mask(mask: np.ndarray, *, title: str | None = None, labels=None, height: int | None = None,
              added: int = 0) -> go.Figure:
    """mask: (N, N) bool, True = may attend; dark cells are allowed. Hover: query, key, 1 = may attend.
    added: the first `added` tokens were put in front of the text (extra global tokens), named G0, G1, …"""
    m = np.asarray(mask, dtype=np.uint8)
    axis = _axis_labels(len(m), labels, added)
    fig = go.Figure(go.Heatmap(z=m, x=axis, y=axis, zmin=0, zmax=1, colorscale=[[0, BLOCKED], [1, ALLOWED]],
                               showscale=False, xgap=1 if len(m) <= 48 else 0, ygap=1 if len(m) <= 48 else 0,
                               hovertemplate=_("query %{y} → key %{x}: %{z} (1 = may attend)") + "<extra></extra>"))
    return style(_grid(fig, len(m), height, added), title)


def plot_mask_grid(masks: dict, *, mark: tuple[int, int], cols: int = 4, title: str | None = None,
                   added: dict | None = None) -> go.Figure:
    """Small multiples: masks name -> (n, n) bool (a corner of each mask), one panel each, the cell
    [query, key] = `mark` (text tokens, counted from 0) outlined in red and each panel titled with its name and,
    on a second line, whether that cell is allowed. added: name -> the tokens a mask put in front of the text
    (its first rows and columns, ticked G0, G1, …; the mark moves past them)."""
    i, j = mark
    names = list(masks)
    rows = -(-len(names) // cols)
    seen = {True: _("sees"), False: _("blocked")}
    front = {k: (added or {}).get(k, 0) for k in names}
    titles = [f"{html.escape(str(k), quote=False)}<br>{seen[bool(masks[k][i + front[k], j + front[k]])]}"
              for k in names]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.06,
                        vertical_spacing=0.14 if rows > 1 else 0.0)
    for a, name in enumerate(names):
        m, g = np.asarray(masks[name], dtype=np.uint8), front[name]
        r, c = divmod(a, cols)
        fig.add_trace(go.Heatmap(z=m, zmin=0, zmax=1, colorscale=[[0, BLOCKED], [1, ALLOWED]], showscale=False,
                                 xgap=1, ygap=1, name=html.escape(str(name), quote=False),
                                 hovertemplate=_("query %{y} → key %{x}: %{z} (1 = may attend)")
                                 + "<extra>%{fullData.name}</extra>"), row=r + 1, col=c + 1)
        ticks = sorted({0, i + g, j + g, len(m) - 1})
        text = [token_names(len(m), g)[t] for t in ticks]
        suffix = "" if a == 0 else str(a + 1)
        fig.update_xaxes(tickvals=ticks, ticktext=text, tickfont=dict(size=10), constrain="domain", row=r + 1,
                         col=c + 1)
        fig.update_yaxes(tickvals=ticks, ticktext=text, tickfont=dict(size=10), autorange="reversed",
                         scaleanchor=f"x{suffix}", constrain="domain", row=r + 1, col=c + 1)
        fig.add_shape(type="rect", x0=j + g - 0.5, x1=j + g + 0.5, y0=i + g - 0.5, y1=i + g + 0.5,
                      line=dict(color="#d62728", width=2), row=r + 1, col=c + 1)
    fig.update_annotations(font_size=13)
    fig = style(fig, title, 70 + 230 * rows)
    return fig.update_layout(margin=dict(t=100)) if title else fig         # the panels' titles under the figure's


def difference_codes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, N) uint8: 0 neither, 1 only in a, 2 only in b, 3 in both."""
    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    return (a & ~b) * 1 + (b & ~a) * 2 + (a & b) * 3


def plot_mask_difference(a: np.ndarray, b: np.ndarray, *, title: str | None = None, labels=None,
                         height: int | None = None, added: int = 0) -> go.Figure:
    """Where two (N, N) masks agree and differ, in four colours with a labelled colour bar; added: tokens in front
    of the text (G0, G1, …) that one of them or both put there."""
    z = difference_codes(a, b).astype(np.uint8)
    scale = []
    for k, c in enumerate(DIFF_COLOURS):                              # four flat bands over 0..3
        scale += [[k / 4, c], [(k + 1) / 4, c]]
    axis = _axis_labels(len(z), labels, added)
    fig = go.Figure(go.Heatmap(
        z=z, x=axis, y=axis, zmin=-0.5, zmax=3.5, colorscale=scale,
        colorbar=dict(tickvals=[0, 1, 2, 3], ticktext=[_(name) for name in DIFF_NAMES], thickness=12,
                      orientation="h", y=-0.2, yanchor="top", len=0.9),
        hovertemplate=_("query %{y} → key %{x}: %{z} (0 neither, 1 only A, 2 only B, 3 both)") + "<extra></extra>"))
    return style(_grid(fig, len(z), height, added), title).update_layout(margin=dict(b=90))


def plot_reach(reach: np.ndarray, *, title: str | None = None, height: int | None = None,
               added: int = 0) -> go.Figure:
    """reach: (N, N) bool after k layers; a dark cell [i, j]: input j can influence output i."""
    return plot_mask(reach, title=title, height=height, added=added)


def plot_coverage(fractions, *, title: str | None = None, everything_at: int | None = None) -> go.Figure:
    """fractions[k-1]: share of the N² pairs reached after k layers, k = 1..K (a line per pattern: dict)."""
    series = fractions if isinstance(fractions, dict) else {_("pattern"): fractions}
    fig = go.Figure()
    for c, (name, ys) in enumerate(series.items()):
        ks = list(range(1, len(ys) + 1))
        after = [ngettext("after {k} layer", "after {k} layers", k).format(k=k) for k in ks]
        fig.add_scatter(x=ks, y=ys, mode="lines+markers", name=str(name), line=dict(color=HEAD_COLOURS[c % 12]),
                        customdata=after,
                        hovertemplate=_("%{customdata}: %{y:.1%} of pairs") + "<extra>%{fullData.name}</extra>")
    if everything_at:
        fig.add_vline(x=everything_at, line_dash="dot",
                      annotation_text=_("all connected at {k}").format(k=everything_at))
    fig.update_xaxes(title=_("layers k"), dtick=1 if len(next(iter(series.values()))) <= 16 else None)
    fig.update_yaxes(title=_("pairs reached"), tickformat=".0%", range=[0, 1.05])
    return style(fig, title, 320)


def plot_pairs_growth(sizes, counts: dict, *, title: str | None = None) -> go.Figure:
    """Allowed pairs against N on log-log axes, one line per pattern; counts: name -> list per size."""
    fig = go.Figure()
    for c, (name, ys) in enumerate(counts.items()):
        fig.add_scatter(x=list(sizes), y=list(ys), mode="lines+markers", name=name,
                        line=dict(color=HEAD_COLOURS[c % 12]),
                        hovertemplate=_("N = %{x:,}: %{y:,} pairs") + "<extra>%{fullData.name}</extra>")
    _size_ticks(fig, sizes).update_yaxes(title=_("allowed (query, key) pairs"))
    return style(fig, title, 420)


def plot_cost(rows: list[dict], value: str, *, title: str | None = None, names: dict | None = None) -> go.Figure:
    """Measured cost against N, one line per method. rows: {"method", "n", value}; value "time_ms" or "peak_mib"."""
    unit = {"time_ms": _("time (ms)"), "peak_mib": _("peak extra memory (MiB)")}.get(value, value)
    fig = go.Figure()
    methods = list(dict.fromkeys(r["method"] for r in rows if value in r))
    for c, m in enumerate(methods):
        pts = sorted((r["n"], r[value]) for r in rows if r.get("method") == m and value in r)
        fig.add_scatter(x=[p[0] for p in pts], y=[max(p[1], 1e-3) for p in pts], mode="lines+markers",
                        name=(names or {}).get(m, m), line=dict(color=HEAD_COLOURS[c % 12]),
                        hovertemplate="N = %{x:,}: %{y:,.2f}<extra>%{fullData.name}</extra>")
    _size_ticks(fig, [r["n"] for r in rows if value in r]).update_yaxes(title=unit)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.25, x=0))
    return style(fig, title, 420)


def plot_output_change(tokens, change: np.ndarray, *, title: str | None = None) -> go.Figure:
    """change: (N,) relative change of each token's final hidden state, ‖h_mask − h_full‖ / ‖h_full‖."""
    labels = safe_labels(tokens)
    fig = go.Figure(go.Bar(x=labels, y=np.asarray(change, dtype=float), marker_color=HEAD_COLOURS[1],
                           hovertemplate="%{x}: %{y:.1%}<extra></extra>"))
    fig.update_xaxes(title=_("token"), tickangle=-60)
    fig.update_yaxes(title=_("relative change"), tickformat=".0%")
    return style(fig, title, 320)
