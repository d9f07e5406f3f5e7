"""The coreference page's "Patching" tab: activation patching on a minimal pair (Meng et al. 2022; Heimersheim &
Nanda 2024). Copy one residual state of sentence A ("…too big") into the run of sentence B ("…too small") and see
whether the coreference head's arrow and the model's answer move; then the change of the pronoun's score split
exactly into the query side and the key side, and which earlier heads wrote each. Teaches that attention is
computed from states, and that a causal experiment, not the picture, says which state carries the decision."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _url
from app_pages._cache_sizes import RUNS_KEPT
from app_pages._markup import esc, md
from app_pages._resources import clip_text, loaded
from i18n import N_, _
from labels import head_label, layer_label
from model.analysis.patching import PairError
from model.data import course_world as corpus
from viz.coref import plot_arrows
from viz.patching import plot_patch_map, plot_score_split, plot_writers
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP
MAX_CHARS = 600
ONE_WORD = (N_("the paragraph / one word changed (cooks → felt)"), corpus.PARAGRAPH,
            corpus.PARAGRAPH.replace("only cooks", "only felt", 1))
FIRST = "big / small"            # the trophy and the suitcase open the tab
PAIRS = sorted([p[:3] for p in corpus.MINIMAL_PAIRS], key=lambda p: p[0] != FIRST) + [ONE_WORD]
CELL, SHOWN = "coref_patch_cell", "_coref_patch_shown"     # session state: the clicked cell, the pair it belongs to


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Patching every state of A into B… · 正在把 A 的每个状态修补进 B…")
def patch_run(name: str, device: str, text_a: str, text_b: str):
    """model.analysis.patching.PatchMap of the pair on the model's coreference head."""
    from model.analysis.patching import patch_map
    h = loaded(name, device)
    return patch_map(h.model, h.tokenizer, text_a, text_b, tuple(h.meta["coref_head"]),
                     h.meta.get("coref_candidates", "all"))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Splitting the scores… · 正在拆分分数…")
def split_run(name: str, device: str, text_a: str, text_b: str):
    """model.analysis.patching.ScoreSplit for the pair's candidates and both answers."""
    from model.analysis.patching import score_split
    pm = patch_run(name, device, text_a, text_b)
    words = tuple(sorted(set(pm.pair.candidates) | {pm.answer_a, pm.answer_b}))
    return score_split(loaded(name, device).model, pm.pair, pm.head, words)


def _new_pair():
    pair = next(p for p in PAIRS if p[0] == st.session_state["coref_patch_pair"])
    st.session_state["coref_patch_a"], st.session_state["coref_patch_b"] = pair[1], pair[2]


def _pick_cell():
    """A click on the map: that layer and position."""
    for p in st.session_state["coref_patch_map"]["selection"]["points"]:
        if isinstance(p.get("customdata"), list) and len(p["customdata"]) == 2:
            st.session_state[CELL] = tuple(int(x) for x in p["customdata"])
            return


def why_not(e: PairError) -> str:
    """The page's own words for a pair that cannot be patched."""
    d = e.details
    if e.reason == "too_long":
        return _("Sentence {text} has {n} pieces; the model reads at most {most}.").format(**d)
    if e.reason == "unaligned":
        return _("The two sentences cannot be lined up: they have {pieces_a} and {pieces_b} pieces and {words_a} and "
                 "{words_b} words, and no word matches in place. Write two versions of one sentence: the same number "
                 "of pieces, or the same words before and after the change.").format(**d)
    if e.reason == "no_pronoun":
        return _("Both sentences need a pronoun (it, they, their, …).")
    if e.reason == "pronoun_place":
        return _("The first pronoun must stand at the same place in both sentences: “{a}” is word {i} of A, “{b}” "
                 "word {j} of B.").format(a=md(d["word_a"]), i=d["index_a"], b=md(d["word_b"]), j=d["index_b"])
    return _("A's answer “{word}” (word {index}) has no counterpart in B, so its weight cannot be followed "
             "there.").format(word=md(d["word"]), index=d["index"])


def best_cell(pm, last: int) -> tuple[int, int]:
    """The cell to name: the flip with the largest move towards A's answer (the earliest layer, then position, among
    moves equal to 3 decimals), else the largest move of all; layers up to `last`."""
    effect = np.round(np.nan_to_num(pm.effect[:last + 1], nan=-np.inf), 3)         # equal to the 3 decimals shown
    flips = pm.flips[:last + 1]
    pool = np.where(flips, effect, -np.inf) if flips.any() else np.where(np.isfinite(effect), np.abs(effect), -np.inf)
    i, t = np.unravel_index(int(np.argmax(pool)), pool.shape)          # argmax: row-major, so the earliest layer
    return int(i), int(t)


