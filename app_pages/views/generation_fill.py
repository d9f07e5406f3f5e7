"""The decoder page's "Fill-in (encoder)" tab: a masked-LM encoder filling hidden pieces from the context on both
sides (textbook 12.6), with its fillers and where each [MASK] attends, beside BERT's sizes."""
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import md, visible
from app_pages._numbers import prob, spoken
from app_pages.views.generation_text import code
from i18n import _, joined
from labels import head_label
from model import checkpoints
from model.analysis import published
from model.checkpoints import CheckpointError
from model.tasks.fill_mask import FillMaskError, encode_with_masks
from viz.generation import plot_next_token_bars
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

MAX_FILL_CHARS = 600
MAX_FILL_SHOWN = 6             # masked pieces drawn with bars and attention; the rest are listed in a table
DEFAULT_FILL = "dog: a domestic <mask> that barks."      # the lecture plan's note names the encoder's first choice
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
TEXTBOOK_FILL = "The train pulled into the station."     # textbook 12.6.1: "The <mask> pulled into the station."


def textbook_example(name: str, dev: str, tok):
    """What the shipped encoder makes of the textbook's own masked example, computed: its first choices for the
    hidden "train" and the rank it gives "train"."""
    words = list(encode_with_masks(tok, TEXTBOOK_FILL).words)
    fill = _runs.encoder_fill(name, dev, TEXTBOOK_FILL, (words.index("train"),), 5)
    top = joined(f"“{visible(p.strip())}”" for p in fill.top_pieces[0][:3])
    st.caption(_("The textbook's own example (12.6.1), “The [MASK] pulled into the station.”: this encoder's first "
                 "choices are {top}, and it ranks “train” {rank} (p = {p}). A 4-layer encoder trained on about 25 "
                 "million pieces of glosses and fortunes does not reach what BERT's size and data give.").format(
        top=top, rank=int(fill.original_rank[0]), p=f"{float(fill.original_prob[0]):.4f}"))


def fill_in(dev):
    text = fill_text()
    name = _resources.model_for_text(_resources.FILL_MODEL, text)     # a Chinese encoder on Chinese text
    try:
        _model, enc_meta = _resources.load_model(name, dev)
    except CheckpointError as e:
        st.warning(_("The masked-LM encoder `{name}` is not available ({why}). Train it with `{command}`.").format(
            name=name, why=md(e), command=checkpoints.retrain_hint(name)))
        return
    tok = _resources.load_tokenizer(name)
    hidden, top_k = fill_controls(tok, text)
    try:
        fill = _runs.encoder_fill(name, dev, text, hidden, top_k)
    except FillMaskError as e:
        st.error(str(e))
        return
    encoder_sizes(name, enc_meta["config"])
    if name == _resources.FILL_MODEL:                   # the textbook's example is English
        textbook_example(name, dev, tok)
    st.markdown(_("Input: {pieces}").format(pieces=" ".join(code(visible(t)) for t in fill.tokens)))
    mt, tokens = fill.text, [visible(t) for t in fill.tokens]
    heads = [head_label(i, j) for i in range(fill.weights.shape[0]) for j in range(fill.weights.shape[1])]
    for m, pos in enumerate(mt.masked[:MAX_FILL_SHOWN]):
        masked_piece(name, text, tok, fill, m, pos, tokens, heads)
    if len(mt.masked) > MAX_FILL_SHOWN:
        st.caption(_("{n} masked pieces; the first {shown} are drawn, the rest listed.").format(
            n=len(mt.masked), shown=MAX_FILL_SHOWN))
        position, best = _("position"), _("best filler")
        st.dataframe([{position: pos, best: visible(fill.top_pieces[m][0]), "p": round(float(fill.top_probs[m, 0]), 4)}
                      for m, pos in enumerate(mt.masked) if m >= MAX_FILL_SHOWN], hide_index=True, key="fill_rest")


def fill_text() -> str:
    """The text box of the fill-in (clipped)."""
    text = _resources.clip_text(st.text_input(_("Text (type [MASK] or <mask> anywhere, or pick words below)"),
                                              DEFAULT_FILL, key="fill_text", bind=_url.text_bind("fill_text"),
                                              persist_state=KEEP), MAX_FILL_CHARS)
    _url.long_text_note("fill_text")
    return text


