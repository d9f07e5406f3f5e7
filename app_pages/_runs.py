"""Cached runs: every @st.cache_data runner of the app, (name, device, inputs...) -> a typed, frozen result of
plain numpy arrays. Runs are data (bounded caches); the models they read are resources (app_pages/_resources).
A spinner's text is fixed when its function is defined, so it is written in both languages; text inside a result
is an i18n.Message, translated where it is shown."""
from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages._resources import load_model, load_tokenizer, text_rule, translator_tokenizers
from model.analysis.reach import Connectivity
from model.tasks.generation import BeamSearch, Generation
from model.tasks.results import TextRun

RUNS_KEPT = 8                    # results kept per cached function: a rerun is fast, memory stays flat


# ---- explorer, coreference ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model with attention captured… · "
                                                   "正在运行模型并记录注意力…")
def explorer_run(name: str, device: str, text: str):
    """TextRun (weights (L, H, N, N), tokens, ids, unknown flags, truncation notices; no logits) of a shipped
    text model on typed text, read by the model's own text rule (encoders [CLS] … [SEP], decoders [BOS] first)."""
    from model.tasks.attention_run import run_text
    model, _ = load_model(name, device)
    return run_text(model, load_tokenizer(name), text, text_rule(name), logits=False)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def explorer_word_weights(name: str, device: str, text: str) -> np.ndarray:
    """(L, H, W, W) float32: explorer_run's weights between whole words (model.tasks.word_attention)."""
    from model.tasks.word_attention import word_attention
    run = explorer_run(name, device, text)
    return word_attention(run.weights, run.words, dtype=np.float32)


@dataclass(frozen=True)
class WordView:
    """A text model's attention between whole words (Clark et al. 2019: summed over a key word's pieces,
    averaged over a query word's). tokens: W words as typed, [CLS]/[SEP] on their own; pieces: each word's
    pieces; weights: (L, H, W, W) float32; unknown: W flags (a word with a piece outside the vocabulary)."""
    tokens: tuple[str, ...]
    pieces: tuple[tuple[str, ...], ...]
    weights: np.ndarray
    unknown: tuple[bool, ...]
    notices: tuple[str, ...]

    @property
    def n_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def n_heads(self) -> int:
        return self.weights.shape[1]


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def coref_run(name: str, device: str, text: str) -> WordView:
    """The coreference encoder on text (with [CLS]/[SEP]), in whole words."""
    from model.tasks.attention_run import run_text
    from model.tasks.word_attention import word_attention
    model, _ = load_model(name, device)
    run = run_text(model, load_tokenizer(name), text, text_rule(name))
    weights = word_attention(run.weights, run.words, dtype=np.float32)
    weights.flags.writeable = False
    return WordView(tuple(run.word_texts), tuple(tuple(run.tokens[k] for k in w) for w in run.words), weights,
                    tuple(any(run.unknown[k] for k in w) for w in run.words), tuple(run.notices))


@dataclass(frozen=True)
class HeadAccuracy:
    accuracy: np.ndarray             # (L, H) share of pronouns whose row's argmax is the antecedent
    n_refs: int                      # pronouns measured
    baseline_first_noun: float       # on the single sentences
    baseline_nearest_noun: float


@st.cache_data(max_entries=4, show_spinner="Measuring every head on the held-out evaluation set… · "
                                           "正在留出的评测集上测量每个头…")
