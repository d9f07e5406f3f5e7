"""coref_encoder: BERT-style masked LM + pronoun cloze on the course-world corpus (model/data/course_world.py).

Masked LM: 15% of tokens (80% [MASK], 10% random, 10% kept), never a pronoun. Pronoun cloze: from the
pronoun's final hidden state, predict the antecedent's head noun. Loss = MLM CE + cloze CE. The head
that resolves pronouns (`coref_head`) is chosen on the validation split only.
"""
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.architectures.coref_encoder import CorefEncoder, coref_config
from model.data import course_world as corpus
from model.data.word_tokenizer import PAD, SPECIALS, WordTokenizer
from model.tasks.coreference import baselines, head_accuracy, pair_accuracy, ref_hits
from model.training.loop import fit, seed_everything
from model.training.objectives import bert_mask

NAME = "coref_encoder"
RECIPE = dict(steps=1600, batch=64, lr=1e-3, weight_decay=0.01, betas=(0.9, 0.98), clip=1.0, warmup=0.06,
              mask_prob=0.15, max_len=128, eval_pairs=150)


def encode_samples(tokenizer: WordTokenizer, samples):
    """-> list of (ids, [(pronoun position, antecedent id)]) with [CLS]/[SEP] positions."""
    out = []
    for s in samples:
        ids = tokenizer.encode(s.text, add_cls_sep=True).ids
        out.append((ids, [(r.pronoun_index + 1, ids[r.antecedent_index + 1]) for r in s.refs]))
    return out


def bucket(items, batch: int, window: int = 16, seed: int = 0) -> list:
    """Order items so each batch holds texts of similar length (less padding): sort within windows of
    `window` batches, then shuffle the batches."""
    rng = np.random.default_rng(seed)
    batches = []
    for start in range(0, len(items), batch * window):
        chunk = sorted(items[start:start + batch * window], key=lambda it: len(it[0]))
        batches += [chunk[i:i + batch] for i in range(0, len(chunk), batch)]
    return [batches[i] for i in rng.permutation(len(batches))]


def collate(items, pronoun_ids: torch.Tensor, vocab_size: int, gen: torch.Generator, prob: float):
    """items: [(ids, refs)] -> dict of tensors for one training step."""
    T = max(len(ids) for ids, _ in items)
    ids = torch.full((len(items), T), PAD, dtype=torch.long)
    rows, cols, targets = [], [], []
    for i, (seq, refs) in enumerate(items):
        ids[i, :len(seq)] = torch.tensor(seq)
        for pos, target in refs:
            rows.append(i), cols.append(pos), targets.append(target)
    maskable = (ids >= len(SPECIALS)) & ~torch.isin(ids, pronoun_ids)     # ordinary words, never a pronoun
    inputs, labels = bert_mask(ids, maskable, prob, gen, vocab_size)
    return dict(inputs=inputs, labels=labels, rows=torch.tensor(rows, dtype=torch.long),
                cols=torch.tensor(cols, dtype=torch.long), targets=torch.tensor(targets, dtype=torch.long))


def loss_fn(model: CorefEncoder, batch):
    lm_logits, cloze_logits = model.forward_both(batch["inputs"], batch["rows"], batch["cols"])
    mlm = F.cross_entropy(lm_logits.flatten(0, 1), batch["labels"].flatten(), ignore_index=-100)
    cloze = F.cross_entropy(cloze_logits, batch["targets"]) if len(batch["targets"]) else 0.0
    return mlm + cloze, int((batch["inputs"] != PAD).sum())


def pronoun_ids(tokenizer: WordTokenizer) -> torch.Tensor:
    return torch.tensor([tokenizer.index[w] for w in corpus.PRONOUNS if w in tokenizer.index])


@torch.inference_mode()
def mlm_accuracy(model, tokenizer: WordTokenizer, samples, seed: int = 0) -> float:
    """Accuracy of the masked-LM head at masked positions (BERT masking, fixed seed)."""
    gen = torch.Generator().manual_seed(seed)
    items = encode_samples(tokenizer, samples)
    batch = collate(items, pronoun_ids(tokenizer), len(tokenizer), gen, RECIPE["mask_prob"])
    x = model.encode(batch["inputs"], mask=model.padding_mask(batch["inputs"])).x
    pred = model.lm_head(x).argmax(-1)
    sel = batch["labels"] != -100
    return float((pred[sel] == batch["labels"][sel]).float().mean())


