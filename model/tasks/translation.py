"""Translate with an encoder-decoder Transformer (Vaswani et al. 2017): encode the source once, then
decode one token at a time (greedy with a key/value cache, or beam search), or run the whole target
at once under the causal mask (teacher forcing, as in training). Every run captures encoder
self-attention, decoder masked self-attention and cross-attention (decoder queries, encoder keys).

Either direction: English words in and Chinese characters out (translator), or Chinese characters in and English
words out (translator_zh_en); the vocabularies say which. Also: the out-of-vocabulary check for typed sources, and
BLEU-4 on characters (Papineni et al. 2002).
"""
import contextlib
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from i18n import _
from model.data.word_tokenizer import BOS, EOS, PAD, SPECIALS, WordTokenizer
from model.engine.capture import capturing
from model.engine.errors import InputError
from model.tasks.attention_run import stack_intermediates
from model.tasks.results import TranslationRun

MAX_SOURCE_CHARS = 400
MAX_SOURCE_TOKENS = 40                # English words
MAX_SOURCE_CHARACTERS = 60            # Chinese characters (the model reads at most 64 positions)
NEVER_WRITE = [i for i, s in enumerate(SPECIALS) if s != "[EOS]"]   # [PAD], [UNK], [BOS], ... never generated


class SourceError(InputError):
    """The source cannot be translated (empty, too long, or words outside the vocabulary)."""


@dataclass
class Hypothesis:
    """ids: generated target ids, [EOS] excluded; score: sum of log-probabilities (with [EOS])."""
    ids: list[int]
    score: float
    finished: bool = True


@dataclass
class Steps:
    """What one-token-at-a-time decoding saw. cross: (steps, L, H, S) the new cross-attention row
    at each step; probs: (steps,) probability of the chosen token; self_rows: per step (L, H, t + 1)."""
    ids: list[int]
    cross: np.ndarray
    probs: np.ndarray
    self_rows: list = field(default_factory=list)


def known_words(src_tok: WordTokenizer) -> list[str]:
    return [w for w in src_tok.vocab if w not in SPECIALS]


def source_ids(src_tok: WordTokenizer, text: str) -> list[int]:
    """Source ids, or SourceError with a message that says what the translator can read (English words, or
    Chinese characters when its source vocabulary is one of characters)."""
    chinese = reads_characters(src_tok)
    text = text.strip()
    if not text:
        raise SourceError(_("Type a Chinese sentence to translate.") if chinese else
                          _("Type an English sentence to translate."))
    if len(text) > MAX_SOURCE_CHARS:
        raise SourceError(_("The sentence has {n} characters; the translator reads at most {most}.").format(
            n=len(text), most=MAX_SOURCE_CHARS))
    enc = src_tok.encode(text)
    unknown = sorted({t for t, u in zip(enc.tokens, enc.unknown) if u})
    if unknown and chinese:
        raise SourceError(_(
            "The translator only knows the characters of its generated corpus, and these are not among them: "
            "{unknown}.\n\nIt translates sentences such as “我有一只猫”, “老师喜欢车站附近的餐厅。” or "
            "“书在哪里？”.\n\nKnown characters: {known}.").format(
            unknown=", ".join(f"“{w}”" for w in unknown), known=" ".join(known_words(src_tok))))
    if unknown:
        raise SourceError(_(
            "The translator only knows the words of its generated corpus, and these are not among them: {unknown}."
            "\n\nIt translates sentences such as “the teacher likes the restaurant near the station .”, “where is "
            "the book ?” or “is the cake behind the bank ?”.\n\nKnown words: {known}.").format(
            unknown=", ".join(f"“{w}”" for w in unknown), known=", ".join(known_words(src_tok))))
    most = MAX_SOURCE_CHARACTERS if chinese else MAX_SOURCE_TOKENS
    if len(enc.ids) > most:
        raise SourceError((_("The sentence has {n} characters; the translator reads at most {most}.") if chinese else
                           _("The sentence has {n} words; the translator reads at most {most}.")).format(
            n=len(enc.ids), most=most))
    return enc.ids


def _device(model):
    return next(model.parameters()).device


def _log_probs(model, dec_x):
    """dec_x: (B, C) last decoder hidden -> log-probabilities (B, V) with specials other than [EOS] barred."""
    logits = model.lm_head(dec_x).float()
    logits[:, NEVER_WRITE] = float("-inf")
    return F.log_softmax(logits, dim=-1)