def coref_head_accuracy(name: str, device: str) -> HeadAccuracy:
    """Argmax accuracy of every head on the held-out sets of `python -m model.evaluate` (sentences with held-out
    pairs and frames, and held-out passages), with the first-noun and nearest-noun baselines."""
    from model.data import course_world as corpus
    from model.tasks.coreference import baselines, head_accuracy
    from model.training.recipes.coref_encoder import RECIPE
    model, meta = load_model(name, device)
    n = RECIPE["eval_pairs"]
    sentences = corpus.eval_samples("heldout_pairs", n) + corpus.eval_samples("heldout_frames", n)
    samples = sentences + corpus.eval_samples("heldout_pairs", n // 3, passages=True)
    acc = head_accuracy(model, load_tokenizer(name), samples)
    return HeadAccuracy(acc, sum(len(s.refs) for s in samples), **baselines(sentences))


@dataclass(frozen=True)
class RealTextFigures:
    """A model on the real-text pronoun set (model/tasks/coref_realtext.py). head: chosen on dev; test_acc (L, H)
    every head on the test split; cues: cue -> {"n", "model", "first", "nearest"}, hits of the chosen head and of
    the baselines on the test split (counts), "cued" and "all" included."""
    head: tuple[int, int]
    test_acc: np.ndarray
    cues: dict


@st.cache_data(max_entries=4, show_spinner="Measuring every head on the real-text pronoun set… · "
                                           "正在真实文本代词集上测量每个头…")
def realtext_figures(name: str, device: str) -> RealTextFigures:
    from model.tasks import coref_realtext as rt
    model, _ = load_model(name, device)
    dev, test = rt.load(split="dev"), rt.load(split="test")
    tok = load_tokenizer(name)
    head = rt.best_head(rt.head_scores(model, tok, dev))
    hits = rt.sentence_hits(model, tok, test)                              # (L, H, S)
    groups = {cue: [i for i, s in enumerate(test) if s.cue == cue] for cue in rt.CUES}
    groups["cued"] = [i for i, s in enumerate(test) if s.cue in rt.CUED]
    groups["all"] = list(range(len(test)))
    first, nearest = rt.baseline_hits(test, rt.first_noun), rt.baseline_hits(test, rt.nearest_noun)
    cues = {cue: {"n": len(ix), "model": int(hits[head[0], head[1], ix].sum()), "first": int(first[ix].sum()),
                  "nearest": int(nearest[ix].sum())} for cue, ix in groups.items()}
    return RealTextFigures(tuple(head), hits.mean(-1), cues)


# ---- step by step ----
@dataclass(frozen=True)
class LayerInputs:
    ids: np.ndarray                  # (T,)
    tokens: list[str]
    notices: list[str]
    hidden: np.ndarray               # (L + 1, T, C) float64: the vectors entering every layer, and the output


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model… · 正在运行模型…")
def step_layer_inputs(name: str, device: str, text: str, max_tokens: int) -> LayerInputs:
    """The vectors entering every layer of a shipped text model, for the step-by-step page."""
    from model.analysis import steps
    model, _ = load_model(name, device)
    ids, tokens, notices = steps.encode_text(model, load_tokenizer(name), text, text_rule(name), max_tokens)
    return LayerInputs(ids, tokens, notices, steps.layer_inputs(model, ids))


@st.cache_data(max_entries=8, show_spinner=False)
def softmax_saturation(d_ks: tuple[int, ...], n_keys: int, seed: int) -> dict:
    """model.analysis.steps.saturation for the √d_k section (mean over 256 random queries)."""
    from model.analysis import steps
    return steps.saturation(d_ks, n_keys, 256, seed)


# ---- positional encodings ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the encoder with positions off and on… · "
                                                   "正在分别关闭和开启位置编码运行编码器…")
def order_experiment(name: str, device: str, text_a: str, text_b: str):
    """model.analysis.order.OrderExperiment for a shipped encoder (ValueError on a bad pair is not cached)."""
    from model.analysis.order import order_experiment as experiment
    model, _ = load_model(name, device)
    return experiment(model, load_tokenizer(name), text_a, text_b, text_rule(name))


@st.cache_data(max_entries=8, show_spinner="Reading the learned position table… · 正在读取学到的位置表…")
def learned_position_table(name: str, device: str = "cpu"):
    """The learned (rows, C) float32 position table of a shipped model, or None."""
    from model.engine.positions import learned_table
    model, _ = load_model(name, device)
    return learned_table(model)


@st.cache_data(max_entries=4, show_spinner="Reading the token embedding table… · 正在读取 token 嵌入表…")
def token_embedding_table(name: str) -> np.ndarray:
    """The (|V|, C) token embedding table of a shipped model (its embed.tok.weight) as float64 numpy; the
    textbook's Ω_e is its transpose, (C, |V|)."""
    model, _ = load_model(name, "cpu")
    return model.embed.tok.weight.detach().cpu().double().numpy()