def _spans(layers: list[int]) -> str:
    """[1, 2, 3] -> "L1–L3"; [0, 2] -> "L0, L2"."""
    out, start = [], layers[0]
    for a, b in zip(layers, layers[1:] + [None]):
        if b != a + 1:
            out.append(layer_label(start) if start == a else f"{layer_label(start)}–{layer_label(a)}")
            start = b
    return ", ".join(out)


def verdict(pm, last: int) -> str:
    """What the map says, in words, from its numbers."""
    pair, words = pm.pair, pm.pair.b.word_texts
    before, right = words[pm.answer_b], words[pm.answer_a]
    flips = pm.flips[:last + 1]
    if not flips.any():
        i, t = best_cell(pm, last)
        said = (_("A and B get the same answer, **{answer}**, so no patch can flip it to A's.") if pm.answer_a ==
                pm.answer_b else _("No single state of A flips B's answer (**{answer}**)."))
        return said.format(answer=md(before)) + _(
            " The largest move: the residual stream entering {layer} at “{piece}” (position {t}) changes the weight on "
            "**{right}** by {effect:+.3f}.").format(layer=layer_label(i), piece=md(pair.b.tokens[t].strip()), t=t,
                                                   right=md(right), effect=pm.effect[i, t])
    i, t = best_cell(pm, last)
    word = next(w for w, pieces in enumerate(pair.b.words) if t in pieces)
    said = _("Patching the residual stream entering **{layer}** at the word **{word}** (piece “{piece}”, position {t}) "
             "flips the answer from **{before}** to **{after}**: the weight on **{right}** goes from {w_b:.3f} to "
             "{w_p:.3f}.").format(layer=layer_label(i), word=md(words[word]), piece=md(pair.b.tokens[t].strip()), t=t,
                                  before=md(before), after=md(words[pm.answers[i, t]]), right=md(right),
                                  w_b=pm.row_b[pm.answer_a], w_p=pm.rows[i, t, pm.answer_a])
    where = []
    for t in np.flatnonzero(flips.any(0)):
        where.append(_("“{piece}” ({layers})").format(piece=md(pair.b.tokens[t].strip()),
                                                       layers=_spans([int(x) for x in np.flatnonzero(flips[:, t])])))
    return said + _(" The answer flips at {n} of {m} cells: {where}.").format(
        n=int(flips.sum()), m=int(np.isfinite(pm.effect[:last + 1]).sum()), where="; ".join(where))


def _arrows(words, src: int, row, title: str, key: str, name: str, text: str, where):
    _export.chart(plot_arrows(list(words), src, np.asarray(row), title=title, per_line=24, font_size=13), key=key,
                  name=(name, "patching", key), caption=caption_line(name, text=text), where=where)


def _writer_name(label: str, kind: str) -> str:
    if kind == "embeddings":
        return _("embeddings")
    if kind == "biases":
        return _("biases and LayerNorm shifts")
    if kind == "ffn":
        return _("{layer} feed-forward").format(layer=label.split()[0])
    return label


