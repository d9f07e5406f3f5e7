"""Coreference: a trained encoder whose own attention heads resolve pronouns. Teaches that a head can
learn to point "it" at "restaurant" from data alone (no one draws the arrow), that meaning (the predicate
after the pronoun) and not position decides, and how to measure which head does it. The minimal pairs and the
ranking are drawn here; the other tabs sit beside this file: coreference_pronoun, coreference_realtext,
coreference_ablation, coreference_patching."""
import streamlit as st

import i18n
from app_pages import _export, _present, _url
from app_pages._markup import esc, md
from app_pages._resources import COREF_MODEL, clip_text, device, meta_of, model_for_text, model_or_stop
from app_pages._runs import HeadAccuracy, coref_head_accuracy, coref_run, realtext_figures
from app_pages.views import coreference_ablation, coreference_patching, coreference_pronoun, coreference_realtext
from app_pages.views.coreference_pronoun import pronoun_positions, target
from i18n import N_, _, joined, ngettext
from labels import head_label
from model import languages
from model.coref import coref_models, has_coref_head
from model.data import course_world as corpus
from viz.coref import plot_head_ranking, plot_pair_difference
from viz.slide import caption_line

MAX_CHARS = 1200
OWN = N_("Your own text")
# the classic examples in Chinese, which run the Chinese coreference model by themselves (never in its training)
CHINESE_CLASSICS = ((N_("Chinese: the tired kitten"), "小猫没有过马路，因为它太累了。"),
                    (N_("Chinese: the wide road"), "小猫没有过马路，因为它太宽了。"),
                    (N_("Chinese: the big trophy"), "奖杯放不进箱子，因为它太大了。"),
                    (N_("Chinese: the small box"), "奖杯放不进箱子，因为它太小了。"))
GALLERY = corpus.CLASSICS + CHINESE_CLASSICS
BIND, KEEP = _url.BIND, _url.KEEP            # every pick is in the URL and survives a visit to another page
TABS = [N_("Pronoun → heads"), N_("Minimal pairs"), N_("Heads ranked"), N_("Ordinary sentences"),
        N_("Head ablation"), N_("Patching")]
TITLE = {"coref_encoder": N_("Coreference: which head points “it” at “restaurant”?"),
         "zh_coref": N_("Coreference: which head points “它” back to the noun it stands for?")}
INTRO = {
    "coref_encoder": N_("A small BERT-style encoder (4 layers × 4 heads) that reads any text in subword pieces: "
                        "trained here on real English text, then on a generated course world of pronoun sentences. "
                        "Nobody told any head where to look: training only asked the model to fill in masked pieces "
                        "and to name the noun each pronoun stands for. One head learned to resolve pronouns through "
                        "attention. Pick an example or type your own text; everything is shown in whole words."),
    "zh_coref": N_("A small BERT-style encoder for modern Chinese (4 layers × 4 heads, a vocabulary that keeps "
                   "common characters whole): trained here on Chinese documentation and product reviews, then on a "
                   "course world written in Chinese (他/她/它/他们/她们). Nobody told any head where to look: "
                   "training only asked the model to fill in masked pieces and to name the word each pronoun "
                   "stands for. One head learned to resolve pronouns through attention. Everything is shown in "
                   "the words jieba cuts the text into."),
    "minilm": N_("A real pretrained model: sentence-transformers' all-MiniLM-L6-v2 (BERT architecture, 6 layers × 12 "
                 "heads, WordPiece), installed from its package and run by this app's own engine. It was never "
                 "trained on pronouns; its coreference head was chosen on the dev split of this project's real-text "
                 "pronoun set. Its heads park much of their weight on [CLS], [SEP] and punctuation, so its answer is "
                 "the head's largest weight on another content word. Everything is shown in whole words."),
}


def _pick_example():
    title = st.session_state["coref_example"]
    if title != OWN:
        st.session_state["coref_text"] = dict(GALLERY)[title]