# ---- translation ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Translating with attention captured… · 正在翻译并记录注意力…")
def translation_run(name: str, device: str, text: str, method: str, width: int,
                    target: tuple[int, ...] | None = None):
    """model.tasks.translation.run on the shipped translator: TranslationRun with src_tokens, enc_weights
    (L, H, S, S), weights (L, H, T, T) decoder self-attention, cross_weights (L, H, T, S); `target`
    ids force the decoder (teacher forcing) instead of decoding. Raises SourceError on bad input."""
    from model.tasks import translation as translate
    model, _ = load_model(name, device)
    src_tok, tgt_tok = translator_tokenizers()
    return translate.run(model, src_tok, tgt_tok, text, list(target) if target is not None else None, method, width)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def translation_steps(name: str, device: str, text: str):
    """model.tasks.translation.greedy: what one-token-at-a-time decoding saw (cross rows (steps, L, H, S))."""
    from model.tasks import translation as translate
    model, _ = load_model(name, device)
    src_tok, _ = translator_tokenizers()
    return translate.greedy(model, translate.source_ids(src_tok, text))


# ---- generation ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def gpt_next_probs(name: str, device: str, prompt_ids: tuple, temperature: float):
    """(V,) next-token distribution of the causal decoder after prompt_ids."""
    from model.tasks import generation as generate
    model, _ = load_model(name, device)
    return generate.next_token_probs(model, list(prompt_ids), temperature)


@dataclass(frozen=True)
class Generated:
    run: Generation                  # weights (L, H, N, N)
    logits_gap: float                # largest |cached − full recompute| of the logits
    weights_gap: float               # … and of the attention weights


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Generating… · 正在生成…")
def gpt_generate(name: str, device: str, prompt_ids: tuple, max_new: int, strategy: str, k: int,
                 temperature: float, seed: int, eos_id: int) -> Generated:
    """Tokens written with a key/value cache, checked against recomputing the whole sequence."""
    from model.tasks import generation as generate
    model, _ = load_model(name, device)
    run = generate.generate(model, list(prompt_ids), max_new, strategy, k, temperature, seed, eos_id)
    logits, weights = generate.full_recompute(model, run.ids)
    return Generated(run, float(abs(run.logits - logits).max()), float(abs(run.weights - weights).max()))


@dataclass(frozen=True)
class BeamResult:
    tree: BeamSearch
    greedy_ids: list[int]            # greedy decoding of the same prompt and length
    greedy_logprob: float            # its Σ log p over the new tokens


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Searching beams… · 正在进行束搜索…")
def gpt_beam(name: str, device: str, prompt_ids: tuple, width: int, max_new: int, eos_id: int,
             length_penalty: float) -> BeamResult:
    """Beam search and, for comparison, greedy decoding of the same prompt and length."""
    from model.tasks import generation as generate
    model, _ = load_model(name, device)
    tree = generate.beam_search(model, list(prompt_ids), width, max_new, eos_id, length_penalty)
    greedy = generate.generate(model, list(prompt_ids), max_new, eos_id=eos_id).ids
    return BeamResult(tree, greedy, generate.sequence_logprob(model, greedy, len(prompt_ids)))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Filling in… · 正在填空…")
def encoder_fill(name: str, device: str, text: str, hide_words: tuple, top_k: int):
    """model.tasks.fill_mask.FillMask of a shipped BPE encoder: typed [MASK]/<mask> and the pieces of the words
    numbered in hide_words masked, top fillers per masked piece, weights (L, H, N, N). Raises FillMaskError."""
    from model.tasks.fill_mask import fill_mask
    model, _ = load_model(name, device)
    return fill_mask(model, load_tokenizer(name), text, list(hide_words), top_k)


