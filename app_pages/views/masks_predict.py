"""Predict first, on the masks page: which patterns let token 5 see token 9 at the lab's N, answered from the
masks themselves and then drawn corner by corner with that cell outlined."""
import streamlit as st

from app_pages import _export, _predict
from app_pages.views.masks_patterns import LAB_WIDTH, added, pattern_name, short_name
from i18n import N_, _
from model.engine import masks
from viz import masks as viz
from viz.slide import caption_line

QUERY, KEY = 5, 9                        # the prediction: which masks let token 5 see token 9
CORNER = 16                              # the masks' corner drawn after the prediction: tokens 0..15
ASKED = [k for k in masks.PATTERNS if k != "swin"]        # Swin's windows live on an image grid
SHORT = {"width": "w", "dilation": "d", "positions": N_("global"), "n_global": "g", "per_row": "r", "seed": N_("seed"),
         "stride": "s", "block": "b", "length": N_("real length")}


def asked_params(key: str) -> dict:
    """A pattern's parameters in the prediction: its defaults, with the lab's window width; the chosen global
    tokens are token 0 and the asked key (say, the first words of two sentences), so the two kinds of global
    token give different answers."""
    p = masks.PATTERNS[key].defaults()
    p = {**p, "width": LAB_WIDTH} if "width" in p else p
    return {**p, "positions": (0, KEY)} if "positions" in p else p


def asked_label(key: str) -> str:
    """'Dilated window · w = 2, d = 2': the title and the parameters the prediction uses."""
    params = ", ".join(f"{_(SHORT[p])} = {', '.join(map(str, v)) if isinstance(v, tuple) else v}"
                       for p, v in asked_params(key).items())
    return pattern_name(key) + (f" · {params}" if params else "")


def predict_section(n: int) -> bool:
    """Predict first: which patterns let token QUERY see token KEY at this N; the answer is read from the masks
    themselves (entry [QUERY, KEY]), then their corners are drawn with that cell outlined. Returns whether masks
    may be drawn (predicted, predictions off, or nothing asked at this N)."""
    if n <= KEY:
        st.caption(_("At N ≥ {n} the lab asks which masks let token {query} see token {key}.").format(
            n=KEY + 1, query=QUERY, key=KEY))
        return True
    built_masks = {k: masks.build(k, n, **asked_params(k)) for k in ASKED}
    front = {k: added(k, asked_params(k)) for k in ASKED}            # the text's token i is row i + front
    answer = [k for k, m in built_masks.items() if m[QUERY + front[k], KEY + front[k]]]
    gap = KEY - QUERY
    question = _("With N = {n}, which masks let token **{query}** (the query) see token **{key}** (the key)? "
                 "Each pattern with the parameters named; the masks appear once you have predicted.").format(
        n=n, query=QUERY, key=KEY)
    explain = _("Token {query} may attend token {key} where row {query}, column {key} of the mask is True (outlined "
                "below). The key is {gap} positions ahead: a causal mask never allows it, a window needs w ≥ {gap}, "
                "a dilation or a stride must land on {gap}, a block must hold both, random keys are a draw.").format(
        query=QUERY, key=KEY, gap=gap)
    explain += " " + _("The two kinds of global token differ: chosen global tokens are tokens of the text (here {key} "
                       "is one), so {query} sees {key} directly; an extra global token is a new token G0 in front, "
                       "so {query} and {key} meet only through it, one layer later.").format(query=QUERY, key=KEY)
    shown = _predict.predict("masks_predict", question, ASKED, answer, explain, format_func=asked_label, multi=True,
                             identity=n)
    if shown:
        corner = min(n, CORNER)
        _export.chart(viz.plot_mask_grid({short_name(k): m[:corner + front[k], :corner + front[k]]
                                          for k, m in built_masks.items()}, mark=(QUERY, KEY),
                                         added={short_name(k): g for k, g in front.items() if g},
                                         title=_("Tokens 0–{last} of each {n} × {n} mask (and G0, the token "
                                                 "extra global tokens add)").format(last=corner - 1, n=n)),
                      key="masks_predict_grid", name=("masks", f"N{n}", "token5_to_token9"),
                      caption=caption_line(f"N = {n}"))
    return shown
