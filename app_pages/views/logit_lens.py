"""The decoder page's "Logit lens" tab: what each layer of a decoder would predict if the stack ended there.

Teaches: the residual stream carries a guess at the next token from the start; reading it after the embeddings and
after every layer through the model's own final LayerNorm and unembedding (the logit lens, nostalgebraist 2020)
shows where in the depth each prediction forms, at every position at once. On general_gpt the prompt is the page's;
on incontext_copy, a prompt with a repeated span shows the copied token appearing only from the induction head's
layer on (Olsson et al. 2022)."""
from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages import _export, _resources, _url
from app_pages._cache_sizes import RUNS_KEPT
from app_pages._markup import md, visible
from i18n import _, language, ngettext
from labels import layer_label
from model import checkpoints
from model.analysis import logit_lens
from model.checkpoints import CheckpointError
from viz.logit_lens import plot_logit_lens
from viz.slide import caption_line

COPY_MODEL = "incontext_copy"
# a span of eight syllables (di … sa) comes back after eight others; every other syllable occurs once
READY_PROMPT = "te ta gu ro fi di me pe nu re ka si sa lo bo gi do no ga ku go di me pe nu re ka si sa ge ne"
MAX_COPY_CHARS = 400
WINDOW = {COPY_MODEL: 32}         # positions drawn at once: all of incontext_copy's 32 syllables (short), 16 BPE
WINDOW_DEFAULT = 16               # pieces of general_gpt (long ones, such as "␣restaurant")
BIND, KEEP = _url.BIND, _url.KEEP


@dataclass(frozen=True)
class LensView:
    """A lens run as the tab shows it: lens (model.analysis.logit_lens.Lens); top: R rows of T top tokens, drawn
    (␣ for a space); final: T strings, the final prediction at each position, drawn; tokens: T prompt tokens,
    drawn."""
    lens: logit_lens.Lens
    top: tuple[tuple[str, ...], ...]
    final: tuple[str, ...]
    tokens: tuple[str, ...]


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def lens_run(name: str, dev: str, text: str) -> LensView:
    """The logit lens of a shipped decoder on typed text (its own text rule, [BOS] first)."""
    h = _resources.loaded(name, dev)
    tok = h.tokenizer
    lens = logit_lens.read_text(h.model, tok, text, h.text_rule)
    top = tuple(tuple(visible(logit_lens.token_text(tok, i)) for i in row) for row in lens.top)
    return LensView(lens, top, top[-1], tuple(visible(t) for t in lens.tokens))


def row_name(row: int) -> str:
    """Row 0 of the lens -> "the embeddings" (translated), row 1 + i -> "Li"."""
    return _("the embeddings") if row == 0 else layer_label(row - 1)


def row_labels(n_rows: int) -> list[str]:
    return [_("embeddings")] + [layer_label(i) for i in range(n_rows - 1)]


def gap() -> str:
    """Between two sentences: a space in English, none after a Chinese full stop."""
    return "" if language() == "zh" else " "


def comma() -> str:
    """Between the items of a list in a sentence."""
    return "，" if language() == "zh" else ", "


def ready_prompt():
    st.session_state.lens_copy_prompt = READY_PROMPT


def section(gpt: str, dev: str, prompt: str):
    st.markdown(_("A decoder's **residual stream** carries a guess at the next token all the way up. The **logit "
                  "lens** (nostalgebraist 2020) reads it after the embeddings and after every layer through the "
                  "model's own final LayerNorm and unembedding, as if the layers above were skipped: each cell below "
                  "is the token that row would predict next at that position. The last row is the model's own "
                  "prediction."))
    models = [gpt, COPY_MODEL]
    _url.stale_link("lens_model", models, _("the model"), gpt)
    name = st.radio(_("Model"), models, key="lens_model", horizontal=True, bind=BIND, persist_state=KEEP,
                    help=_("{gpt}: the prompt typed above. {copy}: a small decoder that copies a span it saw earlier "
                           "in its prompt (the tab “Learning from the prompt”).").format(gpt=gpt, copy=COPY_MODEL))
    text = copy_prompt(dev) if name == COPY_MODEL else prompt
    if text is None:
        return
    try:
        view = lens_run(name, dev, text)
    except logit_lens.LensError as e:
        st.error(str(e))
        return
    lens = view.lens
    R, T = lens.top.shape
    window = WINDOW.get(name, WINDOW_DEFAULT)
    lo = first_position(T, window)
    hi = min(T, lo + window)
    copied, source = logit_lens.copy_layers(lens)
    marked = [(int(copied[t]), t - lo) for t in range(lo, hi) if copied[t] >= 0] if name == COPY_MODEL else []
    title = _("What each layer would predict next, {model}").format(model=name)
    _export.chart(plot_logit_lens(lens.prob[:, lo:hi], top_tokens=[row[lo:hi] for row in view.top],
                                  final_rank=lens.final_rank[:, lo:hi], row_labels=row_labels(R),
                                  tokens=view.tokens[lo:hi], final_tokens=view.final[lo:hi],
                                  positions=range(lo, hi), title=title, marked=marked),
                  key="lens_map", main=True, name=(name, "logit_lens", f"positions{lo}-{hi - 1}"),
                  caption=caption_line(name, text=text))
    st.caption(_("Rows: the residual stream after the embeddings and after each layer, read through the final "
                 "LayerNorm and the unembedding. Columns: the prompt's tokens; each cell names the token predicted "
                 "to come next there, its colour the probability. Hover for the rank of the final prediction in "
                 "that row. Special tokens are never proposed."))
    if name == COPY_MODEL:
        st.markdown(copy_story(view, copied, source))
        if marked:
            st.caption(_("Outlined: the cell where the copied token becomes the top prediction and stays so."))
    st.markdown(settling(view))


