"""Figures for the positional-encoding page: the sine/cosine barcode, waves, wavelengths, similarity by
offset, the shift matrix, RoPE/ALiBi score matrices, a learned relative-bias table and the order-blindness errors.
numpy in, Plotly out."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from labels import head_only, layer_label

from .heatmap import plot_heatmap
from .theme import DIVERGING_SCALE, HEAD_COLOURS, style

DASHES = ["solid", "dash", "dot", "dashdot"]   # overlapping lines stay visible


def _sym(m: np.ndarray) -> float:
    finite = np.abs(m[np.isfinite(m)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def plot_signed(matrix: np.ndarray, *, title: str | None = None, x_title: str = "key position",
                y_title: str = "query position", value_name: str = "value", x_labels=None, y_labels=None,
                decimals: int = 4, height: int | None = None, zrange: float | None = None) -> go.Figure:
    """A signed (rows, cols) matrix on the diverging scale, centred on 0 (from −zrange to zrange, default
    the largest |value|), exact values on hover."""
    m = np.asarray(matrix, dtype=np.float64)
    r = zrange or _sym(m)
    return plot_heatmap(m, x_labels=x_labels, y_labels=y_labels, title=title, zmin=-r, zmax=r,
                        colorscale=DIVERGING_SCALE, x_title=x_title, y_title=y_title, value_name=value_name,
                        decimals=decimals, height=height or 460)


def _reference_line(fig: go.Figure, xs: np.ndarray, y: float, label: str, colour: str):
    """A dotted horizontal line named in the legend (hline annotations misplace on log axes)."""
    fig.add_trace(go.Scatter(x=[xs[0], xs[-1]], y=[y, y], mode="lines", name=label, hoverinfo="skip",
                             line=dict(dash="dot", color=colour, width=1.5)))


def plot_patch_grid(grid: np.ndarray, *, title: str) -> go.Figure:
    """A (rows, cols) signed value per image patch, drawn as the image grid (square cells)."""
    g = np.asarray(grid, dtype=np.float64)
    r = _sym(g)
    fig = go.Figure(go.Heatmap(z=g, zmin=-r, zmax=r, colorscale=DIVERGING_SCALE, colorbar=dict(title="cosine"),
                               hovertemplate="patch row %{y}, column %{x}<br>cosine %{z:.4f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title="patch row", dtick=1, scaleanchor="x")
    fig.update_xaxes(title="patch column", dtick=1, constrain="domain")
    return style(fig, title, 420)


def plot_pe_heatmap(pe: np.ndarray, *, title: str = "Sinusoidal positional encoding") -> go.Figure:
    """pe: (N, C). Positions down, dimensions across, values in [−1, 1] (the "barcode")."""
    fig = go.Figure(go.Heatmap(
        z=np.asarray(pe, dtype=np.float32), zmin=-1, zmax=1, colorscale=DIVERGING_SCALE,
        colorbar=dict(title="PE"),
        hovertemplate="position %{y}<br>dimension %{x}<br>PE = %{z:.6f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title="position")
    fig.update_xaxes(title="dimension (even = sin, odd = cos)")
    return style(fig, title, 460)


def plot_waves(pe: np.ndarray, dims: list[int], *, title: str = "Chosen dimensions across positions") -> go.Figure:
    """One line per chosen dimension: PE(pos, dim) for pos = 0..N−1. pe: (N, C)."""
    fig = go.Figure()
    pos = np.arange(pe.shape[0])
    for n, d in enumerate(dims):
        kind = "sin" if d % 2 == 0 else "cos"
        fig.add_trace(go.Scatter(x=pos, y=pe[:, d], mode="lines", name=f"dim {d} ({kind})",
                                 line=dict(color=HEAD_COLOURS[n % len(HEAD_COLOURS)], width=2.5),
                                 hovertemplate=f"dim {d}<br>position %{{x}}<br>PE = %{{y:.6f}}<extra></extra>"))
    fig.update_xaxes(title="position")
    fig.update_yaxes(title="PE(pos, dim)", range=[-1.1, 1.1])
    return style(fig, title, 360)


def plot_wavelengths(wl: np.ndarray, *, title: str = "Wavelength of each sine/cosine pair") -> go.Figure:
    """wl: (C/2,) wavelengths in positions, on a log axis (a straight line = a geometric series)."""
    i = np.arange(len(wl))
    fig = go.Figure(go.Scatter(x=i, y=wl, mode="lines+markers", name="wavelength",
                               hovertemplate="pair %{x} (dims 2i, 2i+1)<br>wavelength %{y:.6g} positions"
                                             "<extra></extra>"))
    for y, label, colour in ((2 * np.pi, "2π", "#2ca02c"), (10000 * 2 * np.pi, "10000·2π", "#d62728")):
        _reference_line(fig, i, y, label, colour)
    fig.update_yaxes(type="log", title="wavelength (positions)")
    fig.update_xaxes(title="pair i")
    return style(fig, title, 360)


def plot_offset_profile(profiles: dict, *, title: str = "Similarity against offset |i − j|",
                        y_title: str = "PE(i) · PE(j)") -> go.Figure:
    """profiles: name -> {"offset", "mean", "min", "max"} (from model.analysis.shift.offset_profile). Each is a
    line (mean) inside a band from min to max over all pairs at that offset: a thin band = offset only."""
    fig = go.Figure()
    for n, (name, p) in enumerate(profiles.items()):
        colour = HEAD_COLOURS[n % len(HEAD_COLOURS)]
        x = np.concatenate([p["offset"], p["offset"][::-1]])
        y = np.concatenate([p["max"], p["min"][::-1]])
        fig.add_trace(go.Scatter(x=x, y=y, fill="toself", fillcolor=colour, opacity=0.25, line=dict(width=0),
                                 name=f"{name}: min–max", hoverinfo="skip"))
        spread = np.asarray(p["max"]) - np.asarray(p["min"])
        fig.add_trace(go.Scatter(
            x=p["offset"], y=p["mean"], mode="lines", name=f"{name}: mean", line=dict(color=colour, width=2.5),
            customdata=np.stack([p["min"], p["max"], spread], axis=-1),
            hovertemplate="offset %{x}<br>mean %{y:.6f}<br>min %{customdata[0]:.6f}<br>max %{customdata[1]:.6f}"
                          "<br>spread %{customdata[2]:.3g}<extra>" + name + "</extra>"))
    fig.update_xaxes(title="offset |i − j|")
    fig.update_yaxes(title=y_title)
    return style(fig, title, 380)


def plot_shift_errors(errors: np.ndarray, start: int = 0, *, title: str = "Largest error per position") -> go.Figure:
    """errors: (N,) max |PE(pos+k) − M_k PE(pos)| for pos = start..start+N−1, on a log axis."""
    pos = np.arange(start, start + len(errors))
    fig = go.Figure(go.Scatter(x=pos, y=np.maximum(errors, 1e-18), mode="markers", marker=dict(size=5),
                               name="error", hovertemplate="pos %{x}<br>error %{y:.3e}<extra></extra>"))
    _reference_line(fig, pos, 1e-9, "limit 1e-9", "#d62728")
    fig.update_yaxes(type="log", title="max |PE(pos+k) − M_k·PE(pos)|", exponentformat="power")
    fig.update_xaxes(title="pos")
    return style(fig, title, 320)


def plot_scores_by_offset(matrix: np.ndarray, starts: list[int], *, title: str) -> go.Figure:
    """One line per query position m: score(m, m + δ) against δ. matrix: (N, N). Lines that lie on top of
    each other mean the score depends on the offset only."""
    n = matrix.shape[0]
    fig = go.Figure()
    for c, m in enumerate(starts):
        d = np.arange(-m, n - m)
        line = dict(color=HEAD_COLOURS[c % len(HEAD_COLOURS)], dash=DASHES[c % len(DASHES)],
                    width=max(1.5, 4.5 - 1.5 * c))
        fig.add_trace(go.Scatter(x=d, y=matrix[m, m + d], mode="lines+markers", name=f"query at {m}",
                                 marker=dict(size=4), line=line,
                                 hovertemplate=f"query {m}<br>offset %{{x}}<br>score %{{y:.9f}}<extra></extra>"))
    fig.update_xaxes(title="offset δ = key position − query position")
    fig.update_yaxes(title="score")
    return style(fig, title, 340)


def plot_layer_errors(errors: dict, *, title: str = "Attention after undoing the permutation") -> go.Figure:
    """errors: name -> (L,) largest |Δ weight| per layer; bars on a log axis."""
    fig = go.Figure()
    for c, (name, e) in enumerate(errors.items()):
        e = np.asarray(e, dtype=np.float64)
        fig.add_trace(go.Bar(x=[layer_label(i) for i in range(len(e))], y=np.maximum(e, 1e-12), name=name,
                             marker_color=HEAD_COLOURS[c % len(HEAD_COLOURS)], customdata=e,
                             hovertemplate="%{x}<br>max |Δ weight| %{customdata:.3e}<extra>" + name + "</extra>"))
    fig.update_yaxes(type="log", title="max |Δ weight|", exponentformat="power")
    fig.update_layout(barmode="group")
    return style(fig, title, 320)


def plot_row_norms(norms: np.ndarray, initial: float | None = None, *,
                   title: str = "Length of each learned position vector") -> go.Figure:
    """norms: (N,) |table[pos]|; initial: the expected length at initialisation (a dotted line).
    Trained rows move away from it, rows never used stay near it."""
    x = np.arange(len(norms))
    fig = go.Figure(go.Scatter(x=x, y=norms, mode="lines+markers", marker=dict(size=4),
                               name="|p(pos)|", hovertemplate="position %{x}<br>|p| = %{y:.4f}<extra></extra>"))
    if initial is not None:
        _reference_line(fig, x, initial, f"random start ≈ {initial:.3f}", "#7f7f7f")
    fig.update_xaxes(title="position")
    fig.update_yaxes(title="vector length", rangemode="tozero")
    return style(fig, title, 300)


def plot_bias_table(table: np.ndarray, offsets: np.ndarray, *, marked=(), title: str | None = None) -> go.Figure:
    """A learned relative-position bias: (H, O) values, one row per head, one column per offset (key − query);
    the end columns stand for every farther offset. marked: offsets outlined (those a task reads)."""
    t = np.asarray(table, dtype=np.float64)
    offsets = np.asarray(offsets)
    r = _sym(t)
    ticks = [f"≤{o}" if o == offsets[0] else f"≥+{o}" if o == offsets[-1] else f"{o:+d}" for o in offsets]
    heads = [head_only(h) for h in range(t.shape[0])]
    fig = go.Figure(go.Heatmap(z=t, x=ticks, y=heads, zmin=-r, zmax=r, colorscale=DIVERGING_SCALE,
                               colorbar=dict(title="bias"), texttemplate="%{z:.2f}",
                               hovertemplate="%{y}, offset %{x}<br>bias %{z:.6f}<extra></extra>"))
    for o in marked:
        i = int(np.searchsorted(offsets, o))
        fig.add_shape(type="rect", x0=i - 0.5, x1=i + 0.5, y0=-0.5, y1=len(heads) - 0.5,
                      line=dict(color="black", width=2))
    fig.update_xaxes(title="offset δ = key position − query position", type="category")
    fig.update_yaxes(autorange="reversed", title="head", type="category")
    return style(fig, title, max(260, 48 * len(heads) + 150))


def plot_bias_curves(offsets: np.ndarray, learned: np.ndarray, alibi: np.ndarray, *,
                     title: str | None = None) -> go.Figure:
    """Bias against offset, one line per head: the learned table (left) beside ALiBi's fixed −m·|δ| for as many
    heads (right). learned, alibi: (H, O)."""
    offsets = np.asarray(offsets)
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=("Learned during training (one value per offset)",
                                        "ALiBi, fixed before training (−m·|δ|)"))
    for col, values, kind in ((1, learned, "learned"), (2, alibi, "ALiBi")):
        for h, row in enumerate(np.asarray(values, dtype=np.float64)):
            fig.add_scatter(x=offsets, y=row, mode="lines+markers", name=head_only(h), legendgroup=head_only(h),
                            showlegend=col == 1, marker=dict(size=5),
                            line=dict(color=HEAD_COLOURS[h % len(HEAD_COLOURS)], dash=DASHES[h % len(DASHES)]),
                            hovertemplate=f"{kind}, {head_only(h)}<br>offset %{{x}}<br>bias %{{y:.4f}}<extra></extra>",
                            row=1, col=col)
    fig.update_xaxes(title="offset δ = key − query", zeroline=True)
    fig.update_yaxes(title="added to the score", row=1, col=1)
    return style(fig, title, 380)


def plot_head_weights(weights: np.ndarray, labels, *, title: str | None = None) -> go.Figure:
    """(H, T, T) attention weights, one small heatmap per head side by side; labels: the T tokens."""
    w = np.asarray(weights, dtype=np.float64)
    H = w.shape[0]
    ticks = [f"{t}·{i}" for i, t in enumerate(labels)]
    fig = make_subplots(rows=1, cols=H, subplot_titles=[head_only(h) for h in range(H)], shared_yaxes=True,
                        horizontal_spacing=0.02)
    for h in range(H):
        fig.add_trace(go.Heatmap(z=w[h], x=ticks, y=ticks, zmin=0, zmax=1, colorscale="Blues", showscale=h == H - 1,
                                 hovertemplate=f"{head_only(h)}<br>query %{{y}}<br>key %{{x}}<br>"
                                               "weight %{z:.4f}<extra></extra>"), row=1, col=h + 1)
        fig.update_xaxes(title="key", showticklabels=False, row=1, col=h + 1)
    fig.update_yaxes(autorange="reversed", showticklabels=False)
    fig.update_yaxes(title="query", row=1, col=1)
    return style(fig, title, 340)
