"""zh_coref: the Chinese encoder taught to carry a pronoun's antecedent, as coref_encoder is for English, so a Chinese
text's 他 / 她 / 它 / 他们 / 她们 point at the words they stand for (小猫没有过马路，因为它太累了 -> 小猫).

Starts from the shipped zh_encoder weights (masked LM on the modern-Chinese corpus, docs/data-card-zh.md; train that
first) and its tokenizer (assets/bpe_zh_8k.json), and goes on with coref_encoder's three losses each step, summed
(model/training/recipes/coref_encoder.py, whose code runs here):
  - masked LM on windows of the Chinese corpus's train split, so it keeps reading real text;
  - masked LM on the Chinese course world (model/data/course_world_zh.py: Winograd-style sentences and sentences
    whose pronoun gender, number or syntax settles), 15% of pieces, never a pronoun;
  - the pronoun cloze: from the pronoun's final hidden state, predict the first piece of its antecedent.
Attention is never supervised; the head that resolves pronouns (`coref_head`) is chosen on validation data only:
the Chinese pronoun set's dev split (model/tasks/coref_realtext_zh.py), a tie broken by the course world's
validation split, in whole words as jieba cuts them. The set's test split and the course world's held-out splits
only report.

Time: one run is 25 minutes of CPU time (one thread; ATTENTION_LAB_BUDGET_MIN overrides), checkpointed under
~/.cache/attention-lab/ and resumable (ATTENTION_LAB_RESUME=1), `python -m model.train zh_coref`.
"""
from pathlib import Path

import numpy as np

from model import checkpoints
from model.architectures.coref_encoder import CorefEncoder
from model.data import bpe, text_input
from model.data import course_world_zh as course
from model.tasks import coref_realtext, coref_realtext_zh
from model.tasks.coreference import baselines, head_accuracy, pair_accuracy, ref_hits
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.loop import seed_everything
from model.training.recipes import coref_encoder, general_encoder, general_gpt, zh_encoder, zh_gpt

NAME = "zh_coref"
RECIPE = dict(init="zh_encoder", budget_min=25, checkpoint_min=5, batch=32, real_batch=8, context=128,
              lr=1e-3, weight_decay=0.01, betas=(0.9, 0.98), mask_prob=0.15, real_mask_prob=0.2,
              repeat_share=0.25, samples=120_000, eval_pairs=150, mixture=course.MIXTURE, max_train_docs=None,
              objective="masked LM (Chinese real text + Chinese course world) + pronoun cloze",
              corpus="model.data.zh_text (train split) + model.data.course_world_zh")


def tokenizer_of_init(r: dict):
    """The tokenizer of the encoder the recipe starts from (its shipped metadata)."""
    return text_input.tokenizer_of(checkpoints.read_meta(r["init"]))


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/zh_coref.*. overrides change
    RECIPE entries (tests start from a tiny encoder and draw few samples); folder holds the checkpoint."""
    r = {**RECIPE, **overrides, "seed": seed}
    seed_everything(seed)
    model = coref_encoder.initial_model(r["init"])
    tok = tokenizer_of_init(r)
    r["init_steps"] = checkpoints.read_meta(r["init"])["recipe"].get("steps_done")
    items = coref_encoder.encode_samples(tok, course.training_samples(r["samples"], seed, r["mixture"]),
                                         course.words, course.PRONOUNS)
    real = rtb.stream(zh_gpt.train_ids(tok, r), "encoder", seed)
    return finish(model, coref_encoder.run(NAME, model, len(tok), items, real, r, folder))


def finish(model: CorefEncoder, state: dict) -> dict:
    """Choose the head on validation, measure the weights as stored (float16) and write the assets."""
    r = state["recipe"]
    tok = tokenizer_of_init(r)
    shipped = resumable.untied(model).half().float().eval()
    head = choose_head(shipped, tok, r["eval_pairs"])
    found = {**metrics(shipped, tok, head, r["eval_pairs"]), **realtext_report(shipped, tok)}
    return coref_encoder.save(NAME, shipped, tok, head, state, found)


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    def build(r: dict) -> CorefEncoder:
        return resumable.tie(CorefEncoder(checkpoints.load(r["init"])[0].config))
    return finish(*resumable.latest(NAME, build, folder))


def realtext_report(model, tok) -> dict:
    """The Chinese pronoun set's figures (coref_realtext.report: head chosen on its dev split, test accuracy per
    cue and cued, first-noun and nearest-noun baselines), in jieba's words."""
    return coref_realtext.report(model, tok, sentences=coref_realtext_zh.load(), words=coref_realtext_zh.words)


