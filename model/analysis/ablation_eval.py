"""What each head of the coreference encoder does for its answer, measured on held-out sentences: remove one head
at a time (model.engine.ablation) and score the model's own answer and the coreference head's pointing again.

The answer is the pronoun cloze head's (model/architectures/coref_encoder.py): of the sentence's two candidate
nouns, the one whose first piece it rates higher. A head's own weights do not change when its output is removed, so
the coreference head's pointing can only change when a head of an earlier layer is removed; the answer can change
for any head. Sentences are Winograd-style schema sentences (model/data/course_world.py), one pronoun each.
"""
from dataclasses import dataclass

import numpy as np
import torch

from model.analysis.ablation import MODES, edits_for
from model.data import text_input
from model.data.course_world import Sample
from model.data.word_tokenizer import PAD, split_words
from model.engine.ablation import ablating
from model.engine.capture import capturing


@dataclass(frozen=True)
class Sites:
    """A batch of schema sentences ready to run. ids: (B, T) padded; rows, cols: (B,) the pronoun's first piece;
    right, wrong: (B,) first-piece ids of the antecedent and of the other candidate noun; pronoun_pieces: each
    sentence's pronoun pieces; word_of_piece: (B, T) the word each piece belongs to (-1 for padding);
    antecedent_word: (B,) the antecedent's word index (with [CLS] counted)."""
    ids: torch.Tensor
    rows: torch.Tensor
    cols: torch.Tensor
    right: torch.Tensor
    wrong: torch.Tensor
    pronoun_pieces: tuple[tuple[int, ...], ...]
    word_of_piece: np.ndarray
    antecedent_word: np.ndarray


def sites(tokenizer, samples: list[Sample]) -> Sites:
    """The answer sites of schema sentences (their first reference; samples without two candidates refused)."""
    encs, right, wrong, pron, ante = [], [], [], [], []
    for s in samples:
        if len(s.pair) != 2 or not s.refs:
            raise ValueError(f"not a schema sentence with two candidate nouns: {s.text!r}")
        r, words = s.refs[0], split_words(s.text)
        other = next(words.index(n, 0, r.pronoun_index) for n in s.pair
                     if words.index(n, 0, r.pronoun_index) != r.antecedent_index)
        e = text_input.encode(tokenizer, s.text, "cls_sep")
        encs.append(e)
        right.append(e.ids[e.words[r.antecedent_index + 1][0]])
        wrong.append(e.ids[e.words[other + 1][0]])
        pron.append(e.words[r.pronoun_index + 1])
        ante.append(r.antecedent_index + 1)                               # +1 for [CLS]
    T = max(len(e.ids) for e in encs)
    ids = torch.full((len(encs), T), PAD, dtype=torch.long)
    word_of = np.full((len(encs), T), -1)
    for i, e in enumerate(encs):
        ids[i, :len(e.ids)] = torch.tensor(e.ids)
        for w, pieces in enumerate(e.words):
            word_of[i, list(pieces)] = w
    return Sites(ids, torch.arange(len(encs)), torch.tensor([p[0] for p in pron]), torch.tensor(right),
                 torch.tensor(wrong), tuple(pron), word_of, np.array(ante))


BUCKET = 64                      # sentences per batch, grouped by length so little is padding


def buckets(tokenizer, samples: list[Sample]) -> list[Sites]:
    """`sites` of the samples in batches of BUCKET, shortest first (padding costs as much as text)."""
    lengths = [len(text_input.encode(tokenizer, s.text, "cls_sep").ids) for s in samples]
    order = np.argsort(lengths, kind="stable")
    return [sites(tokenizer, [samples[i] for i in order[k:k + BUCKET]]) for k in range(0, len(samples), BUCKET)]


@torch.inference_mode()
def _base(model, s: Sites) -> list[torch.Tensor]:
    """The hidden states entering every layer (and the stack's output), as the model reads the batch."""
    with capturing():
        return model.encode(s.ids, mask=model.padding_mask(s.ids)).hidden


