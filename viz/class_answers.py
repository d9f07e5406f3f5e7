"""The class's answers for a projector: how many students picked each option (a multi-select answer counts every
option it picked), the right ones marked once revealed; and the quiz's share of right answers per objective
before and after the lecture. Plain counts and labels in, a Plotly figure out."""
import html

import plotly.graph_objects as go

from i18n import _

from .grid import layout

PICKED, RIGHT, WRONG = "#6baed6", "#1a9850", "#bdbdbd"        # before the reveal; after: right and the others
BEFORE, AFTER = "#9ecae1", "#08519c"
LABEL_CHARS = 48


def _short(label: str) -> str:
    label = html.escape(str(label), quote=False)
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…"


def plot_class_answers(counts, labels, *, answered: int, right=None, title: str | None = None) -> go.Figure:
    """counts[i]: students who picked option i; labels[i]: its name (plain text, escaped here); answered: students
    who answered; right: the right options' indices once revealed (None before: every bar one colour). Bars run
    across, the first option on top; each is labelled with its count and its share of those who answered."""
    counts = [int(c) for c in counts]
    names = [f"{chr(65 + i)} · {_short(label)}" for i, label in enumerate(labels)]
    if right is None:
        colours = [PICKED] * len(counts)
    else:
        colours = [RIGHT if i in set(right) else WRONG for i in range(len(counts))]
    text = [f"{c} ({c / answered:.0%})" if answered else "0" for c in counts]
    hover = _("{option}: {n} students").format(option="%{y}", n="%{x}") + "<extra></extra>"
    bar = dict(type="bar", orientation="h", x=counts, y=names, text=text, textposition="auto",
               marker=dict(color=colours), hovertemplate=hover, cliponaxis=False)
    top = max(counts + [1])
    return go.Figure([bar], layout(title, 90 + 46 * len(counts),
                                   xaxis=dict(title=dict(text=_("students ({n} answered)").format(n=answered)),
                                              range=[0, top * 1.15], dtick=max(1, round(top / 5))),
                                   yaxis=dict(autorange="reversed", automargin=True),
                                   margin=dict(l=10, r=20, t=50 if title else 10, b=10), showlegend=False))


def plot_quiz_gain(names, pre, post, *, title: str | None = None) -> go.Figure:
    """names[i]: an objective; pre[i], post[i]: the share (0–1) of right answers before and after (None: no
    answers yet). Paired bars per objective."""
    def shares(values):
        return [None if v is None else round(100 * v) for v in values]
    ys = [_short(n) for n in names]
    traces = [dict(type="bar", orientation="h", name=name, x=shares(values), y=ys, marker=dict(color=colour),
                   text=[("" if v is None else f"{v}%") for v in shares(values)], textposition="auto",
                   hovertemplate="%{y}: %{x}%<extra>" + name + "</extra>")
              for name, values, colour in ((_("before the lecture"), pre, BEFORE),
                                           (_("after the lecture"), post, AFTER))]
    return go.Figure(traces, layout(title, 110 + 56 * len(names), barmode="group",
                                    xaxis=dict(title=dict(text=_("right answers (%)")), range=[0, 105]),
                                    yaxis=dict(autorange="reversed", automargin=True),
                                    legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0)))
