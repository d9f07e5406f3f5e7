"""The decoder page's chain-rule tab: a whole sentence's probability as the product of next-piece probabilities
(textbook 12.7), each factor shown with its piece, for two sentences side by side (a sentence and the same words
scrambled, by default)."""
import math

import pandas as pd
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from app_pages._markup import visible
from app_pages._numbers import plain
from i18n import _
from viz.chain_rule import plot_chain_rule
from viz.slide import caption_line

MAX_CHARS = 400                   # a sentence or two: the decoder reads at most its context after [BOS]
DEFAULTS = {"A": "The cat sat on the mat.", "B": "mat the on sat cat The."}
KEEP = _url.KEEP
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(log_p: float) -> str:
    """A probability (or a ratio of two) given by its natural log, as m × 10ᵏ beyond 10^±3 (−40.1 -> "3.8 × 10⁻¹⁸"),
    else in plain decimals: the product of many factors is far too small for fixed decimals."""
    exponent = log_p / math.log(10)
    k = math.floor(exponent)
    mantissa = 10 ** (exponent - k)
    if mantissa >= 9.95:                       # 9.96 × 10ᵏ rounds to 10.0: say 1.0 × 10ᵏ⁺¹
        mantissa, k = 1.0, k + 1
    return f"{mantissa:.1f} × 10{str(k).translate(SUPERSCRIPT)}" if not -3 <= k <= 3 else plain(math.exp(log_p), 3)


def section(gpt: str, dev: str):
    st.markdown(_("A decoder gives a whole sentence a probability by the **chain rule**: Pr(t₁ … tₙ) = "
                  "Pr(t₁) · Pr(t₂ | t₁) · … · Pr(tₙ | t₁ … tₙ₋₁). Each factor is the probability the model gave "
                  "the next piece, read after [BOS] from one pass with the causal mask; adding their logarithms "
                  "gives the sentence's log-probability."))
    cols = st.columns(2)
    scored = {}
    for col, side in zip(cols, "AB"):
        key = f"chain_{side}"
        _url.clipped_link_text(key, MAX_CHARS)
        text = _resources.clip_text(col.text_input(_("Sentence {side}").format(side=side), DEFAULTS[side], key=key,
                                                   max_chars=MAX_CHARS, bind=_url.text_bind(key), persist_state=KEEP),
                                    MAX_CHARS)
        if not text.strip():
            col.info(_("Type a sentence to score."))
            continue
        s = _runs.sentence_probability(gpt, dev, text)
        scored[side] = (text, s)
        if s.cut:
            col.warning(_("Only the first {n} pieces are scored: the model reads at most that many after [BOS].")
                        .format(n=len(s.pieces)))
        col.metric(_("ln Pr(sentence {side})").format(side=side), f"{s.total:.2f}",
                   help=_("The sum of the {n} factors' natural logarithms, in nats.").format(n=len(s.pieces)))
        col.metric(_("Pr(sentence {side})").format(side=side), power_of_ten(s.total))
        col.metric(_("Perplexity per piece"), f"{s.perplexity:,.1f}",
                   help=_("exp(−mean ln Pr): as unsure as choosing among this many equally likely pieces."))
    if not scored:
        return
    if len(scored) == 2:
        gap = scored["A"][1].total - scored["B"][1].total
        st.markdown(_("Sentence A is **{ratio}** times as likely as sentence B (e^{gap}).").format(
            ratio=power_of_ten(gap) if gap > 0 else plain(math.exp(gap), 3), gap=f"{gap:.2f}")
            if gap >= 0 else
            _("Sentence B is **{ratio}** times as likely as sentence A (e^{gap}).").format(
                ratio=power_of_ten(-gap), gap=f"{-gap:.2f}"))
    rows = {_("Sentence {side}: {text}").format(side=side, text=text): ([visible(p) for p in s.pieces], s.log_probs)
            for side, (text, s) in scored.items()}
    _export.chart(plot_chain_rule(rows, title=_("Each factor of the chain rule, as ln Pr(piece | the pieces before)")),
                  key="chain_bars", main=True, name=(gpt, "chain_rule"),
                  caption=caption_line(gpt, text=" | ".join(t for t, _s in scored.values())))
    for side, (text, s) in scored.items():
        with st.expander(_("Every factor of sentence {side}").format(side=side)):
            running = s.log_probs.cumsum()
            st.dataframe(pd.DataFrame({_("piece"): [visible(p) for p in s.pieces],
                                       _("Pr(piece | before)"): [plain(math.exp(v), 3) for v in s.log_probs],
                                       _("ln Pr"): [f"{v:.3f}" for v in s.log_probs],
                                       _("running sum"): [f"{v:.3f}" for v in running]}), hide_index=True)
