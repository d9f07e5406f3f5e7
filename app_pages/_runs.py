"""Cached runs of the app's pages: (name, device, inputs...) -> a typed, frozen result of plain numpy arrays, each a
call of model code on a model's handle (app_pages/_resources.loaded). Runs are data (bounded caches, sizes named
in app_pages/_cache_sizes); the models they read are resources. _head_runs and _finetuned hold the runs for looking
inside a head and for the fine-tunings. A spinner's text is fixed when its function is defined, so it is written in
both languages; text inside a result is an i18n.Message, translated where it is shown. Model modules that take
seconds to import are imported by the run that needs them."""
import numpy as np
import streamlit as st

from app_pages._cache_sizes import LARGE_TABLES_KEPT, MEASURES_KEPT, PER_MODEL_KEPT, RUNS_KEPT, TABLES_KEPT
from app_pages._resources import loaded
from model.analysis.coref_scores import HeadAccuracy, RealTextFigures
from model.analysis.reach import MaskCoverage
from model.analysis.step_inputs import LayerInputs
from model.tasks.generation import BeamResult, Generated
from model.tasks.results import TextRun, WordView


# ---- explorer, coreference ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model with attention captured… · "
                                                   "正在运行模型并记录注意力…")
def explorer_run(name: str, device: str, text: str) -> TextRun:
    """TextRun (weights (L, H, N, N), tokens, ids, unknown flags, truncation notices; no logits) of a shipped
    text model on typed text, read by the model's own text rule (encoders [CLS] … [SEP], decoders [BOS] first)."""
    return loaded(name, device).run(text, logits=False)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def explorer_word_weights(name: str, device: str, text: str) -> np.ndarray:
    """(L, H, W, W) float32: explorer_run's weights between whole words (model.tasks.word_attention)."""
    from model.tasks.word_attention import word_attention
    run = explorer_run(name, device, text)
    return word_attention(run.weights, run.words, dtype=np.float32)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def coref_run(name: str, device: str, text: str) -> WordView:
    """The coreference encoder on text (with [CLS]/[SEP]), in whole words."""
    from model.tasks.word_attention import word_view
    return word_view(loaded(name, device).run(text))


def coref_eval_pairs() -> int:
    """The minimal pairs per held-out set that `python -m model.evaluate coref_encoder` measures on."""
    from model.training.recipes.coref_encoder import RECIPE
    return RECIPE["eval_pairs"]


@st.cache_data(max_entries=MEASURES_KEPT, show_spinner="Measuring every head on the held-out evaluation set… · "
                                                       "正在留出的评测集上测量每个头…")
def coref_head_accuracy(name: str, device: str) -> HeadAccuracy:
    """Argmax accuracy of every head on the held-out sets of `python -m model.evaluate` (sentences with held-out
    pairs and frames, and held-out passages), with the first-noun and nearest-noun baselines."""
    from model.analysis.coref_scores import heldout_accuracy
    h = loaded(name, device)
    return heldout_accuracy(h.model, h.tokenizer, coref_eval_pairs())


@st.cache_data(max_entries=MEASURES_KEPT, show_spinner="Measuring every head on the real-text pronoun set… · "
                                                       "正在真实文本代词集上测量每个头…")
def realtext_figures(name: str, device: str) -> RealTextFigures:
    from model import languages
    from model.analysis.coref_scores import realtext_figures as figures
    h = loaded(name, device)
    if languages.reads_chinese(h.meta):         # the Chinese set, at the head the model ships with
        return figures(h.model, h.tokenizer, chinese=True, head=tuple(h.meta["coref_head"]))
    return figures(h.model, h.tokenizer)


# ---- step by step ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model… · 正在运行模型…")
def step_layer_inputs(name: str, device: str, text: str, max_tokens: int) -> LayerInputs:
    """The vectors entering every layer of a shipped text model, for the step-by-step page."""
    from model.analysis.step_inputs import step_inputs
    h = loaded(name, device)
    return step_inputs(h.model, h.tokenizer, text, h.text_rule, max_tokens)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
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
    h = loaded(name, device)
    return experiment(h.model, h.tokenizer, text_a, text_b, h.text_rule)


@st.cache_data(max_entries=TABLES_KEPT, show_spinner="Reading the learned position table… · 正在读取学到的位置表…")
def learned_position_table(name: str, device: str = "cpu"):
    """The learned (rows, C) float32 position table of a shipped model, or None."""
    from model.engine.positions import learned_table
    return learned_table(loaded(name, device).model)