@torch.inference_mode()
def _from(model, s: Sites, hidden: list[torch.Tensor], start: int, edits: dict, head: tuple[int, int]):
    """(answer right (B,), coreference head points at the antecedent (B,) or None when it cannot have changed)
    with `edits` ablated in layer `start` or later: the layers below are the same as without them, so the run
    starts from the hidden state entering `start`. As Stack.forward, then its final norm."""
    layer, h = head
    x, mask, weights = hidden[start], model.padding_mask(s.ids), None
    with ablating(edits):
        for i, block in enumerate(model.encoder.layers[start:], start):
            if i != layer:
                x, _, _ = block(x, mask=mask)
                continue
            with capturing():
                x, inter, _ = block(x, mask=mask)
            weights = inter.weights[:, h].float().numpy()                              # (B, T, T)
    x = model.encoder.final_norm(x)
    logits = model.cloze_scores(x, s.rows, s.cols, torch.stack([s.right, s.wrong], 1))  # (B, 2)
    right = (logits[:, 0] > logits[:, 1]).numpy()
    if weights is None:
        return right, None
    points = np.empty(len(right), dtype=bool)
    for b, pieces in enumerate(s.pronoun_pieces):
        row = weights[b, list(pieces)].mean(0)                                        # (T,) from the pronoun word
        valid = s.word_of_piece[b] >= 0
        to_words = np.bincount(s.word_of_piece[b][valid], weights=row[valid])         # summed over each word's pieces
        points[b] = int(to_words.argmax()) == s.antecedent_word[b]
    return right, points


@torch.inference_mode()
def mean_outputs(model, batches: list[Sites]) -> np.ndarray:
    """(L, H, D) every head's output averaged over all the real (not padding) tokens of the batches."""
    total, count = None, 0
    for s in batches:
        with capturing("weights", "v"):
            out = model.encode(s.ids, mask=model.padding_mask(s.ids))
        real = (s.ids != PAD)                                                        # (B, T)
        z = torch.stack([(i.weights @ i.v).transpose(1, 2)[real].sum(0) for i in out.intermediates])   # (L, H, D)
        total, count = (z if total is None else total + z), count + int(real.sum())
    return (total / count).float().numpy()


@dataclass(frozen=True)
class HeadEffects:
    """Held-out accuracy with nothing removed and with each head removed, in one ablation mode.
    answer: the model's answer (cloze head, two candidates); pointing: the coreference head's argmax word.
    *_base: floats; *_without: (L, H); head: the coreference head; n: sentences."""
    mode: str
    head: tuple[int, int]
    n: int
    answer_base: float
    answer_without: np.ndarray
    pointing_base: float
    pointing_without: np.ndarray

    def drops(self) -> np.ndarray:
        """(L, H) answer accuracy lost when each head is removed (negative: it rose)."""
        return self.answer_base - self.answer_without

    def largest_other(self) -> tuple[tuple[int, int], float]:
        """The head other than the coreference head whose removal costs the answer most, and that drop."""
        d = self.drops().copy()
        d[self.head] = -np.inf
        at = np.unravel_index(int(d.argmax()), d.shape)
        return (int(at[0]), int(at[1])), float(d[at])


def head_effects(model, tokenizer, samples: list[Sample], head: tuple[int, int], mode: str = "zero") -> HeadEffects:
    """Remove each head of the model in turn (mode "zero" or "mean": the head's mean output over these sentences'
    tokens) and measure both accuracies on the samples (schema sentences, see `sites`)."""
    if mode not in MODES:
        raise ValueError(f"ablation mode {mode!r}; choose from {MODES}")
    if getattr(model, "rel_bias", None) is not None:
        raise ValueError("head_effects runs the layers itself and adds no relative-position bias")
    batches = buckets(tokenizer, samples)
    means = mean_outputs(model, batches) if mode == "mean" else None
    L, H = model.config.n_layers, model.config.n_heads
    right, points = np.zeros((L, H)), np.zeros((L, H))
    base_right = base_points = 0.0
    for s in batches:
        hidden = _base(model, s)
        r0, p0 = _from(model, s, hidden, 0, {}, head)
        base_right, base_points = base_right + r0.sum(), base_points + p0.sum()
        for layer in range(L):
            for h in range(H):
                r, p = _from(model, s, hidden, layer, edits_for(model, [(layer, h)], mode, means), head)
                right[layer, h] += r.sum()
                points[layer, h] += (p0 if p is None else p).sum()
    n = len(samples)
    return HeadEffects(mode, tuple(head), n, float(base_right / n), right / n, float(base_points / n), points / n)