def copy_prompt(dev: str) -> str | None:
    """The syllables box for incontext_copy, with a ready-made prompt; None when that model is not shipped."""
    try:
        _resources.load_model(COPY_MODEL, dev)
    except CheckpointError as e:
        st.warning(_("The model `{name}` is not available ({why}). Train it with `{command}`.").format(
            name=COPY_MODEL, why=md(e), command=checkpoints.retrain_hint(COPY_MODEL)))
        return None
    syllables = _resources.load_tokenizer(COPY_MODEL).vocab[logit_lens.N_SPECIAL:]
    c1, c2 = st.columns([5, 1], vertical_alignment="bottom")
    text = _resources.clip_text(c1.text_input(
        _("Syllables, separated by spaces"), READY_PROMPT, key="lens_copy_prompt",
        bind=_url.text_bind("lens_copy_prompt"), persist_state=KEEP,
        help=_("The model knows the {n} syllables it was trained on ({first} … {last}); anything else is read "
               "as [UNK]. A span that comes back is what it can copy.").format(
            n=len(syllables), first=", ".join(f"`{s}`" for s in syllables[:3]),
            last=", ".join(f"`{s}`" for s in syllables[-2:]))), MAX_COPY_CHARS)
    c2.button(_("Ready-made prompt"), on_click=ready_prompt, key="lens_ready", width="stretch",
              help=_("Eight syllables (di … sa) that come back after eight others."))
    return text


def first_position(T: int, window: int) -> int:
    """The first of the `window` positions the map shows, picked with a slider when the T tokens do not fit."""
    lo = 0
    if T > window:
        _url.stale_number("lens_from", 0, T - window, _("first position shown"), 0)
        if st.session_state.get("lens_from", 0) > T - window:            # a longer prompt's window, kept
            st.session_state.lens_from = T - window
        lo = st.select_slider(_("First position shown"), range(T - window + 1), key="lens_from", bind=BIND,
                              persist_state=KEEP,
                              help=_("The map shows {n} positions at a time, so every token stays readable.").format(
                                  n=window))
    return lo


def settling(view: LensView) -> str:
    """In words, from the ranks: where the final prediction at the last position settles, and in each row how many
    positions already predict what the model finally predicts."""
    lens = view.lens
    R, T = lens.top.shape
    start = int(logit_lens.appears_from(lens.top, lens.final)[-1])
    last = T - 1
    rank = int(lens.final_rank[0, last])
    out = ngettext("At the last position (“{token}”) the model finally predicts “{final}”; it is the top token from "
                   "{row} on, and at the embeddings {rank:,} token ranks above it.",
                   "At the last position (“{token}”) the model finally predicts “{final}”; it is the top token from "
                   "{row} on, and at the embeddings {rank:,} tokens rank above it.", rank).format(
        token=md(view.tokens[last]), final=md(view.final[last]), row=row_name(start), rank=rank) if start > 0 else \
        _("At the last position (“{token}”) the model finally predicts “{final}”, already the top token at the "
          "embeddings.").format(token=md(view.tokens[last]), final=md(view.final[last]))
    counts = comma().join(_("{row}: {k} of {n}").format(row=label, k=int((lens.final_rank[r] == 0).sum()), n=T)
                       for r, label in enumerate(row_labels(R)))
    return out + gap() + _("Positions whose final prediction is already the top token, row by row: {counts}.").format(
        counts=counts)


def copy_story(view: LensView, copied: np.ndarray, source: np.ndarray) -> str:
    """In words, from the lens: at how many positions whose token came earlier the model copies the token that
    followed it then, and from which row on."""
    lens = view.lens
    repeats = np.flatnonzero(source >= 0)
    if not len(repeats):
        return _("No token of this prompt occurs twice, so there is nothing to copy: repeat a few syllables.")
    hits = repeats[copied[repeats] >= 0]
    out = ngettext("{k} of the {n} position whose token came earlier in the prompt finally predicts the token that "
                   "followed it there.",
                   "{k} of the {n} positions whose token came earlier in the prompt finally predict the token that "
                   "followed it there.", len(repeats)).format(k=len(hits), n=len(repeats))
    if not len(hits):
        return out
    rows, counts = np.unique(copied[hits], return_counts=True)
    row = int(rows[counts.argmax()])
    t = int(hits[copied[hits] == row][0])
    j = int(source[t])                                     # the copied token's position: after the earlier one
    before = int(sum((lens.top[:copied[k], k] == lens.ids[source[k]]).any() for k in hits))
    out += gap() + _("From {row} on, position {i} (“{token}”) predicts “{copy}”, the token that followed its earlier "
                   "occurrence at position {j}.").format(row=row_name(row), i=t, token=md(view.tokens[t]),
                                                         copy=md(view.tokens[j]), j=j - 1)
    spread = comma().join(ngettext("from {row} on at {k} position", "from {row} on at {k} positions", int(k)).format(
        row=row_name(int(r)), k=int(k)) for r, k in zip(rows, counts))
    out += gap() + _("The copied token is the top prediction {spread}.").format(spread=spread)
    if before:
        out += gap() + _("At {k} of them it was already top in an earlier row and lost its place again.").format(
            k=before)
    return out
