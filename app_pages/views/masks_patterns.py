"""A mask pattern as the page offers it: the pattern picker with its parameters, the pattern's title in the
interface's language, the tokens it adds in front and the captions that name it (textbook 12.9)."""
import numpy as np
import streamlit as st

from app_pages import _url
from i18n import _, ngettext
from model.engine import masks
from model.engine.errors import InputError
from viz.slide import caption_line

MAX_POSITIONS = 64
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
LAB_WIDTH = 2                            # the lab's window width (each side), also the prediction's


def parse_positions(text: str, n: int) -> tuple[int, ...]:
    """'0, 7' -> (0, 7); raises InputError with a readable message."""
    try:
        pos = tuple(sorted({int(p) for p in text.replace(";", ",").split(",") if p.strip()}))
    except ValueError:
        raise InputError(_("Global positions must be whole numbers separated by commas (got {text}).").format(
            text=repr(text[:40])))
    if len(pos) > MAX_POSITIONS or any(p < 0 or p >= n for p in pos):
        raise InputError(_("Give at most {most} positions between 0 and {last}.").format(most=MAX_POSITIONS,
                                                                                       last=n - 1))
    return pos


def pattern_controls(prefix: str, n: int, default: str, overrides: dict | None = None, causal_box: bool = True):
    """Pattern select + its parameters. Returns (key, params dict, causal)."""
    keys = list(masks.PATTERNS)
    # the address names a pattern by its title (?masks_A_pattern=Dilated+window) and each parameter by its name
    names = {k: pattern_name(k) for k in keys}      # shown names, translated now (format_func may run later)
    _url.stale_link(f"{prefix}_pattern", list(names.values()), _("the pattern"), names[default])
    key = st.selectbox(_("Pattern"), keys, index=keys.index(default), key=f"{prefix}_pattern", format_func=names.get,
                       bind=BIND, persist_state=KEEP)
    pat = masks.PATTERNS[key]
    st.caption(_(pat.explanation))
    params, given = {}, {**(overrides or {})}
    cols = st.columns(max(1, len(pat.params)))
    for col, p in zip(cols, pat.params):
        with col:
            if isinstance(p.default, tuple):
                shown = ", ".join(map(str, given.get(p.name, p.default)))
                text = st.text_input(_(p.label), shown, key=f"{prefix}_{p.name}",
                                     bind=_url.text_bind(f"{prefix}_{p.name}"), persist_state=KEEP)
                try:
                    params[p.name] = parse_positions(text, n)
                except InputError as e:
                    st.error(str(e))
                    params[p.name] = p.default
            else:
                start = int(given.get(p.name, p.default))
                _url.stale_number(f"{prefix}_{p.name}", p.lo, p.hi, _(p.label), start)
                params[p.name] = int(st.number_input(_(p.label), p.lo, p.hi, start, 1, key=f"{prefix}_{p.name}",
                                                     bind=BIND, persist_state=KEEP))
    causal = pat.can_be_causal and causal_box and st.checkbox(_("causal version"), key=f"{prefix}_causal", bind=BIND,
                                                              persist_state=KEEP)
    return key, params, causal


def pattern_name(key: str) -> str:
    """A pattern's title in the interface's language."""
    return _(masks.PATTERNS[key].title)


def added(key: str, params: dict) -> int:
    """The tokens a pattern puts in front of the text's N (extra global tokens: g; every other pattern: 0)."""
    return masks.PATTERNS[key].added(**params)


def in_frame(m: np.ndarray, g: int, most: int) -> np.ndarray:
    """A mask with g added tokens in front, drawn among `most` added tokens: the tokens it lacks are rows and
    columns of False in front, so two masks of different sides line up token by token."""
    return np.pad(m, ((most - g, 0), (most - g, 0)))


def shape_note(key: str, n: int, params: dict) -> str | None:
    """What the two kinds of global token do to the matrix, said under the mask (None for other patterns)."""
    if key == "global":
        return _("Chosen global tokens: tokens {positions} of the N = {n} are made global; no token is added, the "
                 "mask stays {n} × {n}.").format(positions=", ".join(map(str, params["positions"])), n=n)
    if key == "extra_global":
        g = added(key, params)
        return ngettext("Extra global tokens: {g} new token (G0) is put in front of the N = {n}, so the mask is "
                        "(N + g) × (N + g) = {side} × {side}; the text's tokens keep their window and numbers.",
                        "Extra global tokens: {g} new tokens (G0…) are put in front of the N = {n}, so the mask is "
                        "(N + g) × (N + g) = {side} × {side}; the text's tokens keep their window and numbers.",
                        g).format(g=g, n=n, side=n + g)
    return None


def built(key: str, n: int, params: dict, causal: bool):
    try:
        return masks.build(key, n, causal, **params)
    except InputError as e:
        st.error(str(e))
        return None


def short_name(key: str) -> str:
    """A pattern's title without its bracket ("Causal (decoder)" -> "Causal"), in the interface's language."""
    return pattern_name(key).split(" (")[0].split("（")[0]


def pattern_caption(n: int, side: str, chosen: tuple) -> str:
    """The slides' caption: N, the pattern and its parameters."""
    key, params, causal, _seed = chosen
    title = _("{pattern} (causal)").format(pattern=pattern_name(key)) if causal else pattern_name(key)
    return caption_line(f"N = {n}", f"{side}: {title}", ", ".join(f"{k} {v}" for k, v in sorted(params.items())))
