"""The explorer's "Why this weight" tab: click a cell of the zoomed head (or pick a query and a key piece) and see
its pre-softmax score taken apart: Σ_d q_i,d·k_j,d, the dimensions that add or take away most, the 1/√d_k
scale, the mask, and the whole row of scores the softmax made into weights. Teaches that a weight is large
only relative to its row: softmax compares scores, so a big weight needs a score that stands out."""
import re
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _head_runs, _state, _url
from app_pages._markup import md
from app_pages.views.explorer_state import ExplorerState, Zoom
from i18n import N_, _, ngettext
from labels import file_label, head_label
from model.analysis.why_weight import decompose
from viz import why_weight as viz

BIND = _url.BIND
TAB = N_("Why this weight")
CLICK_MAX = 160                      # tokens a side the zoom takes clicks on (one invisible marker per cell)
INDEX = re.compile(r"·(\d+)$")


def clickable_zoom(state: ExplorerState, fig, zoom: Zoom):
    """(figure, chart arguments) for the zoomed head: while this tab is open (and the zoom has at most CLICK_MAX
    rows), a click target on every cell and a callback that brings the clicked cell here; else unchanged (the
    other tabs' reruns pay nothing)."""
    if state.tab != _(TAB) or len(zoom.labels) > CLICK_MAX:
        return fig, {}
    pieces = tuple(state.pieces_of(r) for r in zoom.rows)
    head = state.run.weights[state.layer, state.head].copy()     # a copy: the callback keeps no whole run alive
    return (viz.with_click_targets(fig, zoom.matrix, q_labels=zoom.labels, k_labels=zoom.labels),
            dict(on_select=partial(pick_cell, pieces, head), selection_mode="points"))


def pick_cell(pieces: tuple[tuple[int, ...], ...], weights: np.ndarray) -> None:
    """A click on a cell of the zoomed head: that query and key (their pieces) in this tab, which opens. pieces: the
    model's pieces of each row (and column) of the zoom as it was drawn; weights: (n, n) that head's weights between
    pieces. The query is the row's first piece; the key, the column's piece the query weighs most."""
    points = st.session_state["explorer_zoom"]["selection"]["points"]
    if not points:
        return
    ys, xs = INDEX.search(str(points[0].get("y", ""))), INDEX.search(str(points[0].get("x", "")))
    if ys is None or xs is None or int(ys.group(1)) >= len(pieces) or int(xs.group(1)) >= len(pieces):
        return
    q = pieces[int(ys.group(1))][0]
    k = max(pieces[int(xs.group(1))], key=lambda p: weights[q, p])
    st.session_state["explorer_why_q"], st.session_state["explorer_why_k"] = int(q), int(k)
    st.session_state["explorer_tab"] = _(TAB)


def _weight(w: float) -> str:
    """A weight to 4 decimals, or in scientific notation when that would read 0.0000."""
    return f"{w:.4f}" if w >= 5e-5 or w == 0 else f"{w:.2e}"


def _defaults(state: ExplorerState, n: int):
    """Query: the picked token's first piece; key: the piece it weighs most in the zoomed head. Another text: the
    old picks name other pieces, so the defaults again (a link's picks, on its first run, are kept)."""
    before = st.session_state.get("explorer_why_tokens")
    st.session_state["explorer_why_tokens"] = state.run.tokens
    if before is not None and before != state.run.tokens:
        for key in ("explorer_why_q", "explorer_why_k"):
            st.session_state.pop(key, None)
    first = state.pieces_of(state.picked)[0] if state.picked < len(state.tokens) else 0
    _state.clamp_index("explorer_why_q", n, first)
    row = state.run.weights[state.layer, state.head, st.session_state["explorer_why_q"]]
    _state.clamp_index("explorer_why_k", n, int(row.argmax()))


def _pick(state: ExplorerState, labels: list[str]) -> tuple[int, int]:
    """The query and key pieces (i, j) picked here or by a click on the zoom."""
    n, where = len(labels), head_label(state.layer, state.head)
    _url.stale_link("explorer_why_q", labels, _("the query piece"), labels[0])
    _url.stale_link("explorer_why_k", labels, _("the key piece"), labels[0])
    _defaults(state, n)
    if len(state.tokens) <= CLICK_MAX:
        st.caption(_("Click a cell of the zoomed head above, or pick a query and a key. The numbers are the model's "
                     "own q, k and scores for {head}, captured as it ran.").format(head=where))
    else:
        st.caption(_("Pick a query and a key (the zoomed head has too many cells to click). The numbers are the "
                     "model's own q, k and scores for {head}, captured as it ran.").format(head=where))
    c1, c2 = st.columns(2)
    i = c1.selectbox(_("Query piece"), range(n), key="explorer_why_q", format_func=labels.__getitem__, bind=BIND)
    j = c2.selectbox(_("Key piece"), range(n), key="explorer_why_k", format_func=labels.__getitem__, bind=BIND)
    return i, j