def choose_head(model, tokenizer) -> list[int]:
    """[layer, head] with the best accuracy on the validation split (never on held-out data): its schema
    sentences and its passages, so the head must also resolve "they/their" across sentences."""
    n = RECIPE["eval_pairs"]
    val = corpus.eval_samples("val", n) + corpus.eval_samples("val", n // 3, passages=True)
    acc = head_accuracy(model, tokenizer, val)
    layer, head = np.unravel_index(int(acc.argmax()), acc.shape)
    return [int(layer), int(head)]


def metrics(model, tokenizer, head: list[int]) -> dict:
    """Figures of one head: held-out pairs and frames, minimal-pair accuracy, baselines, passages, the
    classic examples, and the masked-LM accuracy."""
    n = RECIPE["eval_pairs"]
    layer, h = head
    out = {"coref_head": list(head)}
    pairs_, frames_ = corpus.eval_samples("heldout_pairs", n), corpus.eval_samples("heldout_frames", n)
    hits_p, hits_f = ref_hits(model, tokenizer, pairs_)[layer, h], ref_hits(model, tokenizer, frames_)[layer, h]
    out["coref_acc_heldout_pairs"] = float(hits_p.mean())
    out["coref_acc_heldout_frames"] = float(hits_f.mean())
    out["coref_pair_acc_heldout"] = pair_accuracy(np.concatenate([hits_p, hits_f]), pairs_ + frames_)
    out.update(baselines(pairs_ + frames_))
    passages = corpus.eval_samples("heldout_pairs", n // 3, passages=True)
    hits_x = ref_hits(model, tokenizer, passages)[layer, h]
    out["coref_acc_passages"] = float(hits_x.mean())
    out["coref_pair_acc_passages"] = pair_accuracy(hits_x, passages)
    classic = [corpus.Sample(t, tuple(corpus.classic_refs(t)), pair_id=t) for t in corpus.CLASSIC_ANSWERS]
    out["coref_acc_classics"] = float(ref_hits(model, tokenizer, classic)[layer, h].mean())
    out["mlm_acc"] = mlm_accuracy(model, tokenizer, pairs_ + frames_)
    return out


def train(seed: int = 0) -> None:
    seed_everything(seed)
    t0 = time.perf_counter()
    tok = corpus.tokenizer()
    r = RECIPE
    model = CorefEncoder(coref_config(len(tok), r["max_len"]))
    batches = bucket(encode_samples(tok, corpus.training_samples(r["steps"] * r["batch"], seed)), r["batch"], seed=seed)
    gen = torch.Generator().manual_seed(seed)
    pron = pronoun_ids(tok)

    def next_batch(step):
        return collate(batches[step], pron, len(tok), gen, r["mask_prob"])

    history = fit(model, next_batch, loss_fn, r["steps"], lr=r["lr"], weight_decay=r["weight_decay"],
                  betas=r["betas"], clip=r["clip"], label=NAME)
    head = choose_head(model, tok)
    found = metrics(model, tok, head)
    found["train_seconds"] = round(time.perf_counter() - t0, 1)
    found["final_loss"] = round(float(np.mean(history[-20:])), 4)
    checkpoints.save(NAME, model, {
        "arch": "model.architectures.coref_encoder:CorefEncoder", "config": model.config.to_dict(),
        "tokenizer": tok.to_dict(),
        "modality": "text", "coref_head": head, "recipe": {**r, "seed": seed, "corpus": "model.data.course_world"},
        "metrics": found})
    print({k: v for k, v in found.items()})


def evaluate() -> dict:
    """Metrics of the shipped weights, with the head stored at training time (chosen on validation)."""
    model, meta = checkpoints.load(NAME)
    tok = WordTokenizer.from_dict(meta["tokenizer"])
    return metrics(model, tok, meta["coref_head"])