@dataclass(frozen=True)
class ObjectiveLosses:
    mlm: np.ndarray                  # (P,) encoder −log p at the masked pieces, nan elsewhere
    clm: np.ndarray                  # (P,) decoder −log p(piece | [BOS] and the pieces before)
    weights: np.ndarray              # (L, H, P + 1, P + 1) the decoder's attention on [BOS] + pieces


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def objective_losses(name: str, device: str, ids: tuple, masked: tuple, encoder: str | None) -> ObjectiveLosses:
    """Per-piece loss terms (nats) on one sentence of P BPE piece ids (no special tokens): the decoder `name`'s
    for every piece, read after [BOS], and the encoder's at the masked positions, read as [CLS] pieces [SEP] with
    those pieces hidden (nan elsewhere, or everywhere when encoder is None). Both models must share the ids."""
    from model.data.bpe import BOS, CLS, SEP
    from model.tasks.generation import full_recompute
    from model.training.objectives import causal_token_losses, masked_token_losses
    model, _ = load_model(name, device)
    clm = causal_token_losses(model, [BOS, *ids])
    _, weights = full_recompute(model, [BOS, *ids])
    mlm = np.full(len(ids), np.nan)
    if encoder and masked:
        enc, _ = load_model(encoder, device)
        mlm[list(masked)] = masked_token_losses(enc, [CLS, *ids, SEP], [m + 1 for m in masked])
    return ObjectiveLosses(mlm, clm, weights)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def sentence_probability(name: str, device: str, text: str):
    """SentenceProbability of a non-empty text under the decoder `name` (model.tasks.chain_rule)."""
    from model.tasks.chain_rule import sentence_probability as score
    model, _ = load_model(name, device)
    return score(model, load_tokenizer(name), text)


# ---- images ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def load_image_bytes(data: bytes):
    """LoadedImage (8-bit RGB + conversion notes) of uploaded bytes, shrunk to at most 1024 px a side (the
    models read 24 px; this bounds the cache at ~3 MB an entry); raises model.data.images.ImageError."""
    from model.data.images import load_image
    loaded = load_image(data)
    loaded.image.thumbnail((1024, 1024))
    return loaded


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model… · 正在运行模型…")
def run_image(name: str, device: str, x):
    """ImageRun of a shipped image model on one normalised image x (C, S, S)."""
    from model.tasks.image_run import run_image as run
    model, meta = load_model(name, device)
    return run(model, x, meta["preprocess"]["classes"])


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def image_cost(name: str, device: str) -> dict:
    """{"parameters", "pairs" (per layer, model.analysis.image_cost), "ms" (median forward pass of one image,
    measured once per model and device)} of a shipped image model."""
    from model.analysis import image_cost as cost
    model, _ = load_model(name, device)
    c = model.config
    x = np.zeros((1, c.channels, c.image_size, c.image_size), dtype=np.float32)
    return {"parameters": cost.parameters(model), "pairs": cost.attention_pairs(model), "ms": cost.forward_ms(model, x)}


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Completing the image pixel by pixel… · 正在逐个像素补全图像…")
def complete_image(name: str, device: str, pixels: tuple, given: int, samples: int, temperature: float, seed: int):
    """(greedy Completion, sampled Completion of `samples` rows) of a shipped ImageGPT from the first `given` of
    `pixels` (levels in raster order; model.tasks.image_completion)."""
    from model.tasks.image_completion import complete
    model, _ = load_model(name, device)
    x = np.asarray(pixels, dtype=np.int64)[None]
    return (complete(model, x, given),
            complete(model, np.repeat(x, samples, axis=0), given, greedy=False, temperature=temperature, seed=seed))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def pixel_attention(name: str, device: str, pixels: tuple) -> np.ndarray:
    """(L, H, N, N) attention of a shipped ImageGPT over one image's pixels (model.tasks.image_completion)."""
    from model.tasks.image_completion import pixel_attention as attend
    model, _ = load_model(name, device)
    return attend(model, np.asarray(pixels, dtype=np.int64))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def classify_images(name: str, device: str, images: np.ndarray) -> np.ndarray:
    """(K, n_classes) class probabilities of a shipped image classifier on images (K, S, S) grey in [0, 1], light
    ink on dark, normalised as the model was trained."""
    import torch
    model, meta = load_model(name, device)
    pre = meta["preprocess"]
    x = ((images[:, None] - pre["mean"][0]) / pre["std"][0]).astype(np.float32)
    with torch.inference_mode():
        return torch.softmax(model(torch.from_numpy(x).to(device)), -1).float().cpu().numpy()


