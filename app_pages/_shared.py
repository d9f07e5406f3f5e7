"""The only home of Streamlit caching and of the shared sidebar. Models are resources (loaded once
per process and device, never mutated), runs are data (bounded caches of plain numpy results)."""
import html
import sys
import threading

import streamlit as st
import torch

from model import checkpoints
from model.checkpoints import CheckpointError
from model.data import text_input
from model.data.word_tokenizer import WordTokenizer
from model.engine import device as devices

MAX_TEXT_CHARS = 20_000          # typed text beyond this is cut with a notice
RUNS_KEPT = 8                    # results kept per cached function: a rerun is fast, memory stays flat
DEFAULT_TEXT_MODEL = "coref_encoder"
LOAD_COUNT = {"n": 0}            # how many times a checkpoint was read (the concurrency test reads it)
_load_lock = threading.Lock()


@st.cache_resource(show_spinner="Loading model…")
def load_model(name: str, device: str = "cpu"):
    """(model, meta) for a shipped model on a device; shared by every session, never mutated."""
    with _load_lock:
        LOAD_COUNT["n"] += 1
        print(f"[attention-lab] loading model {name} on {device}", file=sys.stderr, flush=True)
        return checkpoints.load(name, device=device)


@st.cache_resource
def load_tokenizer(name: str) -> WordTokenizer:
    return WordTokenizer.from_dict(checkpoints.read_meta(name)["tokenizer"])


def shipped_meta() -> dict[str, dict]:
    """name -> meta of every shipped model whose files are readable."""
    out = {}
    for name in checkpoints.shipped():
        try:
            out[name] = checkpoints.read_meta(name)
        except CheckpointError:
            continue
    return out


def broken_models() -> dict[str, str]:
    """name -> why, for shipped models (those with a training recipe) that cannot be read: a missing
    weights or config file, or a config that is not valid. Loading reports truncated weights."""
    from model.training import recipes
    out = {}
    for name in recipes.names():
        weights, config = (checkpoints.ASSETS / f"{name}{ext}" for ext in (".safetensors", ".json"))
        if weights.is_file() != config.is_file():
            missing = config if weights.is_file() else weights
            out[name] = f"{missing.name} is missing; rebuild it with `{checkpoints.retrain_hint(name)}`."
        elif config.is_file():
            try:
                checkpoints.read_meta(name)
            except CheckpointError as e:
                out[name] = str(e)
    return out


def text_models() -> list[str]:
    """Shipped self-attention text models (encoders and decoders) for the sidebar."""
    names = [n for n, m in shipped_meta().items()
             if m.get("modality", "text") == "text" and m["config"].get("kind") in ("encoder", "decoder")]
    return sorted(names, key=lambda n: (n != DEFAULT_TEXT_MODEL, n))


def device() -> str:
    """The device the sidebar asked for, resolved; an absent one falls back to CPU with a notice."""
    dev, notice = devices.resolve(st.session_state.get("device", "auto"))
    if notice:
        st.sidebar.warning(notice)
    return dev.type


def selected_text_model() -> str | None:
    models = text_models()
    name = st.session_state.get("text_model")
    return name if name in models else (models[0] if models else None)


def sidebar():
    """Shared controls; pages read them from st.session_state, so each page also runs alone."""
    with st.sidebar:
        models = text_models()
        if models:
            st.selectbox("Text model", models, key="text_model",
                         help="The shipped, trained model the text pages run.")
        else:
            st.warning("No shipped text model was found in assets/.")
        for name, why in broken_models().items():
            st.error(f"Model **{html.escape(name)}** is unavailable: {html.escape(why)}")
        st.selectbox("Device", devices.CHOICES, key="device",
                     help="auto picks a GPU when there is one; an absent device falls back to CPU.")
        st.caption(f"torch {torch.__version__} · running on **{device()}**")


def model_or_stop(name: str):
    """(model, meta) or a readable error that stops the page (missing or corrupt weights)."""
    try:
        return load_model(name, device())
    except CheckpointError as e:
        st.error(f"The model **{html.escape(name)}** could not be loaded.\n\n{e}")
        st.stop()