def _typed():
    texts = {t: title for title, t in GALLERY}
    st.session_state["coref_example"] = texts.get(st.session_state["coref_text"], OWN)


def _flag_unknown(run):
    unknown = sorted({t for t, u in zip(run.tokens, run.unknown) if u})
    if unknown:
        st.warning(_("Words the model never saw (it reads each as [UNK], so no head can tell what they mean): "
                     "{words}").format(words=joined(f"**{md(t)}**" for t in unknown)))
    for notice in run.notices:
        st.info(notice)


def _new_pair():
    """Another minimal pair picked: its two sentences replace the ones in the boxes."""
    pair = next(p for p in corpus.MINIMAL_PAIRS if p[0] == st.session_state["coref_pair"])
    st.session_state["coref_a"], st.session_state["coref_b"] = pair[1], pair[2]


def ranking_view(acc: HeadAccuracy, chosen: tuple[int, int], name: str):
    layer, h = chosen
    st.markdown(_("The coreference head **{head}** (chosen on the validation split) is right on **{acc}** of these "
                  "pronouns; on the single sentences, pointing at the first noun would be right {first} of the time, "
                  "at the nearest noun {nearest}.").format(
        head=head_label(layer, h), acc=f"{acc.accuracy[layer, h]:.1%}", first=f"{acc.baseline_first_noun:.0%}",
        nearest=f"{acc.baseline_nearest_noun:.0%}"))
    st.markdown(_("Each head's accuracy on **{n}** pronouns the model never saw in training "
                  "(`model/data/course_world.py`): sentences with held-out noun pairs or held-out frames, and "
                  "three-sentence passages where *they/their* reach back across sentences. A head is right when the "
                  "largest weight in its row at the pronoun lands on the antecedent's noun. Recompute with "
                  "`python -m model.evaluate --json coref_encoder`.").format(n=acc.n_refs))
    better = [head_label(lay, hh) for lay in range(acc.accuracy.shape[0]) for hh in range(acc.accuracy.shape[1])
              if acc.accuracy[lay, hh] > acc.accuracy[layer, h]]
    if better:
        st.caption(ngettext("{heads} scores above {head} here: {head} was chosen once, on a held-out validation set "
                            "of pronouns, before these test pronouns were measured; heads close on one set can change "
                            "places on another.",
                            "{heads} score above {head} here: {head} was chosen once, on a held-out validation set "
                            "of pronouns, before these test pronouns were measured; heads close on one set can change "
                            "places on another.", len(better)).format(heads=joined(better),
                                                                      head=head_label(layer, h)))
    _export.chart(plot_head_ranking(acc.accuracy, chosen=chosen,
                                    baselines={_("first noun"): acc.baseline_first_noun,
                                               _("nearest noun"): acc.baseline_nearest_noun}),
                  key="coref_ranking", name=(name, "head_accuracy"), main=True,
                  title=_("Each head's accuracy on held-out pronouns"),
                  caption=caption_line(name, _("{n} held-out pronouns").format(n=acc.n_refs),
                                       _("{head}: the coreference head").format(head=head_label(layer, h))))


