"""Figures for the sentence-similarity page: the cosine similarity matrix of a few sentences, and one sentence's
mean pooling (Reimers & Gurevych 2019, Sentence-BERT): its tokens' last-layer states, their mean, and the mean scaled
to length 1. numpy in, Plotly out."""
import html
import textwrap

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .heatmap import safe_labels
from .theme import DIVERGING_SCALE, WEIGHT_SCALE, style

LABEL_CHARS = 28          # a sentence on an axis, clipped with "…" (the hover has it whole)
HOVER_WIDTH = 60          # characters per line of a sentence in a hover
STATE_RANGE = 99          # the states' colour range: ± this percentile of |value| (a few outlier dimensions saturate)


def sentence_labels(sentences) -> list[str]:
    """One axis label per sentence, numbered from 1 and clipped: "1. The weather is lovely today." (escaped)."""
    out = []
    for i, s in enumerate(sentences, 1):
        s = " ".join(str(s).split())
        s = s if len(s) <= LABEL_CHARS else s[:LABEL_CHARS - 1].rstrip() + "…"
        out.append(html.escape(f"{i}. {s}", quote=False))
    return out


def _wrapped(sentence: str) -> str:
    """A sentence for a hover: escaped, in lines of about HOVER_WIDTH characters."""
    lines = textwrap.wrap(" ".join(str(sentence).split()), HOVER_WIDTH) or [""]
    return "<br>".join(html.escape(line, quote=False) for line in lines)


def plot_similarity(similarity: np.ndarray, sentences, *, title: str | None = None, decimals: int = 3) -> go.Figure:
    """similarity: (S, S) cosines of S sentence vectors; sentences: the S sentences as typed. Each cell shows its
    cosine to `decimals`; hover shows both sentences whole and the cosine to 6 decimals. Colours: the sequential
    blue from 0 to 1 (a negative cosine is drawn as 0; its number keeps the sign). title: "Cosine similarity"
    (translated) when None."""
    m = np.atleast_2d(np.asarray(similarity, dtype=np.float64))
    labels = sentence_labels(sentences)
    said = [_wrapped(s) for s in sentences]
    hover = [[_("{a}<br><i>and</i><br>{b}<br>cosine similarity: {value}").format(
        a=f"{i + 1}. {said[i]}", b=f"{j + 1}. {said[j]}", value=f"{m[i, j]:.6f}") for j in range(len(said))]
        for i in range(len(said))]
    fig = go.Figure(go.Heatmap(
        z=m, x=labels, y=labels, zmin=0.0, zmax=1.0, colorscale=WEIGHT_SCALE, customdata=hover,
        text=[[f"{v:.{decimals}f}" for v in row] for row in m], texttemplate="%{text}",
        textfont=dict(size=None if len(labels) <= 8 else 11), showscale=False, xgap=1, ygap=1,   # None: the page's
        colorbar=dict(title=_("cosine")), hovertemplate="%{customdata}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category", title=_("sentence"))
    fig.update_xaxes(type="category", title=_("sentence"), tickangle=-35)
    side = 46 * len(labels)
    return style(fig, _("Cosine similarity") if title is None else title, max(300, min(760, side + 230)))


def plot_pooling(states: np.ndarray, tokens, mean: np.ndarray, vector: np.ndarray, *,
                 title: str | None = None) -> go.Figure:
    """One sentence's mean pooling, three heatmaps over the same C dimensions: states (N, C), its tokens'
    last-layer states (labels: `tokens`); mean (C,), their mean u; vector (C,), v = u / ‖u‖. States and mean share a
    diverging scale (± the STATE_RANGE-th percentile of |state|); v has its own, as its entries are ‖u‖ times
    smaller. Hover: token, dimension and the value to 4 decimals."""
    x = np.atleast_2d(np.asarray(states, dtype=np.float64))
    u = np.asarray(mean, dtype=np.float64).reshape(1, -1)
    v = np.asarray(vector, dtype=np.float64).reshape(1, -1)
    n, c = x.shape
    dims = np.arange(c)
    r = float(np.percentile(np.abs(x), STATE_RANGE)) or 1.0
    rv = float(np.abs(v).max()) or 1.0
    states_h = min(560, max(150, 18 * n))
    heights = [states_h, 46, 46]
    titles = (_("last-layer states h_i of the {n} tokens").format(n=n), _("mean over the tokens: u"),
              _("normalised: v = u / ‖u‖, the sentence vector"))
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, row_heights=heights, vertical_spacing=0.09 * 300 / (
        sum(heights) + 140), subplot_titles=titles)
    dimension = _("dimension")
    fig.add_trace(go.Heatmap(z=x, x=dims, y=safe_labels(tokens), coloraxis="coloraxis",
                             hovertemplate=_("token: {token}").format(token="%{y}") + f"<br>{dimension}: %{{x}}"
                             + "<br>h = %{z:.4f}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Heatmap(z=u, x=dims, y=["u"], coloraxis="coloraxis",
                             hovertemplate=f"{dimension}: %{{x}}<br>"
                             + _("u = mean of {n} values = {value}").format(n=n, value="%{z:.4f}")
                             + "<extra></extra>"), row=2, col=1)
    fig.add_trace(go.Heatmap(z=v, x=dims, y=["v"], coloraxis="coloraxis2",
                             hovertemplate=f"{dimension}: %{{x}}<br>v = %{{z:.4f}}<extra></extra>"), row=3, col=1)
    total = sum(heights)
    top = 1 - states_h / total / 2
    fig.update_layout(
        coloraxis=dict(colorscale=DIVERGING_SCALE, cmin=-r, cmax=r, cmid=0.0,
                       colorbar=dict(title=dict(text="h, u"), y=top, len=0.55, thickness=14)),
        coloraxis2=dict(colorscale=DIVERGING_SCALE, cmin=-rv, cmax=rv, cmid=0.0,
                        colorbar=dict(title=dict(text="v"), y=0.08, len=0.3, thickness=14)))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(title=_("dimension (0–{last})").format(last=c - 1), row=3, col=1)
    fig.update_annotations(font_size=13, x=0, xanchor="left")
    return style(fig, title, total + 170)
