"""The explorer's "Queries & keys" tab: the zoomed head's query and key vectors in one picture (AttentionViz,
Yeh et al. 2023), projected on the same two principal components, with lines for the strongest pairs; on the
typed text, or on many held-out sentences at once. Teaches what a head compares: do its queries and keys form
matching clusters?"""
import numpy as np
import streamlit as st

from app_pages import _export, _head_runs, _url
from app_pages.views.explorer_state import ExplorerState
from i18n import N_, _
from labels import file_label, head_label
from model.analysis import qk_projection as qk
from viz.qk_scatter import plot_qk

BIND, KEEP = _url.BIND, _url.KEEP
SOURCES = {"text": N_("this text"), "many": N_("many sentences")}
SENTENCES = 40                    # held-out course-world sentences, each read alone


def _vectors(state: ExplorerState, source: str):
    """(q (N, D), k (N, D), q hover, k hover, pairs' weight blocks [(offset, (n, n))]) for the picked source."""
    layer, head = state.layer, state.head
    if source == "text":
        run = _head_runs.qkv_run(state.name, state.device, state.text)
        labels = [f"{t} ·{i}" for i, t in enumerate(run.tokens)]
        return run.q[layer, head], run.k[layer, head], labels, labels, [(0, run.weights[layer, head])]
    many = _head_runs.sentences_qk(state.name, state.device, layer, head, SENTENCES)
    labels, blocks, at = [], [], 0
    for s, (tokens, w) in enumerate(zip(many.tokens, many.weights)):
        labels += [_("{token} (sentence {s})").format(token=t, s=s + 1) for t in tokens]
        blocks.append((at, w))
        at += len(tokens)
    return np.concatenate(many.q), np.concatenate(many.k), labels, labels, blocks


def _pairs(blocks, count: int) -> np.ndarray:
    """The `count` strongest (query, key, weight) pairs over every block, indices into the stacked vectors."""
    found = [qk.strongest_pairs(w, count) + np.array([at, at, 0.0]) for at, w in blocks]
    rows = np.concatenate(found) if found else np.zeros((0, 3))
    return rows[np.argsort(-rows[:, 2], kind="stable")[:count]]


def render(state: ExplorerState):
    layer, head = state.layer, state.head
    name = head_label(layer, head)
    c1, c2, c3 = st.columns([1.3, 1.2, 1.5])
    shown = {k: _(v) for k, v in SOURCES.items()}
    _url.as_option("explorer_qk_source", list(SOURCES), list(shown.values()))
    source = c1.radio(_("Vectors from"), list(SOURCES), key="explorer_qk_source", format_func=shown.get, bind=BIND,
                      persist_state=KEEP, horizontal=True,
                      help=_("Many sentences: {n} held-out course-world sentences, each read alone.").format(
                          n=SENTENCES))
    align = c2.toggle(_("Align keys to queries"), True, key="explorer_qk_align", bind=BIND, persist_state=KEEP,
                      help=_("As AttentionViz: keys shifted to the queries' mean and both scaled to one mean "
                             "length; neither changes any softmax row."))
    count = c3.slider(_("Lines for the strongest pairs"), 0, 200, 30, step=5, key="explorer_qk_lines", bind=BIND,
                      persist_state=KEEP)
    q, k, q_text, k_text, blocks = _vectors(state, source)
    proj = qk.project(q, k, align=align)
    pairs = _pairs(blocks, count)
    _export.chart(plot_qk(proj.queries, proj.keys, q_text=q_text, k_text=k_text, pairs=pairs,
                          explained=proj.explained),
                  key="explorer_qk", width="stretch",
                  name=(state.name, file_label(layer, head), "queries_keys", source),
                  title=_("{head}: queries and keys on one plane").format(head=name),
                  caption=state.caption(name))
    st.caption(_("PCA of the {n} queries and {m} keys stacked together (one projection for both; the two axes "
                 "hold {share:.0%} of their variance). Lines join the {p} strongest query-key pairs (largest "
                 "weights{each}). A query scores a key by their dot product, not their distance: look for "
                 "queries that sit beside the keys they pick.").format(
        n=len(q), m=len(k), share=float(proj.explained.sum()), p=len(pairs),
        each=_(", each sentence read alone") if source == "many" else ""))
    if align:
        st.caption(_("Aligned: keys shifted by a constant vector (|shift| = {shift:.3f}) and queries × {c:.3f}, keys "
                     "÷ {c:.3f}.").format(shift=float(np.linalg.norm(proj.shift)), c=proj.scale))
