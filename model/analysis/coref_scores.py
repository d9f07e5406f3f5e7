"""Every head of a coreference model scored at once: argmax accuracy on the course world's held-out sets (the
sets `python -m model.evaluate` reports on) against the first-noun and nearest-noun baselines, and the real-text
pronoun set's figures of the head chosen on its dev split (model/tasks/coref_realtext.py). The course world is
imported when a figure is asked for: building it takes seconds, and the result types are needed sooner."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class HeldOut:
    """The held-out course-world samples: n_pairs minimal pairs with held-out noun pairs, as many with held-out
    frames (2 * n_pairs sentences each), and n_pairs // 3 pairs of passages."""
    pairs: list                      # model.data.course_world.Sample
    frames: list
    passages: list

    @property
    def sentences(self) -> list:
        return self.pairs + self.frames


def heldout_pairs(n_pairs: int) -> list:
    """Both sides of n_pairs minimal pairs whose noun pairs training never saw (course_world.Sample)."""
    from model.data import course_world as corpus
    return corpus.eval_samples("heldout_pairs", n_pairs)


def heldout_sets(n_pairs: int) -> HeldOut:
    """The held-out sets of a coreference recipe that measures on n_pairs pairs (its recipe's "eval_pairs")."""
    from model.data import course_world as corpus
    return HeldOut(heldout_pairs(n_pairs), corpus.eval_samples("heldout_frames", n_pairs),
                   corpus.eval_samples("heldout_pairs", n_pairs // 3, passages=True))


def heldout_texts(n: int) -> list[str]:
    """n held-out course-world sentences (both sides of (n + 1) // 2 minimal pairs with held-out noun pairs)."""
    from model.data import course_world as corpus
    return [s.text for s in corpus.eval_samples("heldout_pairs", (n + 1) // 2)][:n]


@dataclass(frozen=True)
class HeadAccuracy:
    accuracy: np.ndarray             # (L, H) share of pronouns whose row's argmax is the antecedent
    n_refs: int                      # pronouns measured
    baseline_first_noun: float       # on the single sentences
    baseline_nearest_noun: float


def heldout_accuracy(model, tokenizer, n_pairs: int) -> HeadAccuracy:
    """Argmax accuracy of every head on the held-out sentences and passages, with the baselines on the sentences."""
    from model.tasks.coreference import baselines, head_accuracy
    held = heldout_sets(n_pairs)
    samples = held.sentences + held.passages
    acc = head_accuracy(model, tokenizer, samples)
    return HeadAccuracy(acc, sum(len(s.refs) for s in samples), **baselines(held.sentences))


@dataclass(frozen=True)
class RealTextFigures:
    """A model on the real-text pronoun set. head: chosen on dev; test_acc (L, H) every head on the test split;
    cues: cue -> {"n", "model", "first", "nearest"}, hits of the chosen head and of the baselines on the test
    split (counts), "cued" and "all" included."""
    head: tuple[int, int]
    test_acc: np.ndarray
    cues: dict


def realtext_figures(model, tokenizer, chinese: bool = False, head: tuple[int, int] | None = None) -> RealTextFigures:
    """The head that scores best on the dev split (or the given one), and how it and the baselines do on the test
    split by cue. chinese: the Chinese pronoun set (model/tasks/coref_realtext_zh.py), in jieba's words."""
    from model.tasks import coref_realtext as rt
    from model.tasks import coref_realtext_zh as zh
    load, words = (zh.load, zh.words) if chinese else (rt.load, rt.split_words)
    test = load(split="test")
    head = list(head) if head is not None else rt.best_head(rt.head_scores(model, tokenizer, load(split="dev"), words))
    hits = rt.sentence_hits(model, tokenizer, test, words)                       # (L, H, S)
    groups = {cue: [i for i, s in enumerate(test) if s.cue == cue] for cue in rt.CUES}
    groups["cued"] = [i for i, s in enumerate(test) if s.cue in rt.CUED]
    groups["all"] = list(range(len(test)))
    first, nearest = rt.baseline_hits(test, rt.first_noun), rt.baseline_hits(test, rt.nearest_noun)
    cues = {cue: {"n": len(ix), "model": int(hits[head[0], head[1], ix].sum()), "first": int(first[ix].sum()),
                  "nearest": int(nearest[ix].sum())} for cue, ix in groups.items()}
    return RealTextFigures(tuple(head), hits.mean(-1), cues)
