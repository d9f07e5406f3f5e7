"""The decoder page's "Beam search" tab: the beam's tree of partial continuations, the hypotheses it kept ranked
by Σ log p / n^α, and greedy's single path beside them."""
import streamlit as st

from app_pages import _export, _runs, _url
from app_pages._markup import visible
from app_pages.views.generation_steps import STRATEGIES
from app_pages.views.generation_text import continuation
from i18n import _
from model.data.bpe import EOS
from model.tasks.generation import GenerationError
from viz.generation import plot_beam_tree
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def beams(gpt, dev, tok, prompt_ids, prompt):
    for key, lo, hi, what, start in (("beam_width", 1, 8, _("beam width"), 3), ("beam_len", 1, 16, _("length"), 8),
                                     ("beam_alpha", 0.0, 2.0, _("length penalty"), 0.0)):
        _url.stale_number(key, lo, hi, what, start)
    c1, c2, c3 = st.columns(3)
    width = c1.slider(_("Beam width"), 1, 8, 3, key="beam_width", bind=BIND, persist_state=KEEP)
    beam_len = c2.slider(_("Length (new tokens)"), 1, 16, 8, key="beam_len", bind=BIND, persist_state=KEEP)
    alpha = c3.slider(_("Length penalty α"), 0.0, 2.0, 0.0, 0.1, key="beam_alpha", bind=BIND, persist_state=KEEP,
                      help=_("Final ranking by Σ log p / n^α; α = 0 keeps the plain sum."))
    try:
        beam = _runs.gpt_beam(gpt, dev, prompt_ids, width, beam_len, EOS, alpha)
    except GenerationError as e:
        st.error(str(e))
        return
    tree, greedy_ids, greedy_lp, n_prompt = beam.tree, beam.greedy_ids, beam.greedy_logprob, len(prompt_ids)
    path, n = [], tree.beams[0]["node"]
    while n >= 0:
        path.append(n)
        n = tree.nodes[n].parent
    labels = ["…" + visible(tok.decode(prompt_ids[-4:], skip_special=True)[-24:])]
    labels += [visible(tok.piece(nd.token_id)) for nd in tree.nodes[1:]]
    ended = any(nd.status == "finished" for nd in tree.nodes)
    legend = _("grey = pruned, green = ended with [EOS]") if ended else \
        _("grey = pruned; no candidate ended with [EOS]")
    _export.chart(plot_beam_tree([nd.step for nd in tree.nodes], [nd.parent for nd in tree.nodes], labels,
                                 [nd.logprob for nd in tree.nodes], [nd.score for nd in tree.nodes],
                                 [nd.status for nd in tree.nodes], best_path=path,
                                 title=_("Beam tree: width {width}; {legend}").format(width=width, legend=legend)),
                  key="beam_tree", main=True, name=(gpt, "beam_tree", f"width{width}", f"{beam_len}tokens"),
                  caption=caption_line(gpt, _("width {width}").format(width=width), f"α = {alpha:g}", text=prompt))
    cols = [_("rank"), _("continuation"), _("Σ log p"), _("score / n^α"), _("ended with [EOS]")]
    yes, no = _("yes"), _("no")
    rows = [dict(zip(cols, (str(i + 1), continuation(tok, h["ids"], n_prompt), round(h["score"], 4),
                            round(h["norm_score"], 4), yes if h["finished"] else no)))
            for i, h in enumerate(tree.beams)]
    n_greedy = max(len(greedy_ids) - n_prompt, 1)            # the same ranking score as the beams': Σ log p / n^α
    rows.append(dict(zip(cols, (_(STRATEGIES["greedy"]), continuation(tok, greedy_ids, n_prompt), round(greedy_lp, 4),
                                round(greedy_lp / n_greedy ** alpha, 4), yes if greedy_ids[-1] == EOS else no))))
    st.dataframe(rows, hide_index=True, key="beam_table")
    st.caption(_("Greedy takes the best piece at each step; beam search keeps the best few partial continuations "
                 "and can find a likelier whole sequence."))