def split_view(pm, split, name: str):
    """The score split of the pronoun's row, and the writers of each side."""
    pair, words = pm.pair, pm.pair.b.word_texts
    head = head_label(*pm.head)
    pron = words[pair.pronoun]
    st.subheader(_("Why the head changed its mind: the score split"))
    st.markdown(_("In {head}, the score of “{pronoun}” to a word is q·k/√d_k (q: the pronoun's query, k: the word's "
                  "key; a word of several pieces: the mean of its pieces' scores). From B to A it changes by exactly "
                  "**(q_A − q_B)·k_B** (the query side: only the pronoun's query moved) **+ q_B·(k_A − k_B)** (the key "
                  "side: only the word's key moved) **+ (q_A − q_B)·(k_A − k_B)** (both together), all ÷ √d_k.").format(
        head=head, pronoun=md(pron)))
    cand = [words[j] for j in split.candidates]
    table = pd.DataFrame({_("word"): cand, _("score in A"): split.score_a, _("score in B"): split.score_b,
                          _("change"): split.change, _("query side"): split.query_side,
                          _("key side"): split.key_side, _("interaction"): split.interaction})
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%+.3f") for c in table.columns[1:]})
    left, right = st.columns(2)
    with left:
        _export.chart(plot_score_split(split.query_side, split.key_side, split.interaction, words=cand,
                                       title=_("“{pronoun}” in {head}: A − B, split").format(pronoun=esc(pron),
                                                                                            head=head)),
                      key="coref_patch_split", name=(name, "patching", "score_split"),
                      caption=caption_line(name, head))
    with right:
        labels = _url.word_labels(cand)
        k = st.selectbox(_("Writers for the word"), range(len(cand)), key="coref_patch_split_word",
                         index=split.candidates.index(pm.answer_a) if pm.answer_a in split.candidates else 0,
                         format_func=labels.__getitem__)
        names = [_writer_name(lab, kind) for lab, kind in zip(split.sources, split.kinds)]
        _export.chart(plot_writers(split.query_parts[:, k], split.key_parts[:, k], labels=names,
                                   title=_("Who wrote the change to “{word}”").format(word=esc(cand[k]))),
                      key="coref_patch_writers", name=(name, "patching", "writers"), caption=caption_line(name, head))
    q, kk = split.query_parts[:, k], split.key_parts[:, k]
    st.markdown(_("To **{word}**: the score changes by {change:+.3f} = {q:+.3f} (query side) {k:+.3f} (key side) "
                  "{x:+.3f} (together).").format(word=md(cand[k]), change=split.change[k], q=split.query_side[k],
                                                 k=split.key_side[k], x=split.interaction[k]))
    heads = [s for s, kind in enumerate(split.kinds) if kind == "head"]
    for side, parts in ((_("the query side"), q), (_("the key side"), kk)):
        top = int(np.argmax(np.abs(parts)))
        said = _("Into {side}, the largest writer is **{top}** ({value:+.3f}).").format(
            side=side, top=names[top], value=parts[top])
        if heads and split.kinds[top] != "head":
            best = max(heads, key=lambda s: abs(parts[s]))
            said += _(" Of the earlier heads, **{head}** writes most ({value:+.3f}).").format(
                head=split.sources[best], value=parts[best])
        st.markdown("- " + said)
    st.caption(_("The writers: the embeddings, each earlier head's output through its slice of W_O, each earlier "
                 "feed-forward block, and the biases, carried through the LayerNorms to the head's W_Q or W_K. "
                 "LayerNorm divides by the whole stream's spread, so it is not linear: its scale is frozen at its "
                 "value in each run, and then the parts add up exactly to each side. The shares say what each writer "
                 "put in, given those scales, not what removing it would do (the Head ablation tab measures that)."))


def render(device: str, chosen: tuple[int, int], name: str, candidates: str):
    st.markdown(_("Activation patching: run sentence A and sentence B, then run B again with one state copied from "
                  "A (the residual stream entering a layer, at one position) and see whether the coreference head "
                  "**{head}** moves its weight and the answer flips. A cell of the map is one such run.").format(
        head=head_label(*chosen)))
    a, b = pair_boxes()
    try:
        pm = patch_run(name, device, a, b)
    except PairError as e:
        st.warning(why_not(e))
        return
    pair, words = pm.pair, pm.pair.b.word_texts
    last = pm.head[0]
    if st.session_state.get(SHOWN) != (name, a, b):                    # another pair: its own cell and word
        st.session_state[SHOWN] = (name, a, b)
        st.session_state[CELL] = best_cell(pm, last)
        st.session_state.pop("coref_patch_word", None)
        st.session_state.pop("coref_patch_split_word", None)
    pron = words[pair.pronoun]
    st.markdown(_("Head **{head}**: in A, **{pronoun}** → **{a}** ({wa:.3f}); in B → **{b}** ({wb:.3f}). The right "
                  "antecedent is A's answer, **{a}**.").format(
        head=head_label(*pm.head), pronoun=md(pron), a=md(pair.a.word_texts[pm.answer_a_own]),
        wa=pm.row_a[pm.answer_a_own], b=md(words[pm.answer_b]), wb=pm.row_b[pm.answer_b]))
    st.info(verdict(pm, last))
    cell = patch_map_view(pm, name, f"A: {a} B: {b}")
    cell_run(pm, cell, name, (a, b))
    split_view(pm, split_run(name, device, a, b), name)