# ---- masks & sparse attention ----
@dataclass(frozen=True)
class MaskedRuns:
    masked: TextRun                  # under the pattern
    full: TextRun                    # with full (decoders: causal) attention
    mask: np.ndarray                 # (N, N) bool, True = may attend


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model under the mask and with full attention… · "
                                                   "正在分别用掩码和完整注意力运行模型…")
def masked_runs(name: str, device: str, text: str, pattern: str, params: tuple, causal: bool = False) -> MaskedRuns:
    """A shipped text model under a mask pattern and with full attention; decoders keep the causal mask in
    both. params: sorted (name, value) pairs. A pattern that adds g tokens in front of the text (extra global
    tokens) is given the model's own: the first g of the n tokens it reads (the page asks for g = the tokens its
    text rule puts there, [CLS] or [BOS]). InputError if the pattern does not fit the text (not cached)."""
    from model.data import text_input
    from model.engine import masks
    from model.tasks.attention_run import run_text
    model, _ = load_model(name, device)
    tok, rule = load_tokenizer(name), text_rule(name)
    encoder = model.config.kind == "encoder"
    n = min(len(text_input.encode(tok, text, rule).ids), model.config.max_len)
    base = np.ones((n, n), dtype=bool) if encoder else masks.causal(n)
    pat, params = masks.PATTERNS[pattern], dict(params)
    g = min(pat.added(**params), n)
    if pat.adds:
        params[pat.adds] = g
    mask = masks.build(pattern, n - g, causal or not encoder, **params) & base            # (n, n)
    full = run_text(model, tok, text, rule, mask=base)
    return MaskedRuns(run_text(model, tok, text, rule, mask=mask), full, mask)


@dataclass(frozen=True)
class MaskCoverage:
    mask: np.ndarray                 # (n, n) bool
    connectivity: Connectivity
    share: list[float]               # share of pairs reached after k layers, k = 1..max_layers


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def mask_coverage(pattern: str, n: int, params: tuple, causal: bool, max_layers: int) -> MaskCoverage:
    """How far a pattern lets information travel through 1..max_layers layers."""
    from model.analysis import reach
    from model.engine import masks
    m = masks.build(pattern, n, causal, **dict(params))
    return MaskCoverage(m, reach.layers_to_connect(m), reach.coverage(m, max_layers))


# ---- why attention ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model on texts of several lengths… · "
                                                   "正在用几种长度的文本运行模型…")
def length_runs(name: str, device: str, text: str, word_counts: tuple[int, ...]):
    """model.analysis.sizes.runs_at_lengths for a shipped text model: list of LengthRun."""
    from model.analysis import sizes
    model, _ = load_model(name, device)
    return sizes.runs_at_lengths(model, load_tokenizer(name), text_rule(name), text, word_counts)


@st.cache_data(max_entries=16, show_spinner=False)
def model_parts(name: str) -> dict[str, int]:
    """Parameters of a shipped model by kind (model.analysis.sizes.parts)."""
    from model.analysis import sizes
    return sizes.parts(load_model(name, "cpu")[0])


# ---- the learned relative-position bias ----
@st.cache_data(max_entries=4, show_spinner=False)
def relative_bias_table(name: str):
    """(offsets (O,), table (H, O)) of a shipped model with a learned relative bias, or None."""
    from model.analysis.learned_bias import bias_table
    return bias_table(load_model(name, "cpu")[0])


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def relative_digit_run(name: str, device: str, digits: tuple[int, ...]):
    """model.analysis.learned_bias.DigitRun of a row of digits."""
    from model.analysis.learned_bias import digit_run
    return digit_run(load_model(name, device)[0], np.array(digits, dtype=np.int64))


@st.cache_data(max_entries=4, show_spinner="Scoring fresh rows of digits… · 正在为新生成的数字行打分…")
def relative_accuracy(name: str, device: str) -> tuple[float, float]:
    """(accuracy with the learned bias, accuracy with it left out) on 512 fresh rows."""
    from model.analysis.learned_bias import fresh_accuracy
    return fresh_accuracy(load_model(name, device)[0])
