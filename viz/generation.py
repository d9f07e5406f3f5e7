"""Figures for the decoder page: next-token bars, the beam-search tree, the causal attention
growing one row per generated token, and the loss terms of the two pre-training objectives."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import N_, _

from . import ticks
from .heatmap import safe_labels
from .theme import FONT, HEAD_COLOURS, WEIGHT_SCALE, style

KEPT, PRUNED, FINISHED, BEST = "#1f77b4", "#c7c7c7", "#2ca02c", "#d62728"
STATUS = {"prompt": N_("prompt"), "kept": N_("kept"), "pruned": N_("pruned"), "finished": N_("finished")}


def _esc(t) -> str:
    return html.escape(str(t), quote=False)


def plot_next_token_bars(tokens: list[str], probs: np.ndarray, *, chosen: str | None = None,
                         title: str | None = None, y_title: str | None = None) -> go.Figure:
    """Horizontal bars of the most likely next tokens, labelled by rank ("#1 ␣man": "·N" is a position elsewhere).
    tokens: K strings; probs: (K,) in [0, 1], best first; `chosen` is drawn in red. y_title defaults to "next
    token"."""
    p = np.asarray(probs, dtype=np.float64)
    labels = [f"#{i + 1} {_esc(t)}" for i, t in enumerate(tokens)]
    colours = [BEST if chosen is not None and t == chosen else KEPT for t in tokens]
    fig = go.Figure(go.Bar(x=p, y=labels, orientation="h", marker_color=colours,
                           text=[f"{v:.3f}" for v in p], textposition="outside", cliponaxis=False,
                           customdata=[_esc(t) for t in tokens],
                           hovertemplate=_("token: %{customdata}<br>probability: %{x:.4f}") + "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=y_title or _("next token"))
    top = max(0.05, float(p.max(initial=0)))
    fig.update_xaxes(range=[0, top * 1.22], title=_("probability"))          # room for the value labels
    return style(fig, title, height=max(240, 34 * len(tokens) + 110))


def tree_layout(parents: list[int], order_key: list[float]) -> np.ndarray:
    """y position of every node: leaves in depth-first order (children by descending key),
    a parent centred over its children. parents: (n,) index of the parent or -1. Returns (n,)."""
    n = len(parents)
    children = [[] for _ in range(n)]
    for i, p in enumerate(parents):
        if p >= 0:
            children[p].append(i)
    y = np.zeros(n)
    next_leaf = [0.0]

    def place(i):
        kids = sorted(children[i], key=lambda c: -order_key[c])
        if not kids:
            y[i] = next_leaf[0]
            next_leaf[0] += 1
            return
        for c in kids:
            place(c)
        y[i] = float(np.mean([y[c] for c in kids]))

    for root in (i for i, p in enumerate(parents) if p < 0):
        place(root)
    return y


def plot_beam_tree(steps: list[int], parents: list[int], tokens: list[str], logprobs: list[float],
                   scores: list[float], status: list[str], *, best_path: list[int] = (),
                   title: str | None = None) -> go.Figure:
    """The beam-search tree. One node per candidate: steps (n,) depth, parents (n,) (-1 = prompt),
    status "prompt" | "kept" | "pruned" | "finished"; best_path: node indices of the winning beam."""
    y = tree_layout(list(parents), list(scores))
    on_best = set(best_path)
    fig = go.Figure()
    for name, colour, width, dash, keep in ((_("pruned"), PRUNED, 1, "dot", lambda s: s == "pruned"),
                                            (_("kept"), KEPT, 2, "solid", lambda s: s != "pruned"),
                                            (_("best beam"), BEST, 4, "solid", None)):
        xs, ys = [], []
        for i, p in enumerate(parents):
            if p < 0:
                continue
            if (keep is None and i in on_best) or (keep is not None and keep(status[i]) and i not in on_best):
                xs += [steps[p], steps[i], None]
                ys += [y[p], y[i], None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=name, hoverinfo="skip",
                                 line=dict(color=colour, width=width, dash=dash)))
    colour_of = {"prompt": "#444444", "kept": KEPT, "pruned": PRUNED, "finished": FINISHED}
    template = _("token: {token}<br>log p: {logp}<br>score Σ log p: {score}<br>{status}")
    hover = [template.format(token=_esc(t), logp=f"{lp:.4f}", score=f"{s:.4f}", status=_(STATUS.get(st, st)))
             for t, lp, s, st in zip(tokens, logprobs, scores, status)]
    fig.add_trace(go.Scatter(
        x=list(steps), y=y, mode="markers+text", text=[_esc(t) for t in tokens], textposition="middle right",
        marker=dict(size=[14 if i in on_best else 9 for i in range(len(steps))],
                    color=[BEST if i in on_best else colour_of.get(s, KEPT) for i, s in enumerate(status)],
                    line=dict(color="white", width=1)),
        textfont=dict(color=["#111111" if s != "pruned" else "#9a9a9a" for s in status]),
        hovertext=hover, hoverinfo="text", showlegend=False))
    fig.update_xaxes(title=_("generation step"), dtick=1, range=[-0.3, max(steps) + 0.9])
    fig.update_yaxes(visible=False, autorange="reversed")
    fig.update_layout(legend=dict(orientation="h", y=1.02, x=0))
    return style(fig, title, height=int(max(320, min(1100, 22 * (y.max() + 1) + 120))))


def plot_causal_growth(weights: np.ndarray, tokens: list[str], *, upto: int, n_prompt: int = 0,
                       title: str | None = None) -> go.Figure:
    """Attention of one head (or a mean), weights (N, N), after feeding token `upto`: only tokens
    0..upto exist at that step, so only they are drawn (rows and columns; later tokens are not written
    yet). The red staircase marks the causal boundary (every cell right of it is exactly 0); the red box
    is the newest row; a dashed line ends the prompt. Axes are numeric positions with token tick labels,
    so shapes line up."""
    n = upto + 1
    w = np.asarray(weights, dtype=np.float64)[:n, :n]                 # (n, n): the tokens fed so far
    labels = safe_labels(tokens[:n])
    cell = _("query: {query}<br>key: {key}")
    hover = [[cell.format(query=labels[i], key=labels[j]) for j in range(n)] for i in range(n)]
    fig = go.Figure(go.Heatmap(z=w, x=list(range(n)), y=list(range(n)), zmin=0, zmax=1, colorscale=WEIGHT_SCALE,
                               customdata=hover, hoverongaps=False,
                               hovertemplate="%{customdata}<br>" + _("weight: %{z:.4f}") + "<extra></extra>"))
    xs, ys = [-0.5], [-0.5]
    for i in range(n):
        xs += [i + 0.5, i + 0.5]
        ys += [i - 0.5, i + 0.5]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=BEST, width=2), hoverinfo="skip",
                             showlegend=False))
    fig.add_shape(type="rect", x0=-0.5, x1=n - 0.5, y0=upto - 0.5, y1=upto + 0.5, line=dict(color=BEST, width=3))
    if 0 < n_prompt < n:
        fig.add_shape(type="line", x0=-0.5, x1=n - 0.5, y0=n_prompt - 0.5, y1=n_prompt - 0.5,
                      line=dict(color="#7f7f7f", width=1, dash="dash"))
    axis = dict(showgrid=False, zeroline=False, **ticks.numbered_every_label(labels))
    fig.update_xaxes(title=_("key (earlier tokens)"), range=[-0.5, n - 0.5], **axis)
    fig.update_yaxes(title=_("query (fed token)"), autorange=False, range=[n - 0.5, -0.5],
                     **{**axis, **ticks.numbered_every_label(labels, picked=upto)})
    style(fig, title, height=max(360, min(840, 24 * n + 190)))
    ticks.fit(fig, font=FONT["size"], width=ticks.PAGE_WIDTH)
    return fig


