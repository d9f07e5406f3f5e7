"""The decoder page's "Learning from the prompt" tab: a small decoder copies a span it saw earlier in its prompt.

Teaches: in-context copying at its smallest (Olsson et al. 2022): a prompt of random syllables in which a span comes
back; on the second copy the model predicts each next syllable, on the first it cannot (chance); the induction head
the shared scorer finds, whose attention from each token of the second copy lands on the token after its first
occurrence (a stripe beside the diagonal); zeroing that head takes the copying away. And what large models do beyond
this (Brown et al. 2020)."""
import pandas as pd
import streamlit as st

from app_pages import _export, _resources, _url
from app_pages._cache_sizes import PROMPTS_KEPT
from app_pages._markup import md
from app_pages._numbers import spoken
from i18n import _, ngettext
from labels import file_label, head_label
from model import checkpoints
from model.analysis import incontext, published
from model.checkpoints import CheckpointError
from model.data.symbol_streams import LOW
from viz.incontext import induction_targets, plot_accuracy_by_offset, plot_head_map, plot_prompt_predictions
from viz.slide import caption_line

MODEL = "incontext_copy"
SEED_MAX = 9_999
SPAN_DEFAULT = 8
CURVE_PROMPTS = 256             # held-out prompts behind the accuracy curve
BIND, KEEP = _url.BIND, _url.KEEP


@st.cache_data(max_entries=PROMPTS_KEPT, show_spinner=False)
def read_prompt(name: str, dev: str, seed: int, span: int, ablate: bool) -> incontext.PromptRun:
    """The model on held-out prompt `seed` (span repeated), and its copy accuracy on CURVE_PROMPTS more."""
    h = _resources.loaded(name, dev)
    return incontext.prompt_run(h.model, h.meta["lab"]["data"], seed, span, ablate, CURVE_PROMPTS)


def new_prompt():
    st.session_state.ic_seed = (int(st.session_state.get("ic_seed", 0)) + 1) % (SEED_MAX + 1)


def section(dev: str):
    st.markdown(_("A language model can pick up a pattern from its prompt alone, with no change to its weights. Here "
                  "is the simplest such pattern: a span of random syllables that comes back later in the prompt. On "
                  "the second copy the next syllable can be read off the first copy, so a model that has learnt to "
                  "look back predicts it; on the first copy nothing earlier tells it, and it can only guess."))
    try:
        model, meta = _resources.load_model(MODEL, dev)
    except CheckpointError as e:
        st.warning(_("The model `{name}` is not available ({why}). Train it with `{command}`.").format(
            name=MODEL, why=md(e), command=checkpoints.retrain_hint(MODEL)))
        return
    task, m = meta["lab"]["data"], meta.get("metrics", {})
    model_caption(meta)
    seed, span, ablate = controls(task)
    run = read_prompt(MODEL, dev, seed, span, ablate)
    tok = _resources.load_tokenizer(MODEL)
    tokens = [tok.vocab[int(i)] for i in run.ids]
    head = head_label(*run.head)
    how = _("{head} zeroed").format(head=head) if ablate else ""
    text = " ".join(tokens[1:])
    prompt_view(run, tok, task, m, seed, span, (how, text))
    curve_view(run, task, span, how)
    heads_view(run, tokens, seed, (how, text))
    beyond(model)


def model_caption(meta: dict):
    """Which model this is: the training lab's induction lesson trained once, its size and syllables."""
    c, lab = meta["config"], meta["lab"]
    task = lab["data"]
    st.caption(ngettext("Model `{name}`: the training lab's induction lesson trained once ({steps} steps, seed "
                        "{seed}, `{command}`): a decoder of {layers} layers × {heads} head, attention only, d_model "
                        "{d_model}, {context} positions, {symbols} syllables.",
                        "Model `{name}`: the training lab's induction lesson trained once ({steps} steps, seed "
                        "{seed}, `{command}`): a decoder of {layers} layers × {heads} heads, attention only, d_model "
                        "{d_model}, {context} positions, {symbols} syllables.", c["n_heads"]).format(
        name=MODEL, steps=lab["settings"]["steps"], seed=lab["settings"]["seed"],
        command=checkpoints.retrain_hint(MODEL),
        layers=c["n_layers"], heads=c["n_heads"], d_model=c["d_model"], context=c["max_len"],
        symbols=task["vocab"] - LOW))


