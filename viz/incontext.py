"""Figures of learning from the prompt: a prompt with a repeated span and the model's next-token prediction at each
position (right or wrong where the answer is in the prompt), copy accuracy by offset inside the first and second
copy, and a head's attention with the induction stripe marked (Olsson et al. 2022)."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import N_, _

from .heatmap import plot_heatmap, safe_labels
from .theme import style

# cell kinds of the prompt strip, in colour-scale order
OTHER, FIRST, SECOND, RIGHT, WRONG, UNSCORED = range(6)
CELL_COLOURS = ("#f4f4f4", "#c6dbef", "#fdd0a2", "#74c476", "#fb6a4a", "#e0e0e0")
CELL_NAMES = (N_("other token"), N_("first copy"), N_("second copy"), N_("predicted right"), N_("predicted wrong"),
              N_("not scored (nothing earlier tells it)"))
FIRST_COLOUR, SECOND_COLOUR, CHANCE_COLOUR = "#4a7fb5", "#e6550d", "#777777"


def _esc(t) -> str:
    return html.escape(str(t), quote=False)


def prompt_kinds(T: int, first: int, second: int, span: int) -> np.ndarray:
    """(T,) OTHER, FIRST or SECOND for each position of a prompt whose span starts at `first` and again at
    `second`."""
    kinds = np.full(T, OTHER)
    kinds[first:first + span] = FIRST
    kinds[second:second + span] = SECOND
    return kinds


def scored(T: int, first: int, second: int, span: int) -> np.ndarray:
    """(T,) bool: the queries whose next token is the second copy's next token (offsets 0 .. span − 2 of the
    second copy), the ones an induction head can answer."""
    out = np.zeros(T, bool)
    out[second:second + span - 1] = True
    return out


def plot_prompt_predictions(tokens: list[str], predicted: list[str], probs: np.ndarray, *, first: int, second: int,
                            span: int, title: str | None = None) -> go.Figure:
    """Two rows over positions 0 .. T − 1: the prompt (its two copies coloured; its tokens on the top axis) and,
    under each token, the model's guess for it made from the tokens before it (on the bottom axis; green right, red
    wrong where the second copy gives the answer, grey elsewhere). tokens: T strings; predicted: T strings, the top
    next token at each position; probs: (T,) its probability. The tokens are tick labels, as on the attention maps."""
    T = len(tokens)
    check = scored(T, first, second, span)                 # query t is scored: its guess sits under token t + 1
    guess = ["–", *predicted[:-1]]
    verdict = np.full(T, UNSCORED)
    verdict[1:] = np.where(check[:-1], np.where(np.asarray(predicted[:-1]) == np.asarray(tokens[1:]), RIGHT, WRONG),
                           UNSCORED)
    z = np.stack([prompt_kinds(T, first, second, span), verdict])
    hover = [[_("position {i}: “{token}”").format(i=i, token=_esc(tokens[i])) for i in range(T)],
             [_("guess for position {i} from the tokens before it: “{token}”, p = {p:.3f}").format(
                 i=i, token=_esc(guess[i]), p=float(probs[i - 1])) if i else "" for i in range(T)]]
    n = len(CELL_COLOURS)
    scale = [[v, CELL_COLOURS[i]] for i in range(n) for v in (i / n, (i + 1) / n)]
    rows = [_("prompt"), _("model's guess")]
    positions = list(range(T))
    fig = go.Figure(go.Heatmap(z=z, x=positions, y=rows, zmin=-0.5, zmax=n - 0.5, colorscale=scale, showscale=False,
                               customdata=hover, hovertemplate="%{customdata}<extra></extra>", xgap=2, ygap=2))
    fig.add_trace(go.Scatter(x=positions, y=[rows[0]] * T, xaxis="x2", mode="markers", opacity=0, hoverinfo="skip",
                             showlegend=False))                   # puts the top axis (the prompt's tokens) on the page
    for i, name in enumerate(CELL_NAMES):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=_(name), showlegend=True,
                                 marker=dict(symbol="square", size=13, color=CELL_COLOURS[i],
                                             line=dict(color="#999", width=1))))
    ticks = dict(tickmode="array", tickvals=positions, fixedrange=True, showgrid=False, range=[-0.5, T - 0.5],
                 tickfont=dict(size=13), tickangle=0)
    fig.update_layout(xaxis=dict(ticktext=[_esc(t) for t in guess], title=_("the model's guess for each token"),
                                 **ticks),
                      xaxis2=dict(ticktext=[_esc(t) for t in tokens], overlaying="x", side="top",
                                  title=_("the prompt, position 0 to {last}").format(last=T - 1), **ticks),
                      legend=dict(orientation="h", y=-0.5, x=0, yanchor="top"))
    fig.update_yaxes(autorange="reversed", fixedrange=True)
    fig = style(fig, None, height=330)
    if title:
        fig.update_layout(title=dict(text=title, x=0.01, y=0.98, yanchor="top"), margin=dict(t=95))
    return fig


def plot_accuracy_by_offset(first: np.ndarray, second: np.ndarray, *, chance: float, title: str | None = None,
                            counts: np.ndarray | None = None) -> go.Figure:
    """Next-token accuracy at offsets k = 0 .. K − 1 of the first and second copy: first, second (K,) in [0, 1]
    (nan: no query); x is the token of the copy predicted, k + 2 (the copy's first token has no cue); a dotted
    line at chance."""
    k = np.arange(len(second)) + 2
    hover = _("token {x} of the copy: accuracy {y}").format(x="%{x}", y="%{y:.3f}")
    if counts is not None:
        hover += "<br>" + _("{n} queries").format(n="%{customdata}")
    traces = [go.Scatter(x=k, y=np.asarray(acc, float), mode="lines+markers", name=_(name), customdata=counts,
                         line=dict(color=colour, width=3), marker=dict(size=8),
                         hovertemplate=hover + "<extra>" + _(name) + "</extra>")
              for acc, name, colour in ((second, N_("second copy (seen before)"), SECOND_COLOUR),
                                        (first, N_("first copy (new)"), FIRST_COLOUR))]
    fig = go.Figure(traces)
    fig.add_hline(y=chance, line=dict(color=CHANCE_COLOUR, dash="dot", width=1.5),
                  annotation_text=_("chance, 1 in {n}").format(n=round(1 / chance)),
                  annotation_position="bottom right")
    fig.update_xaxes(title=_("token of the span predicted (from the one before it)"), dtick=1)
    fig.update_yaxes(title=_("next-token accuracy"), range=[-0.09, 1.05])          # room for the chance label
    fig.update_layout(legend=dict(orientation="h", y=-0.3, x=0, yanchor="top"))
    return style(fig, title, height=400)


def induction_targets(first: int, second: int, span: int) -> list[tuple[int, int]]:
    """(query, key) cells an induction head attends to: from offset k of the second copy to the token after
    offset k of the first, k = 0 .. span − 2."""
    return [(second + k, first + k + 1) for k in range(span - 1)]


def plot_head_map(weights: np.ndarray, tokens: list[str], *, targets: list[tuple[int, int]] | None = None,
                  title: str | None = None) -> go.Figure:
    """A head's attention (T, T) over the prompt, the induction targets (query, key) outlined: on an induction
    head they form a stripe parallel to the diagonal, one span length to its left."""
    fig = plot_heatmap(weights, x_labels=tokens, y_labels=tokens, title=title, height=560)
    if targets:
        labels = safe_labels(tokens)
        fig.add_trace(go.Scatter(x=[labels[k] for _q, k in targets], y=[labels[q] for q, _k in targets],
                                 mode="markers", name=_("induction target"), hoverinfo="skip",
                                 marker=dict(symbol="square-open", size=15, color="#e6550d",
                                             line=dict(width=2.5))))
        fig.update_layout(showlegend=True, legend=dict(orientation="h", y=1.0, x=1, xanchor="right",
                                                       yanchor="bottom"))
    fig.update_xaxes(tickfont=dict(size=10))
    fig.update_yaxes(tickfont=dict(size=10))
    return fig
