"""The translation page's controls: decoding method, beam width, layer and head in one row, a head pick as shown
(one head or the mean of the layer's heads), and the note for a link's text longer than a box takes."""
import numpy as np
import streamlit as st

from app_pages import _resources, _url
from i18n import N_, _
from labels import file_label, head_label, head_only, layer_label

MEAN = N_("mean of the heads")
METHODS = {"greedy": N_("greedy"), "beam search": N_("beam search")}     # decoding -> its shown (URL) label
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def too_long(key: str, limit: int) -> None:
    """A link's text for a box that takes at most `limit` characters: Streamlit keeps the first `limit`; say so,
    as clip_text does for the other boxes."""
    raw = st.query_params.get(key)
    if key not in st.session_state and raw is not None and len(raw) > limit:
        st.warning(_("The text has {n:,} characters; only the first {limit:,} are used.").format(n=len(raw),
                                                                                                 limit=limit))


def pick(weights: np.ndarray, layer: int, head: int | str) -> np.ndarray:
    """(L, H, rows, cols) -> (rows, cols): one head of a layer, or the mean of its heads."""
    w = weights[layer]
    return w.mean(axis=0) if head == MEAN else w[head]


def shown_head(head: int | str) -> str:
    """A head pick as the selectbox shows it (and the URL holds it): "H2" or the translated mean."""
    return _(MEAN) if head == MEAN else head_only(head)


def which(layer: int, head: int | str) -> str:
    """"L1 H2", or "L1, mean of the heads"."""
    return f"{layer_label(layer)}, {_(MEAN)}" if head == MEAN else head_label(layer, head)


TRANSLATOR = _resources.TRANSLATOR


def file_part(layer: int, head: int | str) -> str:
    """"L1H2", or "L1mean", inside a file name."""
    return f"{layer_label(layer)}mean" if head == MEAN else file_label(layer, head)


def controls(n_layers: int, n_heads: int) -> tuple[str, int, int, int | str]:
    """Decoding method, beam width, layer and head, in one row."""
    methods = [_(m) for m in METHODS.values()]
    _url.stale_link("tr_method", methods, _("the decoding"), methods[0])
    _url.stale_number("tr_width", 1, 8, _("beam width"), 4)
    _url.stale_link("tr_layer", [layer_label(i) for i in range(n_layers)], _("layer"), layer_label(n_layers - 1))
    _url.stale_link("tr_head", [shown_head(h) for h in (MEAN, *range(n_heads))], _("head"), _(MEAN))
    _url.as_option("tr_method", METHODS, methods)
    _url.as_option("tr_head", (MEAN, *range(n_heads)), [shown_head(h) for h in (MEAN, *range(n_heads))])
    c1, c2, c3, c4 = st.columns([1.3, 1, 1, 1])
    method = c1.radio(_("Decoding"), list(METHODS), format_func=lambda m: _(METHODS[m]), horizontal=True,
                      key="tr_method", bind=BIND, persist_state=KEEP)
    width = c2.slider(_("Beam width"), 1, 8, 4, key="tr_width", disabled=method == "greedy", bind=BIND,
                      persist_state=KEEP)
    layer = c3.selectbox(_("Layer"), range(n_layers), format_func=layer_label, index=n_layers - 1,
                         key="tr_layer", bind=BIND, persist_state=KEEP)
    head = c4.selectbox(_("Head"), [MEAN, *range(n_heads)], key="tr_head", bind=BIND, persist_state=KEEP,
                        format_func=shown_head)
    return method, width, layer, head