def _score(parts, query: str, key: str, where: str, n: int):
    """The weight's headline, its four numbers, and the score rebuilt from q·k (or the mask that forbids it)."""
    d_k = len(parts.products)
    st.markdown(_("**Why “{query}” gives “{key}” weight {weight} in {head}** (rank {rank} of {n} in its row)").format(
        query=md(query), key=md(key), weight=_weight(parts.weight), head=where, rank=parts.rank, n=n))
    m = st.columns(4)
    m[0].metric(_("q·k = Σ over {d} dimensions").format(d=d_k), f"{parts.dot:.4f}")
    m[1].metric(_("× 1/√d_k"), f"{parts.scale:.4f}", help=_("d_k = {d}: 1/√{d} = {s:.4f}").format(d=d_k, s=parts.scale))
    m[2].metric(_("score before softmax"), f"{parts.score:.4f}" if parts.allowed else "−∞")
    m[3].metric(_("weight after softmax"), _weight(parts.weight))
    if parts.allowed:
        bias = (_(" + a bias of {bias:.4f} the model adds") if abs(parts.bias) > 1e-4 else "").format(bias=parts.bias)
        st.markdown(_("score = {dot:.4f} × {scale:.4f} = {rebuilt:.6f}{bias}; the model's captured score is "
                      "{score:.6f} (difference {diff:.1e}, float32 rounding).").format(
            dot=parts.dot, scale=parts.scale, rebuilt=parts.rebuilt, bias=bias, score=parts.score,
            diff=abs(parts.score - parts.rebuilt - (parts.bias if abs(parts.bias) > 1e-4 else 0.0))))
    else:
        st.warning(_("The mask forbids this pair: its score is set to −∞ before the softmax, so its weight is "
                     "exactly 0 (q·k/√d_k would have been {rebuilt:.4f}).").format(rebuilt=parts.rebuilt))


def _terms(state: ExplorerState, run, parts, labels: list[str], i: int, j: int):
    """q·k term by term: the chart of every dimension's product, and a table of those that matter most."""
    layer, head = state.layer, state.head
    left, right = st.columns([1.3, 1])
    with left:
        _export.chart(viz.plot_products(parts.products, parts.top), key="explorer_why_products", width="stretch",
                      name=(state.name, file_label(layer, head), f"q{i}k{j}", "products"),
                      title=_("q·k term by term: “{query}” · “{key}”").format(query=labels[i], key=labels[j]),
                      caption=state.caption(head_label(layer, head)))
    with right:
        table = [{_("dimension"): int(d), "q": run.q[layer, head, i, d], "k": run.k[layer, head, j, d],
                  _("q × k"): parts.products[d], _("share of q·k"): parts.products[d] / parts.dot if parts.dot else 0}
                 for d in parts.top]
        st.markdown(_("**The {k} dimensions that matter most** (blue adds, red takes away):").format(k=len(table)))
        st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="%.4f")
                                    for c in ("q", "k", _("q × k"), _("share of q·k"))})
        pos, neg = parts.products[parts.products > 0].sum(), parts.products[parts.products < 0].sum()
        st.caption(_("Positive terms add up to {pos:.3f}, negative ones to {neg:.3f}: the dot product is what "
                     "is left.").format(pos=pos, neg=neg))


def _row(state: ExplorerState, run, parts, labels: list[str], i: int, j: int):
    """The query's whole row of scores, the softmax that made them weights, and how far this score stands out."""
    n = len(run.tokens)
    seen = np.flatnonzero(np.isfinite(parts.row_scores))            # the keys the softmax compared
    at = int(np.searchsorted(seen, j)) if parts.allowed else None
    _export.chart(viz.plot_row(parts.row_scores[seen], parts.row_weights[seen], [run.tokens[k] for k in seen], at,
                               positions=seen), key="explorer_why_row",
                  width="stretch", name=(state.name, file_label(state.layer, state.head), f"q{i}", "row_scores"),
                  title=_("The row of “{query}”: every score the softmax compared").format(query=labels[i]),
                  caption=state.caption(head_label(state.layer, state.head)))
    if len(seen) < n:
        st.caption(ngettext("{m} key the mask forbids (score −∞, weight 0) is left out.",
                            "{m} keys the mask forbids (score −∞, weight 0) are left out.", n - len(seen)).format(
            m=n - len(seen)))
    finite = parts.row_scores[seen]
    others = np.delete(parts.row_scores, j)
    others = others[np.isfinite(others)]
    gap = parts.score - others.max() if parts.allowed and len(others) else float("nan")
    st.caption(_("softmax: w_j = e^(s_j) / Σ e^(s_j'), over the {n} keys this query may see. This score is {gap:+.3f} "
                 "from the best other score in the row; a gap of g multiplies the weight ratio by e^g. Softmax of "
                 "the captured row matches the captured weights to {check:.1e}.").format(
        n=len(finite), gap=gap, check=parts.softmax_check()))


def render(state: ExplorerState):
    run = _head_runs.qkv_run(state.name, state.device, state.text)
    layer, head = state.layer, state.head
    labels = _url.word_labels(run.tokens)
    i, j = _pick(state, labels)
    parts = decompose(run.q[layer, head], run.k[layer, head], run.scores[layer, head], run.weights[layer, head], i, j)
    _score(parts, labels[i], labels[j], head_label(layer, head), len(run.tokens))
    _terms(state, run, parts, labels, i, j)
    _row(state, run, parts, labels, i, j)