def plot_objectives(words: list[str], mlm_loss: np.ndarray, clm_loss: np.ndarray, *,
                    title: str | None = None, unit: str | None = None) -> go.Figure:
    """Which words (or pieces: unit, as shown; default "word") give a loss term. mlm_loss, clm_loss: (W,) nats,
    nan where the objective has no term (masked LM: only the hidden words; causal LM: every word)."""
    unit = unit or _("word")
    z = np.vstack([np.asarray(mlm_loss, float), np.asarray(clm_loss, float)])      # (2, W)
    rows = [_("encoder · masked LM"), _("decoder · causal LM")]
    text = [["" if np.isnan(v) else f"{v:.2g}" for v in r] for r in z]
    labels = [f"{_esc(t)} ·{i}" for i, t in enumerate(words)]
    fig = go.Figure(go.Heatmap(
        z=z, x=labels, y=rows, colorscale="Oranges", zmin=0, text=text, texttemplate="%{text}",
        colorbar=dict(title=dict(text=_("−log p"), side="right")),
        hovertemplate="%{y}<br>" + _("{unit}: %{{x}}<br>loss term: %{{z:.4f}} nats").format(unit=unit)
        + "<extra></extra>"))
    fig.update_xaxes(tickangle=-45, title=_("{unit} (its loss term: −log p of the true {unit})").format(unit=unit))
    fig.update_yaxes(autorange="reversed")
    return style(fig, title, height=290)


def plot_step_probs(tokens: list[str], probs: np.ndarray, *, first: int = 0, title: str | None = None) -> go.Figure:
    """Probability the model gave each generated token at its step: tokens (S,), probs (S,); first: the position of
    tokens[0] in the text (after the prompt), so each label carries its position ("␣man ·9")."""
    labels = [f"{_esc(t)} ·{first + i}" for i, t in enumerate(tokens)]
    fig = go.Figure(go.Bar(x=labels, y=np.asarray(probs, float), marker_color=HEAD_COLOURS[0],
                           hovertemplate=_("token: %{x}<br>probability: %{y:.4f}") + "<extra></extra>"))
    fig.update_yaxes(range=[0, 1], title=_("probability when chosen"))
    fig.update_xaxes(tickangle=-45)
    return style(fig, title, height=280)