@torch.inference_mode()
def greedy(model, src: list[int], max_new: int = 60, capture: bool = True) -> Steps:
    """Greedy decoding, one token per step, reusing cached keys/values of earlier target positions.
    capture=False skips the attention maps (Steps.cross is then empty)."""
    dev = _device(model)
    memory = model.encode(torch.tensor([src], device=dev)).x                       # (1, S, C)
    caches = [{} for _ in model.decoder.layers]
    ids, cross, probs, self_rows = [], [], [], []
    token = BOS
    for t in range(max_new):
        with capturing() if capture else contextlib.nullcontext():
            out = model.decode(torch.tensor([[token]], device=dev), memory, kv_caches=caches, offset=t)
        lp = _log_probs(model, out.x[:, -1])[0]                                   # (V,)
        token = int(lp.argmax())
        if capture:
            cross.append(stack_intermediates(out.cross_intermediates, "weights")[:, :, 0])   # (L, H, S)
            self_rows.append(stack_intermediates(out.intermediates, "weights")[:, :, 0])     # (L, H, t + 1)
        probs.append(math.exp(float(lp[token])))
        if token == EOS:
            break
        ids.append(token)
    return Steps(ids=ids, cross=np.stack(cross) if cross else np.zeros((0,)), probs=np.array(probs),
                 self_rows=self_rows)


@torch.inference_mode()
def beam_search(model, src: list[int], width: int = 4, max_new: int = 60, alpha: float = 1.0) -> list[Hypothesis]:
    """Beam search; each step runs the whole prefix again (no cache). Returns hypotheses best first,
    ranked by score / length**alpha (length counts [EOS]). width=1 is greedy decoding."""
    dev = _device(model)
    memory = model.encode(torch.tensor([src], device=dev)).x                       # (1, S, C)
    alive, done = [Hypothesis([], 0.0, False)], []
    for _step in range(max_new):
        tgt = torch.tensor([[BOS] + h.ids for h in alive], device=dev)             # (k, t)
        out = model.decode(tgt, memory.expand(len(alive), -1, -1))
        lp = _log_probs(model, out.x[:, -1])                                       # (k, V)
        top_lp, top_ids = lp.topk(width, dim=-1)
        cands = sorted(((h.score + float(s), i, int(tok)) for i, h in enumerate(alive)
                        for s, tok in zip(top_lp[i], top_ids[i])), key=lambda c: -c[0])[:width]
        alive = []
        for score, i, tok in cands:
            prefix = tgt[i, 1:].tolist()
            if tok == EOS:
                done.append(Hypothesis(prefix, score))
            else:
                alive.append(Hypothesis(prefix + [tok], score, False))
        if len(done) >= width or not alive:
            break
    pool = done or alive
    return sorted(pool, key=lambda h: -h.score / (len(h.ids) + 1) ** alpha)[:width]


@torch.inference_mode()
def teacher_forcing(model, src: list[int], tgt: list[int]) -> dict:
    """Run the decoder over [BOS] + tgt in one pass under the causal mask (training's view).

    Returns numpy arrays: weights (L, H, T, T) decoder masked self-attention, cross_weights (L, H, T, S),
    enc_weights (L, H, S, S), logits (T, V_tgt), where T = len(tgt) + 1: row t is the step that writes
    target token t ([EOS] last).
    """
    dev = _device(model)
    with capturing():
        enc = model.encode(torch.tensor([src], device=dev))
        dec = model.decode(torch.tensor([[BOS] + tgt], device=dev), enc.x)
    return {"weights": stack_intermediates(dec.intermediates, "weights"),
            "cross_weights": stack_intermediates(dec.cross_intermediates, "weights"),
            "enc_weights": stack_intermediates(enc.intermediates, "weights"),
            "logits": model.lm_head(dec.x)[0].float().cpu().numpy()}


def run(model, src_tok: WordTokenizer, tgt_tok: WordTokenizer, text: str, target: list[int] | None = None,
        method: str = "greedy", width: int = 4) -> TranslationRun:
    """Translate `text` (or, when `target` ids are given, force them) and capture every attention map.
    method: "greedy" or "beam" (ignored when forced: the run's method is then "forced")."""
    src = source_ids(src_tok, text)
    score, beams = None, []
    if target is not None:
        method = "forced"
    elif method == "greedy":
        target = greedy(model, src).ids
    else:
        hyps = beam_search(model, src, width=width)
        target, score = hyps[0].ids, hyps[0].score
        beams = [(target_text(tgt_tok, h.ids), h.score, h.finished) for h in hyps]
    arrays = teacher_forcing(model, src, target)
    written = target + [EOS]
    lp = torch.log_softmax(torch.from_numpy(arrays["logits"]), dim=-1).numpy()
    step_lp = lp[np.arange(len(written)), written]
    if score is None and method == "greedy":
        score = float(step_lp.sum())
    return TranslationRun(src_tokens=tuple(src_tok.vocab[i] for i in src),
                          tokens=tuple(["[BOS]"] + [tgt_tok.vocab[i] for i in target]),
                          ids=np.array([BOS] + target), written=tuple(tgt_tok.vocab[i] for i in written),
                          output=target_text(tgt_tok, target), target_ids=tuple(target), method=method,
                          score=score, step_probs=np.exp(step_lp), beams=tuple(beams), **arrays)


