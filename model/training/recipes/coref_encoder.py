"""coref_encoder: the general encoder taught to carry a pronoun's antecedent, so the explorer's default model
reads any text (byte-level BPE, assets/bpe_8k.json) and still resolves "it" -> "restaurant".

Starts from the shipped general_encoder weights (masked LM on the real-text corpus; train that first) and goes
on with three losses each step, summed:
  - masked LM on real-text windows (as general_encoder was trained), so it keeps reading real text;
  - masked LM on course-world texts (model/data/course_world.py: Winograd-style sentences and passages whose
    nouns grow from WordNet, and sentences whose pronoun gender, number or syntax settles: he/she with names and
    gendered nouns, it vs they, reflexives), 15% of pieces, never a pronoun;
  - the pronoun cloze: from the pronoun's final hidden state, predict the first piece of its antecedent.
Attention is never supervised; the head that resolves pronouns (`coref_head`) is chosen on validation data only:
the real-text pronoun set's dev split (model/tasks/coref_realtext.py), a tie broken by the course world's validation
split, in whole words (piece attention summed over a key word's pieces, averaged over a query word's). The real-text
set's test split and the course world's held-out splits only report.

Time: one run is 25 minutes of CPU time (one thread; ATTENTION_LAB_BUDGET_MIN overrides), checkpointed under
~/.cache/attention-lab/ and resumable like the general models (model/training/resumable.py).
"""
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.analysis.ablation_eval import head_effects
from model.architectures.coref_encoder import CorefEncoder
from model.data import bpe, real_text, text_input
from model.data import course_world as corpus
from model.data.word_tokenizer import split_words
from model.tasks import coref_realtext
from model.tasks.coreference import baselines, head_accuracy, pair_accuracy, ref_hits
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.loop import seed_everything
from model.training.objectives import bert_mask
from model.training.recipes import general_encoder, general_gpt

NAME = "coref_encoder"
RECIPE = dict(init="general_encoder", budget_min=25, checkpoint_min=5, batch=32, real_batch=8, context=128,
              lr=1e-3, weight_decay=0.01, betas=(0.9, 0.98), mask_prob=0.15, real_mask_prob=0.2,
              repeat_share=0.25, samples=120_000, eval_pairs=150, mixture=corpus.MIXTURE,
              objective="masked LM (real text + course world) + pronoun cloze",
              corpus="model.data.real_text (train split) + model.data.course_world")


def encode_samples(tok, samples, split=split_words,
                   pronouns=corpus.PRONOUNS) -> list[tuple[list[int], list[tuple[int, int]], list[int]]]:
    """-> (ids with [CLS]/[SEP], [(pronoun's first piece position, antecedent's first piece id)], positions of
    every piece of every pronoun word) per sample. A reference whose antecedent begins with the same piece as
    another candidate of the sample ("landlord", "landlady") has no cloze target: the first piece would not tell
    them apart. split(text) -> the words the samples' indices count (the encoding's words without [CLS] and
    [SEP]); pronouns: the words whose pieces are never masked."""
    out = []
    for s in samples:
        enc = text_input.encode(tok, s.text, "cls_sep")
        words = split(s.text)
        first = {w: enc.ids[enc.words[words.index(w) + 1][0]] for w in s.pair if w in words}
        refs = []
        for r in s.refs:
            target = enc.ids[enc.words[r.antecedent_index + 1][0]]
            if not any(t == target for w, t in first.items() if w != r.antecedent):
                refs.append((enc.words[r.pronoun_index + 1][0], target))
        spared = [p for i, w in enumerate(words) if w in pronouns for p in enc.words[i + 1]]
        out.append((enc.ids, refs, spared))
    return out


def collate(items, vocab_size: int, gen: torch.Generator, prob: float) -> dict:
    """[(ids, refs, spared)] -> padded masked inputs, labels (-100 where not masked) and the cloze sites; specials
    and the spared pronoun pieces are never masked."""
    T = max(len(ids) for ids, _, _ in items)
    ids = torch.full((len(items), T), bpe.PAD, dtype=torch.long)
    maskable = torch.ones((len(items), T), dtype=torch.bool)
    rows, cols, targets = [], [], []
    for i, (seq, refs, spared) in enumerate(items):
        ids[i, :len(seq)] = torch.tensor(seq)
        maskable[i, spared] = False
        for pos, target in refs:
            rows.append(i), cols.append(pos), targets.append(target)
    maskable &= ids >= len(bpe.SPECIALS)
    inputs, labels = bert_mask(ids, maskable, prob, gen, vocab_size)
    return dict(inputs=inputs, labels=labels, rows=torch.tensor(rows, dtype=torch.long),
                cols=torch.tensor(cols, dtype=torch.long), targets=torch.tensor(targets, dtype=torch.long))


