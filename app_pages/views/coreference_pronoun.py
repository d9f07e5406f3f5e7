"""The coreference page's first tab, "Pronoun → heads": a pronoun picked, a prediction asked first, then where the
coreference head (or any head) sends it, drawn as arcs, and every head's answer at that pronoun."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _predict, _present, _url
from app_pages._markup import esc, md
from i18n import _, joined, ngettext
from labels import file_label, head_label
from model.analysis.head_stats import antecedent_candidates
from model.tasks import coreference
from model.tasks.coreference import content_words
from viz.coref import plot_arrows
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

MAX_OPTIONS = 12              # the nearest earlier content words offered as a pronoun's candidates
CLEAR_MIN = 0.3               # a pronoun's largest weight below this is no clear answer (uniform over 3 words: 0.33)
PHONE_PX = 640                # at most this wide, the arcs wrap after a few words
BIND, KEEP = _url.BIND, _url.KEEP            # every pick is in the URL and survives a visit to another page


def pronoun_positions(words) -> list[int]:
    """Where the pronouns (it, they, their, …, 他, 她, 它, 他们 …) are among the words."""
    return [i for i, t in enumerate(words) if t.lower() in coreference.PRONOUNS]


def word_place(run, i: int) -> str:
    """'sandwich' (word 9, pieces ' sand' 'w' 'ich') for a caption."""
    pieces = run.pieces[i]
    if len(pieces) < 2:
        return _("word {i}").format(i=i)
    return _("word {i}, pieces {pieces}").format(i=i, pieces=" ".join(f"‘{p}’" for p in pieces))


def target(run, row: np.ndarray, src: int, candidates: str) -> int:
    """The word a head points the word at `src` at: its largest weight, or with candidates "content" its largest
    weight on another content word (model.tasks.coreference.resolve reads it the same way)."""
    if candidates != "content":
        return int(row.argmax())
    allowed = content_words(run.tokens)
    allowed[src] = False
    return int(np.where(allowed, row, -1.0).argmax()) if allowed.any() else int(row.argmax())


def ask(run, words: list[str], src: int, chosen: tuple[int, int], candidates: str) -> bool:
    """Predict first: which word the pronoun at `src` attends to most in the coreference head. The options are
    its earlier content words (the nearest MAX_OPTIONS) and the head's answer, whole words in text order.
    True when the answer may be shown."""
    row = run.weights[chosen[0], chosen[1], src]                          # (N,) whole words
    j = target(run, row, src, candidates)
    options = sorted(set(antecedent_candidates(list(run.tokens), src)[-MAX_OPTIONS:]) | {j})
    if len(options) < 2:
        return True
    name, word = head_label(*chosen), md(words[src])
    if row[j] < CLEAR_MIN:                   # no word stands out: nothing to predict, and no answer to mark wrong
        st.info(_("No clear answer here: head **{head}** spreads **{word}**'s attention, its largest weight is "
                  "**{weight}** (on **{target}**), under {clear}. The arrows below show the spread; a sentence "
                  "nearer the training data, or another head, may point clearly.").format(
            head=name, word=word, weight=f"{row[j]:.3f}", target=md(run.tokens[j]), clear=f"{CLEAR_MIN:g}"))
        return True
    question = _("Which word will **{word}** attend to most in head **{head}**, the coreference head? The arrows "
                 "and weights below appear once you have predicted.").format(word=word, head=name)
    explain = _("The answer is the largest weight in the row of “{word}” in {head}, in whole words (a word's weight "
                "sums its pieces'): **{weight}** on **{target}**. Nobody drew that arrow: training only asked the "
                "model to fill in masked pieces and to name each pronoun's noun.").format(
        word=word, head=name, weight=f"{row[j]:.3f}", target=md(run.tokens[j]))
    return _predict.predict("coref_predict", question, options, j, explain, format_func=words.__getitem__,
                            identity=(run.tokens, src))


def pronoun_view(run, chosen: tuple[int, int], text: str, name: str, candidates: str):
    tokens = run.tokens
    pronouns = pronoun_positions(tokens)
    words = _url.word_labels(tokens)                 # picked by word in the URL, never by position
    src, (layer, h) = pick_pronoun(run, chosen, pronouns, words)
    if src in pronouns and not ask(run, words, src, chosen, candidates):
        return
    row = run.weights[layer, h, src]                                     # (N,)
    j = target(run, row, src, candidates)
    said = (_("Head **{head}** (the coreference head, chosen on validation) points **{word}** ({where}) at "
              "**{target}** ({target_where}) with weight **{weight}**.") if (layer, h) == chosen else
            _("Head **{head}** points **{word}** ({where}) at **{target}** ({target_where}) with weight **{weight}**."))
    st.markdown(said.format(head=head_label(layer, h), word=md(tokens[src]), where=md(word_place(run, src)),
                            target=md(tokens[j]), target_where=md(word_place(run, j)), weight=f"{row[j]:.3f}"))
    st.caption(_("Attention between whole words: to a word, the sum over its pieces; from a word, the mean of its "
                 "pieces' rows (Clark et al. 2019)."))
    arrows(run, src, (layer, h), j, text, name)
    every_head(run, chosen, src, text, name)


def pick_pronoun(run, chosen: tuple[int, int], pronouns: list[int], words: list[str]) -> tuple[int, tuple[int, int]]:
    """The pronoun (any word when the text has none) and the head for the arrows; a new text starts at its first
    pronoun. Returns (the word's position, (layer, head))."""
    tokens, L, H = run.tokens, run.n_layers, run.n_heads
    if pronouns:
        options = pronouns
    else:
        st.info(_("This text has no pronoun (it, they, their, …): pick any word to see where the heads point it."))
        options = [i for i, t in enumerate(tokens) if t not in ("[CLS]", "[SEP]")]
    if not options:
        st.stop()
    heads = [(layer, h) for layer in range(L) for h in range(H)]
    _url.stale_link("coref_pronoun", [words[i] for i in options], _("the word"), words[options[0]])
    _url.stale_link("coref_head", [head_label(*lh) for lh in heads], _("head"), head_label(*chosen))
    if st.session_state.get("coref_pronoun_words") != tokens:          # another text: its first pronoun again
        st.session_state["coref_pronoun_words"] = tokens
        st.session_state["coref_pronoun"] = options[0]
    c1, c2 = st.columns(2)
    src = c1.selectbox(_("Pronoun"), options, key="coref_pronoun", format_func=words.__getitem__, bind=BIND,
                       help=_("A word seen again is numbered: “it (2)”."))
    layer, h = c2.selectbox(_("Head for the arrows"), heads, index=heads.index(chosen), key="coref_head",
                            format_func=lambda lh: head_label(*lh), bind=BIND, persist_state=KEEP,
                            help=_("{head} is the coreference head, chosen on validation.").format(
                                head=head_label(*chosen)))
    return src, (layer, h)


def arrows(run, src: int, head: tuple[int, int], j: int, text: str, name: str):
    """Where the head sends the word at src, as arcs over the text (answer j marked), in a wide and a phone
    layout."""
    tokens, (layer, h) = run.tokens, head
    row = run.weights[layer, h, src]                                     # (N,)
    # two layouts of the same arcs, one shown by the screen's width (CSS below): Plotly's words keep their pixel
    # size while the figure shrinks, so a phone needs lines of a few words
    title = _("Where {head} sends “{word}”").format(head=head_label(layer, h), word=esc(tokens[src]))
    st.html(f"<style>@media (max-width: {PHONE_PX}px) {{ .st-key-coref_wide {{ display: none; }} }}"
            f"@media (min-width: {PHONE_PX + 1}px) {{ .st-key-coref_narrow {{ display: none; }} }}</style>")
    top = _present.main()                                # presenting: the arcs first, full width
    with st.container(key="coref_wide") if top is None else top.container(key="coref_wide"):
        _export.chart(plot_arrows(tokens, src, row, unknown=run.unknown, title=title, answer=j), key="coref_arrows",
                      name=(name, file_label(layer, h), f"word{src}", "arrows"),
                      caption=caption_line(name, head_label(layer, h), text=text))
    with st.container(key="coref_narrow") if top is None else top.container(key="coref_narrow"):
        _export.chart(plot_arrows(tokens, src, row, unknown=run.unknown, title=title, per_line=24, font_size=15,
                                  answer=j),
                      key="coref_arrows_phone", name=(name, file_label(layer, h), f"word{src}", "arrows_phone"),
                      caption=caption_line(name, head_label(layer, h), text=text))


def every_head(run, chosen: tuple[int, int], src: int, text: str, name: str):
    """Every head's top three words at the pronoun, ranked against the coreference head, and their rows."""
    tokens, L, H = run.tokens, run.n_layers, run.n_heads
    heads = [(layer, h) for layer in range(L) for h in range(H)]
    st.subheader(_("Every head at this pronoun"))
    names = [head_label(*lh) for lh in heads]
    table = []
    for (lh, head_name) in zip(heads, names):
        r = run.weights[lh[0], lh[1], src]
        top = np.argsort(-r, kind="stable")[:3]
        table.append({"head": head_name, "points at": f"{tokens[top[0]]} ·{top[0]}", "weight": float(r[top[0]]),
                      "2nd": f"{tokens[top[1]]} {r[top[1]]:.2f}", "3rd": f"{tokens[top[2]]} {r[top[2]]:.2f}"})
    ahead = [t["head"] for t in table if t["weight"] > run.weights[chosen[0], chosen[1], src].max()]
    if ahead:
        st.caption(ngettext("{heads} points with more weight than {head} on this text: {head} was chosen by its "
                            "accuracy on a held-out validation set of pronouns, not on this text.",
                            "{heads} point with more weight than {head} on this text: {head} was chosen by its "
                            "accuracy on a held-out validation set of pronouns, not on this text.",
                            len(ahead)).format(heads=joined(ahead), head=head_label(*chosen)))
    columns = {"head": _("head"), "points at": _("points at"), "weight": _("weight"), "2nd": _("2nd"), "3rd": _("3rd")}
    st.dataframe(pd.DataFrame(table).rename(columns=columns), hide_index=True, width="stretch",
                 height=35 * (len(table) + 1) + 3,
                 column_config={columns["weight"]: st.column_config.ProgressColumn(format="%.3f", min_value=0,
                                                                                   max_value=1)})
    fig = plot_heatmap(run.weights[:, :, src, :].reshape(L * H, -1), x_labels=tokens, y_labels=names, y_names=True,
                       x_title=_("key word"), y_title=_("head"), value_name=_("weight"),
                       title=_("Attention row of “{word}” in every head").format(word=esc(tokens[src])))
    _export.chart(fig, key="coref_rows", name=(name, f"word{src}", "every_head"),
                  caption=caption_line(name, _("every head"), text=text))