def zh_text(tgt_tok: WordTokenizer, ids: list[int]) -> str:
    """Target ids -> Chinese text (characters joined without spaces, specials dropped)."""
    return "".join(tgt_tok.vocab[i] for i in ids if i >= len(SPECIALS))


def en_text(tgt_tok: WordTokenizer, ids: list[int]) -> str:
    """Target ids -> English text as the corpus writes it (words and marks joined by spaces, specials dropped)."""
    return " ".join(tgt_tok.vocab[i] for i in ids if i >= len(SPECIALS))


def reads_characters(tok: WordTokenizer) -> bool:
    """True for a vocabulary of single Chinese characters (a Chinese side), False for one of English words."""
    return all(len(w) == 1 and not w.isascii() for w in tok.vocab if w not in SPECIALS)


def target_text(tgt_tok: WordTokenizer, ids: list[int]) -> str:
    """Target ids -> text: Chinese characters joined without spaces, English words with them."""
    return zh_text(tgt_tok, ids) if reads_characters(tgt_tok) else en_text(tgt_tok, ids)


def target_ids(tgt_tok: WordTokenizer, text: str) -> list[int]:
    """A typed reference -> ids (one per Chinese character, or per English word); SourceError on pieces the target
    vocabulary lacks."""
    enc = tgt_tok.encode(text)
    unknown = sorted({t for t, u in zip(enc.tokens, enc.unknown) if u})
    if unknown:
        raise SourceError(_("The target vocabulary lacks {missing}.").format(
            missing=", ".join(f"“{c}”" for c in unknown)))
    if len(enc.ids) > 2 * MAX_SOURCE_TOKENS:
        raise SourceError((_("The reference has {n} characters; at most {most} are read.")
                           if reads_characters(tgt_tok) else
                           _("The reference has {n} words; at most {most} are read.")).format(
            n=len(enc.ids), most=2 * MAX_SOURCE_TOKENS))
    return enc.ids


def bleu(hypotheses: list[str], references: list[str], max_n: int = 4) -> float:
    """Corpus BLEU-4 on characters (whitespace ignored), one reference per sentence, in [0, 1]:
    BP · exp(mean_n log p_n), p_n the clipped n-gram precision summed over the corpus,
    BP = exp(1 - r/c) when the hypotheses are shorter in total (c < r), else 1. No smoothing."""
    matched, total = [0] * max_n, [0] * max_n
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references, strict=True):
        h, r = list("".join(hyp.split())), list("".join(ref.split()))
        hyp_len, ref_len = hyp_len + len(h), ref_len + len(r)
        for n in range(1, max_n + 1):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
            matched[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[n - 1] += max(0, len(h) - n + 1)
    if hyp_len == 0 or min(matched) == 0:
        return 0.0
    log_p = sum(math.log(m / t) for m, t in zip(matched, total)) / max_n
    bp = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return bp * math.exp(log_p)


@torch.inference_mode()
def greedy_batch(model, srcs: list[list[int]], max_new: int = 60) -> list[list[int]]:
    """Greedy decoding of many sources at once (padded, masked; no cache). Same choices as `greedy`."""
    dev = _device(model)
    S = max(map(len, srcs))
    src = torch.tensor([s + [PAD] * (S - len(s)) for s in srcs], device=dev)        # (B, S)
    keep = (src != PAD)[:, None, None, :]                                            # (B, 1, 1, S)
    memory = model.encode(src, mask=keep).x
    tgt = torch.full((len(srcs), 1), BOS, device=dev)
    done = torch.zeros(len(srcs), dtype=torch.bool, device=dev)
    for _step in range(max_new):
        nxt = _log_probs(model, model.decode(tgt, memory, memory_mask=keep).x[:, -1]).argmax(-1)
        nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        done |= nxt == EOS
        if done.all():
            break
    out = []
    for row in tgt[:, 1:].tolist():
        out.append(row[:row.index(EOS)] if EOS in row else [i for i in row if i != PAD])
    return out