def clip_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Bound typed text; tell the user when it was cut."""
    if len(text) > limit:
        st.warning(f"The text has {len(text):,} characters; only the first {limit:,} are used.")
        return text[:limit]
    return text


# ---- positional encodings ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the encoder with positions off and on…")
def order_experiment(name: str, text_a: str, text_b: str, device: str = "cpu"):
    """model.analysis.order.OrderExperiment for a shipped encoder (ValueError on a bad pair is not cached)."""
    from model.analysis.order import order_experiment as experiment
    model, meta = load_model(name, device)
    return experiment(model, load_tokenizer(name), text_a, text_b, text_input.rule_of(meta))


@st.cache_data(max_entries=8, show_spinner="Reading the learned position table…")
def learned_position_table(name: str):
    """The learned (rows, C) float32 position table of a shipped model, or None."""
    from model.engine.positions import learned_table
    model, _ = load_model(name, "cpu")
    return learned_table(model)


def learned_position_models() -> dict[str, dict]:
    """name -> meta of shipped models with learned absolute positions (text: pos_encoding "learned";
    images: every ViT/Swin, whose positions are a learned parameter)."""
    return {n: m for n, m in shipped_meta().items()
            if m["config"].get("pos_encoding") == "learned" or m.get("modality") == "image"}


# ---- step by step ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model…")
def step_layer_inputs(name: str, device: str, text: str, max_tokens: int):
    """(ids (T,), tokens, notices, hidden (L + 1, T, C) float64): the vectors entering every layer of a
    shipped text model for the step-by-step page."""
    from model.analysis import steps
    model, meta = load_model(name, device)
    ids, tokens, notices = steps.encode_text(model, load_tokenizer(name), text, text_input.rule_of(meta), max_tokens)
    return ids, tokens, notices, steps.layer_inputs(model, ids)


@st.cache_data(max_entries=8, show_spinner=False)
def softmax_saturation(d_ks: tuple[int, ...], n_keys: int, seed: int) -> dict:
    """model.analysis.steps.saturation for the √d_k section (mean over 256 random queries)."""
    from model.analysis import steps
    return steps.saturation(d_ks, n_keys, 256, seed)


# ---- explorer ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model with attention captured…")
def explorer_run(name: str, device: str, text: str):
    """AttentionRun (weights (L, H, N, N), tokens, ids, unknown flags, truncation notices) of a shipped
    text model on typed text; encoders get [CLS] … [SEP], decoders a leading [BOS] (as trained)."""
    from model.tasks.attention_run import run_text
    model, meta = load_model(name, device)
    return run_text(model, load_tokenizer(name), text, text_input.rule_of(meta))


# ---- translation ----
TRANSLATOR = "translator"


@st.cache_resource
def translator_tokenizers():
    """(English word tokenizer, Chinese character tokenizer) stored in the translator's meta."""
    meta = checkpoints.read_meta(TRANSLATOR)
    return WordTokenizer.from_dict(meta["tokenizer"]), WordTokenizer.from_dict(meta["tgt_tokenizer"])


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Translating with attention captured…")
def translation_run(device: str, text: str, method: str, width: int, target: tuple[int, ...] | None = None):
    """model.tasks.translation.run on the shipped translator: AttentionRun with src_tokens, enc_weights
    (L, H, S, S), weights (L, H, T, T) decoder self-attention, cross_weights (L, H, T, S); `target`
    ids force the decoder (teacher forcing) instead of decoding. Raises SourceError on bad input."""
    from model.tasks import translation as translate
    model, _ = load_model(TRANSLATOR, device)
    src_tok, tgt_tok = translator_tokenizers()
    return translate.run(model, src_tok, tgt_tok, text, list(target) if target is not None else None, method, width)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def translation_steps(device: str, text: str):
    """model.tasks.translation.greedy: what one-token-at-a-time decoding saw (cross rows (steps, L, H, S))."""
    from model.tasks import translation as translate
    model, _ = load_model(TRANSLATOR, device)
    src_tok, _ = translator_tokenizers()
    return translate.greedy(model, translate.source_ids(src_tok, text))