@st.cache_data(max_entries=LARGE_TABLES_KEPT,
               show_spinner="Reading the token embedding table… · 正在读取 token 嵌入表…")
def token_embedding_table(name: str) -> np.ndarray:
    """The (|V|, C) token embedding table of a shipped model (its embed.tok.weight) as float64 numpy; the
    textbook's Ω_e is its transpose, (C, |V|)."""
    return loaded(name, "cpu").model.embed.tok.weight.detach().cpu().double().numpy()


# ---- translation ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Translating with attention captured… · 正在翻译并记录注意力…")
def translation_run(name: str, device: str, text: str, method: str, width: int,
                    target: tuple[int, ...] | None = None):
    """model.tasks.translation.run on the shipped translator: TranslationRun with src_tokens, enc_weights
    (L, H, S, S), weights (L, H, T, T) decoder self-attention, cross_weights (L, H, T, S); `target`
    ids force the decoder (teacher forcing) instead of decoding. Raises SourceError on bad input."""
    from model.tasks import translation as translate
    h = loaded(name, device)
    forced = list(target) if target is not None else None
    return translate.run(h.model, h.tokenizer, h.target_tokenizer, text, forced, method, width)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def translation_steps(name: str, device: str, text: str):
    """model.tasks.translation.greedy: what one-token-at-a-time decoding saw (cross rows (steps, L, H, S))."""
    from model.tasks import translation as translate
    h = loaded(name, device)
    return translate.greedy(h.model, translate.source_ids(h.tokenizer, text))


# ---- generation ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def gpt_next_probs(name: str, device: str, prompt_ids: tuple, temperature: float):
    """(V,) next-token distribution of the causal decoder after prompt_ids."""
    from model.tasks import generation as generate
    return generate.next_token_probs(loaded(name, device).model, list(prompt_ids), temperature)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Generating… · 正在生成…")
def gpt_generate(name: str, device: str, prompt_ids: tuple, max_new: int, strategy: str, k: int,
                 temperature: float, seed: int, eos_id: int) -> Generated:
    """Tokens written with a key/value cache, checked against recomputing the whole sequence."""
    from model.tasks.generation import generate_checked
    return generate_checked(loaded(name, device).model, prompt_ids, max_new, strategy, k, temperature, seed, eos_id)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Searching beams… · 正在进行束搜索…")
def gpt_beam(name: str, device: str, prompt_ids: tuple, width: int, max_new: int, eos_id: int,
             length_penalty: float) -> BeamResult:
    """Beam search and, for comparison, greedy decoding of the same prompt and length."""
    from model.tasks.generation import beam_and_greedy
    return beam_and_greedy(loaded(name, device).model, prompt_ids, width, max_new, eos_id, length_penalty)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Filling in… · 正在填空…")
def encoder_fill(name: str, device: str, text: str, hide_words: tuple, top_k: int):
    """model.tasks.fill_mask.FillMask of a shipped BPE encoder: typed [MASK]/<mask> and the pieces of the words
    numbered in hide_words masked, top fillers per masked piece, weights (L, H, N, N). Raises FillMaskError."""
    from model.tasks.fill_mask import fill_mask
    h = loaded(name, device)
    return fill_mask(h.model, h.tokenizer, text, list(hide_words), top_k)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def objective_losses(name: str, device: str, ids: tuple, masked: tuple, encoder: str | None):
    """model.training.objectives.ObjectiveLosses on one sentence of BPE piece ids (no special tokens): the decoder
    `name`'s loss at every piece, the encoder's at the masked ones (nan elsewhere, or everywhere when encoder is
    None). Both models must share the ids."""
    from model.training.objectives import sentence_losses
    encoder_model = loaded(encoder, device).model if encoder else None
    return sentence_losses(loaded(name, device).model, encoder_model, ids, masked)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def sentence_probability(name: str, device: str, text: str):
    """SentenceProbability of a non-empty text under the decoder `name` (model.tasks.chain_rule)."""
    from model.tasks.chain_rule import sentence_probability as score
    h = loaded(name, device)
    return score(h.model, h.tokenizer, text)


