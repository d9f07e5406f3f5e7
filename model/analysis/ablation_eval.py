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


@torch.inference_mode()
def _pass(model, s: Sites, edits: dict, head: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(answer right (B,), coreference head's argmax word is the antecedent (B,)) with `edits` ablated."""
    layer, h = head
    with ablating(edits), capturing():
        out = model.encode(s.ids, mask=model.padding_mask(s.ids))
    logits = model.cloze_logits(out.x, s.rows, s.cols)                             # (B, V)
    right = (logits.gather(1, s.right[:, None]) > logits.gather(1, s.wrong[:, None]))[:, 0].numpy()
    w = out.intermediates[layer].weights[:, h].float().numpy()                    # (B, T, T)
    points = np.empty(len(right), dtype=bool)
    for b, pieces in enumerate(s.pronoun_pieces):
        row = w[b, list(pieces)].mean(0)                                          # (T,) from the pronoun word
        valid = s.word_of_piece[b] >= 0
        to_words = np.bincount(s.word_of_piece[b][valid], weights=row[valid])     # summed over each word's pieces
        points[b] = int(to_words.argmax()) == s.antecedent_word[b]
    return right, points


@torch.inference_mode()
def mean_outputs(model, s: Sites) -> np.ndarray:
    """(L, H, D) every head's output averaged over all the real (not padding) tokens of the batch."""
    with capturing("weights", "v"):
        out = model.encode(s.ids, mask=model.padding_mask(s.ids))
    real = (s.ids != PAD)                                                            # (B, T)
    means = []
    for inter in out.intermediates:
        z = (inter.weights @ inter.v).transpose(1, 2)[real]                          # (tokens, H, D)
        means.append(z.mean(0))
    return torch.stack(means).float().numpy()


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
    s = sites(tokenizer, samples)
    means = mean_outputs(model, s) if mode == "mean" else None
    L, H = model.config.n_layers, model.config.n_heads
    answer, pointing = np.empty((L, H)), np.empty((L, H))
    base = _pass(model, s, {}, head)
    for layer in range(L):
        for h in range(H):
            right, points = _pass(model, s, edits_for(model, [(layer, h)], mode, means), head)
            answer[layer, h], pointing[layer, h] = right.mean(), points.mean()
    return HeadEffects(mode, tuple(head), len(samples), float(base[0].mean()), answer, float(base[1].mean()),
                       pointing)