def pair_boxes() -> tuple[str, str]:
    """A minimal pair picked (its sentences into the boxes), both sentences editable. Returns (A, B)."""
    titles = [p[0] for p in PAIRS]
    shown = {t: _(t) for t in titles}
    _url.stale_link("coref_patch_pair", titles, _("the pair"), shown[titles[0]])
    pick = st.selectbox(_("Minimal pair"), titles, key="coref_patch_pair", on_change=_new_pair,
                        format_func=shown.get, bind=BIND, persist_state=KEEP)
    _title, text_a, text_b = PAIRS[titles.index(pick)]
    c1, c2 = st.columns(2)
    _url.clipped_link_text("coref_patch_a", MAX_CHARS)
    a = clip_text(c1.text_input(_("Sentence A (its states are copied)"), text_a, key="coref_patch_a",
                                max_chars=MAX_CHARS, bind=_url.text_bind("coref_patch_a"), persist_state=KEEP),
                  MAX_CHARS)
    _url.clipped_link_text("coref_patch_b", MAX_CHARS)
    b = clip_text(c2.text_input(_("Sentence B (patched)"), text_b, key="coref_patch_b", max_chars=MAX_CHARS,
                                bind=_url.text_bind("coref_patch_b"), persist_state=KEEP), MAX_CHARS)
    st.caption(_("Sentences with the same number of pieces are patched piece by piece; otherwise the words both share "
                 "at the start and the end (and, with as many words, the words in between) are lined up, and a word "
                 "is patched where it has as many pieces in both."))
    return a, b


def patch_map_view(pm, name: str, both: str) -> tuple[int, int]:
    """The word whose weight the map follows, and the map of every state of A patched into B (a click picks a
    cell); both: "A: … B: …" for the slides' caption. Returns the picked cell (layer, position)."""
    pair, words, last = pm.pair, pm.pair.b.word_texts, pm.head[0]
    pron = words[pair.pronoun]
    options = sorted(set(pair.candidates) | {pm.answer_a, pm.answer_b})
    labels = _url.word_labels(words)
    word = st.selectbox(_("Weight on"), options, index=options.index(pm.answer_a), key="coref_patch_word",
                        format_func=labels.__getitem__,
                        help=_("The map shows how much each patch moves the head's weight from the pronoun to this "
                               "word (A's answer at first)."))
    cell = st.session_state.get(CELL) or best_cell(pm, last)
    answers = [[words[x] if x >= 0 else "" for x in row] for row in pm.answers[:last + 1]]
    fig = plot_patch_map(pm.effect_on(word)[:last + 1], pm.flips[:last + 1], tokens=list(pair.b.tokens),
                         row_labels=[layer_label(i) for i in range(last + 1)], answers=answers, picked=cell,
                         value_name=_("Δ weight on “{word}”").format(word=esc(words[word])),
                         title=_("Each state of A patched into B: the weight of “{pronoun}” on “{word}” in {head}")
                         .format(pronoun=esc(pron), word=esc(words[word]), head=head_label(*pm.head)))
    _export.chart(fig, key="coref_patch_map", on_select=_pick_cell, selection_mode="points", width="stretch",
                  name=(name, "patching", "map"), main=True,
                  caption=caption_line(name, head_label(*pm.head), text=both))
    st.caption(_("Red: the patch raises the weight, blue: lowers it; ✕: the answer flips; grey: no counterpart in A. "
                 "Rows stop at {layer}: the head reads the stream entering its own layer, so later states cannot "
                 "move it. Click a cell to see that run's arrows.").format(layer=layer_label(last)))
    return cell


def cell_run(pm, cell: tuple[int, int], name: str, texts: tuple[str, str]):
    """The run of the picked cell: where the head sends the pronoun in A, in B, and in B patched at that cell;
    texts: (A, B)."""
    a, b = texts
    pair, words, last = pm.pair, pm.pair.b.word_texts, pm.head[0]
    pron = words[pair.pronoun]
    i, t = cell
    if not np.isfinite(pm.rows[i, t]).all():
        i, t = best_cell(pm, last)
    st.markdown(_("**The run of cell {layer} · “{piece}” (position {t})**: B, with the residual stream entering "
                  "{layer} at that position copied from A. Its answer: **{answer}**.").format(
        layer=layer_label(i), piece=md(pair.b.tokens[t].strip()), t=t, answer=md(words[pm.answers[i, t]])))
    cols = st.columns(3)
    head = head_label(*pm.head)
    _arrows(pair.a.word_texts, pair.pronoun_a, pm.row_a, _("A: where {head} sends “{word}”").format(
        head=head, word=esc(pron)), "coref_patch_arrows_a", name, a, cols[0])
    _arrows(words, pair.pronoun, pm.row_b, _("B: where {head} sends “{word}”").format(head=head, word=esc(pron)),
            "coref_patch_arrows_b", name, b, cols[1])
    _arrows(words, pair.pronoun, pm.rows[i, t], _("B patched at {layer} · “{piece}”").format(
        layer=layer_label(i), piece=esc(pair.b.tokens[t].strip())), "coref_patch_arrows_patched", name, b, cols[2])