# ---- images ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def load_image_bytes(data: bytes):
    """LoadedImage (8-bit RGB + conversion notes) of uploaded bytes, shrunk to at most 1024 px a side (the
    models read 24 px; this bounds the cache at ~3 MB an entry); raises model.data.images.ImageError."""
    from model.data.images import load_image
    loaded_image = load_image(data)
    loaded_image.image.thumbnail((1024, 1024))
    return loaded_image


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model… · 正在运行模型…")
def run_image(name: str, device: str, x):
    """ImageRun of a shipped image model on one normalised image x (C, S, S)."""
    return loaded(name, device).run(x)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def image_cost(name: str, device: str) -> dict:
    """{"parameters", "pairs" (per layer, model.analysis.image_cost), "ms" (median forward pass of one image,
    measured once per model and device)} of a shipped image model."""
    from model.analysis.image_cost import summary
    return summary(loaded(name, device).model)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Completing the image pixel by pixel… · 正在逐个像素补全图像…")
def complete_image(name: str, device: str, pixels: tuple, given: int, samples: int, temperature: float, seed: int):
    """(greedy Completion, sampled Completion of `samples` rows) of a shipped ImageGPT from the first `given` of
    `pixels` (levels in raster order; model.tasks.image_completion)."""
    from model.tasks.image_completion import greedy_and_sampled
    return greedy_and_sampled(loaded(name, device).model, pixels, given, samples, temperature, seed)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def pixel_attention(name: str, device: str, pixels: tuple) -> np.ndarray:
    """(L, H, N, N) attention of a shipped ImageGPT over one image's pixels (model.tasks.image_completion)."""
    from model.tasks.image_completion import pixel_attention as attend
    return attend(loaded(name, device).model, np.asarray(pixels, dtype=np.int64))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def classify_images(name: str, device: str, images: np.ndarray) -> np.ndarray:
    """(K, n_classes) class probabilities of a shipped image classifier on images (K, S, S) grey in [0, 1], light
    ink on dark, normalised as the model was trained."""
    from model.tasks.image_run import classify
    h = loaded(name, device)
    return classify(h.model, images, h.meta["preprocess"])


# ---- masks & sparse attention ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model under the mask and with full attention… · "
                                                   "正在分别用掩码和完整注意力运行模型…")
def masked_runs(name: str, device: str, text: str, pattern: str, params: tuple, causal: bool = False):
    """model.tasks.masked_run.MaskedRuns: a shipped text model under a mask pattern and with full attention
    (params: sorted (name, value) pairs). InputError if the pattern does not fit the text (not cached)."""
    from model.tasks.masked_run import masked_runs as run
    h = loaded(name, device)
    return run(h.model, h.tokenizer, h.text_rule, text, pattern, dict(params), causal)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def mask_coverage(pattern: str, n: int, params: tuple, causal: bool, max_layers: int) -> MaskCoverage:
    """How far a pattern lets information travel through 1..max_layers layers."""
    from model.analysis.reach import pattern_coverage
    return pattern_coverage(pattern, n, dict(params), causal, max_layers)


# ---- why attention ----
@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Running the model on texts of several lengths… · "
                                                   "正在用几种长度的文本运行模型…")
def length_runs(name: str, device: str, text: str, word_counts: tuple[int, ...]):
    """model.analysis.sizes.runs_at_lengths for a shipped text model: list of LengthRun."""
    from model.analysis import sizes
    h = loaded(name, device)
    return sizes.runs_at_lengths(h.model, h.tokenizer, h.text_rule, text, word_counts)


@st.cache_data(max_entries=PER_MODEL_KEPT, show_spinner=False)
def model_parts(name: str) -> dict[str, int]:
    """Parameters of a shipped model by kind (model.analysis.sizes.parts)."""
    from model.analysis import sizes
    return sizes.parts(loaded(name, "cpu").model)


# ---- the learned relative-position bias ----
@st.cache_data(max_entries=TABLES_KEPT, show_spinner=False)
def relative_bias_table(name: str):
    """(offsets (O,), table (H, O)) of a shipped model with a learned relative bias, or None."""
    from model.analysis.learned_bias import bias_table
    return bias_table(loaded(name, "cpu").model)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def relative_digit_run(name: str, device: str, digits: tuple[int, ...]):
    """model.analysis.learned_bias.DigitRun of a row of digits."""
    from model.analysis.learned_bias import digit_run
    return digit_run(loaded(name, device).model, np.array(digits, dtype=np.int64))


@st.cache_data(max_entries=MEASURES_KEPT, show_spinner="Scoring fresh rows of digits… · 正在为新生成的数字行打分…")
def relative_accuracy(name: str, device: str) -> tuple[float, float]:
    """(accuracy with the learned bias, accuracy with it left out) on 512 fresh rows."""
    from model.analysis.learned_bias import fresh_accuracy
    return fresh_accuracy(loaded(name, device).model)