def choose_head(model, tok, n: int) -> list[int]:
    """[layer, head] that resolves most pronouns of the Chinese pronoun set's dev split, a tie broken by accuracy
    on the course world's validation split (schema and agreement sentences); never held-out or test data."""
    val = course.eval_samples("val", n) + course.agreement_samples("val", n // 3)
    dev = coref_realtext.head_scores(model, tok, coref_realtext_zh.load(split="dev"), coref_realtext_zh.words)
    return coref_realtext.best_head(dev + 1e-3 * head_accuracy(model, tok, val))


def metrics(model, tok, head: list[int], n: int) -> dict:
    """Figures of one head on the course world (n minimal pairs per held-out set): held-out noun pairs and frames
    of the schemas, minimal-pair accuracy, the first- and nearest-noun baselines, the classic examples, the
    agreement sentences per cue (coref_encoder.agreement_metrics); masked-LM accuracy on course texts and on the
    Chinese corpus's held-out sample (zh_encoder's, beside always the most frequent training piece), and the best
    previous-token and induction heads."""
    layer, h = head
    out = {"coref_head": list(head)}
    pairs_, frames_ = course.eval_samples("heldout_pairs", n), course.eval_samples("heldout_frames", n)
    hits_p, hits_f = ref_hits(model, tok, pairs_)[layer, h], ref_hits(model, tok, frames_)[layer, h]
    out["coref_acc_heldout_pairs"] = float(hits_p.mean())
    out["coref_acc_heldout_frames"] = float(hits_f.mean())
    out["coref_pair_acc_heldout"] = pair_accuracy(np.concatenate([hits_p, hits_f]), pairs_ + frames_)
    out.update(baselines(pairs_ + frames_, course.words))
    out["coref_acc_classics"] = float(ref_hits(model, tok, course.classic_samples())[layer, h].mean())
    out.update(coref_encoder.agreement_metrics(model, tok, head, n, world=course))
    out["mlm_acc"] = coref_encoder.course_mlm_accuracy(model, tok, pairs_ + frames_, split=course.words,
                                                       pronouns=course.PRONOUNS)
    seqs, _ = zh_gpt.text_measures(tok, zh_encoder.RECIPE, "cls_sep")
    train = zh_gpt.train_ids(tok, zh_encoder.RECIPE)
    most_frequent = int(np.argmax(np.bincount(train.ids, minlength=len(tok))))
    acc, base = general_encoder.mlm_accuracy(model, seqs, zh_encoder.RECIPE["eval_mask_prob"], most_frequent)
    out["mlm_acc_heldout_real"], out["mlm_baseline_most_frequent_real"] = round(acc, 4), round(base, 4)
    out.update(general_gpt.head_measures(model, seqs, zh_encoder.RECIPE, prefix=[bpe.CLS], suffix=[bpe.SEP]))
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


def evaluate() -> dict:
    """Metrics of the shipped weights, with the head stored at training time (chosen on validation), and the
    Chinese pronoun set's figures, whose head is chosen on its dev split."""
    model, meta = checkpoints.load(NAME)
    tok = text_input.tokenizer_of(meta)
    return {**metrics(model, tok, meta["coref_head"], meta["recipe"]["eval_pairs"]), **realtext_report(model, tok)}
