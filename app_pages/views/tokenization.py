"""Tokenization (the textbook's 12.5.1–12.5.2). Teaches: a tokenizer cuts text into the units of a vocabulary;
whole words leave names and new forms unknown ([UNK]) and cannot show that walk / walks / walked are related,
characters and bytes make sequences so long that attention's N² pairs explode, and byte-level BPE sits between,
learned by merging the most frequent adjacent pair again and again; then each token id picks one column of the
embedding matrix, X = Ωₑ·T."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import md, visible
from app_pages._state import keep_valid_choice
from i18n import N_, _
from model.analysis import published
from model.analysis.segmentation import embed_by_product, one_hot_columns, segmentations
from model.data import bpe as bpe_tok
from model.data import bpe_steps, course_world, text_input
from model.data.text_input import SPECIAL_TOKENS
from model.data.wordpiece import WordPieceTokenizer
from viz.slide import caption_line
from viz.tokens import plot_one_hot, plot_sequence_costs

MAX_CHARS = 2000                 # typed text beyond this is refused with a message
MAX_MERGE_CHARS = 300            # the merge learner's text: small, so every step can be read
MAX_MERGES = 30
MAX_LOOKUP = 512                 # tokens whose one-hot columns are multiplied out
CHIPS_MAX = 200                  # chips drawn per row; the rest are counted
OWN = N_("Your own text")
BIND, KEEP = _url.BIND, _url.KEEP     # every input is in the URL and survives a visit to another page
EXAMPLES = {                     # title (shown translated) -> the text the tokenizer reads
    N_("walk / walks / walked / walking"): "I walk to work; she walks, we walked, and they are walking.",
    N_("A name no vocabulary holds"): "Siobhan Oyelaran-Kowalczyk walked into the station.",
    N_("Chinese: 我有一只猫"): "我有一只猫",
    N_("It takes great courage…"): "It takes great courage to let yourself appear weak.",
    N_("An emoji"): "I love raccoons 🦝",
}
MERGE_TEXT = "walk walks walked walking talk talks talked talking"
WORD_COLOURS = ("#eaf2fb", "#fdf0e2")       # alternate per word, so a word's pieces read as one group


def too_long(n: int, limit: int) -> str:
    return _("The text has {n:,} characters; this part of the page reads at most {limit:,}. "
             "Shorten it to see its tokens.").format(n=n, limit=limit)


def token_bytes(bpe, i: int) -> bytes:
    """The UTF-8 bytes BPE token i stands for (GPT-2's stand-in characters mapped back to bytes)."""
    if i < len(bpe_tok.SPECIALS):
        return bpe_tok.SPECIALS[i].encode()
    table = bpe_tok.byte_decoder()
    return bytes(table[c] for c in bpe.tokenizer.id_to_token(i))


def chips(items, word_gap: bool = False) -> str:
    """Escaped HTML chips from (shown text, subscript, colour, dashed red outline?) tuples. word_gap: the
    subscript numbers words; a wider gap goes between chips of different words."""
    out = []
    for k, (text, sub, colour, bad) in enumerate(items[:CHIPS_MAX]):
        if word_gap and k and sub != items[k - 1][1]:
            out.append('<span style="display:inline-block;width:14px"></span>')
        border = "border:2px dashed #d62728;" if bad else "border:1px solid #c6dbef;"
        out.append(f'<span style="{border}border-radius:6px;padding:1px 5px;margin:2px;display:inline-block;'
                   f'background:{colour}">{html.escape(text, quote=False)}'
                   f'<sub style="color:#666"> {html.escape(str(sub), quote=False)}</sub></span>')
    more = (' <span style="color:#666">' + _("… and {n:,} more").format(n=len(items) - CHIPS_MAX) + "</span>"
            if len(items) > CHIPS_MAX else "")
    return '<div style="line-height:2.2;margin-bottom:0.75rem">' + "".join(out) + more + "</div>"


def _pick_example():
    title = st.session_state["tok_example"]
    if title != OWN:
        st.session_state["tok_text"] = EXAMPLES[title]


def _typed():
    titles = {t: title for title, t in EXAMPLES.items()}
    st.session_state["tok_example"] = titles.get(st.session_state["tok_text"], OWN)


@st.cache_resource
def word_vocabulary():
    """The course world's word tokenizer (the 328-word vocabulary the first text models read)."""
    return course_world.tokenizer()


def pieces_section(text: str, bpe):
    enc = bpe.encode(text)
    words = bpe_tok.group_words(enc)
    word_of = {p: w for w, word in enumerate(words) for p in word.pieces}
    raw = [token_bytes(bpe, i) for i in enc.ids]
    where = _present.main() or st                  # presenting: the pieces first, under the page's title
    where.markdown(chips([(visible(p), i, WORD_COLOURS[word_of.get(n, 0) % 2], False)
                          for n, (p, i) in enumerate(zip(enc.pieces, enc.ids))]), unsafe_allow_html=True)
    st.caption(_("Each chip: a BPE piece, then its id. ␣ is a space: a piece that starts a word carries the space "
                 "in front of it. Pieces of one word share a colour. A byte that is only part of a character "
                 "shows as <0xE7>."))
    unk = sum(i == bpe_tok.UNK for i in enc.ids)
    c1, c2, c3 = st.columns(3)
    c1.metric(_("BPE pieces"), f"{len(enc.ids):,}")
    c2.metric(_("[UNK] pieces"), unk)
    c3.metric(_("Decoding the ids gives the text back"), _("yes") if bpe.decode(enc.ids) == enc.text else _("no"))
    st.dataframe(pd.DataFrame({
        _("piece"): enc.pieces, _("id"): enc.ids, _("bytes (hex)"): [b.hex(" ").upper() for b in raw],
        _("span"): [f"{a}–{b}" for a, b in enc.spans], _("characters"): [enc.text[a:b] for a, b in enc.spans],
    }), hide_index=False, height=min(38 + 35 * len(enc.ids), 400))
    st.caption(_("span: the piece's characters in the text (start–end, counted from 0); pieces cut from one "
                 "character share its span. The text gets one space in front (unless it starts with a Chinese "
                 "character), so a first word is the same token as mid-sentence: the first piece's bytes can "
                 "start with 20, a space its piece leaves out."))
    split = {}                                        # character -> the pieces its bytes were cut into
    for n, span in enumerate(enc.spans):
        if span[1] - span[0] == 1 and enc.spans.count(span) > 1:
            split.setdefault(enc.text[span[0]:span[1]], []).append(enc.pieces[n])
    if split:
        st.markdown(_("Characters the vocabulary does not hold whole, spelled from their UTF-8 bytes: ") + "; ".join(
            f"**{md(c)}** (`{c.encode('utf-8').hex(' ').upper()}`) → {' + '.join(md(p) for p in ps)}"
            for c, ps in split.items()))
    shared = {}
    for word in words:
        if len(word.pieces) > 1:
            for p in word.pieces:
                shared.setdefault(enc.pieces[p].strip(), set()).add(word.text)
    for word in words:
        if len(word.pieces) == 1 and enc.pieces[word.pieces[0]].strip() in shared:
            shared[enc.pieces[word.pieces[0]].strip()].add(word.text)
    reused = {p: ws for p, ws in shared.items() if len(ws) > 1 and len(p) > 1}
    if reused:
        st.markdown(_("Pieces shared by different words: ") + "; ".join(
            _("**{piece}** in {words}").format(piece=md(p), words=", ".join(md(w) for w in sorted(ws)))
            for p, ws in sorted(reused.items())))


def cuts_section(text: str, bpe):
    cuts = segmentations(text, bpe, word_vocabulary())
    lengths = np.array([c.length for c in cuts])
    pairs = np.array([c.attention_pairs for c in cuts])
    names = [_(c.name) for c in cuts]
    st.dataframe(pd.DataFrame({_("cut"): names, _("tokens N"): lengths,
                               _("pairs N² (one head, one layer)"): pairs,
                               "[UNK]": [sum(c.unknown) for c in cuts]}), hide_index=True)
    _export.chart(plot_sequence_costs(lengths, pairs, labels=names), key="tok_costs",
                  name="sequence_length_by_cut", title=_("Sequence length N and N² attention pairs, by cut"),
                  caption=caption_line(_("words, BPE pieces, characters, bytes"), text=text))
    with st.expander(_("Each cut, token by token"), expanded=len(text) <= 200):
        for c, name in zip(cuts, names):
            st.markdown(f"**{name}** (N = {c.length:,})")
            st.markdown(chips([(visible(p), "[UNK]" if bad else n, WORD_COLOURS[n % 2], bad)
                               for n, (p, bad) in enumerate(zip(c.pieces, c.unknown))]), unsafe_allow_html=True)
    unknown = sorted({p for p, bad in zip(cuts[0].pieces, cuts[0].unknown) if bad})
    st.caption(_("Words come from the course world's word vocabulary ({n:,} entries, "
                 "model.data.course_world.tokenizer()), the one the app's first text models read; every "
                 "self-attention model now reads BPE pieces. A word outside it becomes [UNK] (dashed red): the model "
                 "cannot tell one unknown word from another. Characters and bytes never miss, but every token more "
                 "is a row and a column more in every head's N × N attention matrix.").format(n=len(word_vocabulary())))
    if unknown:
        st.warning(_("Unknown to the word vocabulary: ") + ", ".join(f"**{md(w)}**" for w in unknown))


def merges_section():
    text = st.text_input(_("A small text to learn merges on"), MERGE_TEXT, key="tok_merge_text",
                         bind=_url.text_bind("tok_merge_text"), persist_state=KEEP)
    _url.long_text_note("tok_merge_text")
    if len(text) > MAX_MERGE_CHARS:
        st.warning(too_long(len(text), MAX_MERGE_CHARS))
        return
    steps = bpe_steps.learn(text, MAX_MERGES)
    if not steps:
        st.info(_("No two symbols stand next to each other in this text: there is nothing to merge."))
        return
    base = len(set("".join(text.split())))
    step = st.slider(_("Merge step"), 1, len(steps), min(4, len(steps)), key="tok_step", bind=BIND,
                     persist_state=KEEP) if len(steps) > 1 else 1
    s = steps[step - 1]
    st.markdown(_("Step **{step}** merges **{left}** + **{right}** → **{merged}**: the most frequent adjacent pair, "
                  "seen **{count}** times. Vocabulary: {base} characters + {step} merged symbols = {total}.").format(
        step=step, left=md(s.pair[0]), right=md(s.pair[1]), merged=md(s.pair[0] + s.pair[1]), count=s.count,
        base=base, total=base + step))
    st.markdown(chips([(p, w, WORD_COLOURS[w % 2], False)
                       for w, word in enumerate(s.segmented) for p in word], word_gap=True), unsafe_allow_html=True)
    st.caption(_("The text after this step, word by word (the subscript numbers the word)."))
    st.dataframe(pd.DataFrame({_("step"): range(1, step + 1), _("left"): [t.pair[0] for t in steps[:step]],
                               _("right"): [t.pair[1] for t in steps[:step]],
                               _("merged"): [t.pair[0] + t.pair[1] for t in steps[:step]],
                               _("count"): [t.count for t in steps[:step]]}), hide_index=True)
    st.caption(_("The project's own short learner (model/data/bpe_steps.py) on characters, words split at spaces. "
                 "It counts and breaks ties as the `tokenizers` library's BpeTrainer does, and a test checks that "
                 "both learn the same merges. The shipped tokenizer ran the same idea on the bytes of a real "
                 "corpus until it had 8,192 tokens."))


def lookup_section(text: str):
    models = _resources.text_models()
    if not models:
        st.info(_("No shipped text model was found in assets/."))
        return
    _url.stale_link("tok_model", models, _("the model"), _resources.selected_text_model() or models[0])
    keep_valid_choice("tok_model", models)
    st.session_state.setdefault("tok_model", _resources.selected_text_model() or models[0])
    name = st.selectbox(_("Model"), models, key="tok_model", bind=BIND, persist_state=KEEP)
    tok, rule = _resources.load_tokenizer(name), _resources.text_rule(name)
    enc = text_input.encode(tok, text, rule)
    ids = enc.ids[:MAX_LOOKUP]
    typed = (enc.tokens if hasattr(enc, "tokens") else enc.pieces)[:MAX_LOOKUP]
    unknown = getattr(enc, "unknown", [False] * len(enc.ids))[:MAX_LOOKUP]
    tokens = [f"{t} → [UNK]" if unk else t for t, unk in zip(typed, unknown)]    # what the id stands for
    _reads_with(name, tok)
    if len(enc.ids) > MAX_LOOKUP:
        st.info(_("The text has {n:,} tokens for this model; the lookup below uses the first {most}.").format(
            n=len(enc.ids), most=MAX_LOOKUP))
    table = _runs.token_embedding_table(name)                           # (|V|, D)
    omega = table.T                                                     # Ωₑ: (D, |V|)
    d, v = omega.shape
    words = _url.word_labels(typed)                  # picked by word in the URL: a link survives a new tokenizer
    first = next((k for k, t in enumerate(tokens) if t not in SPECIAL_TOKENS), 0)       # the first non-special
    _url.stale_link("tok_token", words, _("the token"), words[first])
    keep_valid_choice("tok_token", range(len(ids)))
    st.session_state.setdefault("tok_token", first)
    n = st.selectbox(_("Token"), range(len(ids)), key="tok_token", format_func=words.__getitem__, bind=BIND,
                     help=_("A token seen again is numbered: “walk (2)”. Its position and id are below."))
    shown = _("The token at position {i} (of {n}, counted from 0 like every position): **{token}**, id {id}.")
    st.caption(shown.format(i=n, n=len(ids), token=md(tokens[n]), id=ids[n]))
    st.markdown(f"Ωₑ: D × |V| = **{d} × {v:,}** · T: |V| × N = **{v:,} × {len(ids)}** · "
                f"X = Ωₑ·T: D × N = **{d} × {len(ids)}**")
    D, V = published.TYPICAL_D, published.TYPICAL_VOCAB
    st.caption(_("The textbook's typical sizes (12.5.2) are D = {D:,} and |V| = {V:,}: Ωₑ alone then holds "
                 "{D:,} × {V:,} = {DV:,} numbers. This model's holds {d} × {v:,} = {dv:,}.").format(
        D=D, V=V, DV=D * V, d=d, v=v, dv=d * v))
    entry = "[UNK]" if unknown[n] else str(tokens[n])                   # the vocabulary entry id n stands for
    _column_of_t(name, text, ids, n, entry, v)
    _same_numbers(table, ids, n)


def _reads_with(name: str, tok):
    """A caption: the tokenizer the model reads text with."""
    if isinstance(tok, bpe_tok.BPETokenizer):
        st.caption(_("**{name}** reads text with byte-level BPE ({file}, {n:,} tokens).").format(
            name=md(name), file=md(tok.file) if tok.file else _("embedded"), n=len(tok)))
    elif isinstance(tok, WordPieceTokenizer):
        st.caption(_("**{name}** reads text with its own WordPiece vocabulary ({n:,} pieces, from its package), not "
                     "the BPE above: lower-cased, a word split into pieces, “##” marking a piece that continues a "
                     "word; only a character it never saw is [UNK].").format(name=md(name), n=len(tok)))
    else:
        st.caption(_("**{name}** reads text with its own stored word vocabulary ({n:,} words), not the BPE above: a "
                     "word outside it is [UNK], one column shared by every unknown word.").format(name=md(name),
                                                                                                 n=len(tok)))


def _column_of_t(name: str, text: str, ids, n: int, entry: str, v: int):
    """Column n of the one-hot matrix T, and what Ωₑ·T makes of it."""
    column = one_hot_columns([ids[n]], v)[:, 0]                         # (|V|,)
    _export.chart(plot_one_hot(column, hot_label=entry,
                               title=_("Column {i} of T: {n:,} entries, one 1").format(i=n, n=v)),
                  key="tok_one_hot", name=(name, f"token{n}", "one_hot"),
                  caption=caption_line(name, _("token {i}: {entry}, id {id}").format(i=n, entry=entry, id=ids[n]),
                                       text=text))
    st.markdown(_("Column {i} of T is all zeros except row **{id}**, so Ωₑ·T's column {i} is column {id} of Ωₑ: "
                  "the embedding of **{entry}**, the model's own `embed.tok.weight` row {id}.").format(
        i=n, id=ids[n], entry=md(entry)))


def _same_numbers(table, ids, n: int):
    """Ωₑ·T computed as a product equals the model's embedding rows; the two ways the table is stored.
    table: (|V|, D) the model's embed.tok.weight; ids: the text's ids; n: the picked position."""
    v, d = table.shape
    x = embed_by_product(table.T, ids)                                  # (D, N)
    gap = float(np.abs(x - table[ids].T).max())
    c1, c2 = st.columns([1, 2])
    c1.metric(_("Largest |Ωₑ·T − embedding rows|, all tokens"), f"{gap:g}")
    exact = st.column_config.NumberColumn(format="%.8f")
    c2.dataframe(pd.DataFrame({_("dimension"): range(min(d, 8)), "(Ωₑ·T)[:, n]": x[:8, n],
                               "embed.tok.weight[id]": table[ids[n], :8]}), hide_index=True,
                 column_config={"(Ωₑ·T)[:, n]": exact, "embed.tok.weight[id]": exact})
    st.caption(_("The first 8 of D dimensions. The model then adds position information (and a LayerNorm where "
                 "its config asks for one) before the first attention layer; Ωₑ is learned like every other "
                 "weight."))
    st.markdown(_("**One table, two conventions.** The textbook stores Ωₑ as D × |V| and an id picks a **column** "
                  "(tokens are the columns of X = Ωₑ·T); PyTorch's nn.Embedding, the tutorial's nn.Embedding(10000, "
                  "512) and this model's `embed.tok.weight` ({v:,} × {d}) store the transpose, |V| × D, and an id "
                  "picks a **row** (tokens are the rows of X), as the lecture and the Architecture page (V × d_model) "
                  "write it. The same numbers: column {id} of Ωₑ is row {id} of the table.").format(
        v=v, d=d, id=ids[n]))


def render():
    st.title(_("Tokenization"))
    _present.slot()
    st.markdown(_("A Transformer never sees letters. A **tokenizer** cuts the text into tokens of a fixed "
                  "vocabulary V, each token becomes an id, and each id picks one column of the embedding matrix "
                  "Ωₑ. Whole words miss names and new forms; single characters make long sequences. Byte-level "
                  "**BPE** (byte pair encoding) keeps frequent words whole and spells rare ones from pieces, down "
                  "to single bytes, so no text needs [UNK]."))
    # the URL holds the shown (translated) title; the widget's value stays the English title
    _url.gallery_link("tok_example", "tok_text", {**EXAMPLES, **{_(t): x for t, x in EXAMPLES.items()}}, OWN)
    st.selectbox(_("Example"), [*EXAMPLES, OWN], key="tok_example", on_change=_pick_example, format_func=_,
                 bind=BIND, persist_state=KEEP)
    text = st.text_area(_("Text"), EXAMPLES[next(iter(EXAMPLES))], key="tok_text", on_change=_typed, height=90,
                        bind=_url.text_bind("tok_text"), persist_state=KEEP)
    _url.long_text_note("tok_text")
    ok = len(text) <= MAX_CHARS
    if not ok:
        st.warning(too_long(len(text), MAX_CHARS))
    elif not text.strip():
        st.info(_("Type some text to see its tokens."))
        ok = False
    bpe = bpe_tok.load()
    if ok:
        st.subheader(_("Pieces, ids and bytes"))
        pieces_section(text, bpe)
        st.subheader(_("Words, BPE pieces, characters, bytes"))
        cuts_section(text, bpe)
    st.subheader(_("How BPE learns its merges"))
    merges_section()
    if ok:
        st.subheader(_("The embedding lookup X = Ωₑ·T"))
        lookup_section(text)