# ---- coreference ----
COREF_MODEL = "coref_encoder"


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def coref_run(device: str, text: str):
    """AttentionRun of the coreference encoder on text (with [CLS]/[SEP]; weights (L, H, N, N))."""
    from model.tasks.attention_run import run_text
    model, meta = load_model(COREF_MODEL, device)
    return run_text(model, WordTokenizer.from_dict(meta["tokenizer"]), text, text_input.rule_of(meta))


@st.cache_data(max_entries=4, show_spinner="Measuring every head on the held-out evaluation set…")
def coref_head_accuracy(device: str) -> dict:
    """{"accuracy": (L, H) argmax accuracy of every head on the held-out sets of `python -m model.evaluate`
    (sentences with held-out pairs and frames, and held-out passages), "n_refs": how many pronouns,
    baseline_first_noun / baseline_nearest_noun on the sentences}."""
    from model.data import course_world as corpus
    from model.tasks.coreference import baselines, head_accuracy
    from model.training.recipes.coref_encoder import RECIPE
    model, meta = load_model(COREF_MODEL, device)
    n = RECIPE["eval_pairs"]
    sentences = corpus.eval_samples("heldout_pairs", n) + corpus.eval_samples("heldout_frames", n)
    samples = sentences + corpus.eval_samples("heldout_pairs", n // 3, passages=True)
    acc = head_accuracy(model, WordTokenizer.from_dict(meta["tokenizer"]), samples)
    return {"accuracy": acc, "n_refs": sum(len(s.refs) for s in samples), **baselines(sentences)}


# ---- generation ----
GPT_MODEL = "course_gpt"


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def gpt_next_probs(device: str, prompt_ids: tuple, temperature: float):
    """(V,) next-token distribution of the causal decoder after prompt_ids."""
    from model.tasks import generation as generate
    model, _ = load_model(GPT_MODEL, device)
    return generate.next_token_probs(model, list(prompt_ids), temperature)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Generating…")
def gpt_generate(device: str, prompt_ids: tuple, max_new: int, strategy: str, k: int, temperature: float,
                 seed: int, eos_id: int):
    """(Generation with weights (L, H, N, N), largest |cached − full recompute| of logits and weights)."""
    from model.tasks import generation as generate
    model, _ = load_model(GPT_MODEL, device)
    run = generate.generate(model, list(prompt_ids), max_new, strategy, k, temperature, seed, eos_id)
    logits, weights = generate.full_recompute(model, run.ids)
    return run, float(abs(run.logits - logits).max()), float(abs(run.weights - weights).max())


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Searching beams…")
def gpt_beam(device: str, prompt_ids: tuple, width: int, max_new: int, eos_id: int, length_penalty: float):
    """(BeamSearch tree, greedy ids, greedy Σ log p) for the same prompt and length."""
    from model.tasks import generation as generate
    model, _ = load_model(GPT_MODEL, device)
    tree = generate.beam_search(model, list(prompt_ids), width, max_new, eos_id, length_penalty)
    greedy = generate.generate(model, list(prompt_ids), max_new, eos_id=eos_id).ids
    return tree, greedy, generate.sequence_logprob(model, greedy, len(prompt_ids))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Filling in…")
def encoder_fill(name: str, device: str, text: str, mask_words: tuple, top_k: int):
    """FillMask of a shipped encoder: predictions at the masked words, weights (L, H, N, N)."""
    from model.tasks.fill_mask import fill_mask
    model, meta = load_model(name, device)
    return fill_mask(model, WordTokenizer.from_dict(meta["tokenizer"]), text, list(mask_words), top_k)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def objective_losses(device: str, words: tuple, masked: tuple, encoder: str | None):
    """Per-word loss terms (nats) on one sentence: the decoder's −log p(word | words before) for
    every word, and the encoder's −log p(word | rest, masked hidden) at the masked words (nan
    elsewhere, or everywhere when no encoder is shipped); plus the decoder's weights (L, H, N, N)."""
    import numpy as np

    from model.data.word_tokenizer import BOS, CLS, SEP, UNK
    from model.tasks.generation import full_recompute
    from model.training.objectives import causal_token_losses, masked_token_losses
    model, meta = load_model(GPT_MODEL, device)
    gpt_tok = WordTokenizer.from_dict(meta["tokenizer"])
    ids = [BOS] + [gpt_tok.index.get(w, UNK) for w in words]
    clm = causal_token_losses(model, ids)
    _, weights = full_recompute(model, ids)
    mlm = np.full(len(words), np.nan)
    if encoder and masked:
        enc, enc_meta = load_model(encoder, device)
        enc_tok = WordTokenizer.from_dict(enc_meta["tokenizer"])
        enc_ids = [CLS] + [enc_tok.index.get(w, UNK) for w in words] + [SEP]
        mlm[list(masked)] = masked_token_losses(enc, enc_ids, [m + 1 for m in masked])
    return mlm, clm, weights


# ---- images (issue 8) ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def load_image_bytes(data: bytes):
    """LoadedImage (8-bit RGB + conversion notes) of uploaded bytes, shrunk to at most 1024 px a side (the
    models read 24 px; this bounds the cache at ~3 MB an entry); raises model.data.images.ImageError."""
    from model.data.images import load_image
    loaded = load_image(data)
    loaded.image.thumbnail((1024, 1024))
    return loaded


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model…")
def run_image(name: str, x, device: str = "cpu"):
    """AttentionRun of a shipped image model on one normalised image x (C, S, S)."""
    from model.tasks.image_run import run_image as run
    model, meta = load_model(name, device)
    return run(model, x, meta["preprocess"]["classes"])


# ---- masks & sparse attention ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model under the mask and with full attention…")
def masked_runs(name: str, device: str, text: str, pattern: str, params: tuple, causal: bool = False):
    """(AttentionRun under the pattern, AttentionRun with full attention, mask (N, N) bool) of a shipped text
    model; decoders keep the causal mask in both. params: sorted (name, value) pairs. ValueError if the pattern
    does not fit the text (not cached)."""
    import numpy as np

    from model.engine import masks
    from model.tasks.attention_run import run_text
    model, meta = load_model(name, device)
    tok, rule = load_tokenizer(name), text_input.rule_of(meta)
    encoder = model.config.kind == "encoder"
    n = min(len(text_input.encode(tok, text, rule).ids), model.config.max_len)
    base = np.ones((n, n), dtype=bool) if encoder else masks.causal(n)
    mask = masks.build(pattern, n, causal or not encoder, **dict(params)) & base
    full = run_text(model, tok, text, rule, mask=base)
    return run_text(model, tok, text, rule, mask=mask), full, mask


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def mask_coverage(pattern: str, n: int, params: tuple, causal: bool, max_layers: int):
    """(mask (n, n) bool, Connectivity, [share of pairs reached after k layers, k = 1..max_layers])."""
    from model.analysis import reach
    from model.engine import masks
    m = masks.build(pattern, n, causal, **dict(params))
    return m, reach.layers_to_connect(m), reach.coverage(m, max_layers)


# ---- widget state (review fixes) ----
def keep_valid_choice(key: str, options, format_func=str, default=None):
    """Before a selectbox with these options is created: keep st.session_state[key] only if it is one of the
    options. When the options change (other text, another model) the browser can hand back the widget's old
    formatted label, a str; a label that names a current option is mapped back to it, anything else is replaced
    by `default` (or the first option), so pages never compare a stale string with an int."""
    if key not in st.session_state:
        return
    options = list(options)
    value = st.session_state[key]
    if any(value == o and type(value) is type(o) for o in options):
        return
    labels = [format_func(o) for o in options]
    if isinstance(value, str) and value in labels:
        st.session_state[key] = options[labels.index(value)]
    elif options:
        st.session_state[key] = default if default in options else options[0]


def keep_widget_state(*keys: str):
    """Call before st.stop() skips widgets: Streamlit forgets a widget that a run does not draw, so an emptied
    text box would reset every pick below it. Their values are set aside for restore_widget_state."""
    for key in keys:
        if key in st.session_state:
            st.session_state[f"_kept_{key}"] = st.session_state[key]


def restore_widget_state(*keys: str):
    """Call in the run that draws the widgets again, before they are created: put back what keep_widget_state
    set aside (set in this run, so the browser shows the restored value too, not the widget's default)."""
    for key in keys:
        if f"_kept_{key}" in st.session_state:
            st.session_state[key] = st.session_state.pop(f"_kept_{key}")
