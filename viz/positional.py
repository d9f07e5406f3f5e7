"""Figures for the positional-encoding page: the sine/cosine barcode, waves, wavelengths, similarity by
offset, the shift matrix, RoPE/ALiBi score matrices, a learned relative-bias table and the order-blindness errors.
numpy in, Plotly out."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _
from labels import head_only, layer_label

from .heatmap import plot_heatmap, safe_labels
from .theme import DIVERGING_SCALE, HEAD_COLOURS, style

DASHES = ["solid", "dash", "dot", "dashdot"]   # overlapping lines stay visible


def _sym(m: np.ndarray) -> float:
    finite = np.abs(m[np.isfinite(m)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def plot_signed(matrix: np.ndarray, *, title: str | None = None, x_title: str | None = None,
                y_title: str | None = None, value_name: str | None = None, x_labels=None, y_labels=None,
                decimals: int = 4, height: int | None = None, zrange: float | None = None) -> go.Figure:
    """A signed (rows, cols) matrix on the diverging scale, centred on 0 (from −zrange to zrange, default
    the largest |value|), exact values on hover. Titles default to "key position", "query position", "value"
    (translated)."""
    x_title = _("key position") if x_title is None else x_title
    y_title = _("query position") if y_title is None else y_title
    value_name = _("value") if value_name is None else value_name
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
    fig = go.Figure(go.Heatmap(z=g, zmin=-r, zmax=r, colorscale=DIVERGING_SCALE, colorbar=dict(title=_("cosine")),
                               hovertemplate=_("patch row {row}, column {column}<br>cosine {value}").format(
                                   row="%{y}", column="%{x}", value="%{z:.4f}") + "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=_("patch row"), dtick=1, scaleanchor="x")
    fig.update_xaxes(title=_("patch column"), dtick=1, constrain="domain")
    return style(fig, title, 420)


def plot_pe_heatmap(pe: np.ndarray, *, title: str | None = None) -> go.Figure:
    """pe: (N, C). Positions down, dimensions across, values in [−1, 1] (the "barcode"). title: "Sinusoidal
    positional encoding" (translated) when None."""
    fig = go.Figure(go.Heatmap(
        z=np.asarray(pe, dtype=np.float32), zmin=-1, zmax=1, colorscale=DIVERGING_SCALE,
        colorbar=dict(title="PE"),
        hovertemplate=_("position {position}<br>dimension {dimension}").format(position="%{y}", dimension="%{x}")
        + "<br>PE = %{z:.6f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=_("position"))
    fig.update_xaxes(title=_("dimension (even = sin, odd = cos)"))
    return style(fig, _("Sinusoidal positional encoding") if title is None else title, 460)


def plot_waves(pe: np.ndarray, dims: list[int], *, title: str | None = None) -> go.Figure:
    """One line per chosen dimension: PE(pos, dim) for pos = 0..N−1. pe: (N, C). title: "Chosen dimensions
    across positions" (translated) when None."""
    fig = go.Figure()
    pos = np.arange(pe.shape[0])
    for n, d in enumerate(dims):
        kind = _("sin") if d % 2 == 0 else _("cos")
        name = _("dim {d} ({kind})").format(d=d, kind=kind)
        fig.add_trace(go.Scatter(x=pos, y=pe[:, d], mode="lines", name=name,
                                 line=dict(color=HEAD_COLOURS[n % len(HEAD_COLOURS)], width=2.5),
                                 hovertemplate=name + "<br>" + _("position {position}").format(position="%{x}")
                                 + "<br>PE = %{y:.6f}<extra></extra>"))
    fig.update_xaxes(title=_("position"))
    fig.update_yaxes(title=_("PE(pos, dim)"), range=[-1.1, 1.1])
    return style(fig, _("Chosen dimensions across positions") if title is None else title, 360)


def plot_wavelengths(wl: np.ndarray, *, title: str | None = None) -> go.Figure:
    """wl: (C/2,) wavelengths in positions, on a log axis (a straight line = a geometric series). title:
    "Wavelength of each sine/cosine pair" (translated) when None."""
    i = np.arange(len(wl))
    fig = go.Figure(go.Scatter(x=i, y=wl, mode="lines+markers", name=_("wavelength"),
                               hovertemplate=_("pair {pair} (dims 2i, 2i+1)<br>wavelength {wavelength} positions")
                               .format(pair="%{x}", wavelength="%{y:.6g}") + "<extra></extra>"))
    for y, label, colour in ((2 * np.pi, "2π", "#2ca02c"), (10000 * 2 * np.pi, "10000·2π", "#d62728")):
        _reference_line(fig, i, y, label, colour)
    fig.update_yaxes(type="log", title=_("wavelength (positions)"))
    fig.update_xaxes(title=_("pair i"))
    return style(fig, _("Wavelength of each sine/cosine pair") if title is None else title, 360)


def plot_offset_profile(profiles: dict, *, title: str | None = None, y_title: str = "PE(i) · PE(j)") -> go.Figure:
    """profiles: name -> {"offset", "mean", "min", "max"} (from model.analysis.shift.offset_profile). Each is a
    line (mean) inside a band from min to max over all pairs at that offset: a thin band = offset only. title:
    "Similarity against offset |i − j|" (translated) when None."""
    fig = go.Figure()
    hover = _("offset {offset}<br>mean {mean}<br>min {low}<br>max {high}<br>spread {spread}").format(
        offset="%{x}", mean="%{y:.6f}", low="%{customdata[0]:.6f}", high="%{customdata[1]:.6f}",
        spread="%{customdata[2]:.3g}")
    for n, (name, p) in enumerate(profiles.items()):
        colour = HEAD_COLOURS[n % len(HEAD_COLOURS)]
        x = np.concatenate([p["offset"], p["offset"][::-1]])
        y = np.concatenate([p["max"], p["min"][::-1]])
        fig.add_trace(go.Scatter(x=x, y=y, fill="toself", fillcolor=colour, opacity=0.25, line=dict(width=0),
                                 name=_("{name}: min–max").format(name=name), hoverinfo="skip"))
        spread = np.asarray(p["max"]) - np.asarray(p["min"])
        fig.add_trace(go.Scatter(
            x=p["offset"], y=p["mean"], mode="lines", name=_("{name}: mean").format(name=name),
            line=dict(color=colour, width=2.5), customdata=np.stack([p["min"], p["max"], spread], axis=-1),
            hovertemplate=hover + "<extra>" + name + "</extra>"))
    fig.update_xaxes(title=_("offset |i − j|"))
    fig.update_yaxes(title=y_title)
    return style(fig, _("Similarity against offset |i − j|") if title is None else title, 380)


def plot_shift_errors(errors: np.ndarray, start: int = 0, *, title: str | None = None) -> go.Figure:
    """errors: (N,) max |PE(pos+k) − M_k PE(pos)| for pos = start..start+N−1, on a log axis. title: "Largest
    error per position" (translated) when None."""
    pos = np.arange(start, start + len(errors))
    fig = go.Figure(go.Scatter(x=pos, y=np.maximum(errors, 1e-18), mode="markers", marker=dict(size=5),
                               name=_("error"), hovertemplate=_("pos {pos}<br>error {error}").format(
                                   pos="%{x}", error="%{y:.3e}") + "<extra></extra>"))
    _reference_line(fig, pos, 1e-9, _("limit 1e-9"), "#d62728")
    fig.update_yaxes(type="log", title=_("max |PE(pos+k) − M_k·PE(pos)|"), exponentformat="power")
    fig.update_xaxes(title=_("pos"))
    return style(fig, _("Largest error per position") if title is None else title, 320)



def plot_scores_by_offset(matrix: np.ndarray, starts: list[int], *, title: str) -> go.Figure:
    """One line per query position m: score(m, m + δ) against δ. matrix: (N, N). Lines that lie on top of
    each other mean the score depends on the offset only."""
    n = matrix.shape[0]
    fig = go.Figure()
    for c, m in enumerate(starts):
        d = np.arange(-m, n - m)
        line = dict(color=HEAD_COLOURS[c % len(HEAD_COLOURS)], dash=DASHES[c % len(DASHES)],
                    width=max(1.5, 4.5 - 1.5 * c))
        fig.add_trace(go.Scatter(x=d, y=matrix[m, m + d], mode="lines+markers",
                                 name=_("query at {m}").format(m=m), marker=dict(size=4), line=line,
                                 hovertemplate=_("query {m}<br>offset {offset}<br>score {score}").format(
                                     m=m, offset="%{x}", score="%{y:.9f}") + "<extra></extra>"))
    fig.update_xaxes(title=_("offset δ = key position − query position"))
    fig.update_yaxes(title=_("score"))
    return style(fig, title, 340)


def plot_layer_errors(errors: dict, *, title: str | None = None) -> go.Figure:
    """errors: name -> (L,) largest |Δ weight| per layer; bars on a log axis. title: "Attention after undoing the
    permutation" (translated) when None."""
    fig = go.Figure()
    largest = _("max |Δ weight|")
    for c, (name, e) in enumerate(errors.items()):
        e = np.asarray(e, dtype=np.float64)
        fig.add_trace(go.Bar(x=[layer_label(i) for i in range(len(e))], y=np.maximum(e, 1e-12), name=name,
                             marker_color=HEAD_COLOURS[c % len(HEAD_COLOURS)], customdata=e,
                             hovertemplate="%{x}<br>" + largest + " %{customdata:.3e}<extra>" + name + "</extra>"))
    fig.update_yaxes(type="log", title=largest, exponentformat="power")
    fig.update_layout(barmode="group")
    return style(fig, _("Attention after undoing the permutation") if title is None else title, 320)


def plot_row_norms(norms: np.ndarray, initial: float | None = None, *, title: str | None = None) -> go.Figure:
    """norms: (N,) |table[pos]|; initial: the expected length at initialisation (a dotted line).
    Trained rows move away from it, rows never used stay near it. title: "Length of each learned position
    vector" (translated) when None."""
    x = np.arange(len(norms))
    fig = go.Figure(go.Scatter(x=x, y=norms, mode="lines+markers", marker=dict(size=4),
                               name=_("|p(pos)|"), hovertemplate=_("position {position}").format(position="%{x}")
                               + "<br>|p| = %{y:.4f}<extra></extra>"))
    if initial is not None:
        _reference_line(fig, x, initial, _("random start ≈ {length}").format(length=f"{initial:.3f}"), "#7f7f7f")
    fig.update_xaxes(title=_("position"))
    fig.update_yaxes(title=_("vector length"), rangemode="tozero")
    return style(fig, _("Length of each learned position vector") if title is None else title, 300)


def plot_bias_table(table: np.ndarray, offsets: np.ndarray, *, marked=(), title: str | None = None) -> go.Figure:
    """A learned relative-position bias: (H, O) values, one row per head, one column per offset (key − query);
    the end columns stand for every farther offset. marked: offsets outlined (those a task reads)."""
    t = np.asarray(table, dtype=np.float64)
    offsets = np.asarray(offsets)
    r = _sym(t)
    ticks = [f"≤{o}" if o == offsets[0] else f"≥+{o}" if o == offsets[-1] else f"{o:+d}" for o in offsets]
    heads = [head_only(h) for h in range(t.shape[0])]
    fig = go.Figure(go.Heatmap(z=t, x=ticks, y=heads, zmin=-r, zmax=r, colorscale=DIVERGING_SCALE,
                               colorbar=dict(title=_("bias")), texttemplate="%{z:.2f}",
                               hovertemplate=_("{head}, offset {offset}<br>bias {bias}").format(
                                   head="%{y}", offset="%{x}", bias="%{z:.6f}") + "<extra></extra>"))
    for o in marked:
        i = int(np.searchsorted(offsets, o))
        fig.add_shape(type="rect", x0=i - 0.5, x1=i + 0.5, y0=-0.5, y1=len(heads) - 0.5,
                      line=dict(color="black", width=2))
    fig.update_xaxes(title=_("offset δ = key position − query position"), type="category")
    fig.update_yaxes(autorange="reversed", title=_("head"), type="category")
    return style(fig, title, max(260, 48 * len(heads) + 150))


def plot_bias_curves(offsets: np.ndarray, learned: np.ndarray, alibi: np.ndarray, *,
                     title: str | None = None) -> go.Figure:
    """Bias against offset, one line per head: the learned table (left) beside ALiBi's fixed −m·|δ| for as many
    heads (right). learned, alibi: (H, O)."""
    offsets = np.asarray(offsets)
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=(_("Learned during training (one value per offset)"),
                                        _("ALiBi, fixed before training (−m·|δ|)")))
    for col, values, kind in ((1, learned, _("learned")), (2, alibi, "ALiBi")):
        for h, row in enumerate(np.asarray(values, dtype=np.float64)):
            hover = _("{head}, offset {offset}<br>bias {bias}").format(head=f"{kind}, {head_only(h)}", offset="%{x}",
                                                                       bias="%{y:.4f}")
            fig.add_scatter(x=offsets, y=row, mode="lines+markers", name=head_only(h), legendgroup=head_only(h),
                            showlegend=col == 1, marker=dict(size=5),
                            line=dict(color=HEAD_COLOURS[h % len(HEAD_COLOURS)], dash=DASHES[h % len(DASHES)]),
                            hovertemplate=hover + "<extra></extra>", row=1, col=col)
    fig.update_xaxes(title=_("offset δ = key − query"), zeroline=True)
    fig.update_yaxes(title=_("added to the score"), row=1, col=1)
    return style(fig, title, 380)


def plot_head_weights(weights: np.ndarray, labels, *, title: str | None = None) -> go.Figure:
    """(H, T, T) attention weights, one small heatmap per head side by side; labels: the T tokens."""
    w = np.asarray(weights, dtype=np.float64)
    H = w.shape[0]
    ticks = safe_labels(labels)
    fig = make_subplots(rows=1, cols=H, subplot_titles=[head_only(h) for h in range(H)], shared_yaxes=True,
                        horizontal_spacing=0.02)
    for h in range(H):
        hover = _("query {query}<br>key {key}<br>weight {weight}").format(query="%{y}", key="%{x}",
                                                                          weight="%{z:.4f}")
        fig.add_trace(go.Heatmap(z=w[h], x=ticks, y=ticks, zmin=0, zmax=1, colorscale="Blues", showscale=h == H - 1,
                                 hovertemplate=f"{head_only(h)}<br>{hover}<extra></extra>"), row=1, col=h + 1)
        fig.update_xaxes(title=_("key"), showticklabels=False, row=1, col=h + 1)
    fig.update_yaxes(autorange="reversed", showticklabels=False)
    fig.update_yaxes(title=_("query"), row=1, col=1)

    return style(fig, title, 340)