def controls(task: dict) -> tuple[int, int, bool]:
    """Prompt number (with "New prompt"), span length and the induction head's ablation in one row. Returns (seed,
    span, ablate)."""
    top = min(incontext.MAX_SPAN, (task["length"] - 1) // 2)
    _url.stale_number("ic_seed", 0, SEED_MAX, _("prompt number"), 0)
    _url.stale_number("ic_span", 2, top, _("span length"), SPAN_DEFAULT)
    c1, c2, c3, c4 = st.columns([2, 2, 3, 3], vertical_alignment="bottom")
    # no explicit value (it starts at the minimum, 0): "New prompt" sets it through the session state
    seed = int(c1.number_input(_("Prompt number"), 0, SEED_MAX, key="ic_seed", bind=BIND, persist_state=KEEP,
                               help=_("Each number draws another held-out prompt (never trained on).")))
    c2.button(_("New prompt"), on_click=new_prompt, key="ic_new", width="stretch")
    span = c3.slider(_("Span length"), 2, top, SPAN_DEFAULT, key="ic_span", bind=BIND, persist_state=KEEP,
                     help=_("How many syllables are repeated. The model was trained on spans of {lo} to {hi}.").format(
                         lo=task["spans"][0], hi=task["spans"][1]))
    ablate = c4.toggle(_("Zero the induction head"), False, key="ic_ablate", bind=BIND, persist_state=KEEP,
                       help=_("Its output replaced by zeros in every prompt (zero ablation): what is left of the "
                              "copying without it."))
    return seed, span, ablate


def prompt_view(run, tok, task: dict, m: dict, seed: int, span: int, about: tuple[str, str]):
    """The prompt with the model's guess under each token, and its right guesses on the two copies beside the
    held-out accuracy; about: (what was zeroed, the prompt's text) for the slides' caption."""
    how, text = about
    tokens, predicted = [tok.vocab[int(i)] for i in run.ids], [tok.vocab[int(i)] for i in run.predicted]
    head = head_label(*run.head)
    _export.chart(plot_prompt_predictions(tokens, predicted, run.prob, first=run.first, second=run.second,
                                          span=run.span,
                                          title=_("Prompt {seed}: the span at {a}–{b} comes back at {c}–{d}").format(
                                              seed=seed, a=run.first, b=run.first + run.span - 1, c=run.second,
                                              d=run.second + run.span - 1)),
                  key="ic_strip", main=True, name=(MODEL, f"prompt{seed}", f"span{span}", "predictions"),
                  caption=caption_line(MODEL, how, text=text))

    def right(start: int) -> int:
        """Right guesses at offsets 0 .. span − 2 of the copy starting at `start`."""
        return int(sum(run.predicted[start + k] == run.ids[start + k + 1] for k in range(run.span - 1)))
    n = run.span - 1
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(_("Second copy, this prompt"), _("{k} of {n}").format(k=right(run.second), n=n))
    m2.metric(_("First copy, this prompt"), _("{k} of {n}").format(k=right(run.first), n=n))
    if "incontext_copy_acc" in m:
        m3.metric(_("Copy accuracy, held out"), f"{m['incontext_copy_acc']:.3f}",
                  help=_("Second copies of {n} held-out prompts with spans of {lo} to {hi} syllables "
                         "(python -m model.evaluate --json {name}).").format(
                      n=m["heldout_prompts"], lo=task["spans"][0], hi=task["spans"][1], name=MODEL))
    if "incontext_copy_acc_without_induction_head" in m:
        m4.metric(_("Without the induction head"), f"{m['incontext_copy_acc_without_induction_head']:.3f}",
                  help=_("The same held-out prompts with {head} zeroed.").format(head=head))
    st.caption(_("Top row: the prompt, its tokens along the top, the span in blue and again in orange. Bottom row: "
                 "under each token, the model's guess for it from the tokens before it (along the bottom), green or "
                 "red where the answer is in the prompt (every token of the second copy but its first). The first "
                 "token of each copy has no cue: nothing earlier tells it."))


def curve_view(run, task: dict, span: int, how: str):
    """Accuracy against the position in the copy, on CURVE_PROMPTS held-out prompts, first copy and second."""
    curve = run.curve
    _export.chart(plot_accuracy_by_offset(curve.first_by_offset, curve.second_by_offset,
                                          chance=1 / (task["vocab"] - LOW),
                                          counts=curve.second_count,
                                          title=_("Accuracy against the position in the copy, {n} prompts with a span "
                                                  "of {span}").format(n=CURVE_PROMPTS, span=run.span)),
                  key="ic_curve", name=(MODEL, f"span{span}", "accuracy_by_position"),
                  caption=caption_line(MODEL, how, _("{n} held-out prompts").format(n=CURVE_PROMPTS)))
    st.caption(_("Second copy: {second:.3f}; first copy: {first:.3f}, near chance (a weak rule in the training data, "
                 "a token sometimes fixing the one two places later, lifts it a little above 1 in {n}).").format(
        second=curve.second, first=curve.first, n=task["vocab"] - LOW))


def heads_view(run, tokens: list[str], seed: int, about: tuple[str, str]):
    """The induction head and the previous-token head it works with: their maps on this prompt and every head's
    two scores; about: (what was zeroed, the prompt's text) for the slides' caption."""
    how, text = about
    head = head_label(*run.head)
    layer, h = run.head
    prev_layer, prev_head = divmod(int(run.previous.argmax()), run.previous.shape[1])
    st.markdown(_("**The head that copies.** The shared scorer ranks every head by its induction score: the mean "
                  "weight from each token of a repeated span's second copy on the token after its first occurrence "
                  "(1 for a perfect induction head). {head} scores {score:.2f}. Its map below has a stripe beside "
                  "the diagonal, one span length to the left: the outlined cells. It works with a previous-token "
                  "head in the layer before ({prev}, score {prev_score:.2f}), which writes into each token what came "
                  "just before it, so the induction head can look for “the token after mine”.").format(
        head=head, score=run.induction[layer, h], prev=head_label(prev_layer, prev_head),
        prev_score=run.previous[prev_layer, prev_head]))
    a, b = st.columns(2)
    _export.chart(plot_head_map(run.weights[layer, h], tokens,
                                targets=induction_targets(run.first, run.second, run.span),
                                title=_("{head}: induction score {score:.2f}").format(
                                    head=head, score=run.induction[layer, h])),
                  key="ic_induction_map", where=a, name=(MODEL, file_label(layer, h), f"prompt{seed}", "attention"),
                  caption=caption_line(MODEL, head, how, text=text))
    _export.chart(plot_head_map(run.weights[prev_layer, prev_head], tokens,
                                title=_("{head}: previous-token score {score:.2f}").format(
                                    head=head_label(prev_layer, prev_head), score=run.previous[prev_layer, prev_head])),
                  key="ic_previous_map", where=b,
                  name=(MODEL, file_label(prev_layer, prev_head), f"prompt{seed}", "attention"),
                  caption=caption_line(MODEL, head_label(prev_layer, prev_head), how, text=text))
    L, H = run.induction.shape
    st.dataframe(pd.DataFrame({_("head"): [head_label(i, j) for i in range(L) for j in range(H)],
                               _("induction score"): run.induction.ravel().round(3),
                               _("previous-token score"): run.previous.ravel().round(3)}),
                 hide_index=True, key="ic_scores")


def beyond(model):
    """What large models do with their prompt beyond copying, and GPT-3's size beside this model's."""
    st.markdown(_("**What large models do beyond this.** This two-layer model only copies: it continues a span it has "
                  "already seen, token for token, and has no other way to use its prompt. Induction heads like this "
                  "one form in large language models too, and Olsson et al. (2022, “In-context learning and induction "
                  "heads”) argue they are a large part of how those models use their context. But large models also "
                  "learn tasks from a few examples in the prompt (Brown et al. 2020, “Language models are few-shot "
                  "learners”: translate, add numbers, fix grammar from a handful of worked cases), follow written "
                  "instructions, and carry a pattern over to new content, such as a format or an analogy, rather "
                  "than repeating tokens they saw. None of that is shown here."))
    g = published.GPT3
    st.caption(_("The textbook's few-shot learner (12.7.4) is GPT-3: {params} parameters in {layers} layers of width "
                 "{d:,} with {heads} heads, a context of {context:,} tokens, trained on 300 billion tokens. This "
                 "copying model has {own:,} parameters.").format(
        params=spoken(g.params), layers=g.layers, d=g.d_model, heads=g.heads,
        context=g.context, own=sum(p.numel() for p in model.parameters())))