def pair_view(device_name: str, chosen: tuple[int, int], name: str, candidates: str):
    st.markdown(_("Two sentences that differ in one word after the pronoun. The picture shows attention of "
                  "A minus attention of B at the pronoun, for every head, on the words both share."))
    titles = [p[0] for p in corpus.MINIMAL_PAIRS]
    shown = {t: _(t) for t in titles}               # translated now: format_func may run outside the page's run
    pick = st.selectbox(_("Minimal pair"), titles, key="coref_pair", on_change=_new_pair, format_func=shown.get,
                        bind=BIND, persist_state=KEEP)
    title, text_a, text_b, pron, ante_a, ante_b = corpus.MINIMAL_PAIRS[titles.index(pick)]
    c1, c2 = st.columns(2)
    _url.clipped_link_text("coref_a", MAX_CHARS)
    a = clip_text(c1.text_input(_("Sentence A"), text_a, key="coref_a", max_chars=MAX_CHARS,
                                bind=_url.text_bind("coref_a"), persist_state=KEEP))
    _url.clipped_link_text("coref_b", MAX_CHARS)
    b = clip_text(c2.text_input(_("Sentence B"), text_b, key="coref_b", max_chars=MAX_CHARS,
                                bind=_url.text_bind("coref_b"), persist_state=KEEP))
    run_a, run_b = coref_run(name, device_name, a), coref_run(name, device_name, b)
    pa, pb = pronoun_positions(run_a.tokens), pronoun_positions(run_b.tokens)
    if not pa or not pb:
        st.warning(_("Both sentences need a pronoun (it, they, their, …)."))
        return
    n = 0
    while n < min(len(run_a.tokens), len(run_b.tokens)) and run_a.tokens[n] == run_b.tokens[n]:
        n += 1
    if n < 2:
        st.warning(_("The two sentences share no words at the start; write two versions of one sentence."))
        return
    L, H = run_a.n_layers, run_a.n_heads
    diff = run_a.weights[:, :, pa[0], :n] - run_b.weights[:, :, pb[0], :n]          # (L, H, n)
    layer, h = chosen
    ja = target(run_a, run_a.weights[layer, h, pa[0]], pa[0], candidates)
    jb = target(run_b, run_b.weights[layer, h, pb[0]], pb[0], candidates)
    st.markdown(_("Head **{head}**: in A, **{word}** → **{target_a}**; in B → **{target_b}**.").format(
        head=head_label(layer, h), word=md(run_a.tokens[pa[0]]), target_a=md(run_a.tokens[ja]),
        target_b=md(run_b.tokens[jb])))
    _export.chart(plot_pair_difference(diff.reshape(L * H, n), tokens=run_a.tokens[:n],
                                       row_labels=[head_label(*divmod(i, H)) for i in range(L * H)],
                                       title=_("A − B at “{word}”").format(word=esc(run_a.tokens[pa[0]]))),
                  key="coref_diff", name=(name, "minimal_pair", "difference"), main=True,
                  caption=caption_line(name, _("every head"), text=f"A: {a} B: {b}"))


def render():
    title = st.empty()                 # the question names the pronoun of the text's language, once it is known
    title.title(_(TITLE["coref_encoder"]))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    names = [n for n in coref_models() if n in (COREF_MODEL, "minilm")] or [COREF_MODEL]
    _url.stale_link("coref_model", names, _("the model"), names[0])
    name = st.radio(_("Model"), names, key="coref_model", horizontal=True, bind=BIND, persist_state=KEEP,
                    help=_("The encoder trained here on pronouns, or a real pretrained model run by this app's "
                           "engine."))
    intro = st.empty()                 # filled once the text says which model runs (a Chinese stand-in)
    model, meta = model_or_stop(name)
    chosen = tuple(meta["coref_head"])
    candidates = meta.get("coref_candidates", "all")
    dev = device()
    text = text_box(model)
    if (stand_in := model_for_text(name, text, has_coref_head)) != name:
        name, (model, meta) = stand_in, model_or_stop(stand_in)
        chosen, candidates = tuple(meta["coref_head"]), meta.get("coref_candidates", "all")
    title.title(_(TITLE.get(name, TITLE["coref_encoder"])))
    intro.markdown(_(INTRO.get(name, INTRO["coref_encoder"])))      # a model trained here reads as the encoder
    run = coref_run(name, dev, text)
    _flag_unknown(run)
    draw_tabs(run, (name, names, dev), chosen, text, candidates)