def fill_controls(tok, text: str) -> tuple[tuple[int, ...], int]:
    """The words of `text` to hide and how many predictions to show. Returns (hidden word indices, top k)."""
    words = encode_with_masks(tok, text)
    labels = _url.word_labels(words.words)         # picked by word ("the (2)"), so a link survives a new tokenizer
    _url.stale_picks("fill_words", labels, _("the words"))
    picked = st.multiselect(_("Words to hide"), labels, key="fill_words", bind=BIND, persist_state=KEEP,
                            placeholder=_("Pick words to hide"),
                            help=_("Each piece of a hidden word becomes one [MASK]: a word of 3 pieces shows the "
                                   "model 3 masks, so it knows the hidden word's length in pieces. A word seen "
                                   "again is numbered: “the (2)”."))
    _url.stale_number("fill_k", 3, 15, _("predictions per masked piece"), 8)
    top_k = st.slider(_("Predictions per masked piece"), 3, 15, 8, key="fill_k", bind=BIND, persist_state=KEEP)
    return tuple(labels.index(p) for p in picked if p in labels), top_k


def encoder_sizes(name: str, c: dict):
    """What the encoder reads, and its size beside BERT-base's and BERT-large's (textbook 12.6)."""
    st.caption(_("Encoder `{name}` ({layers} layers × {heads} heads, reads {context} pieces): its masked-LM head "
                 "reads the context on both sides of each [MASK]. A hidden word of several pieces becomes that many "
                 "[MASK] tokens, one prediction each. Special tokens are never proposed.").format(
        name=name, layers=c["n_layers"], heads=c["n_heads"], context=c["max_len"]))
    base, large = published.BERT_BASE, published.BERT_LARGE
    st.caption(_("The same objective trained BERT (textbook 12.6): BERT-base has L = {bl} layers, H = {bh} and "
                 "A = {ba} heads, {bp} parameters; BERT-large L = {ll}, H = {lh}, A = {la}, {lp}. This encoder: "
                 "L = {L}, H = {H}, A = {A}.").format(
        bl=base.layers, bh=base.d_model, ba=base.heads, bp=spoken(base.params),
        ll=large.layers, lh=large.d_model, la=large.heads, lp=spoken(large.params),
        L=c["n_layers"], H=c["d_model"], A=c["n_heads"]))


def masked_piece(name: str, text: str, tok, fill, m: int, pos: int, tokens: list[str], heads: list[str]):
    """Masked piece m (at position pos): what it hides, its best fillers, and where it attends in every layer and
    head; tokens: the N pieces read, heads: the L·H row labels."""
    mt = fill.text
    original = mt.original_ids[m]
    if original < 0:
        about = _("typed mask")
    else:
        w = mt.hidden_word[m]
        part = [k for k, hw in enumerate(mt.hidden_word) if hw == w]
        whole = _("the word “{word}”").format(word=mt.words[w]) if len(part) == 1 else \
            _("piece {i} of {n} of the word “{word}”").format(i=part.index(m) + 1, n=len(part), word=mt.words[w])
        about = _("hides “{piece}”, {whole}: p = {p}, rank {rank:,}").format(
            piece=visible(tok.piece(original)), whole=whole, p=prob(fill.original_prob[m]),
            rank=fill.original_rank[m])
    top = _present.main()                   # presenting: the first masked piece's figures first, full width
    where = st.container() if top is None else top.container()
    where.markdown(f"**[MASK] ·{pos}** · {md(about)}")
    a, b = where.columns([2, 3])
    chosen = visible(tok.piece(original)) if original >= 0 else None
    about = caption_line(name, f"[MASK] ·{pos}", text=text)
    _export.chart(plot_next_token_bars([visible(p) for p in fill.top_pieces[m]], fill.top_probs[m],
                                       chosen=chosen, y_title=_("filler")), key=f"fill_bars_{m}", where=a,
                  name=(name, f"mask{pos}", "fillers"), title=_("Fillers for [MASK] ·{pos}").format(pos=pos),
                  caption=about)
    rows = fill.weights[:, :, pos].reshape(-1, len(tokens))                  # (L·H, N)
    _export.chart(plot_heatmap(rows, x_labels=tokens, y_labels=heads, y_names=True, x_title=_("key"),
                               y_title=_("layer, head"), value_name=_("weight"),
                               title=_("Where [MASK] ·{pos} attends, every layer and head").format(pos=pos)),
                  key=f"fill_attn_{m}", where=b, name=(name, f"mask{pos}", "attention"), caption=about)