def loss_fn(model: CorefEncoder, batch: dict):
    course, (real_inputs, real_labels) = batch["course"], batch["real"]
    pad = CorefEncoder.padding_mask(course["inputs"])
    x = model.encode(course["inputs"], mask=pad).x                                  # (B, T, C)
    chosen = course["labels"] != -100
    mlm = F.cross_entropy(model.lm_head(x[chosen]), course["labels"][chosen])
    cloze = F.cross_entropy(model.cloze_logits(x, course["rows"], course["cols"]), course["targets"])
    real_logits, real_targets = general_encoder.masked_logits(model, real_inputs, real_labels)
    loss = mlm + cloze + F.cross_entropy(real_logits, real_targets)
    return loss, int((course["inputs"] != bpe.PAD).sum()) + real_inputs.numel()


def initial_model(init: str = RECIPE["init"]) -> CorefEncoder:
    """A CorefEncoder of the shipped encoder `init`'s size holding its weights (the cloze head fresh), tied."""
    base, meta = checkpoints.load(init)
    model = CorefEncoder(base.config)
    missing, unexpected = model.load_state_dict(base.state_dict(), strict=False)
    if unexpected or any(not k.startswith("cloze_head.") for k in missing):
        raise ValueError(f"{init} does not fit a CorefEncoder: missing {missing}, unexpected {unexpected}")
    return resumable.tie(model)


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/coref_encoder.*."""
    r = {**RECIPE, **overrides, "seed": seed}
    seed_everything(seed)
    tok = bpe.load()
    model = initial_model()
    r["init_steps"] = checkpoints.read_meta(r["init"])["recipe"].get("steps_done")
    items = encode_samples(tok, corpus.training_samples(r["samples"], seed, r["mixture"]))
    real = rtb.stream(rtb.encode_split(tok, "train"), "encoder", seed)
    return finish(model, run(NAME, model, len(tok), items, real, r, folder))


def run(name: str, model: CorefEncoder, vocab_size: int, items: list, real, r: dict, folder: Path | None) -> dict:
    """One budgeted, resumable run (model/training/resumable.py) of the three losses: each step r["batch"] encoded
    course samples (encode_samples) and r["real_batch"] masked windows of the real-text id stream `real`, seeded
    from r["seed"] and the run's steps. Returns the run's state."""
    seed = r["seed"]

    def make_batches(state):
        rng = np.random.default_rng(seed + state["steps"])
        gen = torch.Generator().manual_seed(seed + state["steps"])
        windows = rtb.Windows(real, r["context"], "encoder", r["repeat_share"], seed=seed + state["steps"])

        def next_batch(step):
            picked = [items[i] for i in rng.integers(0, len(items), r["batch"])]
            return {"course": collate(picked, vocab_size, gen, r["mask_prob"]),
                    "real": rtb.mask_for_mlm(windows.batch(r["real_batch"]), vocab_size, gen, r["real_mask_prob"])}
        return next_batch

    state, _ = resumable.run(name, model, make_batches, loss_fn, r, Path(folder or real_text.cache_dir()))
    return state


def finish(model: CorefEncoder, state: dict) -> dict:
    """Choose the head on validation, measure the weights as stored (float16) and write the assets."""
    tok = bpe.load()
    shipped = resumable.untied(model).half().float().eval()
    head = choose_head(shipped, tok)
    found = {**metrics(shipped, tok, head), **coref_realtext.report(shipped, tok)}
    return save(NAME, shipped, tok, head, state, found)


def save(name: str, shipped: CorefEncoder, tok, head: list[int], state: dict, found: dict) -> dict:
    """Write assets/<name>.* (float16 weights, the tokenizer, the chosen head, the recipe with the run's state and
    the metrics found) and print the metrics; returns them."""
    r = state["recipe"]
    checkpoints.save(name, shipped.half(), {
        "arch": "model.architectures.coref_encoder:CorefEncoder", "config": shipped.config.to_dict(),
        "tokenizer": tok.to_dict(), "text_input": "cls_sep", "modality": "text", "coref_head": head,
        "recipe": {**r, "steps_done": state["steps"], "tokens_seen": state["tokens"],
                   "train_cpu_seconds": state["train_seconds"], "train_wall_seconds": state.get("wall_seconds"),
                   "runs": state["runs"], "final_loss": state.get("last_loss")},
        "metrics": found})
    print(found, flush=True)
    return found


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    base = checkpoints.load(RECIPE["init"])[0].config
    return finish(*resumable.latest(NAME, lambda r: resumable.tie(CorefEncoder(base)), folder))


def choose_head(model, tok) -> list[int]:
    """[layer, head] that resolves most pronouns of ordinary sentences on the real-text set's dev split
    (model/tasks/coref_realtext.py), a tie broken by accuracy on the course world's validation split (its schema
    sentences, passages, and gender, number and structure sentences); never held-out or test data."""
    n = RECIPE["eval_pairs"]
    val = (corpus.eval_samples("val", n) + corpus.eval_samples("val", n // 3, passages=True)
           + corpus.agreement_samples("val", n // 3))
    dev = coref_realtext.head_scores(model, tok, coref_realtext.load(split="dev"))
    return coref_realtext.best_head(dev + 1e-3 * head_accuracy(model, tok, val))


@torch.inference_mode()
def course_mlm_accuracy(model, tok, samples, seed: int = 0, split=split_words, pronouns=corpus.PRONOUNS) -> float:
    """Accuracy of the masked-LM head at masked pieces of course-world texts (BERT masking, fixed seed); split and
    pronouns as for encode_samples."""
    gen = torch.Generator().manual_seed(seed)
    batch = collate(encode_samples(tok, samples, split, pronouns), len(tok), gen, RECIPE["mask_prob"])
    x = model.encode(batch["inputs"], mask=model.padding_mask(batch["inputs"])).x
    sel = batch["labels"] != -100
    return float((model.lm_head(x[sel]).argmax(-1) == batch["labels"][sel]).float().mean())


def metrics(model, tok, head: list[int]) -> dict:
    """Figures of one head: held-out pairs and frames, minimal-pair accuracy, baselines, passages, the classic
    examples, how many held-out sentences hold a word outside the old course vocabulary, masked-LM accuracy on
    course texts and on held-out real text, and the best previous-token and induction heads."""
    n = RECIPE["eval_pairs"]
    layer, h = head
    out = {"coref_head": list(head)}
    pairs_, frames_ = corpus.eval_samples("heldout_pairs", n), corpus.eval_samples("heldout_frames", n)
    hits_p, hits_f = ref_hits(model, tok, pairs_)[layer, h], ref_hits(model, tok, frames_)[layer, h]
    out["coref_acc_heldout_pairs"] = float(hits_p.mean())
    out["coref_acc_heldout_frames"] = float(hits_f.mean())
    out.update(ablation_metrics(model, tok, pairs_, head))
    out["coref_pair_acc_heldout"] = pair_accuracy(np.concatenate([hits_p, hits_f]), pairs_ + frames_)
    out.update(baselines(pairs_ + frames_))
    old_words = corpus.core_words()
    out["heldout_share_new_words"] = float(np.mean([any(w not in old_words for w in split_words(s.text))
                                                    for s in pairs_ + frames_]))
    passages = corpus.eval_samples("heldout_pairs", n // 3, passages=True)
    hits_x = ref_hits(model, tok, passages)[layer, h]
    out["coref_acc_passages"] = float(hits_x.mean())
    out["coref_pair_acc_passages"] = pair_accuracy(hits_x, passages)
    classic = [corpus.Sample(t, tuple(corpus.classic_refs(t)), pair_id=t) for t in corpus.CLASSIC_ANSWERS]
    out["coref_acc_classics"] = float(ref_hits(model, tok, classic)[layer, h].mean())
    out.update(agreement_metrics(model, tok, head, n))
    out["mlm_acc"] = course_mlm_accuracy(model, tok, pairs_ + frames_)
    seqs, _ = general_encoder.text_measures(tok, general_encoder.RECIPE, "cls_sep")
    acc, _ = general_encoder.mlm_accuracy(model, seqs, general_encoder.RECIPE["eval_mask_prob"],
                                          general_encoder.most_frequent_id(tok))
    out["mlm_acc_heldout_real"] = round(acc, 4)
    out.update(general_gpt.head_measures(model, seqs, general_encoder.RECIPE, prefix=[bpe.CLS], suffix=[bpe.SEP]))
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


def agreement_metrics(model, tok, head: list[int], n: int, world=corpus) -> dict:
    """One head on the agreement sentences: per cue with names and nouns training never saw, all cues in the
    held-out frames, and minimal-pair accuracy over both (each pair flips the pronoun's gender, number or form).
    world: the course world module (its CUES and agreement_samples)."""
    layer, h = head
    out, hits, samples = {}, [], []
    for cue in world.CUES:
        held = world.agreement_samples("heldout_pairs", n // 3, cues=(cue,))
        hits.append(ref_hits(model, tok, held)[layer, h])
        samples += held
        out[f"coref_acc_heldout_{cue}"] = float(hits[-1].mean())
    frames = world.agreement_samples("heldout_frames", n // 3)
    hits.append(ref_hits(model, tok, frames)[layer, h])
    out["coref_acc_heldout_frames_agreement"] = float(hits[-1].mean())
    out["coref_pair_acc_heldout_agreement"] = pair_accuracy(np.concatenate(hits), samples + frames)
    return out


def ablation_metrics(model, tok, samples, head) -> dict:
    """The model's own answer (the cloze head choosing between the sentence's two nouns) on held-out pairs, with
    the coreference head zero-ablated, and the largest drop any single other head's zero ablation causes."""
    effects = head_effects(model, tok, samples, tuple(head), "zero")
    other, drop = effects.largest_other()
    return {"coref_answer_acc_heldout_pairs": effects.answer_base,
            "coref_acc_heldout_pairs_without_coref_head": float(effects.answer_without[tuple(head)]),
            "coref_acc_max_drop_other_head": drop, "coref_acc_max_drop_other_head_at": list(other),
            "coref_ablation": "zero"}


def evaluate() -> dict:
    """Metrics of the shipped weights, with the head stored at training time (chosen on validation), and the
    real-text pronoun set's figures (model/tasks/coref_realtext.py), whose head is chosen on its dev split."""
    model, meta = checkpoints.load(NAME)
    tok = text_input.tokenizer_of(meta)
    return {**metrics(model, tok, meta["coref_head"]), **coref_realtext.report(model, tok)}