def text_box(model) -> str:
    """The gallery of classic examples and the text box (each follows the other); stops the page on an empty
    text."""
    # the selectbox holds English titles and shows them translated, so the URL holds the shown title: a link
    # names its example in the language it was made in, and its name in any language finds the text
    shown = {title: _(title) for title, _text in GALLERY} | {OWN: _(OWN)}
    examples = {i18n.catalogue(code).gettext(title): text for title, text in GALLERY for code in i18n.LANGUAGES}
    examples |= dict(GALLERY)                           # a text alone picks its English title (the option)
    _url.gallery_link("coref_example", "coref_text", examples, OWN)
    st.selectbox(_("Gallery"), list(shown), key="coref_example", on_change=_pick_example, format_func=shown.get,
                 bind=BIND, persist_state=KEEP)
    _url.clipped_link_text("coref_text", MAX_CHARS)
    text = clip_text(st.text_area(_("Text"), corpus.PARAGRAPH, key="coref_text", height=110, max_chars=MAX_CHARS,
                                  on_change=_typed, bind=_url.text_bind("coref_text"), persist_state=KEEP,
                                  help=_("Up to {chars} characters; the model reads at most {pieces} subword "
                                         "pieces.").format(chars=MAX_CHARS, pieces=model.config.max_len)),
                     MAX_CHARS)
    _url.long_text_note("coref_text")
    if not text.strip():
        st.info(_("Type a sentence with a pronoun, for example: “{example}”").format(
            example="The dog didn't cross the road because it was too tired."))
        st.stop()
    return text


def chinese_tabs(name: str, dev: str, tabs) -> None:
    """The tabs after the first for a Chinese model: its heads ranked and its figures on the Chinese pronoun set;
    the minimal pairs, ablation and patching measure English sentences and say so."""
    minimal, ranked, ordinary, ablation, patching = tabs
    if ranked.open:
        with ranked:
            coreference_realtext.ranking_view(realtext_figures(name, dev), name)
    if ordinary.open:
        with ordinary:
            coreference_realtext.render(dev, [name], chinese=True)
    for tab in (minimal, ablation, patching):
        if tab.open:
            tab.info(_("This tab measures English sentences, for the English models. {name}, which this page "
                       "runs on Chinese text, is measured on the project's Chinese pronoun set: the tabs "
                       "“Heads ranked” and “Ordinary sentences”, or `python -m model.evaluate --json "
                       "{name}`.").format(name=name))


def draw_tabs(run, where: tuple[str, list[str], str], chosen: tuple[int, int], text: str, candidates: str):
    """The page's tabs on the run; where: (the model, the models offered, the device)."""
    name, names, dev = where
    # bound to the URL, the tabs are lazy: only the open tab runs
    tabs = [_(t) for t in TABS]
    _url.named_anew("coref_tab", tabs)                         # the language changed: the open tab stays open
    _url.stale_link("coref_tab", tabs, _("the tab"), tabs[0])
    tab1, tab2, tab3, tab4, tab5, tab6 = st.tabs(tabs, key="coref_tab", bind=BIND)
    if tab1.open:
        with tab1:
            coreference_pronoun.pronoun_view(run, chosen, text, name, candidates)
    if languages.reads_chinese(meta_of(name)):
        chinese_tabs(name, dev, (tab2, tab3, tab4, tab5, tab6))
        return
    if tab2.open:
        with tab2:
            pair_view(dev, chosen, name, candidates)
    if tab3.open:
        with tab3:
            if name == COREF_MODEL:
                ranking_view(coref_head_accuracy(name, dev), chosen, name)
            else:
                coreference_realtext.ranking_view(realtext_figures(name, dev), name)
    if tab4.open:
        with tab4:
            coreference_realtext.render(dev, names)
    if tab5.open:
        with tab5:
            if name == COREF_MODEL:
                coreference_ablation.render(dev)
            else:
                st.info(_("Head ablation measures the model's own pronoun answer, given by {trained}'s pronoun "
                          "head; {name} has no such output. Pick {trained} above.").format(trained=COREF_MODEL,
                                                                                             name=name))
    if tab6.open:
        with tab6:
            coreference_patching.render(dev, chosen, name, candidates)
